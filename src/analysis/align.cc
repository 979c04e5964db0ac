#include "analysis/align.h"

#include <algorithm>
#include <numeric>
#include <string_view>
#include <unordered_map>

namespace trtlens {

const char* to_string(AlignedBy a) {
  switch (a) {
    case AlignedBy::Weights:
      return "weights";
    case AlignedBy::Name:
      return "name";
    case AlignedBy::Onnx:
      return "onnx";
    case AlignedBy::Signature:
      return "signature";
    case AlignedBy::None:
      return "none";
  }
  return "none";
}

std::string layer_signature(const Layer& l) {
  std::string s;
  auto pt = l.attributes.get("ParameterType");
  s = pt && pt->is_string() ? pt->get<std::string>() : l.type.str();
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

bool ends_with(const std::string& s, const char* suffix) {
  size_t n = std::char_traits<char>::length(suffix);
  return s.size() >= n && s.compare(s.size() - n, n, suffix) == 0;
}

bool names_a_parameter(const std::string& part) {
  if (part.rfind("onnx::", 0) == 0) return false;  // numbered by the exporter
  for (const char* suf : {".weight", ".bias", "_weight", "_bias", "/kernel", "/bias",
                          "ReadVariableOp:0", "ReadVariableOp"})
    if (ends_with(part, suf) && part.size() > std::char_traits<char>::length(suf)) return true;
  return false;
}

}  // namespace

std::vector<std::string> weight_names(const Layer& l) {
  std::vector<std::string> out;
  const std::string& n = l.name;
  size_t start = 0;
  while (start <= n.size()) {
    size_t end = n.find(" + ", start);
    std::string part = n.substr(start, end == std::string::npos ? std::string::npos : end - start);
    if (names_a_parameter(part)) out.push_back(std::move(part));
    if (end == std::string::npos) break;
    start = end + 3;
  }
  std::sort(out.begin(), out.end());
  out.erase(std::unique(out.begin(), out.end()), out.end());
  return out;
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

size_t shared_count(const std::vector<std::string>& a, const std::vector<std::string>& b) {
  size_t i = 0, j = 0, n = 0;  // both sorted
  while (i < a.size() && j < b.size()) {
    if (a[i] < b[j])
      ++i;
    else if (b[j] < a[i])
      ++j;
    else
      ++n, ++i, ++j;
  }
  return n;
}

double jaccard(size_t shared, size_t a, size_t b) {
  size_t u = a + b - shared;
  return u ? double(shared) / double(u) : 0;
}

// Views of the names, sorted, each once. Views, not copies: this runs while both builds are
// held, and a copy of every layer's node names was the peak of `diff`'s memory.
std::vector<std::string_view> sorted_unique(const std::vector<std::string>& names) {
  std::vector<std::string_view> v(names.begin(), names.end());
  std::sort(v.begin(), v.end());
  v.erase(std::unique(v.begin(), v.end()), v.end());
  return v;
}

constexpr int kUnpaired = -1;
constexpr int kInGroup = -2;  // unpaired, but accounted for by a fusion group

class Aligner {
 public:
  Aligner(const Build& base, const Build& head)
      : B_(base.layers),
        H_(head.layers),
        nb_(B_.size()),
        nh_(H_.size()),
        b2h_(nb_, kUnpaired),
        h2b_(nh_, kUnpaired),
        by_(nb_, AlignedBy::None),
        conf_(nb_, 0),
        group_of_(nb_, -1),
        head_group_(nh_, -1) {
    bw_.reserve(nb_);
    hw_.reserve(nh_);
    for (const auto& l : B_) bw_.push_back(weight_names(l));
    for (const auto& l : H_) hw_.push_back(weight_names(l));
  }

  Alignment run() {
    by_weights();
    by_key(
        AlignedBy::Name, [&](size_t b) { return B_[b].name; }, [&](size_t h) { return H_[h].name; },
        true);
    by_onnx();
    std::vector<std::string> bsig(nb_), hsig(nh_);
    for (size_t b = 0; b < nb_; ++b)
      if (b2h_[b] == kUnpaired) bsig[b] = layer_signature(B_[b]);
    for (size_t h = 0; h < nh_; ++h)
      if (h2b_[h] == kUnpaired) hsig[h] = layer_signature(H_[h]);
    by_key(
        AlignedBy::Signature, [&](size_t b) { return bsig[b]; }, [&](size_t h) { return hsig[h]; },
        true);
    // Last resort: a layer whose name exists on the other side is never "added" or "removed".
    by_key(
        AlignedBy::Name, [&](size_t b) { return B_[b].name; }, [&](size_t h) { return H_[h].name; },
        false);
    return emit();
  }

 private:
  // Both sides name their weights and no weight is common: these are different layers.
  bool contradicts(size_t b, size_t h) const {
    return !bw_[b].empty() && !hw_[h].empty() && shared_count(bw_[b], hw_[h]) == 0;
  }

  void link(size_t b, size_t h, AlignedBy how, double confidence) {
    b2h_[b] = int(h);
    h2b_[h] = int(b);
    by_[b] = how;
    conf_[b] = confidence;
  }

  // For every layer of one side, the range of the other side between the partners of the
  // nearest paired layers before and after it. Anchors that cross (reordered branches) widen
  // the range to span both partners and a few layers around them.
  static void windows(const std::vector<int>& partner, size_t other, std::vector<int>& lo,
                      std::vector<int>& hi) {
    const size_t n = partner.size();
    constexpr int kSlack = 8;
    std::vector<int> prev(n), next(n);
    int last = -1;
    for (size_t i = 0; i < n; ++i) {
      prev[i] = last;
      if (partner[i] >= 0) last = partner[i];
    }
    last = int(other);
    for (size_t i = n; i-- > 0;) {
      next[i] = last;
      if (partner[i] >= 0) last = partner[i];
    }
    lo.assign(n, 0);
    hi.assign(n, int(other) - 1);
    for (size_t i = 0; i < n; ++i) {
      if (prev[i] < next[i]) {
        lo[i] = prev[i] + 1;
        hi[i] = next[i] - 1;
      } else {
        lo[i] = std::max(0, next[i] - kSlack);
        hi[i] = std::min(int(other) - 1, prev[i] + kSlack);
      }
    }
  }

  // Weight names are the strongest evidence: they survive re-export, renumbering and fusion.
  // Candidates are ranked by Jaccard similarity of the weight sets and taken greedily.
  void by_weights() {
    std::unordered_map<std::string, std::vector<int>> heads_of;
    for (size_t h = 0; h < nh_; ++h)
      for (const auto& w : hw_[h]) heads_of[w].push_back(int(h));
    struct Cand {
      double score;
      int b, h;
    };
    std::vector<Cand> cand;
    std::unordered_map<int, size_t> shared;
    for (size_t b = 0; b < nb_; ++b) {
      if (bw_[b].empty()) continue;
      shared.clear();
      for (const auto& w : bw_[b]) {
        auto it = heads_of.find(w);
        if (it == heads_of.end() || it->second.size() > 4) continue;  // a shared weight
        for (int h : it->second) ++shared[h];
      }
      for (auto [h, k] : shared)
        cand.push_back({jaccard(k, bw_[b].size(), hw_[size_t(h)].size()), int(b), h});
    }
    std::sort(cand.begin(), cand.end(), [](const Cand& x, const Cand& y) {
      if (x.score != y.score) return x.score > y.score;
      return std::tie(x.b, x.h) < std::tie(y.b, y.h);
    });
    for (const auto& c : cand)
      if (b2h_[size_t(c.b)] == kUnpaired && h2b_[size_t(c.h)] == kUnpaired)
        link(size_t(c.b), size_t(c.h), AlignedBy::Weights, c.score);
  }

  // Pairs still-unpaired layers with equal keys, walking base in order and taking the first
  // free head layer at or after the start of the base layer's anchor window (so duplicates pair
  // in order). A "next free" skip list per key keeps every lookup amortised O(log n).
  template <class BaseKey, class HeadKey>
  void by_key(AlignedBy how, BaseKey base_key, HeadKey head_key, bool windowed) {
    std::vector<int> lo, hi;
    if (windowed)
      windows(b2h_, nh_, lo, hi);
    else {
      lo.assign(nb_, 0);
      hi.assign(nb_, int(nh_) - 1);
    }
    struct Slot {
      std::vector<int> heads;  // ascending
      std::vector<int> next;   // skip list over taken entries
      size_t base_count = 0;
      int find(int i) {
        while (next[size_t(i)] != i) i = next[size_t(i)] = next[size_t(next[size_t(i)])];
        return i;
      }
    };
    std::unordered_map<std::string, Slot> slots;
    for (size_t h = 0; h < nh_; ++h)
      if (h2b_[h] == kUnpaired) slots[head_key(h)].heads.push_back(int(h));
    for (auto& [k, s] : slots) {
      s.next.resize(s.heads.size() + 1);
      std::iota(s.next.begin(), s.next.end(), 0);
    }
    for (size_t b = 0; b < nb_; ++b)
      if (b2h_[b] == kUnpaired)
        if (auto it = slots.find(base_key(b)); it != slots.end()) ++it->second.base_count;
    for (size_t b = 0; b < nb_; ++b) {
      if (b2h_[b] != kUnpaired) continue;
      auto it = slots.find(base_key(b));
      if (it == slots.end()) continue;
      Slot& s = it->second;
      int first = int(std::lower_bound(s.heads.begin(), s.heads.end(), lo[b]) - s.heads.begin());
      int last = int(std::upper_bound(s.heads.begin(), s.heads.end(), hi[b]) - s.heads.begin());
      int i = s.find(first);
      // Skip a few candidates whose weights contradict; beyond that, give up on this layer.
      for (int tries = 0; i < last && tries < 8 && contradicts(b, size_t(s.heads[size_t(i)]));
           ++tries)
        i = s.find(i + 1);
      if (i >= last || contradicts(b, size_t(s.heads[size_t(i)]))) continue;
      double confidence;
      if (how == AlignedBy::Signature)
        confidence = last - first == 1 ? 0.6 : 0.4;
      else if (!windowed)
        confidence = 0.5;
      else
        confidence = s.heads.size() == 1 && s.base_count == 1 ? 0.9 : 0.7;
      link(b, size_t(s.heads[size_t(i)]), how, confidence);
      s.next[size_t(i)] = i + 1;
    }
  }

  // Pairs layers that share ONNX nodes, where the pairing agrees with the weights and with the
  // neighbours (the head layer lies between the partners of the nearest anchors). Connected
  // components of the "shares a node" graph whose layers are not simply paired one to one with
  // the same nodes are the fusion groups.
  void by_onnx() {
    std::vector<int> blo, bhi, hlo, hhi;
    windows(b2h_, nh_, blo, bhi);
    windows(h2b_, nb_, hlo, hhi);
    std::vector<std::vector<std::string_view>> bn(nb_), hn(nh_);
    for (size_t b = 0; b < nb_; ++b) bn[b] = sorted_unique(B_[b].onnx_nodes);
    for (size_t h = 0; h < nh_; ++h) hn[h] = sorted_unique(H_[h].onnx_nodes);
    std::unordered_map<std::string_view, std::vector<int>> heads_of;
    for (size_t h = 0; h < nh_; ++h)
      for (const auto& n : hn[h]) heads_of[n].push_back(int(h));
    auto allowed = [&](size_t b, size_t h) {
      if (contradicts(b, h)) return false;
      bool bp = b2h_[b] >= 0, hp = h2b_[h] >= 0;
      if (bp && hp) return b2h_[b] == int(h);
      if (bp) return int(b) >= hlo[h] - 1 && int(b) <= hhi[h] + 1;
      if (hp) return int(h) >= blo[b] - 1 && int(h) <= bhi[b] + 1;
      return int(h) >= blo[b] && int(h) <= bhi[b];
    };
    UnionFind uf(nb_ + nh_);
    std::vector<bool> touched(nb_ + nh_, false);
    std::unordered_map<int, size_t> shared;
    std::vector<std::vector<std::pair<int, size_t>>> edges(nb_);  // base -> (head, shared)
    for (size_t b = 0; b < nb_; ++b) {
      shared.clear();
      for (const auto& n : bn[b]) {
        auto it = heads_of.find(n);
        if (it == heads_of.end()) continue;
        for (int h : it->second) ++shared[h];
      }
      for (auto [h, k] : shared) {
        if (!allowed(b, size_t(h))) continue;
        edges[b].emplace_back(h, k);
        uf.unite(int(b), int(nb_) + h);
        touched[b] = touched[nb_ + size_t(h)] = true;
      }
    }
    std::unordered_map<int, size_t> comp_index;
    std::vector<std::pair<std::vector<int>, std::vector<int>>> comps;
    for (size_t v = 0; v < nb_ + nh_; ++v) {
      if (!touched[v]) continue;
      auto [it, fresh] = comp_index.emplace(uf.find(int(v)), comps.size());
      if (fresh) comps.emplace_back();
      auto& c = comps[it->second];
      (v < nb_ ? c.first : c.second).push_back(int(v < nb_ ? v : v - nb_));
    }
    for (auto& [bs, hs] : comps) {
      // Pair the free layers greedily: same implementation type first (the conv that absorbed
      // a pointwise layer is still that conv), then most nodes shared.
      std::vector<std::tuple<int, int, int, int>> cand;  // -same type, -shared, b, h
      for (int b : bs)
        for (auto [h, k] : edges[size_t(b)])
          cand.emplace_back(-int(B_[size_t(b)].type == H_[size_t(h)].type), -int(k), b, h);
      std::sort(cand.begin(), cand.end());
      for (auto [t, k, b, h] : cand) {
        if (b2h_[size_t(b)] != kUnpaired || h2b_[size_t(h)] != kUnpaired) continue;
        link(size_t(b), size_t(h), AlignedBy::Onnx,
             jaccard(size_t(-k), bn[size_t(b)].size(), hn[size_t(h)].size()));
      }
      bool one_to_one = bs.size() == 1 && hs.size() == 1 && bn[size_t(bs[0])] == hn[size_t(hs[0])];
      if (one_to_one) continue;
      FusionGroup g;
      g.what = bs.size() == 1 ? (hs.size() == 1 ? "changed" : "split")
                              : (hs.size() == 1 ? "merged" : "regrouped");
      g.base = bs;
      g.head = hs;
      std::unordered_map<std::string, bool> seen;
      for (int b : bs)
        for (const auto& n : B_[size_t(b)].onnx_nodes)
          if (seen.emplace(n, true).second) g.nodes.push_back(n);
      for (int h : hs)
        for (const auto& n : H_[size_t(h)].onnx_nodes)
          if (seen.emplace(n, true).second) g.nodes.push_back(n);
      for (int b : bs) {
        group_of_[size_t(b)] = int(groups_.size());
        if (b2h_[size_t(b)] == kUnpaired) b2h_[size_t(b)] = kInGroup;
      }
      for (int h : hs) {
        head_group_[size_t(h)] = int(groups_.size());
        if (h2b_[size_t(h)] == kUnpaired) h2b_[size_t(h)] = kInGroup;
      }
      groups_.push_back(std::move(g));
    }
  }

  // Base order; a head-only layer goes right after the pair holding its predecessor.
  Alignment emit() {
    Alignment out;
    std::vector<std::vector<int>> head_only_after(nb_ + 1);
    int last_base = -1;
    for (size_t h = 0; h < nh_; ++h) {
      if (h2b_[h] >= 0)
        last_base = h2b_[h];
      else
        head_only_after[size_t(last_base + 1)].push_back(int(h));
    }
    auto emit_head_only = [&](size_t slot) {
      for (int h : head_only_after[slot]) {
        LayerPair p;
        p.head = h;
        p.fusion_group = head_group_[size_t(h)];
        p.by = p.fusion_group >= 0 ? AlignedBy::Onnx : AlignedBy::None;
        out.pairs.push_back(p);
      }
    };
    emit_head_only(0);
    for (size_t b = 0; b < nb_; ++b) {
      LayerPair p;
      p.base = int(b);
      p.head = b2h_[b] >= 0 ? b2h_[b] : -1;
      p.by = p.head >= 0 ? by_[b] : (group_of_[b] >= 0 ? AlignedBy::Onnx : AlignedBy::None);
      p.confidence = p.head >= 0 ? conf_[b] : 0;
      p.fusion_group = group_of_[b];
      out.pairs.push_back(p);
      emit_head_only(b + 1);
    }
    out.fusion_groups = std::move(groups_);
    return out;
  }

  const std::vector<Layer>& B_;
  const std::vector<Layer>& H_;
  size_t nb_, nh_;
  std::vector<int> b2h_, h2b_;
  std::vector<AlignedBy> by_;
  std::vector<double> conf_;
  std::vector<int> group_of_, head_group_;
  std::vector<std::vector<std::string>> bw_, hw_;
  std::vector<FusionGroup> groups_;
};

}  // namespace

Alignment align_layers(const Build& base, const Build& head) { return Aligner(base, head).run(); }

}  // namespace trtlens
