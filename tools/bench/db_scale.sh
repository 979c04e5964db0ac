#!/bin/bash
# The store at scale: generates CAPTURES bundles of LAYERS layers each (tools/bench/make_captures.py),
# then measures `trtlens db add` (captures/s), a trend query and a raw SQL query, and checks
# that the file opens in Python's sqlite3 module (and DuckDB where installed).
# Usage: tools/bench/db_scale.sh [path/to/trtlens] [CAPTURES] [LAYERS]   (defaults: 10000, 500)
set -euo pipefail
cd "$(dirname "$0")/../.."
TRTLENS=$(readlink -f "${1:-build/trtlens}")
N=${2:-10000}
L=${3:-500}
DIR=$(mktemp -d)
trap 'rm -rf "$DIR"' EXIT
now() { date +%s%N; }
secs() { awk -v a="$1" -v b="$2" 'BEGIN{printf "%.3f", (b - a) / 1e9}'; }

python3 tools/bench/make_captures.py "$DIR/captures" "$N" "$L"
echo "load average: $(cut -d' ' -f1-3 /proc/loadavg); cores: $(nproc)"
t0=$(now)
/usr/bin/time -f '%M %U %S' -o "$DIR/rss" "$TRTLENS" db add -q "$DIR/store.db" "$DIR/captures" >"$DIR/add.out"
t1=$(now)
add_s=$(secs "$t0" "$t1")
read -r rss_k user_s sys_s <"$DIR/rss"
cpu_s=$(awk -v u="$user_s" -v s="$sys_s" 'BEGIN{printf "%.2f", u + s}')
echo "db add: $N captures, $((N * L)) layers in $add_s s wall, $cpu_s s CPU: $(awk -v n="$N" -v s="$add_s" 'BEGIN{printf "%.0f", n / s}') captures/s wall, $(awk -v n="$N" -v s="$cpu_s" -v c="$(nproc)" 'BEGIN{printf "%.0f", n / s * c}') captures/s if the $(nproc) cores were free (goal >= 100); peak RSS $((rss_k / 1024)) MiB, file $(($(stat -c %s "$DIR/store.db") / 1048576)) MiB"
tail -n 1 "$DIR/add.out"
t0=$(now)
"$TRTLENS" db trend "$DIR/store.db" --model model07 --target orin-agx --metric latency >/dev/null
t1=$(now)
echo "db trend (latency of one model and target): $(secs "$t0" "$t1") s (goal <= 1 s)"
t0=$(now)
"$TRTLENS" db query "$DIR/store.db" "SELECT model, count(*) FROM build_history GROUP BY model" >/dev/null
t1=$(now)
echo "db query (builds per model): $(secs "$t0" "$t1") s"
t0=$(now)
"$TRTLENS" db add -q "$DIR/store.db" "$DIR/captures" | tail -n 1
t1=$(now)
echo "db add again (all already stored): $(secs "$t0" "$t1") s"
python3 - "$DIR/store.db" <<'PY'
import sqlite3, sys
c = sqlite3.connect(f"file:{sys.argv[1]}?mode=ro", uri=True)
n = c.execute("SELECT count(*) FROM layers").fetchone()[0]
print(f"python sqlite3: {n} layer rows readable")
PY
if python3 -c 'import duckdb' 2>/dev/null; then
  python3 -c "import duckdb,sys; print('duckdb:', duckdb.sql(\"INSTALL sqlite; LOAD sqlite; SELECT count(*) FROM sqlite_scan('$DIR/store.db', 'captures')\").fetchone())"
else
  echo "duckdb: not installed here (not in Debian 12); the file is plain SQLite 3"
fi
