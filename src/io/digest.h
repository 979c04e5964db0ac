// SHA-256 of files, for telling captures apart by content (the store's idempotent add).
#pragma once

#include <string>
#include <vector>

namespace trtlens {

// Hex SHA-256 over each (name, size, bytes) in order: the same files under the same names give
// the same digest wherever they lie. Throws InputError when a file cannot be read.
struct DigestMember {
  std::string name;  // as it should count (relative to the capture's root)
  std::string path;  // where to read it
};
std::string sha256_of_files(const std::vector<DigestMember>& members);

}  // namespace trtlens
