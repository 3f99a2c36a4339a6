// The CPU backend's layout walkers: one runner per plan layout (src/core/plan.h) and the
// threading thresholds they share. The plan has already dropped size-1 dims, ordered dims by
// output stride, merged contiguous ones and chosen the layout; the walkers run it:
//   contiguous   one kernel call over the whole run (in place too), split across threads;
//   rows         the innermost dim is packed in both tensors: one kernel call per row (segment);
//   broadcast    every output element is f(the one input element): compute once, then fill;
//   transposed   input packed along dim rank-2, output along rank-1: tiles through the table's
//                transposed kernel (transposed in registers, the function applied on the way);
//                other strides of a transposed layout take the gathered path's tiles;
//   gathered     the innermost dim is strided: an input stride of 2-4 elements into a packed
//                output runs the table's gathered kernel (de-interleaved in registers); otherwise
//                tiles of rows are gathered into a small buffer, run through the contiguous
//                kernel and stored (scattered if the output is strided).
// packed_walkers.cc runs the first three, strided_walkers.cc the last two. Work is split into
// tasks of about kTaskBytes, run by the persistent pool from kParallelBytes moved. Input and
// output must not overlap partially (overlap/partial_overlap.h makes that case exact).
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>

#include "core/plan.h"
#include "cpu/kernel_table.h"

namespace eltwise::cpu {

constexpr size_t kCacheLine = 64;
// Below this many bytes moved (input + output) a call stays on the calling thread: waking workers
// costs more than it saves; above it a second thread wins (each core brings its own L2
// bandwidth). Chosen by measurement on x86-64 (eltwise bench, f32 Sign, 2 threads against 1;
// see docs/performance.md).
constexpr uint64_t kParallelBytes = uint64_t{512} << 10;
// Below this many bytes of one tensor (half of kParallelBytes moved) a run is one kernel call on
// the calling thread: a compiled operator's direct kernel (IsSmallContiguous) and the front ends'
// host path (Backend::InlineBytes) both call the kernel themselves under it.
constexpr uint64_t kInlineBytes = kParallelBytes / 2;
// Output bytes per parallel task (a multiple of the cache line).
constexpr uint64_t kTaskBytes = uint64_t{128} << 10;

// The threads a call moving `bytes_moved` bytes runs on, of the `threads` it may use.
inline int ThreadsFor(int threads, uint64_t bytes_moved) {
  return bytes_moved < kParallelBytes ? 1 : std::max(threads, 1);
}
// A gathered walk (strided rows copied into a tile, then the kernel) takes about twice a packed
// walk's time per byte, so a second thread pays from about half the size: it counts its bytes
// this many times over in ThreadsFor (docs/performance.md, "Threads for gathered walks").
constexpr uint64_t kGatheredWalkWeight = 2;
// The same for transposed tiles of 1- and 2-byte elements, whose kernels shuffle more per byte
// (16 x 16 and 8 x 8 blocks; float16 Round's conversions or masks besides): on Zen 3 every
// float16 case from 128 to 256 KiB gained, and every int8 case at 192 KiB, while tiles of 4- and
// 8-byte elements gained in some cases and lost in others, so they keep the plain threshold
// (docs/performance.md, "threads for transposed walks").
constexpr uint64_t kNarrowTransposeWeight = 2;

// Runs `plan` from `input` to `output`, both pointing at the bound buffers (the plan's offsets
// not yet added), on up to `threads` threads.
void RunPlan(const KernelTable& table, const Plan& plan, const std::byte* input, std::byte* output,
             int threads);

// A contiguous plan that RunContiguous runs as one kernel call on the calling thread.
bool IsSmallContiguous(const Plan& plan);

// The runners of each layout; `input` and `output` point at the first elements (offsets added).
void RunContiguous(const KernelTable& table, const Plan& plan, const std::byte* input,
                   std::byte* output, int threads);
void RunRows(const KernelTable& table, const Plan& plan, const std::byte* input, std::byte* output,
             int threads);
void RunBroadcast(const KernelTable& table, const Plan& plan, const std::byte* input,
                  std::byte* output, int threads);
// A kTransposed plan whose input is packed along dim rank-2 and output along rank-1.
void RunTransposed(const KernelTable& table, const Plan& plan, const std::byte* input,
                   std::byte* output, int threads);
// A kGathered plan, or a kTransposed one with other strides.
void RunGathered(const KernelTable& table, const Plan& plan, const std::byte* input,
                 std::byte* output, int threads);

}  // namespace eltwise::cpu
