// The copy loop that `eltwise bench` holds every operator against (tools/bench/baselines.h):
// every byte copied, none beyond, at lengths around its 256-byte steps, unaligned, and in place,
// whichever vector width the running CPU picked; and the team that runs its threads in lock step
// (tools/bench/threads.h).
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <thread>
#include <vector>

#include "bench/baselines.h"
#include "bench/threads.h"

namespace eltwise::bench {
namespace {

std::vector<std::byte> Pattern(size_t bytes, unsigned seed) {
  std::vector<std::byte> v(bytes);
  for (size_t i = 0; i < bytes; ++i) v[i] = static_cast<std::byte>((i * 131 + seed) & 0xff);
  return v;
}

TEST(BenchBaselines, CopyLoopCopiesEveryByteAndNoMore) {
  constexpr size_t kGuard = 64;
  for (size_t bytes : {0, 1, 63, 255, 256, 257, 511, 512, 1000, 4096 + 17}) {
    for (size_t offset : {0, 1, 7, 32}) {
      const std::vector<std::byte> in = Pattern(bytes + offset, 3);
      std::vector<std::byte> out = Pattern(bytes + offset + kGuard, 200);
      const std::vector<std::byte> before = out;
      CopyLoop(in.data() + offset, out.data() + offset, bytes);
      for (size_t i = 0; i < out.size(); ++i) {
        const bool copied = i >= offset && i < offset + bytes;
        ASSERT_EQ(out[i], copied ? in[i] : before[i])
            << "byte " << i << " of a " << bytes << "-byte copy at offset " << offset;
      }
    }
  }
}

TEST(BenchBaselines, CopyLoopInPlaceKeepsTheBytes) {
  std::vector<std::byte> buffer = Pattern(4096 + 99, 11);
  const std::vector<std::byte> before = buffer;
  CopyLoop(buffer.data() + 3, buffer.data() + 3, buffer.size() - 3);
  EXPECT_EQ(buffer, before);
}

// Every thread runs every call once, and no call starts before every thread finished the one
// before: thread 0 lags in each call, so a team whose barrier let the others run ahead would
// see fewer finished calls than it should.
TEST(BenchTeam, RunsEveryThreadOncePerCallInLockStep) {
  constexpr int64_t kCalls = 200;
  for (int threads : {2, 3, 4}) {
    std::atomic<int64_t> finished{0};
    std::atomic<int64_t> early{0};
    std::vector<int64_t> calls_of(static_cast<size_t>(threads), 0);
    Team(threads).Run(kCalls, [&](int thread, int team_threads) {
      ASSERT_EQ(team_threads, threads);
      const int64_t call = calls_of[static_cast<size_t>(thread)]++;
      if (finished.load() < call * threads) early.fetch_add(1);
      if (thread == 0 && call % 8 == 0) std::this_thread::sleep_for(std::chrono::microseconds(200));
      finished.fetch_add(1);
    });
    EXPECT_EQ(early.load(), 0) << threads << " threads";
    EXPECT_EQ(finished.load(), kCalls * threads) << threads << " threads";
    for (int t = 0; t < threads; ++t) EXPECT_EQ(calls_of[static_cast<size_t>(t)], kCalls);
  }
}

}  // namespace
}  // namespace eltwise::bench
