#include "ingest/tuning_cache.h"

#include <limits>
#include <nlohmann/json.hpp>

#include "model/values.h"

namespace trtlens {

using ojson = nlohmann::ordered_json;

bool looks_like_tuning_cache(std::string_view body) {
  const std::string_view first = body.substr(0, body.find('\n'));
  return first.find("\"tuner_version\"") != std::string_view::npos ||
         (first.find("\"build_route\"") != std::string_view::npos &&
          first.find("\"iter\"") != std::string_view::npos);
}

uint64_t ingest_tuning_cache(LineReader& lines, Assembler& out, const std::string& path) {
  Line line;
  size_t read = 0;
  TuningRun* run = nullptr;
  while (lines.next(line)) {
    std::string_view text = trim(line.text);
    if (text.empty()) continue;
    const SourceLoc at{path, line.number};
    ojson j = ojson::parse(text.begin(), text.end(), nullptr, false);
    if (j.is_discarded() || !j.is_object()) {
      out.unrecognized(at, "tuning cache line is not a JSON object");
      continue;
    }
    if (!run) run = &out.tuning_run(at, "cache");
    ++read;
    if (j.contains("tuner_version")) {
      run->header = j;
      if (auto it = j.find("default_build_route"); it != j.end() && it->is_string())
        run->default_route = it->get<std::string>();
      continue;
    }
    auto iter = j.find("iter");
    if (iter == j.end() || !iter->is_number_integer()) {
      out.unrecognized(at, "tuning cache object without \"iter\" or \"tuner_version\"");
      continue;
    }
    TunerIteration it;
    it.iter = iter->get<int>();
    it.source = at;
    if (auto v = j.find("build_route"); v != j.end() && v->is_string())
      it.route = v->get<std::string>();
    if (auto v = j.find("crash"); v != j.end() && v->is_boolean()) it.crash = v->get<bool>();
    if (auto v = j.find("error_message"); v != j.end() && v->is_string())
      it.error_message = v->get<std::string>();
    if (auto v = j.find("gpu_time"); v != j.end() && v->is_number())
      it.gpu_time_ms = v->get<double>();
    if (auto v = j.find("accuracy_loss"); v != j.end() && v->is_object())
      for (const auto& [tensor, loss] : v->items())
        it.accuracy_loss.emplace_back(tensor, loss.is_number()
                                                  ? loss.get<double>()
                                                  : std::numeric_limits<double>::quiet_NaN());
    if (auto a = run->header.find("accuracy_algorithm"); a != run->header.end() && a->is_string())
      it.accuracy_algorithm = a->get<std::string>();
    run->iterations.push_back(std::move(it));
  }
  if (read == 0) throw InputError(path, "tuning cache without a readable JSON line");
  // The cache names no winner: the fastest iteration that neither crashed nor failed is it.
  // Accuracy failures are not in the cache itself (only the loss), so every finished one counts.
  for (const auto& it : run->iterations) {
    if (it.crash || !it.gpu_time_ms) continue;
    if (!run->best_gpu_ms || *it.gpu_time_ms < *run->best_gpu_ms) {
      run->best_gpu_ms = it.gpu_time_ms;
      run->best_iter = it.iter;
      run->best_route = it.route;
      run->best_source = it.source;
    }
  }
  return lines.lines();
}

}  // namespace trtlens
