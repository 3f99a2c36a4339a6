#include "cpu/thread_pool.h"

#include <algorithm>
#include <chrono>
#include <new>
#include <system_error>

#if defined(__x86_64__) || defined(__i386__)
#include <immintrin.h>
#define ELTWISE_PAUSE() _mm_pause()
#elif defined(__aarch64__)
#define ELTWISE_PAUSE() asm volatile("yield")
#else
#define ELTWISE_PAUSE() ((void)0)
#endif

namespace eltwise {
namespace {
// Workers spin this long for new work before sleeping: a parallel call arriving soon after
// another then starts without a futex wake-up (tens of microseconds on a busy machine).
constexpr auto kSpin = std::chrono::microseconds(50);
constexpr int kMaxWorkers = 1023;
// Pauses the caller spins for its helpers to finish before it sleeps instead: helpers that are
// running finish within it; one the OS has descheduled gets the caller's core.
constexpr int kSpinsBeforeSleep = 256;
// A caller that waited for its helpers longer than this and longer than it worked itself had a
// helper descheduled holding a task for a scheduler slice (milliseconds), while a running helper
// finishes within about one task and short interruptions of it on a quiet machine (interrupts,
// the hypervisor) are much shorter than a slice, too short to be worth calls on fewer threads.
// Chosen by measurement on x86-64 with `eltwise bench --busy 1` (docs/performance.md).
constexpr auto kStallMin = std::chrono::milliseconds(1);
}  // namespace

ThreadPool& ThreadPool::Global() {
  // Never destroyed: operators may still run from other static destructors at exit; the idle
  // workers simply end with the process.
  static ThreadPool* const pool = new ThreadPool();
  return *pool;
}

ThreadPool::~ThreadPool() {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    stop_ = true;
  }
  wake_.notify_all();
  for (std::thread& t : workers_) t.join();
}

int ThreadPool::EnsureWorkers(int count) {
  count = std::min(count, kMaxWorkers);
  std::lock_guard<std::mutex> lock(mutex_);
  while (static_cast<int>(workers_.size()) < count) {
    // A thread the system refuses (std::system_error) or memory for it or for workers_
    // (std::bad_alloc; emplace_back then leaves workers_ as it was) ends the attempt.
    try {
      workers_.emplace_back([this] { WorkerLoop(); });
    } catch (const std::system_error&) {
      break;
    } catch (const std::bad_alloc&) {
      break;
    }
  }
  return static_cast<int>(workers_.size());
}

void ThreadPool::Work(Job& job) {
  for (;;) {
    const size_t i = job.next.fetch_add(1, std::memory_order_relaxed);
    if (i >= job.tasks) return;
    job.function(job.context, i);
  }
}

ThreadPool::Contention ThreadPool::CurrentContention() {
  std::lock_guard<std::mutex> lock(mutex_);
  return {helper_cap_, backoff_};
}

int ThreadPool::AllowedHelpers(int wanted, Clock::time_point now) {
  if (helper_cap_ < wanted && now >= next_probe_) {
    ++helper_cap_;  // the backoff has ended: try one helper more
    next_probe_ = now + backoff_;
  }
  return std::min(wanted, helper_cap_);
}

// Calls have one helper fewer for min_backoff after a stall, twice as long after each stall of a
// call that started within a backoff of the cap being raised, and half as long again after each
// backoff without a stall.
void ThreadPool::NoteCallEnd(int helpers, bool stalled, Clock::time_point start,
                             Clock::time_point now) {
  if (stalled) {
    const bool recurring = backoff_ != Clock::duration::zero() && start < next_probe_ + backoff_;
    backoff_ = recurring ? std::min(2 * backoff_, limits_.max_backoff) : limits_.min_backoff;
    helper_cap_ = std::max(0, helpers - 1);
    next_probe_ = now + backoff_;
  } else if (backoff_ != Clock::duration::zero() && now >= next_probe_ + backoff_) {
    backoff_ /= 2;  // a whole backoff without a stall
    if (backoff_ < limits_.min_backoff) backoff_ = Clock::duration::zero();
    next_probe_ = now;
  }
  recovering_.store(backoff_ != Clock::duration::zero(), std::memory_order_relaxed);
}

