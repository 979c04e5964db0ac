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

// Fuzz bytes as a whole text through `ingest(std::string&, Assembler&, path)`.
template <class Ingest>
int ingest_text(const uint8_t* data, size_t size, const char* kind, Ingest ingest) {
  std::string text(reinterpret_cast<const char*>(data), size);
  Capture c;
  Assembler out(c);
  out.begin_input("fuzz.json", kind, false);
  try {
    ingest(text, out, "fuzz.json");
  } catch (const InputError&) {
  }
  out.end_input(0);
  out.finish();
  return 0;
}

// Fuzz bytes as a stream through `ingest(InputStream&, Assembler&, path)`.
template <class Ingest>
int ingest_stream(const uint8_t* data, size_t size, const char* kind, Ingest ingest) {
  MemFile f(data, size);
  Capture c;
  Assembler out(c);
  try {
    auto in = InputStream::open(f.path());
    out.begin_input("fuzz.json", kind, false);
    out.end_input(ingest(*in, out, "fuzz.json"));
  } catch (const InputError&) {
  }
  out.finish();
  return 0;
}

}  // namespace trtlens::fuzz
