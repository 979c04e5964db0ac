#include "store/schema.h"

namespace trtlens {

// Every capture is one transaction of inserts into these tables. Names are stored verbatim.
// Sizes are bytes, times milliseconds; NULL means the inputs did not say.
const char* const kStoreSchema = R"sql(
CREATE TABLE captures (
  id            INTEGER PRIMARY KEY,
  content_hash  TEXT NOT NULL UNIQUE,   -- SHA-256 over the capture's input files
  added_at      TEXT NOT NULL,          -- UTC, ISO 8601
  source        TEXT NOT NULL,          -- the inputs as given to `db add`
  model         TEXT,
  target        TEXT,
  trt_version   TEXT,
  build_date    TEXT,                   -- ISO 8601 where known (manifest, --label date=)
  git_revision  TEXT
);
CREATE INDEX captures_by_model ON captures (model, target, build_date);

CREATE TABLE labels (
  capture_id  INTEGER NOT NULL REFERENCES captures (id),
  key         TEXT NOT NULL,
  value       TEXT NOT NULL,
  PRIMARY KEY (capture_id, key)
) WITHOUT ROWID;

CREATE TABLE inputs (
  capture_id    INTEGER NOT NULL REFERENCES captures (id),
  path          TEXT NOT NULL,
  kind          TEXT NOT NULL,
  lines         INTEGER,
  unrecognized  INTEGER
);

CREATE TABLE builds (
  id                     INTEGER PRIMARY KEY,
  capture_id             INTEGER NOT NULL REFERENCES captures (id),
  build_index            INTEGER NOT NULL,
  final                  INTEGER NOT NULL,
  kind                   TEXT NOT NULL,
  source_path            TEXT,
  source_line            INTEGER,
  trt_version            TEXT,
  layers                 INTEGER NOT NULL,
  running_layers         INTEGER,
  elided_layers          INTEGER,
  reformat_layers        INTEGER,
  reformat_bytes         INTEGER,
  reformat_ms            REAL,
  weights_bytes          INTEGER,
  activation_io_bytes    INTEGER,
  sum_layer_ms           REAL,
  peak_activation_bytes  INTEGER,
  latency_source         TEXT,          -- times | performance-summary | profile-sum
  latency_median_ms      REAL,
  latency_p99_ms         REAL,
  latency_mean_ms        REAL,
  latency_cv_percent     REAL,
  latency_queries        INTEGER
);
CREATE INDEX builds_by_capture ON builds (capture_id);

CREATE TABLE layers (
  build_id           INTEGER NOT NULL REFERENCES builds (id),
  idx                INTEGER NOT NULL,   -- engine order
  name               TEXT NOT NULL,
  type               TEXT,
  role               TEXT NOT NULL,      -- runs | elided | reformat | unknown
  tactic             TEXT,
  precision          TEXT,               -- first output's dtype
  average_ms         REAL,
  median_ms          REAL,
  time_percent       REAL,
  input_bytes        INTEGER,
  weight_bytes       INTEGER,
  output_bytes       INTEGER,
  footprint_bytes    INTEGER,            -- inputs + weights + outputs
  host_persistent    INTEGER,
  device_persistent  INTEGER,
  scratch            INTEGER,
  PRIMARY KEY (build_id, idx)
) WITHOUT ROWID;

CREATE TABLE tensors (
  build_id   INTEGER NOT NULL,
  layer_idx  INTEGER NOT NULL,
  io         TEXT NOT NULL CHECK (io IN ('in', 'out')),
  pos        INTEGER NOT NULL,
  name       TEXT NOT NULL,
  dtype      TEXT,
  dims       TEXT,                       -- JSON array, negatives kept
  format     TEXT,
  PRIMARY KEY (build_id, layer_idx, io, pos)
) WITHOUT ROWID;

CREATE TABLE onnx_nodes (                -- provenance: the ONNX nodes each layer implements
  build_id   INTEGER NOT NULL,
  layer_idx  INTEGER NOT NULL,
  node       TEXT NOT NULL,
  op_type    TEXT,
  PRIMARY KEY (build_id, layer_idx, node)
) WITHOUT ROWID;

CREATE TABLE profile_rows (
  build_id    INTEGER NOT NULL REFERENCES builds (id),
  pos         INTEGER NOT NULL,
  name        TEXT NOT NULL,
  total_ms    REAL,
  average_ms  REAL,
  median_ms   REAL,
  percentage  REAL,
  PRIMARY KEY (build_id, pos)
) WITHOUT ROWID;

CREATE TABLE runs (
  id                  INTEGER PRIMARY KEY,
  capture_id          INTEGER NOT NULL REFERENCES captures (id),
  run_index           INTEGER NOT NULL,
  path                TEXT,
  line                INTEGER,
  status              TEXT,
  trt_version         TEXT,
  command_line        TEXT,
  device              TEXT,
  queries             INTEGER,         -- an --exportTimes trace: its statistics
  latency_median_ms   REAL,
  latency_p99_ms      REAL,
  latency_mean_ms     REAL,
  latency_cv_percent  REAL,
  throughput_qps      REAL
);

CREATE TABLE run_figures (               -- the performance summary, as printed
  run_id  INTEGER NOT NULL REFERENCES runs (id),
  metric  TEXT NOT NULL,
  stat    TEXT NOT NULL,
  value   REAL NOT NULL,
  unit    TEXT
);

CREATE TABLE memory (                    -- TensorRT's figures and the estimates, per build
  build_id  INTEGER NOT NULL REFERENCES builds (id),
  figure    TEXT NOT NULL,
  value     REAL NOT NULL,
  PRIMARY KEY (build_id, figure)
) WITHOUT ROWID;

CREATE TABLE findings (
  capture_id  INTEGER NOT NULL REFERENCES captures (id),
  build_id    INTEGER,
  finding     TEXT NOT NULL,
  severity    TEXT NOT NULL,
  message     TEXT NOT NULL,
  layers      TEXT                       -- JSON array of layer names
);

CREATE TABLE remarks (                   -- trtlens explain
  capture_id  INTEGER NOT NULL REFERENCES captures (id),
  build_id    INTEGER,
  kind        TEXT NOT NULL,             -- passed | missed | analysis
  category    TEXT,                      -- precision | fusion | reformat | dla | tuner
  layer       TEXT,
  onnx_nodes  TEXT,                      -- JSON array
  reason      TEXT,
  evidence    TEXT,                      -- JSON array of "file:line"
  scope       TEXT,
  repeats     INTEGER
);

CREATE TABLE diagnostics (
  capture_id  INTEGER NOT NULL REFERENCES captures (id),
  severity    TEXT NOT NULL,
  path        TEXT,
  line        INTEGER,
  message     TEXT NOT NULL
);

-- The final build of every capture, with the capture's labels: one row per stored build.
CREATE VIEW build_history AS
  SELECT c.id AS capture_id, c.model, c.target, c.trt_version AS capture_trt_version,
         COALESCE(c.build_date, c.added_at) AS date, c.git_revision, b.*
  FROM builds b JOIN captures c ON c.id = b.capture_id
  WHERE b.final = 1;

-- The newest final build per model and target.
CREATE VIEW latest_builds AS
  SELECT * FROM build_history h
  WHERE h.id = (SELECT h2.id FROM build_history h2
                WHERE h2.model IS h.model AND h2.target IS h.target
                ORDER BY h2.date DESC, h2.capture_id DESC LIMIT 1);

-- Layers that run, by precision, per build: count and time.
CREATE VIEW precision_mix AS
  SELECT build_id, COALESCE(precision, '?') AS precision, COUNT(*) AS layers,
         SUM(average_ms) AS ms
  FROM layers WHERE role <> 'elided'
  GROUP BY build_id, COALESCE(precision, '?');

-- Per-layer time of every stored build, with the labels to filter by.
CREATE VIEW layer_times AS
  SELECT h.model, h.target, h.date, h.capture_id, l.build_id, l.idx, l.name, l.type, l.role,
         l.precision, l.average_ms
  FROM layers l JOIN build_history h ON h.id = l.build_id;
)sql";

}  // namespace trtlens