void ThreadPool::Run(size_t tasks, int threads, void (*function)(const void*, size_t),
                     const void* context) {
  const int requested =
      static_cast<int>(std::min<size_t>(static_cast<size_t>(threads - 1), tasks - 1));
  const int wanted = std::min(requested, EnsureWorkers(requested));
  Job job;
  job.function = function;
  job.context = context;
  job.tasks = tasks;
  const Clock::time_point start = Clock::now();
  int helpers;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    helpers = AllowedHelpers(wanted, start);
    job.helpers_wanted = helpers;
    if (helpers > 0) {
      try {
        queue_.push_back(&job);
        queued_.store(queue_.size(), std::memory_order_release);
      } catch (const std::bad_alloc&) {
        helpers = 0;  // no memory to queue the job: the caller runs every task
      }
    }
  }
  if (helpers == 0) {
    Work(job);
    return;
  }
  if (helpers == 1) {
    wake_.notify_one();
  } else {
    wake_.notify_all();
  }
  Work(job);
  const Clock::time_point worked = Clock::now();
  {
    // No helper can join after this; wait for those that did.
    std::lock_guard<std::mutex> lock(mutex_);
    const auto it = std::find(queue_.begin(), queue_.end(), &job);
    if (it != queue_.end()) queue_.erase(it);
    queued_.store(queue_.size(), std::memory_order_release);
  }
  // Helpers that joined are finishing their last tasks: spin briefly, then sleep until the last
  // one signals, so that a helper waiting for a core (a busy or oversubscribed machine) can have
  // this one.
  for (int spins = 0; spins < kSpinsBeforeSleep; ++spins) {
    if (job.helpers_running.load(std::memory_order_acquire) == 0) {
      if (!recovering_.load(std::memory_order_relaxed)) return;
      std::lock_guard<std::mutex> lock(mutex_);
      NoteCallEnd(helpers, false, start, worked);
      return;
    }
    ELTWISE_PAUSE();
  }
  std::unique_lock<std::mutex> lock(mutex_);
  job.caller_sleeping = true;
  helpers_done_.wait(lock,
                     [&] { return job.helpers_running.load(std::memory_order_acquire) == 0; });
  const Clock::time_point done = Clock::now();
  const bool stalled = done - worked > std::max<Clock::duration>(kStallMin, worked - start);
  NoteCallEnd(helpers, stalled, start, done);
}

void ThreadPool::WorkerLoop() {
  for (;;) {
    // The queue is polled after every pause (a pause is up to ~100 cycles on recent x86), the
    // clock only every 64 polls: a job posted while spinning is joined within about a pause.
    const auto spin_until = std::chrono::steady_clock::now() + kSpin;
    bool spinning = true;
    while (spinning && queued_.load(std::memory_order_acquire) == 0) {
      for (int i = 0; i < 64 && queued_.load(std::memory_order_relaxed) == 0; ++i) ELTWISE_PAUSE();
      spinning = std::chrono::steady_clock::now() < spin_until;
    }
    Job* job = nullptr;
    {
      std::unique_lock<std::mutex> lock(mutex_);
      wake_.wait(lock, [this] { return stop_ || !queue_.empty(); });
      if (stop_) return;
      job = queue_.front();
      job->helpers_running.fetch_add(1, std::memory_order_relaxed);
      if (++job->helpers_joined >= job->helpers_wanted) {
        queue_.pop_front();
        queued_.store(queue_.size(), std::memory_order_release);
      }
    }
    Work(*job);
    // The job may be destroyed as soon as the count is seen at zero: touch nothing of it
    // afterwards. Under the lock, a caller that sleeps has set caller_sleeping before (and
    // re-checks the count after taking the lock, so no wake-up is lost).
    std::lock_guard<std::mutex> lock(mutex_);
    const bool caller_sleeping = job->caller_sleeping;
    if (job->helpers_running.fetch_sub(1, std::memory_order_acq_rel) == 1 && caller_sleeping) {
      helpers_done_.notify_all();
    }
  }
}

}  // namespace eltwise
