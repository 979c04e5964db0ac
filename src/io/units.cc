#include "io/units.h"

#include <cmath>
#include <cstdio>
#include <cstdlib>

namespace trtlens {
namespace {

std::string three_digits(double v, const char* unit) {
  char buf[64];
  const char* f = v < 10 ? "%.2f%s%s" : v < 100 ? "%.1f%s%s" : "%.0f%s%s";
  std::snprintf(buf, sizeof buf, f, v, *unit ? " " : "", unit);
  return buf;
}

}  // namespace

std::string human_bytes(std::optional<uint64_t> bytes) {
  if (!bytes) return "?";
  uint64_t b = *bytes;
  if (b < 1024) return std::to_string(b) + " B";
  const char* units[] = {"KiB", "MiB", "GiB", "TiB", "PiB"};
  double v = double(b) / 1024;
  int u = 0;
  while (v >= 1024 && u < 4) {
    v /= 1024;
    ++u;
  }
  return three_digits(v, units[u]);
}

std::string human_mib(std::optional<double> mib) {
  if (!mib || !std::isfinite(*mib) || *mib < 0) return "?";
  return human_bytes(uint64_t(*mib * 1048576 + 0.5));
}

std::string human_ms(std::optional<double> ms) {
  if (!ms || !std::isfinite(*ms)) return "?";
  double v = *ms;
  if (v == 0) return "0 ms";
  if (std::fabs(v) >= 1000) return three_digits(v / 1000, "s");
  if (std::fabs(v) >= 1) return three_digits(v, "ms");
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.3g ms", v);
  return buf;
}

std::string human_count(double v) {
  const char* prefixes[] = {"", "k", "M", "G", "T", "P"};
  int u = 0;
  while (std::fabs(v) >= 1000 && u < 5) {
    v /= 1000;
    ++u;
  }
  if (u == 0) return human_number(v);
  return three_digits(v, prefixes[u]);
}

std::string human_number(double v, const std::string& unit) {
  char buf[64];
  if (std::fabs(v) >= 100 && std::fabs(v) < 1e9)
    std::snprintf(buf, sizeof buf, "%.0f", v);
  else
    std::snprintf(buf, sizeof buf, "%.3g", v);
  return unit.empty() ? std::string(buf) : std::string(buf) + " " + unit;
}

std::string human_value(double v, const std::string& unit) {
  if (unit == "ms") return human_ms(v);
  if (unit == "bytes") return v < 0 ? "-" + human_bytes(uint64_t(-v)) : human_bytes(uint64_t(v));
  return human_number(v, unit);
}

std::string join(const std::vector<std::string>& parts, std::string_view sep) {
  std::string s;
  for (size_t i = 0; i < parts.size(); ++i) {
    if (i) s += sep;
    s += parts[i];
  }
  return s;
}

std::string exact_number(double v) {
  char buf[64];
  if (v == std::floor(v) && std::fabs(v) < 1e15) {
    std::snprintf(buf, sizeof buf, "%.0f", v);
    return buf;
  }
  for (int digits = 1; digits <= 17; ++digits) {  // the shortest that round-trips
    std::snprintf(buf, sizeof buf, "%.*g", digits, v);
    if (std::strtod(buf, nullptr) == v) break;
  }
  return buf;
}

}  // namespace trtlens
