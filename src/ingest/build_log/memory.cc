// TensorRT's memory lines (grammar/memory.re2): per-layer persistent/scratch, totals, allocator
// peaks, the [MemUsageChange] timeline and engine/context sizes. Each line stands alone; which
// build a figure belongs to is the assembler's decision (the figures precede the listing).
#include <charconv>

#include "ingest/build_log/section.h"

namespace trtlens {

// ^Layer: (.*) Host Persistent: (\d+)(?: bytes)? Device Persistent: (\d+)(?: bytes)? Scratch
// Memory: (\d+)(?: bytes)?\s*$ read from the right by position: one line per layer, and RE2
// needs its backtracking engine for these captures (about 34,000 instructions a line, the most
// of any line on the dispatching thread). Every step is forced (" bytes" and the labels hold no
// digit), so the rightmost reading is the pattern's greedy one; a test holds the two together.
bool parse_memory_layer(std::string_view m, std::string_view figures[4]) {
  constexpr std::string_view kHead = "Layer: ";
  if (m.substr(0, kHead.size()) != kHead) return false;
  size_t end = m.size();
  while (end > kHead.size() && re2_space(m[end - 1])) --end;
  std::string_view t = m.substr(0, end);
  auto ends_with = [&t](std::string_view s) {
    return t.size() >= s.size() && t.substr(t.size() - s.size()) == s;
  };
  // digits, optionally followed by " bytes", preceded by `label`; from the right.
  auto figure = [&](std::string_view label, std::string_view& digits) {
    if (ends_with(" bytes")) t.remove_suffix(6);
    size_t i = t.size();
    while (i > 0 && re2_digit(t[i - 1])) --i;
    if (i == t.size()) return false;
    digits = t.substr(i);
    t = t.substr(0, i);
    if (!ends_with(label)) return false;
    t.remove_suffix(label.size());
    return true;
  };
  if (!figure(" Scratch Memory: ", figures[3]) || !figure(" Device Persistent: ", figures[2]) ||
      !figure(" Host Persistent: ", figures[1]) || t.size() < kHead.size())
    return false;
  figures[0] = t.substr(kHead.size());
  return true;
}

namespace {

std::optional<uint64_t> to_u64(const std::string& s) {
  uint64_t v = 0;
  auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
  if (ec != std::errc() || p != s.data() + s.size()) return std::nullopt;
  return v;
}

double to_double(const std::string& s) {
  try {
    return std::stod(s);
  } catch (const std::exception&) {
    return 0;
  }
}

// trigger pattern -> BuildMemory field it fills (one number captured).
struct FigurePattern {
  const char* pattern;
  const char* field;
  bool integer;
};
constexpr FigurePattern kFigures[] = {
    {"mem_skipped", "skipped_zero_layers", true},
    {"mem_total_host_persistent", "total_host_persistent", true},
    {"mem_total_device_persistent", "total_device_persistent", true},
    {"mem_total_scratch", "total_scratch", true},
    {"mem_total_activation", "total_activation", true},
    {"mem_total_weights", "total_weights", true},
    {"mem_allocated_activation", "allocated_activation", true},
    {"mem_created_engine", "engine_size_mib", false},
    {"mem_loaded_engine", "loaded_engine_mib", false},
    {"mem_generation_time", "generation_seconds", false},
    {"mem_context_memory", "context_memory_mib", false},
};
constexpr size_t kFigureCount = sizeof(kFigures) / sizeof(kFigures[0]);

class MemorySection : public LogSection {
 public:
  using LogSection::LogSection;

  std::vector<std::string> triggers() const override {
    std::vector<std::string> t;
    for (const auto& f : kFigures) t.push_back(f.pattern);
    for (const char* p : {"mem_layer", "mem_block_assignment", "mem_peak_usage", "mem_usage_change",
                          "mem_per_runner", "mem_input_build_shape"})
      t.push_back(p);
    return t;
  }

  bool start(size_t which, const LogLine& line) override {
    const Grammar& g = ctx_.grammar;
    const std::string_view m = line.message;
    Assembler& out = ctx_.out;
    const SourceLoc at = ctx_.at(line);
    if (which < kFigureCount) {
      const FigurePattern& f = kFigures[which];
      std::string v;
      RE2::PartialMatch(m, g.re(f.pattern), &v);
      if (f.integer) {
        auto n = to_u64(v);
        if (!n) return bad(line, "number out of range");
        out.memory_figure(f.field, double(*n), at);
      } else {
        out.memory_figure(f.field, to_double(v), at);
      }
      return false;
    }
    switch (which - kFigureCount) {
      case 0: {
        std::string name, h, d, s;
        std::string_view f[4];
        if (!fast_layer_line_) {
          RE2::FullMatch(m, g.re("mem_layer"), &name, &h, &d, &s);
        } else if (parse_memory_layer(m, f)) {
          name.assign(f[0]);
          h.assign(f[1]);
          d.assign(f[2]);
          s.assign(f[3]);
        }
        auto hn = to_u64(h), dn = to_u64(d), sn = to_u64(s);
        if (!hn || !dn || !sn) return bad(line, "number out of range");
        out.memory_layer(name, *hn, *dn, *sn, at);
        break;
      }
      case 1: {
        std::string blocks, nodes, bytes;
        RE2::PartialMatch(m, g.re("mem_block_assignment"), &blocks, &nodes, &bytes);
        auto n = to_u64(bytes);
        if (!n) return bad(line, "number out of range");
        out.memory_figure("block_assignment_bytes", double(*n), at);
        break;
      }
      case 2: {
        std::string cpu, gpu;
        RE2::PartialMatch(m, g.re("mem_peak_usage"), &cpu, &gpu);
        out.memory_figure("peak_cpu_mib", to_double(cpu), at);
        out.memory_figure("peak_gpu_mib", to_double(gpu), at);
        break;
      }
      case 3: {
        std::string phase, cd, gd, cn, gn;
        RE2::PartialMatch(m, g.re("mem_usage_change"), &phase, &cd, &gd, &cn, &gn);
        MemUsageChange c;
        c.phase = phase;
        c.cpu_delta_mib = to_double(cd);
        c.gpu_delta_mib = to_double(gd);
        c.cpu_now_mib = to_double(cn);
        c.gpu_now_mib = to_double(gn);
        c.line = line.number;
        out.memory_usage_change(std::move(c), at);
        break;
      }
      case 4: {
        std::string which_mem, bytes;
        RE2::PartialMatch(m, g.re("mem_per_runner"), &which_mem, &bytes);
        auto n = to_u64(bytes);
        if (!n) return bad(line, "number out of range");
        out.memory_figure(
            which_mem == "device" ? "per_runner_device_persistent" : "per_runner_host_persistent",
            double(*n), at);
        break;
      }
      case 5: {
        std::string profile, name, mn, opt, mx;
        RE2::FullMatch(m, g.re("mem_input_build_shape"), &profile, &name, &mn, &opt, &mx);
        if (!profile.empty() && profile != "0") break;  // the first profile sizes the tensors
        out.memory_shape(name, opt, at);
        break;
      }
      default:
        break;
    }
    return false;
  }

 private:
  bool bad(const LogLine& line, const char* why) {
    ctx_.out.unrecognized(ctx_.at(line), std::string("memory line: ") + why);
    return false;
  }

  const bool fast_layer_line_ = ctx_.grammar.pattern("mem_layer").builtin;
};

}  // namespace

std::unique_ptr<LogSection> make_memory_section(LogContext& ctx) {
  return std::make_unique<MemorySection>(ctx);
}

}  // namespace trtlens
