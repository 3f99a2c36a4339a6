// Timing a batch of calls: the best of several batches, each calibrated to a minimum duration, and
// measurements alternated so that drift (other load, clock frequency) hits each of them alike.
#pragma once

#include <cstdint>
#include <functional>
#include <span>

namespace eltwise::bench {

enum class TimingClock {
  kWall,
  // The CPU time of the whole process (all its threads): excludes time the process was not
  // running, so it is stable on a shared machine for one thread (idle workers would count
  // otherwise).
  kProcessCpu,
};

struct TimingOptions {
  double min_time = 0.02;  // seconds per timed batch
  int repeats = 5;         // timed batches; the best counts
  TimingClock clock = TimingClock::kWall;
};

// Runs `calls` calls of the measured code (and waits for them to finish).
using Batch = std::function<void(int64_t calls)>;

// Seconds per call: after one warm-up call (page faults, caches, thread start), the number of
// calls is raised until a batch takes at least min_time (at most 2^24 calls), then the best of
// `repeats` such batches.
double BestSecondsPerCall(const Batch& batch, const TimingOptions& options);

// One measurement of an alternation: `best` keeps the lowest seconds per call of `batch`.
struct AlternatedBatch {
  Batch batch;
  double* best;
};

// `rounds` rounds, each timing every batch in turn (BestSecondsPerCall), each batch's best kept in
// its `best` (which the caller initialises, e.g. to INFINITY).
void TimeAlternately(std::span<const AlternatedBatch> batches, int rounds,
                     const TimingOptions& options);

}  // namespace eltwise::bench
