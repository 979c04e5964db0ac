#include "ingest/metadata_json.h"

#include <cmath>
#include <cstdio>
#include <nlohmann/json.hpp>

#include "ingest/json_text.h"
#include "io/input.h"

namespace trtlens {
namespace {

using ojson = nlohmann::ordered_json;

constexpr std::string_view kSections[] = {"model_options", "build_options", "inference_options",
                                          "device_information", "performance_summary"};

// "%g"-style with up to 6 significant digits, as trtexec prints its figures.
std::string number_text(double v) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%g", v);
  return buf;
}

std::string value_text(const ojson& v) {
  if (v.is_string()) return v.get<std::string>();
  if (v.is_number_integer()) return std::to_string(v.get<int64_t>());
  if (v.is_number()) return number_text(v.get<double>());
  return v.dump();
}

// TREx turned some device figures into bare floats; trtexec printed them with units. Put the
// units back so a run read from metadata compares with one read from a log.
std::string device_value(const std::string& key, const ojson& v) {
  if (!v.is_number()) return value_text(v);
  const double d = v.get<double>();
  if (key == "Compute Capability") {
    char buf[32];
    std::snprintf(buf, sizeof buf, "%.1f", d);
    return buf;
  }
  if (key == "SMs") return number_text(d);
  if (key == "Compute Clock Rate" || key == "Memory Clock Rate") return number_text(d) + " GHz";
  if (key == "Memory Bus Width") return number_text(d) + " bits";
  return number_text(d);
}

void read_key_values(const ojson& obj, KeyValues& into, bool device) {
  for (const auto& [k, v] : obj.items())
    into.emplace_back(k, device ? device_value(k, v) : value_text(v));
}

// TREx keeps the statistics of a summary line as a list in printed order: min, max, mean,
// median, then the percentiles (one, 99%, up to TRT 8.4; 90%, 95%, 99% from 8.5).
void read_summary(const ojson& obj, RunInfo& run, Assembler& out, const std::string& path) {
  static const char* const kFive[] = {"min", "max", "mean", "median", "percentile(99%)"};
  static const char* const kSeven[] = {
      "min", "max", "mean", "median", "percentile(90%)", "percentile(95%)", "percentile(99%)"};
  for (const auto& [metric, v] : obj.items()) {
    if (v.is_number()) {
      std::string unit = metric == "Throughput" ? "qps" : metric.rfind("Total ", 0) == 0 ? "s" : "";
      run.perf.push_back(PerfFigure{metric, "", v.get<double>(), unit});
      continue;
    }
    if (!v.is_array() || (v.size() != 5 && v.size() != 7)) {
      out.unrecognized({path, 1}, "performance summary entry '" + metric +
                                      "' is neither a number nor a 5- or 7-value list");
      continue;
    }
    for (size_t i = 0; i < v.size(); ++i) {
      if (!v[i].is_number()) {
        out.unrecognized({path, 1},
                         "performance summary entry '" + metric + "' holds a non-number");
        continue;
      }
      const char* stat = v.size() == 5 ? kFive[i] : kSeven[i];
      run.perf.push_back(PerfFigure{metric, stat, v[i].get<double>(), "ms"});
    }
  }
}

// utils/device_info.py: raw CUDA device attributes. The figures trtexec's Device Information
// prints are derived from them under trtexec's own names and units.
void read_device_list(const ojson& list, RunInfo& run, Assembler& out, const std::string& path) {
  const ojson& d = list[0];
  if (list.size() > 1)
    out.diagnostic(Severity::Info, {path, 1},
                   std::to_string(list.size()) + " devices listed; read the first");
  KeyValues& kv = run.device;
  auto num = [&](const char* key) -> std::optional<double> {
    auto it = d.find(key);
    if (it == d.end() || !it->is_number()) return std::nullopt;
    return it->get<double>();
  };
  if (auto it = d.find("Name"); it != d.end() && it->is_string())
    kv.emplace_back("Selected Device", it->get<std::string>());
  if (auto it = d.find("ComputeCapability"); it != d.end() && it->is_array() && it->size() == 2)
    kv.emplace_back("Compute Capability", value_text((*it)[0]) + "." + value_text((*it)[1]));
  if (auto v = num("MULTIPROCESSOR_COUNT")) kv.emplace_back("SMs", number_text(*v));
  if (auto v = num("CLOCK_RATE"))
    kv.emplace_back("Compute Clock Rate", number_text(*v / 1e6) + " GHz");
  if (auto v = num("TotalMemory"))
    kv.emplace_back("Device Global Memory", number_text(std::floor(*v / 1048576)) + " MiB");
  if (auto v = num("MAX_SHARED_MEMORY_PER_MULTIPROCESSOR"))
    kv.emplace_back("Shared Memory per SM", number_text(std::floor(*v / 1024)) + " KiB");
  if (auto v = num("GLOBAL_MEMORY_BUS_WIDTH"))
    kv.emplace_back("Memory Bus Width", number_text(*v) + " bits");
  if (auto v = num("MEMORY_CLOCK_RATE"))
    kv.emplace_back("Memory Clock Rate", number_text(*v / 1e6) + " GHz");
  if (auto it = d.find("CUDA_VERSION"); it != d.end() && it->is_array()) {
    std::string s;
    for (const auto& part : *it) s += (s.empty() ? "" : ".") + value_text(part);
    kv.emplace_back("CUDA Version", s);
  }
  if (auto v = num("L2_CACHE_SIZE"))
    kv.emplace_back("L2 Cache Size", number_text(*v / 1048576) + " MiB");
}

}  // namespace

bool looks_like_trex_metadata(std::string_view body) {
  if (body.empty()) return false;
  const std::string_view head = body.substr(0, 4096);
  if (body[0] == '{') {
    // The first key names a TREx section (json.dump keeps the writer's key order).
    size_t q = head.find('"');
    if (q == std::string_view::npos) return false;
    for (std::string_view key : kSections)
      if (head.substr(q + 1, key.size() + 1) == std::string(key) + "\"") return true;
    return false;
  }
  return body[0] == '[' && head.find("\"ComputeCapability\"") != std::string_view::npos &&
         head.find("\"Layers\"") == std::string_view::npos;
}

void ingest_metadata_json(const std::string& text, Assembler& out, const std::string& path) {
  JsonSanitizeResult clean = sanitize_json(text);
  if (clean.too_deep) throw InputError(path, "JSON nested deeper than 512 levels");
  ojson root;
  try {
    root = ojson::parse(clean.text);
  } catch (const nlohmann::json::exception& e) {
    const std::string what = e.what();
    throw InputError(path, "invalid JSON: " + what.substr(what.find(']') + 2));
  }
  RunInfo& run = out.run_info({path, 1});
  if (root.is_array()) {
    if (root.empty() || !root[0].is_object())
      throw InputError(path, "device metadata list without a device object");
    read_device_list(root, run, out, path);
    return;
  }
  if (!root.is_object()) throw InputError(path, "TREx metadata is neither an object nor a list");
  for (const auto& [key, v] : root.items()) {
    if (key == "performance_summary" && v.is_object())
      read_summary(v, run, out, path);
    else if (key == "model_options" && v.is_object())
      read_key_values(v, run.model_options, false);
    else if (key == "build_options" && v.is_object())
      read_key_values(v, run.build_options, false);
    else if (key == "inference_options" && v.is_object())
      read_key_values(v, run.inference_options, false);
    else if (key == "device_information" && v.is_object())
      read_key_values(v, run.device, true);
    else
      out.unrecognized({path, 1}, "metadata section '" + key + "' not read");
  }
}

}  // namespace trtlens
