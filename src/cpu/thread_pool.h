// A persistent pool of worker threads shared by every CPU device. A parallel loop runs on the
// calling thread plus up to `threads - 1` workers; the caller always works too, so concurrent loops
// from many threads make progress even when every worker is busy, and nested loops (a body that
// calls ParallelFor) neither deadlock nor add threads. Tasks are taken one at a time from a shared
// counter, so a thread that the OS deschedules (a busy machine) holds back at most the one task
// it is running; a caller that has run out of tasks sleeps (after a short spin) until its helpers
// finish, which frees its core for a descheduled helper.
#pragma once

#include <atomic>
#include <condition_variable>
#include <cstddef>
#include <deque>
#include <mutex>
#include <thread>
#include <vector>

namespace eltwise {

class ThreadPool {
 public:
  // The process-wide pool (created on first use; workers are added as larger thread counts are
  // requested).
  static ThreadPool& Global();

  ~ThreadPool();

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
  void EnsureWorkers(int count);
  void WorkerLoop();

  std::mutex mutex_;
  std::condition_variable wake_;
  std::condition_variable helpers_done_;  // a sleeping caller's helpers have all finished
  std::deque<Job*> queue_;                // jobs that still want helpers
  std::vector<std::thread> workers_;
  std::atomic<size_t> queued_{0};  // queue_.size(), readable without the lock (for spinning)
  bool stop_ = false;
};

}  // namespace eltwise
