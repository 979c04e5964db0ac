// Fuzz inputs reach the ingesters through the same path as files: a memfd opened by name.
#pragma once

#include <sys/mman.h>
#include <unistd.h>

#include <cstdint>
#include <string>

#include "io/input.h"
#include "model/assembler.h"

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

// Fuzz bytes, read as lines, through a line-based ingester: `ingest(LineReader&, Assembler&,
// path)`. Input errors are expected outcomes; anything else is a finding.
template <class Ingest>
int ingest_lines(const uint8_t* data, size_t size, const char* kind, Ingest ingest) {
  MemFile f(data, size);
  Capture c;
  Assembler out(c);
  try {
    auto in = InputStream::open(f.path());
    LineReader lines(*in, size_t{1} << 20);
    out.begin_input("fuzz.json", kind, false);
    ingest(lines, out, "fuzz.json");
    out.end_input(lines.lines());
  } catch (const InputError&) {
  }
  out.finish();
  return 0;
}

}  // namespace trtlens::fuzz
