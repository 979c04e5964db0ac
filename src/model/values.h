// Canonical values every stage relies on (ARCHITECTURE §3): dtype, dims, tactic.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#ifdef __SSE2__
#include <emmintrin.h>
#endif

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
// Sixteen hex digits at p (both cases) as a number; false when one is not a hex digit. Inline:
// it reads the id of every tactic line.
inline bool hex16(const char* p, uint64_t& value) {
#ifdef __SSE2__
  // Sixteen bytes at once: digit or letter, their nibble values, then pairs of nibbles packed.
  const __m128i v = _mm_loadu_si128(reinterpret_cast<const __m128i*>(p));
  const __m128i d = _mm_sub_epi8(v, _mm_set1_epi8('0'));
  const __m128i l = _mm_sub_epi8(_mm_or_si128(v, _mm_set1_epi8(0x20)), _mm_set1_epi8('a'));
  const __m128i is_d = _mm_cmpeq_epi8(_mm_min_epu8(d, _mm_set1_epi8(9)), d);
  const __m128i is_l = _mm_cmpeq_epi8(_mm_min_epu8(l, _mm_set1_epi8(5)), l);
  if (_mm_movemask_epi8(_mm_or_si128(is_d, is_l)) != 0xffff) return false;
  const __m128i nib = _mm_or_si128(_mm_and_si128(is_d, d),
                                   _mm_andnot_si128(is_d, _mm_add_epi8(l, _mm_set1_epi8(10))));
  const __m128i pairs = _mm_or_si128(_mm_slli_epi16(_mm_and_si128(nib, _mm_set1_epi16(0x00ff)), 4),
                                     _mm_srli_epi16(nib, 8));
  const uint64_t packed = uint64_t(_mm_cvtsi128_si64(_mm_packus_epi16(pairs, pairs)));
  value = __builtin_bswap64(packed);
  return true;
#else
  uint64_t v = 0;
  for (int i = 0; i < 16; ++i) {
    const char c = p[i];
    unsigned n;
    if (c >= '0' && c <= '9') {
      n = unsigned(c - '0');
    } else if ((c | 0x20) >= 'a' && (c | 0x20) <= 'f') {
      n = unsigned((c | 0x20) - 'a' + 10);
    } else {
      return false;
    }
    v = v << 4 | n;
  }
  value = v;
  return true;
#endif
}

// A hex digit ([0-9a-fA-F]).
inline bool is_hex_digit(char c) {
  return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F');
}
std::string tactic_text(uint64_t value);

// "v8601" / "8601" / "100300" -> "8.6.1" / "10.3.0"; "8.6.1.6" stays as given.
std::string trt_version_from_number(std::string_view digits);

}  // namespace trtlens
