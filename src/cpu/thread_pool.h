// A persistent pool of worker threads shared by every CPU device. A parallel loop runs on the
// calling thread plus up to `threads - 1` workers; the caller always works too, so concurrent loops
// from many threads make progress even when every worker is busy, and nested loops (a body that
// calls ParallelFor) neither deadlock nor add threads. Tasks are taken one at a time from a shared
// counter, so a thread that the OS deschedules (a busy machine) holds back at most the one task
// it is running; a caller that has run out of tasks sleeps (after a short spin) until its helpers
// finish, which frees its core for a descheduled helper.
//
// A helper descheduled while it holds a task still makes its caller wait until the OS runs it
// again (a scheduler slice, milliseconds), so on a machine where another process keeps cores busy,
// helpers can cost more than they bring. The pool notices it (a caller that waited for its helpers
// much longer than it worked, see kStallMin) and then gives calls one helper fewer, for a backoff
// that doubles while stalls recur (10 ms to 1 s by default); when it ends, one helper more is tried
// again.
#pragma once

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstddef>
#include <deque>
#include <limits>
#include <mutex>
#include <thread>
#include <vector>

namespace eltwise {

// A pool's backoff after a stall: from min_backoff, doubling while stalls recur, up to
// max_backoff.
struct PoolBackoff {
  std::chrono::steady_clock::duration min_backoff = std::chrono::milliseconds(10);
  std::chrono::steady_clock::duration max_backoff = std::chrono::seconds(1);
};

class ThreadPool {
 public:
  using Clock = std::chrono::steady_clock;
  explicit ThreadPool(PoolBackoff backoff = {}) : limits_(backoff) {}

  // The process-wide pool (created on first use; workers are added as larger thread counts are
  // requested).
  static ThreadPool& Global();

  ~ThreadPool();

  // The most helpers a call gets now (below `threads - 1` only after stalls, see above), and the
  // current backoff (zero when no stall happened lately).
  struct Contention {
    int helper_cap;
    Clock::duration backoff;
  };
  Contention CurrentContention();

  // Runs body(task) for every task in [0, tasks), each exactly once, on the calling thread and at
  // most `threads - 1` workers, and returns when all have finished. Tasks are handed out in
  // increasing order. Safe to call from many threads at once.
  template <class Body>
  void ParallelFor(size_t tasks, int threads, const Body& body) {
    if (threads <= 1 || tasks <= 1) {
      for (size_t i = 0; i < tasks; ++i) body(i);
      return;
    }
    Run(
        tasks, threads,
        [](const void* context, size_t i) { (*static_cast<const Body*>(context))(i); }, &body);
  }

 private:
  struct Job {
    void (*function)(const void*, size_t);
    const void* context;
    size_t tasks;
    int helpers_wanted;
    int helpers_joined = 0;       // guarded by mutex_
    std::atomic<size_t> next{0};  // next task to hand out
    std::atomic<int> helpers_running{0};
    bool caller_sleeping = false;  // guarded by mutex_
  };

  void Run(size_t tasks, int threads, void (*function)(const void*, size_t), const void* context);
  static void Work(Job& job);
  // Starts workers until there are `count` (at most kMaxWorkers); returns how many there are, fewer
  // when the system refuses a thread: calls then run with the workers there are (with none, on the
  // calling thread alone), and later calls try again.
  int EnsureWorkers(int count);
  void WorkerLoop();
  // Under mutex_: the helpers a call that wants `wanted` gets at `now` (raises the cap by one when
  // the backoff has ended).
  int AllowedHelpers(int wanted, Clock::time_point now);
  // Under mutex_: the end (at `now`) of a call that was given `helpers` at `start`; `stalled`
  // when its caller waited for them much longer than it worked.
  void NoteCallEnd(int helpers, bool stalled, Clock::time_point start, Clock::time_point now);

  std::mutex mutex_;
  std::condition_variable wake_;
  std::condition_variable helpers_done_;  // a sleeping caller's helpers have all finished
  std::deque<Job*> queue_;                // jobs that still want helpers
  std::vector<std::thread> workers_;
  std::atomic<size_t> queued_{0};  // queue_.size(), readable without the lock (for spinning)
  bool stop_ = false;
  const PoolBackoff limits_;
  // Contention state, guarded by mutex_.
  int helper_cap_ = std::numeric_limits<int>::max();  // helpers a call may have
  Clock::duration backoff_{};                         // zero: no stall lately
  Clock::time_point next_probe_;                      // when helper_cap_ is raised by one again
  std::atomic<bool> recovering_{false};  // backoff_ is not zero (read without the lock)
};

}  // namespace eltwise
