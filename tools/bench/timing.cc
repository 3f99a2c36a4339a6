#include "bench/timing.h"

#include <time.h>

#include <algorithm>
#include <chrono>
#include <cmath>

namespace eltwise::bench {
namespace {

double Now(TimingClock clock) {
  if (clock == TimingClock::kProcessCpu) {
    timespec t;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
    return static_cast<double>(t.tv_sec) + 1e-9 * static_cast<double>(t.tv_nsec);
  }
  return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

constexpr int64_t kMaxCalls = int64_t{1} << 24;

}  // namespace

double BestSecondsPerCall(const Batch& batch, const TimingOptions& options) {
  batch(1);
  int64_t calls = 1;
  for (;;) {
    const double start = Now(options.clock);
    batch(calls);
    const double seconds = Now(options.clock) - start;
    if (seconds >= options.min_time || calls >= kMaxCalls) break;
    // At most 16 times as many; 1.2 aims a little past min_time so that one more step is rare.
    const double growth = seconds <= 0 ? 16.0 : std::min(16.0, 1.2 * options.min_time / seconds);
    calls = std::max(calls + 1, static_cast<int64_t>(static_cast<double>(calls) * growth));
  }
  double best = INFINITY;
  for (int r = 0; r < options.repeats; ++r) {
    const double start = Now(options.clock);
    batch(calls);
    best = std::min(best, (Now(options.clock) - start) / static_cast<double>(calls));
  }
  return best;
}

void TimeAlternately(std::span<const AlternatedBatch> batches, int rounds,
                     const TimingOptions& options) {
  for (int round = 0; round < rounds; ++round) {
    for (const AlternatedBatch& b : batches) {
      *b.best = std::min(*b.best, BestSecondsPerCall(b.batch, options));
    }
  }
}

}  // namespace eltwise::bench
