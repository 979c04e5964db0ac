#include "model/parallel.h"

#include <algorithm>
#include <atomic>
#include <condition_variable>
#include <exception>
#include <mutex>
#include <system_error>
#include <thread>

namespace trtlens {
namespace {

// One loop's items, taken by index by every thread that joins it.
struct Loop {
  Loop(size_t count, const std::function<void(size_t)>& f) : n(count), fn(f) {}
  size_t n;
  const std::function<void(size_t)>& fn;
  std::atomic<size_t> next{0};
  std::mutex failed_lock;
  std::exception_ptr failed;

  void work() {
    for (size_t i; (i = next.fetch_add(1, std::memory_order_relaxed)) < n;) {
      try {
        fn(i);
      } catch (...) {
        std::lock_guard<std::mutex> hold(failed_lock);
        if (!failed) failed = std::current_exception();
        next.store(n, std::memory_order_relaxed);  // the others stop after their item
      }
    }
  }
};

thread_local bool t_helper = false;  // this thread is one of the pool's

// Helper threads kept for the process's life: an analysis runs several loops over the builds
// one after another, and a thread started for each loop cost more CPU than the loop's second
// core saved (a fresh stack and allocator heap, faulted in each time): 2 % of the CPU of
// reading a 216 MB log. Never destroyed: its threads wait for work until the process exits.
class Pool {
 public:
  // Runs `loop` on the caller and up to `helpers` pool threads; false (nothing run) when a loop
  // holds the pool already (another thread's, or the caller's own around this one).
  bool run(Loop& loop, size_t helpers) {
    if (busy_.exchange(true, std::memory_order_acquire)) return false;
    {
      std::lock_guard<std::mutex> hold(lock_);
      try {
        while (threads_ < helpers) {
          std::thread([this] { serve(); }).detach();
          ++threads_;
        }
      } catch (const std::system_error&) {
        // No more threads to be had: those there are (perhaps none) help.
      }
      loop_ = &loop;
      wanted_ = std::min(helpers, threads_);
      joined_ = left_ = 0;
      ++round_;
    }
    wake_.notify_all();
    loop.work();
    {
      // Helpers that have not joined yet stay out; those inside finish their items.
      std::unique_lock<std::mutex> hold(lock_);
      wanted_ = joined_;
      done_.wait(hold, [&] { return left_ == joined_; });
      loop_ = nullptr;
    }
    busy_.store(false, std::memory_order_release);
    return true;
  }

 private:
  void serve() {
    t_helper = true;
    uint64_t seen = 0;
    for (;;) {
      Loop* loop;
      {
        std::unique_lock<std::mutex> hold(lock_);
        wake_.wait(hold, [&] { return round_ != seen && joined_ < wanted_; });
        seen = round_;
        ++joined_;
        loop = loop_;
      }
      loop->work();
      {
        std::lock_guard<std::mutex> hold(lock_);
        ++left_;
      }
      done_.notify_one();
    }
  }

  std::atomic<bool> busy_{false};  // one loop at a time (a nested one runs alone)
  std::mutex lock_;
  std::condition_variable wake_, done_;
  size_t threads_ = 0;
  Loop* loop_ = nullptr;
  uint64_t round_ = 0;  // loops begun: a helper joins each at most once
  // Helpers the loop takes (cut to those that joined once the caller is done), joined, left.
  size_t wanted_ = 0, joined_ = 0, left_ = 0;
};

Pool& pool() {
  static Pool* p = new Pool;
  return *p;
}

}  // namespace

void parallel_for(size_t n, unsigned threads, const std::function<void(size_t)>& fn) {
  if (threads == 0) threads = std::max(1u, std::thread::hardware_concurrency());
  const size_t helpers = std::min<size_t>(threads, n) - (n > 0 ? 1 : 0);
  Loop loop(n, fn);
  // A loop inside a helper's item, or while another thread's loop holds the pool, runs on the
  // calling thread alone.
  if (helpers == 0 || t_helper || !pool().run(loop, helpers)) loop.work();
  if (loop.failed) std::rethrow_exception(loop.failed);
}

}  // namespace trtlens
