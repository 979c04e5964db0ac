// The usual tactic line read by position, inline: the screen's loop over runs of tactic lines
// calls it directly (a call through a pointer on every line kept its constants out of registers).
#pragma once

#include <cstdint>
#include <cstring>

#ifdef __SSE2__
#include <emmintrin.h>
#endif
#if defined(__x86_64__) && defined(__GNUC__)
#include <immintrin.h>
#endif

#include "model/values.h"

namespace trtlens::tactic_line {

// The first byte at most ' ' in [p, end), or end: where a name's RE2 \s ([\t\n\f\r ]) can be.
// Names are long and such bytes rare in them: 16 bytes at a time.
__attribute__((always_inline)) inline const char* first_low_in(const char* p, const char* end) {
#ifdef __SSE2__
  const __m128i top = _mm_set1_epi8(' ');
  for (; end - p >= 16; p += 16) {
    const __m128i v = _mm_loadu_si128(reinterpret_cast<const __m128i*>(p));
    const unsigned low = unsigned(_mm_movemask_epi8(_mm_cmpeq_epi8(_mm_min_epu8(v, top), v)));
    if (low) return p + __builtin_ctz(low);
  }
#endif
  for (; p < end; ++p)
    if (static_cast<unsigned char>(*p) <= ' ') return p;
  return end;
}

#if defined(__x86_64__) && defined(__GNUC__)
// The same 32 bytes at a time, for CPUs with AVX2 (checked once at run time).
__attribute__((target("avx2"), always_inline)) inline const char* first_low_in_avx2(
    const char* p, const char* end) {
  const __m256i top = _mm256_set1_epi8(' ');
  for (; end - p >= 32; p += 32) {
    const __m256i v = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(p));
    const unsigned low =
        unsigned(_mm256_movemask_epi8(_mm256_cmpeq_epi8(_mm256_min_epu8(v, top), v)));
    if (low) return p + __builtin_ctz(low);
  }
  return first_low_in(p, end);
}
#endif

constexpr uint64_t word8(const char* p) {
  uint64_t w = 0;
  for (int i = 7; i >= 0; --i) w = w << 8 | static_cast<unsigned char>(p[i]);
  return w;
}
inline uint64_t load8(const char* p) {
  uint64_t w;
  std::memcpy(&w, p, 8);
  return w;
}

// What follows the name: "Tactic: 0x" and 16 hex digits not followed by another, at `at`.
__attribute__((always_inline)) inline const char* usual_id(const char* at, const char* end,
                                                           uint64_t& value) {
  constexpr uint64_t kTacticColon = word8("Tactic: ");
  if (end - at < 26 || load8(at) != kTacticColon || at[8] != '0' || at[9] != 'x') return nullptr;
  at += 10;
  if (!hex16(at, value)) return nullptr;
  at += 16;
  if (at < end && is_hex_digit(*at)) return nullptr;  // a longer id
  return at;
}

// Whether the message at m (26 bytes or more) starts "Tactic Name: ".
inline bool named(const char* m) {
  constexpr uint64_t kTacticN = word8("Tactic N"), kAmeColon = word8("ame: \0\0\0");
  return load8(m) == kTacticN && (load8(m + 8) & 0xffffffffffULL) == kAmeColon;
}

// The rest of the line once the name's end is found: `name_end`, the name's first byte at most
// ' ', must be the space that ends a name of at least one byte; m itself when there is no name.
__attribute__((always_inline)) inline const char* after_name(const char* m, const char* name_end,
                                                             const char* end, uint64_t& value) {
  if (name_end != m) {
    if (name_end == m + 13 || name_end >= end || *name_end != ' ') return nullptr;
    ++name_end;
  }
  return usual_id(name_end, end, value);
}

// The usual tactic line, "Tactic Name: NAME Tactic: 0x" and 16 hex digits (or without the
// name): where the rest of the line starts, or null for anything else (see
// read_usual_tactic_line in section.h).
__attribute__((always_inline)) inline const char* read(const char* m, const char* end,
                                                       uint64_t& value) {
  if (end - m < 26) return nullptr;  // the shortest: "Tactic: 0x" and 16 digits
  return after_name(m, named(m) ? first_low_in(m + 13, end) : m, end, value);
}
#if defined(__x86_64__) && defined(__GNUC__)
__attribute__((target("avx2"), always_inline)) inline const char* read_avx2(const char* m,
                                                                            const char* end,
                                                                            uint64_t& value) {
  if (end - m < 26) return nullptr;
  return after_name(m, named(m) ? first_low_in_avx2(m + 13, end) : m, end, value);
}
#endif

}  // namespace trtlens::tactic_line
