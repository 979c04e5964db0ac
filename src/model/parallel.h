// Independent items (the builds of a capture, once loaded) on several threads: a log of several
// builds would otherwise have them analysed one after another on one core while the others idle.
#pragma once

#include <cstddef>
#include <functional>

namespace trtlens {

// Calls fn(i) for every i in [0, n), on up to `threads` threads counting the caller (0: one per
// core). Each i runs exactly once; fn must touch only item i's state or state it locks. The
// first exception thrown is rethrown here once every thread has stopped.
void parallel_for(size_t n, unsigned threads, const std::function<void(size_t)>& fn);

}  // namespace trtlens
