// The CPU thread pool (src/cpu/thread_pool.h): every task runs exactly once whatever the thread
// count, from many callers at once and nested; a helper held up while the caller waits (as a
// helper the OS has descheduled would be) makes later calls use fewer helpers, and the cap comes
// back after the backoff.
#include "cpu/thread_pool.h"

#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <thread>
#include <vector>

namespace eltwise {
namespace {

using std::chrono::milliseconds;

// Runs `tasks` tasks on `threads` threads of `pool`; each must run exactly once.
void ExpectEachTaskOnce(ThreadPool& pool, size_t tasks, int threads) {
  std::vector<std::atomic<int>> runs(tasks);
  pool.ParallelFor(tasks, threads,
                   [&](size_t i) { runs[i].fetch_add(1, std::memory_order_relaxed); });
  for (size_t i = 0; i < tasks; ++i) ASSERT_EQ(runs[i].load(), 1) << "task " << i;
}

TEST(ThreadPool, EveryTaskRunsOnce) {
  ThreadPool pool;
  for (int threads : {1, 2, 3, 8}) {
    for (size_t tasks : {size_t{0}, size_t{1}, size_t{2}, size_t{7}, size_t{1000}}) {
      ExpectEachTaskOnce(pool, tasks, threads);
    }
  }
}

TEST(ThreadPool, ManyCallersAndNestedCalls) {
  ThreadPool pool;
  std::vector<std::thread> callers;
  std::atomic<int> failures{0};
  for (int c = 0; c < 6; ++c) {
    callers.emplace_back([&] {
      for (int round = 0; round < 50; ++round) {
        std::vector<std::atomic<int>> runs(64);
        pool.ParallelFor(8, 4, [&](size_t outer) {
          pool.ParallelFor(8, 4, [&](size_t inner) { runs[outer * 8 + inner].fetch_add(1); });
        });
        for (auto& r : runs) failures += r.load() != 1;
      }
    });
  }
  for (auto& t : callers) t.join();
  EXPECT_EQ(failures.load(), 0);
}

// One call of two tasks on two threads whose helper holds its task well after the caller has
// done its own (longer than kStallMin and than the caller's share), as a helper the OS has
// descheduled would.
void CallWithAHeldUpHelper(ThreadPool& pool) {
  using Clock = std::chrono::steady_clock;
  const std::thread::id caller = std::this_thread::get_id();
  const Clock::time_point start = Clock::now();
  std::atomic<bool> helper_started{false}, caller_done{false};
  std::atomic<int64_t> caller_ns{0};
  pool.ParallelFor(2, 2, [&](size_t) {
    const auto give_up = Clock::now() + std::chrono::seconds(10);
    if (std::this_thread::get_id() != caller) {
      helper_started = true;
      while (!caller_done && Clock::now() < give_up) std::this_thread::yield();
      std::this_thread::sleep_for(milliseconds(5) + 2 * std::chrono::nanoseconds(caller_ns));
    } else {
      // Both tasks must not end up on the caller: wait (bounded) for a helper to take one.
      while (!helper_started && Clock::now() < give_up) std::this_thread::yield();
      caller_ns = std::chrono::nanoseconds(Clock::now() - start).count();
      caller_done = true;
    }
  });
  ASSERT_TRUE(helper_started) << "no helper joined the call within 10 s";
}

// Whether all of `tasks` ran on the calling thread.
bool AllOnTheCaller(ThreadPool& pool, size_t tasks, int threads) {
  const std::thread::id caller = std::this_thread::get_id();
  std::atomic<int> elsewhere{0};
  pool.ParallelFor(tasks, threads,
                   [&](size_t) { elsewhere += std::this_thread::get_id() != caller; });
  return elsewhere == 0;
}

TEST(ThreadPool, AStalledHelperLowersTheCapForTheBackoff) {
  ThreadPool pool({.min_backoff = std::chrono::hours(1), .max_backoff = std::chrono::hours(2)});
  ExpectEachTaskOnce(pool, 100, 3);
  EXPECT_GT(pool.CurrentContention().helper_cap, 2);  // no stall yet: uncapped
  EXPECT_EQ(pool.CurrentContention().backoff, ThreadPool::Clock::duration::zero());

  CallWithAHeldUpHelper(pool);
  EXPECT_EQ(pool.CurrentContention().helper_cap, 0);  // one fewer than the stalled call had
  EXPECT_EQ(pool.CurrentContention().backoff, std::chrono::hours(1));
  // Within the backoff, calls run on the caller alone, every task once.
  EXPECT_TRUE(AllOnTheCaller(pool, 64, 2));
  EXPECT_TRUE(AllOnTheCaller(pool, 64, 8));
  ExpectEachTaskOnce(pool, 100, 8);
}

TEST(ThreadPool, TheCapComesBackAfterTheBackoffAndRecurringStallsDoubleIt) {
  const auto min_backoff = milliseconds(1);
  ThreadPool pool({.min_backoff = min_backoff, .max_backoff = milliseconds(4)});
  CallWithAHeldUpHelper(pool);
  ASSERT_EQ(pool.CurrentContention().helper_cap, 0);
  ASSERT_EQ(pool.CurrentContention().backoff, min_backoff);

  // After the backoff the next call gets one helper again (a probe); it stalls too: twice the
  // backoff, and again (capped at max_backoff).
  for (const auto expected : {milliseconds(2), milliseconds(4), milliseconds(4)}) {
    std::this_thread::sleep_for(milliseconds(10));
    CallWithAHeldUpHelper(pool);
    EXPECT_EQ(pool.CurrentContention().helper_cap, 0);
    EXPECT_EQ(pool.CurrentContention().backoff, expected);
  }
  // Probes that do not stall keep the helper; each backoff without a stall halves it, down to
  // none.
  std::this_thread::sleep_for(milliseconds(10));
  ExpectEachTaskOnce(pool, 100, 2);
  EXPECT_EQ(pool.CurrentContention().helper_cap, 1);
  for (int i = 0; i < 4 && pool.CurrentContention().backoff != ThreadPool::Clock::duration::zero();
       ++i) {
    std::this_thread::sleep_for(milliseconds(10));
    ExpectEachTaskOnce(pool, 100, 2);
  }
  EXPECT_EQ(pool.CurrentContention().backoff, ThreadPool::Clock::duration::zero());
  EXPECT_EQ(pool.CurrentContention().helper_cap, 1);
}

}  // namespace
}  // namespace eltwise
