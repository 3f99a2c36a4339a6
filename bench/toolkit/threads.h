// Threads of the host baselines: a team that runs one piece of work in lock step on each of its
// threads, the byte range each thread takes, and a load that keeps cores busy meanwhile.
#pragma once

#include <algorithm>
#include <barrier>
#include <cstdint>
#include <thread>
#include <vector>

namespace eltwise::bench {

// A fixed number of threads that runs fn(thread, threads) `calls` times in lock step: a barrier
// per call, like one parallel call of a library per call. The calling thread is thread 0.
class Team {
 public:
  explicit Team(int threads) : threads_(std::max(threads, 1)) {}
  int threads() const { return threads_; }

  template <class Fn>
  void Run(int64_t calls, const Fn& fn) const {
    if (threads_ == 1) {
      for (int64_t c = 0; c < calls; ++c) fn(0, 1);
      return;
    }
    std::barrier sync(threads_);
    auto body = [&](int thread) {
      for (int64_t c = 0; c < calls; ++c) {
        sync.arrive_and_wait();
        fn(thread, threads_);
      }
      sync.arrive_and_wait();
    };
    std::vector<std::jthread> helpers;
    for (int t = 1; t < threads_; ++t) helpers.emplace_back(body, t);
    body(0);
  }

 private:
  int threads_;
};

struct ByteRange {
  uint64_t begin, end;
};
// Part `part` of `parts` of [0, bytes): cut on 64-byte boundaries, the last part up to `bytes`.
ByteRange PartOf(uint64_t bytes, int part, int parts);

// Threads that keep `count` cores busy for the object's lifetime (another program hogging them),
// to show how a parallel call copes with a core it cannot have.
class BusyLoad {
 public:
  explicit BusyLoad(int count);

 private:
  std::vector<std::jthread> threads_;
};

}  // namespace eltwise::bench
