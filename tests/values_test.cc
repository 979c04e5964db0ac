#include "model/values.h"

#include <gtest/gtest.h>

#include <thread>
#include <vector>

#include "model/shared_text.h"

namespace trtlens {

TEST(Values, DtypeSpellingsMapToCanonical) {
  EXPECT_EQ(canonical_dtype("Float").dtype, "FP32");
  EXPECT_EQ(canonical_dtype("Half").dtype, "FP16");
  EXPECT_EQ(canonical_dtype("BFloat16").dtype, "BF16");
  EXPECT_EQ(canonical_dtype("Int8").dtype, "INT8");
  EXPECT_EQ(canonical_dtype("Int64").dtype, "INT64");
  EXPECT_EQ(canonical_dtype("Bool").dtype, "BOOL");
  EXPECT_EQ(canonical_dtype("UInt8").dtype, "UINT8");
  EXPECT_TRUE(canonical_dtype("FP8").known);
  DtypeResult odd = canonical_dtype("Float17");
  EXPECT_FALSE(odd.known);
  EXPECT_EQ(odd.dtype, "FLOAT17");
}

TEST(Values, EveryCanonicalDtypeHasASize) {
  for (const char* d :
       {"FP32", "FP16", "BF16", "FP8", "FP4", "INT4", "INT8", "UINT8", "INT32", "INT64", "BOOL"})
    EXPECT_TRUE(dtype_bits(d).has_value()) << d;
  EXPECT_EQ(*dtype_bits("INT4"), 4);
  EXPECT_EQ(*dtype_bits("FP4"), 4);
  EXPECT_FALSE(dtype_bits("FLOAT17").has_value());
}

TEST(Values, FormatStringsGiveDtypeAndVectorWidth) {
  FormatInfo f = parse_format("Thirty-two wide channel vectorized row major Int8 format");
  EXPECT_EQ(f.dtype.dtype, "INT8");
  EXPECT_EQ(f.vector_width, 32);
  EXPECT_EQ(f.vector_axis, 1);
  f = parse_format("Four wide channel vectorized row major Int8 format");
  EXPECT_EQ(f.vector_width, 4);
  f = parse_format("Row major linear FP32");
  EXPECT_EQ(f.dtype.dtype, "FP32");
  EXPECT_EQ(f.vector_width, 0);
  f = parse_format("Channel major FP16 format where channel % 8 == 0");
  EXPECT_EQ(f.dtype.dtype, "FP16");
  EXPECT_EQ(f.vector_width, 8);
  EXPECT_TRUE(f.channel_last);
  f = parse_format("Row major linear FP4 format (kLINEAR)");
  EXPECT_EQ(f.dtype.dtype, "FP4");
  f = parse_format("Half");
  EXPECT_EQ(f.dtype.dtype, "FP16");
  f = parse_format("Row major linear BFloat16 format");
  EXPECT_EQ(f.dtype.dtype, "BF16");
}

TEST(Values, DimsKeepNegativesAndVectorWidth) {
  auto d = parse_dims("1,3,-17,-18");
  ASSERT_TRUE(d);
  EXPECT_EQ(d->dims, (std::vector<int64_t>{1, 3, -17, -18}));
  d = parse_dims("4,72:32,128,192");
  ASSERT_TRUE(d);
  EXPECT_EQ(d->dims, (std::vector<int64_t>{4, 72, 128, 192}));
  EXPECT_EQ(d->vector_axis, 1);
  EXPECT_EQ(d->vector_width, 32);
  d = parse_dims("");
  ASSERT_TRUE(d);
  EXPECT_TRUE(d->dims.empty());
  EXPECT_FALSE(parse_dims("1,x,3"));
}

TEST(Values, ShapeDimsAsTrtexecWritesThem) {
  EXPECT_EQ(*parse_x_dims("1x3x224x224"), (std::vector<int64_t>{1, 3, 224, 224}));
  EXPECT_EQ(*parse_x_dims("16"), (std::vector<int64_t>{16}));
  for (const char* bad :
       {"", "1x", "x3", "1x-3", "1x+3", "1x3.5", "1,3", "1xx3", "99999999999999999999x3"})
    EXPECT_FALSE(parse_x_dims(bad)) << bad;
}

TEST(Values, TacticsCompareAcrossVersions) {
  EXPECT_EQ(*canonical_tactic("-3"), "0xfffffffffffffffd");
  EXPECT_EQ(*canonical_tactic("0xfffffffffffffffd"), "0xfffffffffffffffd");
  EXPECT_EQ(*canonical_tactic("0"), "0x0000000000000000");
  EXPECT_EQ(*canonical_tactic("0x3E8"), "0x00000000000003e8");
  // 4438325421691896755 (seed 002, TRT 8.2) in hex, by python3 hex().
  EXPECT_EQ(*canonical_tactic("4438325421691896755"), "0x3d981974ad8803b3");
  EXPECT_EQ(*canonical_tactic("-9223372036854775808"), "0x8000000000000000");
  EXPECT_FALSE(canonical_tactic("-9223372036854775809"));
  EXPECT_FALSE(canonical_tactic("0x1ffffffffffffffff"));
  EXPECT_FALSE(canonical_tactic("abc"));
  // Sixteen digits take the 16-bytes-at-once path: both cases, every digit value, bad bytes.
  EXPECT_EQ(*canonical_tactic("0x0123456789ABCDEF"), "0x0123456789abcdef");
  EXPECT_EQ(*canonical_tactic("0xfEdCbA9876543210"), "0xfedcba9876543210");
  for (const char* bad : {"0x0123456789abcdeg", "0x:123456789abcdef", "0x0123456789abcde/",
                          "0x01234567 9abcdef", "0x0123456789abcd@f", "0x0123456789abcd`f"})
    EXPECT_FALSE(canonical_tactic(bad)) << bad;
}

TEST(Values, VersionNumbers) {
  EXPECT_EQ(trt_version_from_number("v8601"), "8.6.1");
  EXPECT_EQ(trt_version_from_number("8412"), "8.4.12");
  EXPECT_EQ(trt_version_from_number("100300"), "10.3.0");
  EXPECT_EQ(trt_version_from_number("8.6.1"), "8.6.1");
}

TEST(Values, Utf8SequenceLength) {
  EXPECT_EQ(utf8_sequence_length("a", 0), 1u);
  EXPECT_EQ(utf8_sequence_length("\xc3\xa9", 0), 2u);          // U+00E9
  EXPECT_EQ(utf8_sequence_length("\xf0\x9f\x98\x80", 0), 4u);  // U+1F600
  EXPECT_EQ(utf8_sequence_length("\xc0\x80", 0), 0u);          // overlong NUL
  EXPECT_EQ(utf8_sequence_length("\xed\xa0\x80", 0), 0u);      // surrogate U+D800
  EXPECT_EQ(utf8_sequence_length("\xf4\x90\x80\x80", 0), 0u);  // past U+10FFFF
  EXPECT_EQ(utf8_sequence_length("\xe2\x82", 0), 0u);          // cut short
  EXPECT_EQ(utf8_sequence_length("\x80", 0), 0u);              // lone continuation
}

}  // namespace trtlens

namespace trtlens {
namespace {

TEST(SharedText, EqualTextsShareOneCopyAndReadAsStrings) {
  // Interned from two threads at once (diff reads its two sides so): one copy per text.
  const std::string hwc8 = "Channel major FP16 format where channel % 8 == 0";
  std::vector<SharedText> a(1000), b(1000);
  std::thread other([&] {
    for (auto& t : b) t = SharedText(hwc8);
  });
  for (auto& t : a) t = SharedText(std::string_view(hwc8));
  other.join();
  for (size_t i = 0; i < a.size(); ++i) {
    EXPECT_EQ(&a[i].str(), &b[0].str());
    EXPECT_EQ(a[i], b[i]);
  }
  EXPECT_EQ(a[0], hwc8);
  EXPECT_EQ(a[0].size(), hwc8.size());
  EXPECT_EQ("format " + a[0], "format " + hwc8);
  EXPECT_NE(a[0], SharedText("Row major linear FP32"));
  const SharedText none;
  EXPECT_TRUE(none.empty());
  EXPECT_EQ(none, "");
  EXPECT_TRUE(SharedText("").empty());
  EXPECT_EQ(none, SharedText(std::string()));
}

}  // namespace
}  // namespace trtlens
