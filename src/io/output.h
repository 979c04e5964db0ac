// Where a command's output goes: stdout or a file. Every write is checked; a file is written
// to a temporary file beside it and renamed into place on commit(), so an interrupted or failed
// run never leaves half a file, and an output that is one of the inputs is refused. SIGINT,
// SIGTERM and SIGHUP remove the temporary file before the process dies of them.
#pragma once

#include <sys/types.h>

#include <memory>
#include <ostream>
#include <stdexcept>
#include <streambuf>
#include <string>
#include <vector>

namespace trtlens {

// "PATH: reason" for an output that cannot be written.
class OutputError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// A streambuf over a file descriptor whose write errors are kept, not dropped.
class CheckedFdBuf : public std::streambuf {
 public:
  explicit CheckedFdBuf(int fd);
  bool flush_all();  // false after any failed write
  int error() const { return errno_; }

 protected:
  int_type overflow(int_type ch) override;
  std::streamsize xsputn(const char* s, std::streamsize n) override;
  int sync() override { return flush_all() ? 0 : -1; }

 private:
  bool write_out(const char* p, size_t n);
  int fd_;
  int errno_ = 0;
  std::vector<char> buf_;
};

class OutputFile {
 public:
  // "" or "-": stdout. Throws OutputError when the file cannot be created.
  explicit OutputFile(const std::string& path);
  ~OutputFile();  // without commit(): the temporary file is removed, the target left as it was
  OutputFile(const OutputFile&) = delete;
  OutputFile& operator=(const OutputFile&) = delete;

  std::ostream& stream() { return stream_; }
  // Flushes, closes and renames into place; throws OutputError "PATH: write failed: reason".
  void commit();
  const std::string& shown() const { return shown_; }

 private:
  std::string path_, shown_, temp_;
  int fd_ = -1;
  bool owns_fd_ = false;
  bool committed_ = false;
  int slot_ = -1;  // where a signal handler finds temp_ to remove it
  std::unique_ptr<CheckedFdBuf> buf_;
  std::ostream stream_{nullptr};
};

// Throws OutputError when `output` names the same file (device and inode) as one of `inputs`.
void refuse_output_over_input(const std::string& output, const std::vector<std::string>& inputs);

}  // namespace trtlens
