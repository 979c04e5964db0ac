// The one formatter of sizes, times and counts every output (and every finding message) uses,
// so a figure reads the same in the terminal, the Markdown and the HTML. Knows no TensorRT.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace trtlens {

// "864 B", "4.13 MiB", "51.2 MiB", "123 GiB": three significant digits; "?" for unknown.
std::string human_bytes(std::optional<uint64_t> bytes);
// "0.0881 ms", "2.34 ms", "123 ms", "1.52 s": three significant digits; "?" for unknown.
std::string human_ms(std::optional<double> ms);
// "9.41 G", "118 M", "512": three significant digits with a decimal prefix (MACs, FLOPs).
std::string human_count(double v);
// A size TensorRT prints in MiB ("Engine size: 12.5 MiB"), in the same units as human_bytes.
std::string human_mib(std::optional<double> mib);
// "%.3g" of v followed by unit ("1.2e+03" never: plain digits up to 1e6).
std::string human_number(double v, const std::string& unit = "");
// A figure in its unit: "ms" and "bytes" (signed) as above, anything else a number and the unit.
std::string human_value(double v, const std::string& unit);
// The exact value for machine-read outputs (CSV): integers in full, else the shortest text that
// reads back to the same double.
std::string exact_number(double v);
// "a, b, c".
std::string join(const std::vector<std::string>& parts, std::string_view sep = ", ");

}  // namespace trtlens
