// The host baselines a measurement is held against: memcpy, a copy loop and a fill (memset) of the
// same bytes.
#pragma once

#include <cstddef>
#include <cstdint>

#include "bench/threads.h"

namespace eltwise::bench {

enum class Baseline {
  kMemcpy,    // memcpy(dst, src)
  kCopyLoop,  // CopyLoop(src, dst); src == dst reads and rewrites the bytes in place
  kFill,      // memset(dst, 0x3f): output bytes only; src is unused
};

// A copy loop the compiler cannot turn into memcpy or drop (in place it still reads and writes
// every byte): 256 bytes per step in vector registers, built for the widest x86 vectors available.
// `in` and `out` are equal or do not overlap.
void CopyLoop(const std::byte* in, std::byte* out, uint64_t bytes);

// One pass of `baseline` over `bytes` on the calling thread.
void RunBaseline(Baseline baseline, const std::byte* src, std::byte* dst, uint64_t bytes);
// `calls` passes, each split over the team's threads (PartOf) in lock step.
void RunBaseline(Baseline baseline, const std::byte* src, std::byte* dst, uint64_t bytes,
                 const Team& team, int64_t calls);

}  // namespace eltwise::bench
