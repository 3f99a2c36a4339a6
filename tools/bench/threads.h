// Threads of the host baselines: a team that runs one piece of work in lock step on each of its
// threads, the byte range each thread takes, and a load that keeps cores busy meanwhile.
#pragma once

#include <algorithm>
#include <barrier>
#include <condition_variable>
#include <cstdint>
#include <mutex>
#include <thread>
#include <vector>

namespace eltwise::bench {

// A reusable barrier on a mutex and a condition variable, for where std::barrier cannot be
// trusted: under mingw-w64 (libstdc++ 12 without futexes) its waits sometimes never returned, so
// that under wine about every second run of `eltwise bench` on 2 threads hung.
class BlockingBarrier {
 public:
  explicit BlockingBarrier(int count) : count_(count) {}
  void arrive_and_wait() {
    std::unique_lock<std::mutex> lock(mutex_);
    const uint64_t phase = phase_;
    if (++arrived_ == count_) {
      arrived_ = 0;
      ++phase_;
      next_phase_.notify_all();
      return;
    }
    next_phase_.wait(lock, [&] { return phase_ != phase; });
  }

 private:
  const int count_;
  int arrived_ = 0;
  uint64_t phase_ = 0;
  std::mutex mutex_;
  std::condition_variable next_phase_;
};

#if defined(_WIN32)
using TeamBarrier = BlockingBarrier;
#else
using TeamBarrier = std::barrier<>;  // the baseline all figures in docs/ were measured with
#endif

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
    TeamBarrier sync(threads_);
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
