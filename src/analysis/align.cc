#include "analysis/align.h"

#include <algorithm>
#include <deque>
#include <functional>
#include <numeric>
#include <unordered_map>

namespace trtlens {

const char* to_string(AlignedBy a) {
  switch (a) {
    case AlignedBy::Onnx:
      return "onnx";
    case AlignedBy::Name:
      return "name";
    case AlignedBy::Signature:
      return "signature";
    case AlignedBy::None:
      return "none";
  }
  return "none";
}

std::string layer_signature(const Layer& l) {
  std::string s;
  auto pt = l.attributes.find("ParameterType");
  s = (pt != l.attributes.end() && pt->is_string()) ? pt->get<std::string>() : l.type;
  auto add = [&s](const std::vector<Tensor>& ts) {
    s += '|';
    for (size_t i = 0; i < ts.size(); ++i) {
      if (i) s += ',';
      const auto& d = ts[i].dims;
      for (size_t k = 1; k < d.size(); ++k) {
        if (k > 1) s += 'x';
        s += std::to_string(d[k]);
      }
    }
  };
  add(l.inputs);
  add(l.outputs);
  return s;
}

namespace {

struct UnionFind {
  std::vector<int> p;
  explicit UnionFind(size_t n) : p(n) { std::iota(p.begin(), p.end(), 0); }
  int find(int x) {
    while (p[size_t(x)] != x) x = p[size_t(x)] = p[size_t(p[size_t(x)])];
    return x;
  }
  void unite(int a, int b) { p[size_t(find(a))] = find(b); }
};

// Pairs layers that share ONNX nodes. Connected components of the bipartite "shares a node"
// graph are the fusion groups; inside one, layers pair by most nodes in common.
void align_by_onnx(const Build& base, const Build& head, std::vector<int>& b2h,
                   std::vector<int>& h2b, std::vector<AlignedBy>& by, std::vector<int>& group_of,
                   std::vector<int>& head_group, std::vector<FusionGroup>& groups) {
  const size_t nb = base.layers.size(), nh = head.layers.size();
  std::unordered_map<std::string, int> head_of_node;
  for (size_t h = 0; h < nh; ++h)
    for (const auto& n : head.layers[h].onnx_nodes) head_of_node.emplace(n, int(h));
  UnionFind uf(nb + nh);
  std::vector<bool> touched(nb + nh, false);
  for (size_t b = 0; b < nb; ++b)
    for (const auto& n : base.layers[b].onnx_nodes) {
      auto it = head_of_node.find(n);
      if (it == head_of_node.end()) continue;
      uf.unite(int(b), int(nb) + it->second);
      touched[b] = touched[nb + size_t(it->second)] = true;
    }
  // Components in base order.
  std::unordered_map<int, size_t> comp_index;
  std::vector<std::pair<std::vector<int>, std::vector<int>>> comps;
  for (size_t v = 0; v < nb + nh; ++v) {
    if (!touched[v]) continue;
    int root = uf.find(int(v));
    auto [it, fresh] = comp_index.emplace(root, comps.size());
    if (fresh) comps.emplace_back();
    auto& c = comps[it->second];
    if (v < nb)
      c.first.push_back(int(v));
    else
      c.second.push_back(int(v - nb));
  }
  for (auto& [bs, hs] : comps) {
    // Pair greedily: same implementation type first (the conv that absorbed a pointwise layer
    // is still that conv), then most nodes shared.
    std::vector<std::tuple<int, int, int, int>> cand;  // -same type, -shared, b, h
    for (int b : bs) {
      std::unordered_map<int, int> shared;
      for (const auto& n : base.layers[size_t(b)].onnx_nodes) {
        auto it = head_of_node.find(n);
        if (it != head_of_node.end()) ++shared[it->second];
      }
      for (auto [h, k] : shared)
        cand.emplace_back(-int(base.layers[size_t(b)].type == head.layers[size_t(h)].type), -k, b,
                          h);
    }
    std::sort(cand.begin(), cand.end());
    for (auto [t, k, b, h] : cand) {
      if (b2h[size_t(b)] >= 0 || h2b[size_t(h)] >= 0) continue;
      b2h[size_t(b)] = h;
      h2b[size_t(h)] = b;
    }
    for (int b : bs) by[size_t(b)] = AlignedBy::Onnx;
    bool same_nodes = false;
    if (bs.size() == 1 && hs.size() == 1) {
      auto x = base.layers[size_t(bs[0])].onnx_nodes, y = head.layers[size_t(hs[0])].onnx_nodes;
      std::sort(x.begin(), x.end());
      std::sort(y.begin(), y.end());
      same_nodes = x == y;
    }
    if (same_nodes) continue;
    FusionGroup g;
    g.what = bs.size() == 1 ? (hs.size() == 1 ? "changed" : "split")
                            : (hs.size() == 1 ? "merged" : "regrouped");
    g.base = bs;
    g.head = hs;
    std::unordered_map<std::string, bool> seen;
    for (int b : bs)
      for (const auto& n : base.layers[size_t(b)].onnx_nodes)
        if (seen.emplace(n, true).second) g.nodes.push_back(n);
    for (int h : hs)
      for (const auto& n : head.layers[size_t(h)].onnx_nodes)
        if (seen.emplace(n, true).second) g.nodes.push_back(n);
    for (int b : bs) group_of[size_t(b)] = int(groups.size());
    for (int h : hs) head_group[size_t(h)] = int(groups.size());
    groups.push_back(std::move(g));
  }
}

// Pairs still-unpaired layers whose key is equal, walking base in order. With `window`, a base
// layer only looks between the head partners of the nearest paired layers before and after it
// (the anchors from the ONNX and name passes), and head order stays monotonic inside a window,
// so a layer dropped in head does not shift every later pairing.
template <class Key>
void align_by_key(size_t nb, size_t nh, std::vector<int>& b2h, std::vector<int>& h2b,
                  std::vector<AlignedBy>& by, AlignedBy how, Key base_key, Key head_key,
                  bool window) {
  std::vector<int> lo(nb, 0), hi(nb, int(nh) - 1);
  if (window) {
    int last = -1;
    for (size_t b = 0; b < nb; ++b) {
      if (b2h[b] >= 0) last = b2h[b];
      lo[b] = last + 1;
    }
    int next = int(nh);
    for (size_t b = nb; b-- > 0;) {
      if (b2h[b] >= 0) next = b2h[b];
      hi[b] = next - 1;
    }
  }
  std::unordered_map<std::string, std::deque<int>> heads;
  for (size_t h = 0; h < nh; ++h)
    if (h2b[h] == -1) heads[head_key(h)].push_back(int(h));
  int cursor = 0;
  for (size_t b = 0; b < nb; ++b) {
    if (b2h[b] != -1) continue;
    auto it = heads.find(base_key(b));
    if (it == heads.end()) continue;
    auto& q = it->second;
    int from = window ? std::max(cursor, lo[b]) : 0;
    while (!q.empty() && (h2b[size_t(q.front())] != -1 || q.front() < from)) q.pop_front();
    if (q.empty() || q.front() > hi[b]) continue;
    int h = q.front();
    q.pop_front();
    b2h[b] = h;
    h2b[size_t(h)] = int(b);
    by[b] = how;
    cursor = h + 1;
  }
}

}  // namespace

Alignment align_layers(const Build& base, const Build& head) {
  const size_t nb = base.layers.size(), nh = head.layers.size();
  std::vector<int> b2h(nb, -1), h2b(nh, -1), group_of(nb, -1), head_group(nh, -1);
  std::vector<AlignedBy> by(nb, AlignedBy::None);
  Alignment out;
  align_by_onnx(base, head, b2h, h2b, by, group_of, head_group, out.fusion_groups);
  // Layers inside a fusion group are accounted for there; keep them out of the later passes.
  for (size_t h = 0; h < nh; ++h)
    if (head_group[h] >= 0 && h2b[h] < 0) h2b[h] = -2;
  for (size_t b = 0; b < nb; ++b)
    if (group_of[b] >= 0 && b2h[b] < 0) b2h[b] = -2;

  align_by_key(nb, nh, b2h, h2b, by, AlignedBy::Name,
               std::function<std::string(size_t)>([&](size_t b) { return base.layers[b].name; }),
               std::function<std::string(size_t)>([&](size_t h) { return head.layers[h].name; }),
               false);
  std::vector<std::string> bsig(nb), hsig(nh);
  for (size_t b = 0; b < nb; ++b)
    if (b2h[b] == -1) bsig[b] = layer_signature(base.layers[b]);
  for (size_t h = 0; h < nh; ++h)
    if (h2b[h] == -1) hsig[h] = layer_signature(head.layers[h]);
  align_by_key(nb, nh, b2h, h2b, by, AlignedBy::Signature,
               std::function<std::string(size_t)>([&](size_t b) { return bsig[b]; }),
               std::function<std::string(size_t)>([&](size_t h) { return hsig[h]; }), true);

  // Emit in base order; a head-only layer goes right after the pair holding its predecessor.
  std::vector<std::vector<int>> head_only_after(nb + 1);
  int last_base = -1;  // base index of the latest paired head layer seen, in head order
  for (size_t h = 0; h < nh; ++h) {
    if (h2b[h] >= 0) {
      last_base = h2b[h];
    } else {
      head_only_after[size_t(last_base + 1)].push_back(int(h));
    }
  }
  auto emit_head_only = [&](size_t slot) {
    for (int h : head_only_after[slot]) {
      LayerPair p;
      p.head = h;
      p.fusion_group = head_group[size_t(h)];
      p.by = p.fusion_group >= 0 ? AlignedBy::Onnx : AlignedBy::None;
      out.pairs.push_back(p);
    }
  };
  emit_head_only(0);
  for (size_t b = 0; b < nb; ++b) {
    LayerPair p;
    p.base = int(b);
    p.head = b2h[b] >= 0 ? b2h[b] : -1;
    p.by = by[b];
    p.fusion_group = group_of[b];
    out.pairs.push_back(p);
    emit_head_only(b + 1);
  }
  return out;
}

}  // namespace trtlens
