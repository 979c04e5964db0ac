#include "io/digest.h"

#include <nettle/sha2.h>

#include <cerrno>
#include <cstring>
#include <fstream>
#include <memory>
#include <stdexcept>

#include "io/input.h"
#include "io/library.h"

namespace trtlens {
namespace {

// Nettle is opened by the first digest (the build store's), not linked: only `db add` hashes.
struct Nettle {
  decltype(&::nettle_sha256_init) init = nullptr;
  decltype(&::nettle_sha256_update) update = nullptr;
  decltype(&::nettle_sha256_digest) digest = nullptr;
  std::string missing;
};

const Nettle& nettle() {
  static const Nettle n = [] {
    static Library lib(TRTLENS_NETTLE_SONAME);
    Nettle n;
    if (!lib.get(n.init, "nettle_sha256_init") || !lib.get(n.update, "nettle_sha256_update") ||
        !lib.get(n.digest, "nettle_sha256_digest"))
      n.missing = lib.error();
    return n;
  }();
  if (!n.missing.empty())
    throw std::runtime_error("hashing needs Nettle (" TRTLENS_NETTLE_SONAME "): " + n.missing);
  return n;
}

}  // namespace

std::string sha256_of_files(const std::vector<DigestMember>& members) {
  const Nettle& sha = nettle();
  sha256_ctx ctx;
  sha.init(&ctx);
  auto update = [&](const void* data, size_t size) {
    sha.update(&ctx, size, static_cast<const uint8_t*>(data));
  };
  std::vector<char> buf(size_t{1} << 20);
  for (const auto& m : members) {
    std::ifstream f(m.path, std::ios::binary);
    if (!f) throw InputError(m.path, std::string("cannot read: ") + std::strerror(errno));
    update(m.name.data(), m.name.size() + 1);  // with its NUL: a separator
    uint64_t size = 0;
    while (f) {
      f.read(buf.data(), std::streamsize(buf.size()));
      std::streamsize got = f.gcount();
      if (got <= 0) break;
      update(buf.data(), size_t(got));
      size += uint64_t(got);
    }
    if (f.bad()) throw InputError(m.path, "read error");
    update(&size, sizeof size);
  }
  uint8_t md[SHA256_DIGEST_SIZE];
  const unsigned len = SHA256_DIGEST_SIZE;
  sha.digest(&ctx, len, md);
  static const char* hex = "0123456789abcdef";
  std::string out;
  for (unsigned i = 0; i < len; ++i) {
    out += hex[md[i] >> 4];
    out += hex[md[i] & 15];
  }
  return out;
}

}  // namespace trtlens
