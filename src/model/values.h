// Canonical values every stage relies on (ARCHITECTURE §3): dtype, dims, tactic.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace trtlens {

// Without leading and trailing white space (every scanner needs it; one definition).
// White space as the C locale's isspace() has it (trtlens never sets a locale), inline: trim()
// runs on nearly every line and field it reads, and isspace() is a call through the PLT.
inline bool ascii_space(char c) { return c == ' ' || (c >= '\t' && c <= '\r'); }
inline std::string_view trim(std::string_view s) {
  while (!s.empty() && ascii_space(s.front())) s.remove_prefix(1);
  while (!s.empty() && ascii_space(s.back())) s.remove_suffix(1);
  return s;
}

// Length of the valid UTF-8 sequence at s[i] (no overlongs, surrogates or values past U+10FFFF),
// or 0 when the byte there does not start one. Readers and escapers share this one judgement.
size_t utf8_sequence_length(std::string_view s, size_t i);

// Canonical dtype spelling: FP32 FP16 BF16 FP8 FP4 INT4 INT8 UINT8 INT32 INT64 BOOL.
// Unknown dtype-like words come back upper-cased with known == false; anything else in a dtype
// position ("N/A due to dynamic shapes", "None") comes back empty: no dtype was given.
struct DtypeResult {
  std::string dtype;
  bool known = false;
};
DtypeResult canonical_dtype(std::string_view spelling);

// Size of one element in bits (INT4/FP4 = 4); nullopt for unknown dtypes.
std::optional<int> dtype_bits(std::string_view canonical);

// What a JSON "Format/Datatype" string (or a bare "Half") says: dtype, vector width and
// the vectorised axis (channel axis for the NCHW-family formats).
struct FormatInfo {
  DtypeResult dtype;
  int vector_width = 0;  // 0 = not vectorised
  int vector_axis = -1;
  bool channel_last = false;
};
FormatInfo parse_format(std::string_view format);

// Dims as printed ("1,3:4,224,224", "-1,3,224,224", "" for a scalar).
struct Dims {
  std::vector<int64_t> dims;
  int vector_axis = -1;
  int vector_width = 0;
};
// Returns nullopt when the text is not a comma-separated list of (possibly negative) integers,
// each optionally followed by ":width".
std::optional<Dims> parse_dims(std::string_view text);
// Dims as trtexec writes shapes ("1x3x224x224": --shapes, "Input build shape", --shape);
// nullopt unless every item is a non-negative integer.
std::optional<std::vector<int64_t>> parse_x_dims(std::string_view text);

// Tactic in canonical form: "0x" + 16 lower-case hex digits. Accepts hex ("0x1f") and signed
// decimal ("-3", converted through 64-bit two's complement). nullopt when not a number.
std::optional<std::string> canonical_tactic(std::string_view text);
// The same as a number, and back to the canonical text.
bool tactic_value(std::string_view text, uint64_t& value);
// Sixteen hex digits at p (both cases) as a number; false when one is not a hex digit.
bool hex16(const char* p, uint64_t& value);
// A hex digit ([0-9a-fA-F]).
inline bool is_hex_digit(char c) {
  return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F');
}
std::string tactic_text(uint64_t value);

// "v8601" / "8601" / "100300" -> "8.6.1" / "10.3.0"; "8.6.1.6" stays as given.
std::string trt_version_from_number(std::string_view digits);

}  // namespace trtlens
