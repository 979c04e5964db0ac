#include "io/output.h"

#include <fcntl.h>
#include <pthread.h>
#include <sys/stat.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <csignal>
#include <cstring>
#include <utility>

namespace trtlens {
namespace {

constexpr size_t kBufBytes = size_t{1} << 16;

std::string reason(int err) { return err ? std::strerror(err) : "unknown error"; }

mode_t current_umask() {
  mode_t m = ::umask(0);
  ::umask(m);
  return m;
}

// Temporary files a signal must not leave behind. The handler may only read plain memory and
// call async-signal-safe functions, so the paths live in fixed slots that it scans; a slot is
// filled before it is published and unpublished only after its file is renamed or removed.
constexpr size_t kSlots = 8, kSlotBytes = 4096;
char temp_paths[kSlots][kSlotBytes];
std::atomic<bool> temp_claimed[kSlots];  // owned by an OutputFile
std::atomic<bool> temp_used[kSlots];     // holds a path the handler may unlink
std::atomic<bool> handlers_installed{false};
constexpr int kCleanupSignals[] = {SIGINT, SIGTERM, SIGHUP};

extern "C" void remove_temps_and_reraise(int sig) {
  const int saved = errno;
  for (size_t i = 0; i < kSlots; ++i)
    if (temp_used[i].load(std::memory_order_acquire)) ::unlink(temp_paths[i]);
  errno = saved;
  // The default action, so the parent sees death by this signal.
  struct sigaction dfl {};
  dfl.sa_handler = SIG_DFL;
  sigemptyset(&dfl.sa_mask);
  ::sigaction(sig, &dfl, nullptr);
  ::raise(sig);
}

void install_handlers() {
  if (handlers_installed.exchange(true)) return;
  for (int sig : kCleanupSignals) {
    struct sigaction old {};
    if (::sigaction(sig, nullptr, &old) != 0) continue;
    if (old.sa_handler == SIG_IGN) continue;  // nohup and the like: keep ignoring
    struct sigaction sa {};
    sa.sa_handler = remove_temps_and_reraise;
    sigemptyset(&sa.sa_mask);
    for (int other : kCleanupSignals) sigaddset(&sa.sa_mask, other);
    ::sigaction(sig, &sa, nullptr);
  }
}

// The slot now holding `path`, or -1 when all are taken or the path is too long (the file is
// then only removed on a normal exit).
int register_temp(const std::string& path) {
  if (path.size() >= kSlotBytes) return -1;
  for (size_t i = 0; i < kSlots; ++i) {
    bool expected = false;
    if (temp_claimed[i].compare_exchange_strong(expected, true)) {
      std::memcpy(temp_paths[i], path.c_str(), path.size() + 1);
      temp_used[i].store(true, std::memory_order_release);
      return int(i);
    }
  }
  return -1;
}

void unregister_temp(int slot) {
  if (slot < 0) return;
  temp_used[size_t(slot)].store(false, std::memory_order_release);
  temp_claimed[size_t(slot)].store(false, std::memory_order_release);
}

}  // namespace

CheckedFdBuf::CheckedFdBuf(int fd) : fd_(fd), buf_(kBufBytes) {
  setp(buf_.data(), buf_.data() + buf_.size());
}

bool CheckedFdBuf::write_out(const char* p, size_t n) {
  while (n > 0 && errno_ == 0) {
    ssize_t k = ::write(fd_, p, n);
    if (k < 0 && errno == EINTR) continue;
    if (k < 0)
      errno_ = errno;
    else if (k == 0)
      errno_ = EIO;
    else {
      p += k;
      n -= size_t(k);
    }
  }
  return errno_ == 0;
}

bool CheckedFdBuf::flush_all() {
  bool ok = write_out(pbase(), size_t(pptr() - pbase()));
  setp(buf_.data(), buf_.data() + buf_.size());
  return ok;
}

CheckedFdBuf::int_type CheckedFdBuf::overflow(int_type ch) {
  if (!flush_all()) return traits_type::eof();
  if (!traits_type::eq_int_type(ch, traits_type::eof())) {
    *pptr() = traits_type::to_char_type(ch);
    pbump(1);
  }
  return traits_type::not_eof(ch);
}

std::streamsize CheckedFdBuf::xsputn(const char* s, std::streamsize n) {
  if (size_t(n) <= size_t(epptr() - pptr())) {
    std::memcpy(pptr(), s, size_t(n));
    pbump(int(n));
    return n;
  }
  if (!flush_all()) return 0;
  if (size_t(n) < buf_.size()) return xsputn(s, n);
  return write_out(s, size_t(n)) ? n : 0;
}

OutputFile::OutputFile(const std::string& path) : path_(path) {
  if (path.empty() || path == "-") {
    shown_ = "<stdout>";
    fd_ = STDOUT_FILENO;
  } else {
    shown_ = path;
    struct stat st {};
    // Devices, FIFOs and the like are written in place; only a regular file (or a new one) is
    // replaced by rename.
    if (::stat(path.c_str(), &st) == 0 && !S_ISREG(st.st_mode)) {
      if (S_ISDIR(st.st_mode)) throw OutputError(path + ": is a directory");
      fd_ = ::open(path.c_str(), O_WRONLY | O_TRUNC | O_CLOEXEC);
      if (fd_ < 0) throw OutputError(path + ": write failed: " + reason(errno));
    } else {
      std::string dir = ".", base = path;
      size_t slash = path.rfind('/');
      if (slash != std::string::npos) {
        dir = slash == 0 ? "/" : path.substr(0, slash);
        base = path.substr(slash + 1);
      }
      if (base.empty()) throw OutputError(path + ": is a directory");
      temp_ = (dir == "/" ? "" : dir) + "/." + base + ".trtlens-XXXXXX";
      // The signals wait while the file is created and registered: one arriving in between
      // would otherwise leave the file behind.
      install_handlers();
      sigset_t block, old;
      sigemptyset(&block);
      for (int sig : kCleanupSignals) sigaddset(&block, sig);
      ::pthread_sigmask(SIG_BLOCK, &block, &old);
      fd_ = ::mkostemp(temp_.data(), O_CLOEXEC);
      const int err = errno;
      if (fd_ >= 0) slot_ = register_temp(temp_);
      ::pthread_sigmask(SIG_SETMASK, &old, nullptr);
      if (fd_ < 0) {
        temp_.clear();
        throw OutputError(path + ": write failed: " + reason(err));
      }
      // A replaced file keeps its permissions; a new one gets the usual 0666 less umask.
      mode_t mode =
          S_ISREG(st.st_mode) && st.st_mode ? (st.st_mode & 07777) : (0666 & ~current_umask());
      ::fchmod(fd_, mode);
    }
    owns_fd_ = true;
  }
  buf_ = std::make_unique<CheckedFdBuf>(fd_);
  stream_.rdbuf(buf_.get());
}

void OutputFile::commit() {
  if (committed_) return;
  committed_ = true;
  auto fail = [&](int err) {
    if (!temp_.empty()) ::unlink(temp_.c_str());
    temp_.clear();
    unregister_temp(std::exchange(slot_, -1));
    throw OutputError(shown_ + ": write failed: " + reason(err));
  };
  if (!buf_->flush_all()) fail(buf_->error());
  if (stream_.bad()) fail(buf_->error() ? buf_->error() : EIO);
  if (owns_fd_) {
    int fd = fd_;
    fd_ = -1;
    if (::close(fd) != 0 && errno != EINTR) fail(errno);
  }
  if (!temp_.empty()) {
    if (::rename(temp_.c_str(), path_.c_str()) != 0) fail(errno);
    temp_.clear();
    unregister_temp(std::exchange(slot_, -1));
  }
}

OutputFile::~OutputFile() {
  if (committed_) return;
  if (owns_fd_ && fd_ >= 0) ::close(fd_);
  if (!temp_.empty()) ::unlink(temp_.c_str());
  unregister_temp(slot_);
}

void refuse_output_over_input(const std::string& output, const std::vector<std::string>& inputs) {
  if (output.empty() || output == "-") return;
  struct stat out {};
  if (::stat(output.c_str(), &out) != 0) return;  // a new file cannot be an input
  if (!S_ISREG(out.st_mode)) return;              // /dev/null, a FIFO: written in place
  for (const auto& in : inputs) {
    struct stat st {};
    if (in == "-" || ::stat(in.c_str(), &st) != 0) continue;
    if (st.st_dev == out.st_dev && st.st_ino == out.st_ino)
      throw OutputError(output + ": is also an input (" + in + "); refusing to overwrite it");
  }
}

}  // namespace trtlens
