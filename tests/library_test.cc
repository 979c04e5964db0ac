// Libraries opened at run time (io/library.h): found by SONAME, their functions by name, and
// a missing library or function said, not a crash.
#include "io/library.h"

#include <gtest/gtest.h>
#include <zlib.h>

#include <string>

namespace trtlens {
namespace {

TEST(Library, OpensBySonameAndFindsFunctions) {
  Library z("libz.so.1");
  ASSERT_TRUE(z.ok()) << z.error();
  const char* (*version)() = nullptr;
  ASSERT_TRUE(z.get(version, "zlibVersion")) << z.error();
  EXPECT_EQ(std::string(version()), zlibVersion());  // the same library the tests link
  void (*absent)() = reinterpret_cast<void (*)()>(1);
  EXPECT_FALSE(z.get(absent, "trtlens_absent_function"));
  EXPECT_EQ(absent, nullptr);
  EXPECT_NE(z.error().find("trtlens_absent_function"), std::string::npos) << z.error();
}

TEST(Library, AMissingLibrarySaysWhy) {
  Library none("libtrtlens-absent.so.0");
  EXPECT_FALSE(none.ok());
  EXPECT_NE(none.error().find("libtrtlens-absent.so.0"), std::string::npos) << none.error();
  void (*f)() = nullptr;
  EXPECT_FALSE(none.get(f, "f"));
}

}  // namespace
}  // namespace trtlens
