#include "io/digest.h"

#include <openssl/evp.h>

#include <cerrno>
#include <cstring>
#include <fstream>
#include <memory>

#include "io/input.h"

namespace trtlens {

std::string sha256_of_files(const std::vector<DigestMember>& members) {
  std::unique_ptr<EVP_MD_CTX, decltype(&EVP_MD_CTX_free)> ctx(EVP_MD_CTX_new(), EVP_MD_CTX_free);
  if (!ctx || EVP_DigestInit_ex(ctx.get(), EVP_sha256(), nullptr) != 1)
    throw std::runtime_error("SHA-256 is not available");
  std::vector<char> buf(size_t{1} << 20);
  for (const auto& m : members) {
    std::ifstream f(m.path, std::ios::binary);
    if (!f) throw InputError(m.path, std::string("cannot read: ") + std::strerror(errno));
    EVP_DigestUpdate(ctx.get(), m.name.data(), m.name.size() + 1);  // with its NUL: a separator
    uint64_t size = 0;
    while (f) {
      f.read(buf.data(), std::streamsize(buf.size()));
      std::streamsize got = f.gcount();
      if (got <= 0) break;
      EVP_DigestUpdate(ctx.get(), buf.data(), size_t(got));
      size += uint64_t(got);
    }
    if (f.bad()) throw InputError(m.path, "read error");
    EVP_DigestUpdate(ctx.get(), &size, sizeof size);
  }
  unsigned char md[EVP_MAX_MD_SIZE];
  unsigned int len = 0;
  EVP_DigestFinal_ex(ctx.get(), md, &len);
  static const char* hex = "0123456789abcdef";
  std::string out;
  for (unsigned i = 0; i < len; ++i) {
    out += hex[md[i] >> 4];
    out += hex[md[i] & 15];
  }
  return out;
}

}  // namespace trtlens
