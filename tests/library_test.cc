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
  auto* version = z.function<const char*()>("zlibVersion");
  ASSERT_NE(version, nullptr) << z.error();
  EXPECT_EQ(std::string(version()), zlibVersion());  // the same library the tests link
  EXPECT_EQ(z.function<void()>("trtlens_absent_function"), nullptr);
  EXPECT_NE(z.error().find("trtlens_absent_function"), std::string::npos) << z.error();
}

TEST(Library, AMissingLibrarySaysWhy) {
  Library none("libtrtlens-absent.so.0");
  EXPECT_FALSE(none.ok());
  EXPECT_NE(none.error().find("libtrtlens-absent.so.0"), std::string::npos) << none.error();
  EXPECT_EQ(none.function<void()>("f"), nullptr);
}

}  // namespace
}  // namespace trtlens
