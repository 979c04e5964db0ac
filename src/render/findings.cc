#include "render/findings.h"

#include <algorithm>

#include "render/escape.h"
#include "render/json.h"
#include "render/text_table.h"

namespace trtlens {

using ojson = nlohmann::ordered_json;

std::vector<const Finding*> findings_for(const Capture& c,
                                         const std::vector<const Build*>& builds) {
  std::vector<const Finding*> out;
  for (const auto& f : c.findings) {
    bool wanted = f.build < 0 || std::any_of(builds.begin(), builds.end(),
                                             [&](const Build* b) { return b->id == f.build; });
    if (wanted) out.push_back(&f);
  }
  return out;
}

ojson finding_json(const Finding& f) {
  ojson j;
  j["id"] = f.id;
  j["severity"] = to_string(f.severity);
  j["build"] = f.build < 0 ? ojson(nullptr) : ojson(f.build);
  j["message"] = f.message;
  j["layers"] = f.layers;
  j["onnx_nodes"] = f.onnx_nodes;
  j["evidence"] = f.evidence;
  j["hint"] = f.hint;
  return j;
}

ojson findings_json(const std::vector<const Finding*>& fs) {
  ojson a = ojson::array();
  for (const Finding* f : fs) a.push_back(finding_json(*f));
  return a;
}

namespace {

std::string counts(const std::vector<const Finding*>& fs) {
  size_t n[3] = {0, 0, 0};
  for (const Finding* f : fs) ++n[int(f->severity)];
  return std::to_string(fs.size()) + " (" + std::to_string(n[2]) + " error, " +
         std::to_string(n[1]) + " warning, " + std::to_string(n[0]) + " info)";
}

// Evidence on one line, without the per-item lists (those go to json).
std::string evidence_line(const ojson& e) {
  std::string s;
  for (const auto& [k, v] : e.items()) {
    if (v.is_array() && !v.empty() && v.front().is_object()) continue;
    if (!s.empty()) s += ", ";
    s += k + "=" + (v.is_string() ? v.get<std::string>() : dump_json(v, -1));
  }
  return s;
}

}  // namespace

void write_findings_text(const std::vector<const Finding*>& fs, std::ostream& os) {
  os << "findings: " << counts(fs) << '\n';
  for (const Finding* f : fs) {
    os << '\n' << paint_severity(f->severity) << ' ' << f->id;
    if (f->build >= 0) os << " (build " << f->build << ')';
    os << ": " << escape_terminal(f->message) << '\n';
    if (!f->layers.empty()) {
      os << "  layers:";
      for (size_t i = 0; i < f->layers.size() && i < 8; ++i)
        os << (i ? "; " : " ") << escape_terminal(f->layers[i]);
      if (f->layers.size() > 8) os << "; ... " << f->layers.size() - 8 << " more";
      os << '\n';
    }
    if (!f->onnx_nodes.empty()) {
      os << "  onnx nodes:";
      for (const auto& n : f->onnx_nodes) os << ' ' << escape_terminal(n);
      os << '\n';
    }
    if (auto e = evidence_line(f->evidence); !e.empty())
      os << "  evidence: " << escape_terminal(e) << '\n';
    if (auto items = f->evidence.find("items"); items != f->evidence.end()) {
      size_t shown = 0;
      for (const auto& it : *items) {
        if (++shown > 5) {
          os << "    ... " << items->size() - 5 << " more (--format json lists all)\n";
          break;
        }
        std::string conversion = it.value("conversion", "");
        std::string formats = it.value("from_format", "") + " -> " + it.value("to_format", "");
        os << "    " << escape_terminal(it.value("layer", "")) << ": "
           << escape_terminal(conversion);
        if (formats != conversion) os << ", " << escape_terminal(formats);
        if (it.contains("between")) {
          const auto& b = it["between"];
          os << ", between " << escape_terminal(b.value("from", "")) << " and ";
          std::string to;
          for (const auto& t : b["to"]) to += (to.empty() ? "" : ", ") + t.get<std::string>();
          os << escape_terminal(to.empty() ? "nothing" : to);
        }
        os << '\n';
      }
    }
    if (!f->hint.empty()) os << "  hint: " << escape_terminal(f->hint) << '\n';
  }
}

void write_findings_markdown(const std::vector<const Finding*>& fs, std::ostream& os) {
  os << "## Findings: " << counts(fs) << "\n\n";
  for (const Finding* f : fs) {
    os << "- **" << to_string(f->severity) << "** `" << f->id << '`';
    if (f->build >= 0) os << " (build " << f->build << ')';
    os << ": " << escape_markdown(f->message) << '\n';
    if (!f->layers.empty()) {
      os << "  - layers:";
      for (size_t i = 0; i < f->layers.size() && i < 8; ++i)
        os << (i ? ", " : " ") << escape_markdown(f->layers[i]);
      if (f->layers.size() > 8) os << ", ... " << f->layers.size() - 8 << " more";
      os << '\n';
    }
    if (!f->onnx_nodes.empty()) {
      os << "  - ONNX nodes:";
      for (const auto& n : f->onnx_nodes) os << ' ' << escape_markdown(n);
      os << '\n';
    }
    if (auto e = evidence_line(f->evidence); !e.empty())
      os << "  - evidence: " << escape_markdown(e) << '\n';
    if (!f->hint.empty()) os << "  - hint: " << escape_markdown(f->hint) << '\n';
  }
}

void write_findings_brief(const std::vector<const Finding*>& fs, std::ostream& os, size_t limit) {
  if (fs.empty()) return;
  os << "\nfindings: " << counts(fs) << '\n';
  for (size_t i = 0; i < fs.size() && i < limit; ++i)
    os << "  " << paint_severity(fs[i]->severity) << ' ' << fs[i]->id << ": "
       << escape_terminal(fs[i]->message) << '\n';
  if (fs.size() > limit)
    os << "  ... " << fs.size() - limit << " more (trtlens findings shows all)\n";
}

}  // namespace trtlens
