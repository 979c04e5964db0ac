// Fuzz inputs reach the ingesters through the same path as files: a memfd opened by name.
#pragma once

#include <sys/mman.h>
#include <unistd.h>

#include <cstdint>
#include <string>

namespace trtlens::fuzz {

class MemFile {
 public:
  MemFile(const uint8_t* data, size_t size) {
    fd_ = memfd_create("trtlens-fuzz", MFD_CLOEXEC);
    size_t off = 0;
    while (off < size) {
      ssize_t n = write(fd_, data + off, size - off);
      if (n <= 0) break;
      off += size_t(n);
    }
    path_ = "/proc/self/fd/" + std::to_string(fd_);
  }
  ~MemFile() { close(fd_); }
  const std::string& path() const { return path_; }

 private:
  int fd_ = -1;
  std::string path_;
};

}  // namespace trtlens::fuzz
