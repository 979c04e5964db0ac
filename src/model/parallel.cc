#include "model/parallel.h"

#include <algorithm>
#include <atomic>
#include <exception>
#include <mutex>
#include <system_error>
#include <thread>
#include <vector>

namespace trtlens {

void parallel_for(size_t n, unsigned threads, const std::function<void(size_t)>& fn) {
  if (threads == 0) threads = std::max(1u, std::thread::hardware_concurrency());
  const size_t helpers = std::min<size_t>(threads, n) - (n > 0 ? 1 : 0);
  if (helpers == 0) {
    for (size_t i = 0; i < n; ++i) fn(i);
    return;
  }
  std::atomic<size_t> next{0};
  std::mutex failed_lock;
  std::exception_ptr failed;
  auto work = [&] {
    for (size_t i; (i = next.fetch_add(1, std::memory_order_relaxed)) < n;) {
      try {
        fn(i);
      } catch (...) {
        std::lock_guard<std::mutex> hold(failed_lock);
        if (!failed) failed = std::current_exception();
        next.store(n, std::memory_order_relaxed);  // the others stop after their item
      }
    }
  };
  std::vector<std::thread> pool;
  pool.reserve(helpers);
  try {
    for (size_t t = 0; t < helpers; ++t) pool.emplace_back(work);
  } catch (const std::system_error&) {
    // No thread to be had: the caller does the rest alone.
  }
  work();
  for (auto& t : pool) t.join();
  if (failed) std::rethrow_exception(failed);
}

}  // namespace trtlens
