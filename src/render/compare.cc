#include "render/compare.h"

#include <cmath>
#include <cstdio>

#include "io/units.h"
#include "render/diff.h"
#include "render/escape.h"

namespace trtlens {
namespace {

using json = nlohmann::ordered_json;

template <class T>
json opt(const std::optional<T>& v) {
  return v ? json(*v) : json();
}
template <class T>
json opt(const Maybe<T>& v) {
  return v ? json(*v) : json();
}

std::string opt_ms(const std::optional<double>& v) { return v ? human_ms(*v) : "-"; }

std::string latency_text(const Latency& l) {
  auto v = l.median_ms ? l.median_ms : l.mean_ms;
  if (l.source == Latency::Source::None || !v) return "-";
  return human_ms(*v) + " (" + to_string(l.source) + ")";
}

const Layer* layer_at(const CompareResult& c, const CompareRow& r, size_t k) {
  int i = r.cells[k].layer;
  return i >= 0 ? &c.builds[k]->layers[size_t(i)] : nullptr;
}

// The row's name: the reference build's layer, else the first build that has one.
std::string row_name(const CompareResult& c, const CompareRow& r) {
  for (size_t k = 0; k < r.cells.size(); ++k)
    if (const Layer* l = layer_at(c, r, k)) return l->name;
  return "";
}

}  // namespace

json compare_json(const CompareResult& c) {
  json j;
  j["schema"] = "trtlens-compare/1";
  auto builds = json::array();
  for (size_t k = 0; k < c.sides.size(); ++k) {
    json b;
    b["index"] = k + 1;
    const json side = diff_side_json(c.sides[k]);
    for (const auto& [key, v] : side.items()) b[key] = v;
    builds.push_back(std::move(b));
  }
  j["builds"] = std::move(builds);
  auto rows = json::array();
  for (const auto& r : c.rows) {
    json row;
    row["name"] = row_name(c, r);
    const Layer* ref = layer_at(c, r, 0);
    row["onnx_nodes"] = ref ? json(ref->onnx_nodes) : json::array();
    auto cells = json::array();
    for (size_t k = 0; k < r.cells.size(); ++k) {
      const Layer* l = layer_at(c, r, k);
      if (!l) {
        cells.push_back(nullptr);
        continue;
      }
      json x;
      x["layer"] = l->name;
      x["index"] = r.cells[k].layer;
      x["type"] = l->type;
      x["role"] = to_string(l->role);
      x["precision"] = layer_precision(*l);
      x["output_dtype"] = output_dtype(*l);
      x["tactic"] = opt(l->tactic);
      x["average_ms"] = opt(l->time.average_ms);
      if (k > 0) {
        x["aligned_by"] = to_string(r.cells[k].by);
        x["confidence"] = r.cells[k].confidence;
      }
      cells.push_back(std::move(x));
    }
    row["builds"] = std::move(cells);
    rows.push_back(std::move(row));
  }
  j["rows"] = std::move(rows);
  return j;
}

TextTable compare_totals_table(const CompareResult& c) {
  TextTable t;
  t.headers = {"build",  "inputs", "TensorRT", "layers", "running reformats", "sum of layer time",
               "latency"};
  t.right_align = {true, false, false, true, true, true, true};
  for (size_t k = 0; k < c.sides.size(); ++k) {
    const DiffSide& s = c.sides[k];
    t.rows.push_back({std::to_string(k + 1), s.label, s.trt_version, std::to_string(s.layers),
                      s.reformats ? std::to_string(*s.reformats) : "-", opt_ms(s.sum_layer_ms),
                      latency_text(s.latency)});
  }
  return t;
}

TextTable compare_rows_table(const CompareResult& c, bool terminal) {
  TextTable t;
  t.headers = {"layer"};
  t.right_align = {false};
  const size_t n = c.builds.size();
  for (size_t k = 0; k < n; ++k) {
    std::string p = std::to_string(k + 1) + " ";
    for (const char* h : {"type", "precision", "tactic", "time"}) {
      t.headers.push_back(p + h);
      t.right_align.push_back(std::string(h) == "time");
    }
    if (k > 0 && !terminal) {
      t.headers.push_back(p + "aligned by");
      t.right_align.push_back(false);
    }
  }
  for (const auto& r : c.rows) {
    std::vector<std::string> row = {row_name(c, r)};
    for (size_t k = 0; k < n; ++k) {
      const Layer* l = layer_at(c, r, k);
      if (!l) {
        row.insert(row.end(), {"-", "", "", ""});
        if (k > 0 && !terminal) row.push_back("");
        continue;
      }
      std::string prec = layer_precision(*l), out = output_dtype(*l);
      if (!out.empty() && out != prec) prec += "->" + out;
      row.push_back(l->type);
      row.push_back(prec);
      row.push_back(l->tactic.value_or(""));
      row.push_back(l->time.average_ms ? human_ms(*l->time.average_ms) : "");
      if (k > 0 && !terminal) row.push_back(to_string(r.cells[k].by));
    }
    t.rows.push_back(std::move(row));
  }
  return t;
}

void write_compare(const CompareResult& c, const std::string& format, std::ostream& os) {
  if (format == "table") {
    write_terminal_table(compare_totals_table(c), os, 60);
    os << '\n';
    write_terminal_table(compare_rows_table(c, true), os, 48);
  } else if (format == "md") {
    os << "## trtlens compare\n\n";
    write_markdown_table(compare_totals_table(c), os);
    os << '\n';
    write_markdown_table(compare_rows_table(c, false), os);
  } else if (format == "csv") {
    write_csv(compare_rows_table(c, false), os);
  } else {  // html: one self-contained page, nothing fetched
    auto table = [&os](const TextTable& t) {
      os << "<table>\n<thead><tr>";
      for (const auto& h : t.headers) os << "<th>" << escape_html(h) << "</th>";
      os << "</tr></thead>\n<tbody>\n";
      for (const auto& r : t.rows) {
        os << "<tr>";
        for (size_t i = 0; i < r.size(); ++i)
          os << (i < t.right_align.size() && t.right_align[i] ? "<td class=\"n\">" : "<td>")
             << escape_html(r[i]) << "</td>";
        os << "</tr>\n";
      }
      os << "</tbody></table>\n";
    };
    os << "<!DOCTYPE html>\n<html><head><meta charset=\"utf-8\"><title>trtlens compare</title>\n"
          "<style>body{font:13px sans-serif;margin:1em}table{border-collapse:collapse;"
          "margin-bottom:1.5em}th,td{border:1px solid #ccc;padding:2px 6px;text-align:left}"
          "td.n{text-align:right}th{background:#f0f0f0;position:sticky;top:0}</style>"
          "</head><body>\n<h1>trtlens compare</h1>\n<h2>Builds</h2>\n";
    table(compare_totals_table(c));
    os << "<h2>Layers</h2>\n";
    table(compare_rows_table(c, false));
    os << "</body></html>\n";
  }
}

}  // namespace trtlens
