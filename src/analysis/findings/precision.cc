// Precision islands: layers left at FP32 in a build that allows lower precisions.
#include <algorithm>
#include <numeric>
#include <sstream>

#include "analysis/findings/rules.h"
#include "analysis/summary.h"

namespace trtlens::findings {
namespace {

using ojson = nlohmann::ordered_json;

// Lower precisions the build allows, from the build options when the log has them.
struct Allowed {
  std::vector<std::string> precisions;  // FP16, BF16, INT8, FP8, INT4
  std::string source;                   // "build options" / "inferred from tensor types"
  bool strongly_typed = false;
};

Allowed allowed_precisions(const BuildView& v) {
  Allowed a;
  std::string option = v.run ? v.run->build_option("Precision") : "";
  if (!option.empty()) {
    a.source = "build options";
    if (option.find("Strongly Typed") != std::string::npos) a.strongly_typed = true;
    for (const char* p : {"FP16", "BF16", "INT8", "FP8", "INT4"})
      if (option.find(p) != std::string::npos) a.precisions.push_back(p);
    return a;
  }
  a.source = "inferred from tensor types";
  std::set<std::string> seen;
  for (const auto& l : v.build.layers)
    for (const auto* ts : {&l.inputs, &l.outputs})
      for (const auto& t : *ts) seen.insert(t.dtype);
  for (const char* p : {"FP16", "BF16", "INT8", "FP8", "INT4"})
    if (seen.count(p)) a.precisions.push_back(p);
  return a;
}

// Op types that commonly have no reduced-precision kernel.
const char* float_only_op(const Layer& l) {
  static const char* ops[] = {"TopK",      "NonZero", "NonMaxSuppression",
                              "ScatterND", "Scatter", "GatherElements",
                              "CumSum",    "Cumsum",  "Range",
                              "ArgMax",    "ArgMin",  "Einsum"};
  for (const char* op : ops)
    if (l.name.find(op) != std::string::npos || l.type.str().find(op) != std::string::npos)
      return op;
  return nullptr;
}

int find_root(std::vector<int>& parent, int i) {
  while (parent[size_t(i)] != i) i = parent[size_t(i)] = parent[size_t(parent[size_t(i)])];
  return i;
}

}  // namespace

void precision_rules(const BuildView& v, std::vector<Finding>& out) {
  Allowed allowed = allowed_precisions(v);
  if (allowed.precisions.empty() || allowed.strongly_typed) return;
  const auto& layers = v.build.layers;
  std::vector<int> candidates;
  std::vector<int> parent(layers.size());
  std::iota(parent.begin(), parent.end(), 0);
  std::vector<bool> is_candidate(layers.size(), false);
  for (size_t i = 0; i < layers.size(); ++i) {
    const Layer& l = layers[i];
    // Q/DQ layers convert by definition; qdq-unfused reports the standalone ones.
    if (is_reformat(l) || is_bookkeeping(l) || is_qdq_layer(l) || compute_dtype(l) != "FP32")
      continue;
    is_candidate[i] = true;
    candidates.push_back(int(i));
  }
  // Connected FP32 layers form one island.
  for (int i : candidates)
    for (const auto& t : layers[size_t(i)].outputs)
      if (auto c = v.consumers.find(t.name); c != v.consumers.end())
        for (int j : c->second)
          if (is_candidate[size_t(j)]) parent[size_t(find_root(parent, j))] = find_root(parent, i);
  std::map<int, std::vector<int>> islands;
  for (int i : candidates) islands[find_root(parent, i)].push_back(i);

  bool build_has_qdq = false;
  for (const auto& l : layers) {
    if (mentions_qdq(l) || l.attributes.string("Origin") == "QDQ") build_has_qdq = true;
  }
  bool int8_allowed = std::find(allowed.precisions.begin(), allowed.precisions.end(), "INT8") !=
                      allowed.precisions.end();
  std::string allowed_text;
  for (const auto& p : allowed.precisions) allowed_text += (allowed_text.empty() ? "" : "+") + p;

  for (const auto& [root, members] : islands) {
    std::vector<std::string> reasons;
    bool any_qdq = false, reformat_before = false, reformat_after = false;
    double share = 0;
    for (int i : members) {
      const Layer& l = layers[size_t(i)];
      any_qdq = any_qdq || mentions_qdq(l);
      share += v.share(i).value_or(0);
      for (const auto& t : l.inputs) {
        if (v.graph_inputs.count(t.name) && t.dtype == "FP32")
          reasons.push_back("reads graph input " + t.name + " in FP32");
        auto p = v.producer.find(t.name);
        if (p != v.producer.end() && is_reformat(layers[size_t(p->second)]) &&
            !layers[size_t(p->second)].inputs.empty() &&
            precision_rank(layers[size_t(p->second)].inputs.front().dtype) < 3)
          reformat_before = true;
      }
      for (const auto& t : l.outputs) {
        if (v.graph_outputs.count(t.name) && t.dtype == "FP32")
          reasons.push_back("writes graph output " + t.name +
                            " in FP32 (output binding precision)");
        if (auto c = v.consumers.find(t.name); c != v.consumers.end())
          for (int j : c->second)
            if (is_reformat(layers[size_t(j)]) && !layers[size_t(j)].outputs.empty() &&
                precision_rank(layers[size_t(j)].outputs.front().dtype) < 3)
              reformat_after = true;
      }
      if (const char* op = float_only_op(l))
        reasons.push_back(std::string(op) + " often has no reduced-precision kernel");
    }
    if (reformat_before && reformat_after)
      reasons.push_back("a reformat pair converts into FP32 and back around it");
    if (int8_allowed && build_has_qdq && !any_qdq)
      reasons.push_back("no Q/DQ around the node while the model is explicitly quantized");
    if (reasons.empty())
      reasons.push_back("no reason visible in the inputs (check layer precision constraints)");
    // Keep the first (most specific) mention of each reason.
    std::vector<std::string> unique;
    for (auto& r : reasons)
      if (std::find(unique.begin(), unique.end(), r) == unique.end()) unique.push_back(r);
    reasons = std::move(unique);

    std::string msg = std::to_string(members.size()) + " layer" +
                      (members.size() == 1 ? " runs" : "s run") +
                      " in FP32 while the build allows " + allowed_text + ": " +
                      layers[size_t(members.front())].name;
    if (members.size() > 1) msg += " and " + std::to_string(members.size() - 1) + " more";
    msg += " (likely: " + reasons.front() + ")";
    Finding f = make_finding(v, "precision-island", Severity::Warning, msg,
                             "Quantize/convert the island (Q/DQ around it, or "
                             "--layerPrecisions) or accept it if the op needs FP32.");
    for (int i : members) add_layer(f, layers[size_t(i)]);
    f.evidence = {{"precision", "FP32"},
                  {"allowed", allowed.precisions},
                  {"allowed_from", allowed.source},
                  {"layers", members.size()},
                  {"reasons", reasons}};
    if (v.has_time) f.evidence["time_share_percent"] = share;
    out.push_back(std::move(f));
  }
}

}  // namespace trtlens::findings
