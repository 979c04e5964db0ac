#include "render/trend.h"

#include <algorithm>
#include <cmath>
#include <iomanip>
#include <set>
#include <sstream>

#include <nlohmann/json.hpp>

#include "render/escape.h"
#include "render/json.h"
#include "render/text_table.h"

namespace trtlens {
namespace {

using ojson = nlohmann::ordered_json;

std::string cell(const sql::Value& v) {
  if (std::holds_alternative<std::monostate>(v)) return "";
  if (auto* i = std::get_if<int64_t>(&v)) return std::to_string(*i);
  if (auto* d = std::get_if<double>(&v)) {
    std::ostringstream os;
    os << std::setprecision(15) << *d;
    return os.str();
  }
  return std::get<std::string>(v);
}

ojson json_value(const sql::Value& v) {
  if (std::holds_alternative<std::monostate>(v)) return nullptr;
  if (auto* i = std::get_if<int64_t>(&v)) return *i;
  if (auto* d = std::get_if<double>(&v)) return std::isfinite(*d) ? ojson(*d) : ojson(nullptr);
  return std::get<std::string>(v);
}

std::string number(std::optional<double> v, int precision = 4) {
  if (!v) return "";
  if (!std::isfinite(*v)) return *v > 0 ? "+inf" : "-inf";
  std::ostringstream os;
  os << std::setprecision(precision + 2) << *v;
  return os.str();
}

std::string percent(std::optional<double> v) {
  if (!v) return "";
  if (!std::isfinite(*v)) return "new";
  std::ostringstream os;
  os << std::showpos << std::fixed << std::setprecision(1) << *v << '%';
  return os.str();
}

std::vector<std::string> precisions_of(const Trend& t) {
  std::set<std::string> all;
  for (const auto& p : t.points)
    for (const auto& [k, v] : p.precision_layers) all.insert(k);
  return {all.begin(), all.end()};
}

TextTable trend_table(const Trend& t) {
  TextTable tab;
  tab.headers = {"date", "capture", "build", "trt", "target"};
  const bool precision = t.metric == TrendMetric::Precision;
  std::vector<std::string> dts = precisions_of(t);
  if (precision)
    for (const auto& d : dts) tab.headers.push_back(d);
  else
    tab.headers.push_back(std::string(to_string(t.metric)) + " (" + unit_of(t.metric) + ")");
  tab.headers.push_back("change");
  tab.right_align.assign(tab.headers.size(), false);
  for (size_t i = 5; i < tab.headers.size(); ++i) tab.right_align[i] = true;
  tab.right_align[1] = tab.right_align[2] = true;
  for (const auto& p : t.points) {
    std::vector<std::string> row = {p.date, std::to_string(p.capture_id),
                                    std::to_string(p.build_id), p.trt_version, p.target};
    if (precision) {
      for (const auto& d : dts) {
        auto it = p.precision_layers.find(d);
        row.push_back(it == p.precision_layers.end() ? "0" : std::to_string(it->second));
      }
    } else {
      row.push_back(number(p.value));
    }
    row.push_back(percent(p.change_percent));
    tab.rows.push_back(std::move(row));
  }
  return tab;
}

TextTable jump_table(const Trend& t, const TrendJump& j) {
  (void)t;
  TextTable tab;
  tab.headers = {"layer", "change", "before", "after", "delta ms"};
  tab.right_align = {false, false, false, false, true};
  for (const auto& c : j.changes)
    tab.rows.push_back({c.layer, c.what, c.before, c.after, number(c.delta_ms)});
  return tab;
}

std::string gate_line(const TrendGate& g) {
  std::string s = std::string(g.failed ? "FAIL" : g.evaluated ? "pass" : "skip") + " " + g.text;
  if (g.evaluated) s += ": " + number(g.base) + " -> " + number(g.head);
  if (!g.note.empty()) s += " (" + g.note + ")";
  return s;
}

ojson trend_json(const Trend& t, const std::vector<TrendGate>& gates) {
  ojson j;
  j["schema"] = "trtlens-trend/1";
  j["model"] = t.model;
  j["target"] = t.target.empty() ? ojson(nullptr) : ojson(t.target);
  j["metric"] = to_string(t.metric);
  j["unit"] = unit_of(t.metric);
  j["points"] = ojson::array();
  for (const auto& p : t.points) {
    ojson o = {{"capture_id", p.capture_id}, {"build_id", p.build_id}, {"date", p.date},
               {"trt_version", p.trt_version}, {"target", p.target}};
    o["value"] = p.value && std::isfinite(*p.value) ? ojson(*p.value) : ojson(nullptr);
    o["change_percent"] = p.change_percent && std::isfinite(*p.change_percent)
                              ? ojson(*p.change_percent)
                              : ojson(nullptr);
    if (t.metric == TrendMetric::Latency) o["latency_source"] = p.latency_source;
    if (!p.precision_layers.empty()) o["precision_layers"] = p.precision_layers;
    j["points"].push_back(std::move(o));
  }
  j["jumps"] = ojson::array();
  for (const auto& jp : t.jumps) {
    ojson o = {{"capture_id", t.points[jp.point].capture_id}, {"changes", ojson::array()}};
    for (const auto& c : jp.changes)
      o["changes"].push_back({{"layer", c.layer},
                              {"change", c.what},
                              {"before", c.before},
                              {"after", c.after},
                              {"delta_ms", c.delta_ms ? ojson(*c.delta_ms) : ojson(nullptr)}});
    j["jumps"].push_back(std::move(o));
  }
  j["gates"] = ojson::array();
  for (const auto& g : gates)
    j["gates"].push_back({{"gate", g.text},
                          {"evaluated", g.evaluated},
                          {"failed", g.failed},
                          {"base", g.base ? ojson(*g.base) : ojson(nullptr)},
                          {"head", g.head ? ojson(*g.head) : ojson(nullptr)},
                          {"note", g.note}});
  return j;
}

// A line chart of the metric over the builds, in the order stored (x is the build's rank, not
// its date: nightly builds skip days).
void write_svg(const Trend& t, std::ostream& os) {
  const double W = 720, H = 320, L = 70, R = 20, T = 30, B = 50;
  std::vector<std::pair<size_t, double>> pts;
  for (size_t i = 0; i < t.points.size(); ++i)
    if (t.points[i].value && std::isfinite(*t.points[i].value))
      pts.push_back({i, *t.points[i].value});
  double lo = 0, hi = 1;
  if (!pts.empty()) {
    lo = hi = pts.front().second;
    for (auto& [i, v] : pts) lo = std::min(lo, v), hi = std::max(hi, v);
    if (lo > 0 && lo < hi * 0.5) lo = 0;
    if (hi == lo) hi = lo + (lo == 0 ? 1 : std::fabs(lo) * 0.1);
  }
  const size_t n = std::max<size_t>(t.points.size(), 2);
  auto x = [&](size_t i) { return L + (W - L - R) * double(i) / double(n - 1); };
  auto y = [&](double v) { return T + (H - T - B) * (1 - (v - lo) / (hi - lo)); };
  os << "<svg xmlns=\"http://www.w3.org/2000/svg\" viewBox=\"0 0 " << W << ' ' << H
     << "\" width=\"" << W << "\" height=\"" << H << "\" font-family=\"sans-serif\" font-size=\"11\">\n";
  os << "<title>" << escape_html(t.model) << ": " << to_string(t.metric) << "</title>\n";
  os << "<text x=\"" << L << "\" y=\"18\" font-size=\"13\">" << escape_html(t.model)
     << (t.target.empty() ? "" : " on " + escape_html(t.target)) << " — " << to_string(t.metric)
     << " (" << unit_of(t.metric) << ")</text>\n";
  os << "<line x1=\"" << L << "\" y1=\"" << H - B << "\" x2=\"" << W - R << "\" y2=\"" << H - B
     << "\" stroke=\"#888\"/>\n<line x1=\"" << L << "\" y1=\"" << T << "\" x2=\"" << L
     << "\" y2=\"" << H - B << "\" stroke=\"#888\"/>\n";
  for (double v : {lo, (lo + hi) / 2, hi})
    os << "<text x=\"" << L - 6 << "\" y=\"" << y(v) + 4 << "\" text-anchor=\"end\">"
       << number(v, 3) << "</text>\n";
  size_t step = std::max<size_t>(1, t.points.size() / 8);
  for (size_t i = 0; i < t.points.size(); i += step)
    os << "<text x=\"" << x(i) << "\" y=\"" << H - B + 16 << "\" text-anchor=\"middle\">"
       << escape_html(t.points[i].date.substr(0, 10)) << "</text>\n";
  if (!pts.empty()) {
    os << "<polyline fill=\"none\" stroke=\"#1f77b4\" stroke-width=\"2\" points=\"";
    for (auto& [i, v] : pts) os << x(i) << ',' << y(v) << ' ';
    os << "\"/>\n";
  }
  std::set<size_t> jumps;
  for (const auto& j : t.jumps) jumps.insert(j.point);
  for (auto& [i, v] : pts)
    os << "<circle cx=\"" << x(i) << "\" cy=\"" << y(v) << "\" r=\"" << (jumps.count(i) ? 5 : 3)
       << "\" fill=\"" << (jumps.count(i) ? "#d62728" : "#1f77b4") << "\"><title>capture "
       << t.points[i].capture_id << ", " << escape_html(t.points[i].date) << ": " << number(v)
       << ' ' << unit_of(t.metric) << "</title></circle>\n";
  os << "<text x=\"" << W - R << "\" y=\"" << H - 8 << "\" text-anchor=\"end\" fill=\"#555\">"
     << "red: a jump (layer changes listed)</text>\n";
  os << "</svg>\n";
}

}  // namespace

void write_query_result(const QueryResult& r, const std::string& format, std::ostream& os) {
  if (format == "json") {
    ojson rows = ojson::array();
    for (const auto& row : r.rows) {
      ojson o = ojson::object();
      for (size_t i = 0; i < r.columns.size(); ++i) o[r.columns[i]] = json_value(row[i]);
      rows.push_back(std::move(o));
    }
    os << dump_json(rows) << '\n';
    return;
  }
  TextTable t;
  t.headers = r.columns;
  t.right_align.assign(r.columns.size(), false);
  for (const auto& row : r.rows) {
    std::vector<std::string> cells;
    for (size_t i = 0; i < row.size(); ++i) {
      cells.push_back(cell(row[i]));
      if (!std::holds_alternative<std::string>(row[i]) &&
          !std::holds_alternative<std::monostate>(row[i]))
        t.right_align[i] = true;
    }
    t.rows.push_back(std::move(cells));
  }
  write_table(t, format, os);
}

void write_trend(const Trend& t, const std::vector<TrendGate>& gates, const std::string& format,
                 std::ostream& os) {
  if (format == "json") {
    os << dump_json(trend_json(t, gates)) << '\n';
    return;
  }
  if (format == "svg") {
    write_svg(t, os);
    return;
  }
  if (format == "html") {
    os << "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">"
          "<meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; "
          "style-src 'unsafe-inline'\"><title>trtlens trend: "
       << escape_html(t.model) << "</title><style>body{font-family:sans-serif;margin:1em}"
       << "table{border-collapse:collapse}td,th{border:1px solid #ccc;padding:2px 6px}"
       << ".scroll{overflow-x:auto}</style></head><body>\n<h1>" << escape_html(t.model)
       << (t.target.empty() ? "" : " on " + escape_html(t.target)) << ": "
       << to_string(t.metric) << "</h1>\n";
    write_svg(t, os);
    if (!gates.empty()) {
      os << "<h2>Gates</h2><ul>\n";
      for (const auto& g : gates) os << "<li>" << escape_html(gate_line(g)) << "</li>\n";
      os << "</ul>\n";
    }
    auto table = [&](const TextTable& tab) {
      os << "<div class=\"scroll\"><table><tr>";
      for (const auto& h : tab.headers) os << "<th>" << escape_html(h) << "</th>";
      os << "</tr>\n";
      for (const auto& r : tab.rows) {
        os << "<tr>";
        for (const auto& c : r) os << "<td>" << escape_html(c) << "</td>";
        os << "</tr>\n";
      }
      os << "</table></div>\n";
    };
    os << "<h2>Builds</h2>\n";
    table(trend_table(t));
    for (const auto& j : t.jumps) {
      os << "<h2>What changed in capture " << t.points[j.point].capture_id << "</h2>\n";
      table(jump_table(t, j));
    }
    os << "</body></html>\n";
    return;
  }
  // table, csv, md
  const bool text = format == "table";
  if (text)
    os << escape_terminal(t.model) << (t.target.empty() ? "" : " on " + escape_terminal(t.target))
       << ": " << to_string(t.metric) << " over " << t.points.size() << " build(s)\n";
  else if (format == "md")
    os << "## " << escape_markdown(t.model)
       << (t.target.empty() ? "" : " on " + escape_markdown(t.target)) << ": "
       << to_string(t.metric) << "\n\n";
  write_table(trend_table(t), format, os);
  if (format == "csv") return;
  for (const auto& j : t.jumps) {
    const TrendPoint& p = t.points[j.point];
    os << '\n'
       << (text ? "" : "### ") << "capture " << p.capture_id << " (" << (text ? escape_terminal(p.date) : escape_markdown(p.date))
       << "): " << percent(p.change_percent) << ", what changed:\n";
    if (!text) os << '\n';
    write_table(jump_table(t, j), format, os);
  }
  if (!gates.empty()) {
    os << '\n' << (text ? "gates:\n" : "### Gates\n\n");
    for (const auto& g : gates) os << (text ? "  " : "- ") << (text ? escape_terminal(gate_line(g)) : escape_markdown(gate_line(g))) << '\n';
  }
}

}  // namespace trtlens
