// The sizes the layout walkers take from the CPU's caches (cpu_caches.h) instead of constants:
// transpose tiles from L1d, and from which output size transposes stream their stores past the
// caches, from L2 and the last level. Derived once per process (MachineTuning); TuningFor is the
// derivation alone, for tests and for other machines' figures.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>

#include "cpu/cpu_caches.h"

namespace eltwise::cpu {

// The largest transpose tile in bytes: the streamed path's L1 buffer (strided_walkers.cc).
inline constexpr size_t kTransposeTileBytes = 16384;

struct CacheTuning {
  // Transpose tile edge in elements per element size (index log2(size): 1, 2, 4, 8 bytes).
  std::array<size_t, 4> transpose_tile_edge{};
  // Transposed outputs of at least this many bytes are written with non-temporal stores (x86).
  uint64_t stream_output_bytes = 0;
  // The same where input and output rows are both far apart and output rows start on lines. On
  // AMD family 25 models 0-15 (Zen 3 EPYC) the size of the others, by measurement: streaming these
  // from four times L2 lost to ordinary stores inside the last level there (int8 and float32
  // transposes of 4-8 MiB, docs/data/epyc-zen3-2026-11-29/scattered_stream.jsonl), while a Xeon
  // VM had gained at 4 MiB.
  uint64_t stream_scattered_output_bytes = 0;
  // Contiguous and row outputs larger than the last level are written with non-temporal stores
  // on at most this many threads (0: never). A choice of the microarchitecture, by measurement:
  // on AMD family 25 models 0-15 (Zen 3 EPYC) one thread gained 1.49x at 128 MiB and 2 threads
  // lost (docs/performance.md), so 1; on a Zen 5 VM one thread tied and 2 lost, so 0 elsewhere.
  // On an Intel Xeon (family 6, model 207), whose glibc memcpy streams past the last level,
  // eltwise without them ran at 0.56-0.63 of it at 1040 MiB on 1 and 2 threads, and gained with
  // them on both (docs/data/xeon-emeraldrapids-2026-11-30/stream_past_last_level.jsonl), so there
  // every thread count streams.
  int stream_past_last_level_threads = 0;
  // Rows stream on those terms only when each row has at least this many bytes: each row's
  // partial last line takes ordinary stores between streamed ones. On Zen 3 rows of 1000 and 4000
  // bytes both gained (1.15x -> 1.22x a copy); on the Xeon above rows of 4000 bytes gained and
  // rows of 1000 bytes lost
  // (docs/data/xeon-emeraldrapids-2026-11-30/stream_one_thread_first.jsonl).
  uint64_t stream_row_bytes = 0;
  // f16 Round on AVX2 in the 16-bit integer domain, for toward zero and ties away, rather than
  // through F16C's conversions. A choice of the microarchitecture, by measurement
  // (eltwise_benchmark kernel/AVX2/Round*/float16): on AMD family 25 (Zen 3), where VCVTPS2PH is
  // slow, the integer domain was 1.02-2.0x faster across the five modes
  // (docs/data/epyc-zen3-2026-11-29/f16_round_routes.jsonl); once F16C's route checked NaN lanes
  // only once, it stayed faster there for those two modes only (f16_round_nan_once.jsonl in the
  // same folder). Once the contiguous kernels widened straight from memory (RoundF16FromMemoryOp),
  // F16C outran it toward zero there too, so those kernels take F16C for every mode but ties away
  // (docs/data/epyc-zen3-2026-11-30/f16_round_from_memory_first.jsonl); the transposed and
  // gathered ones, unmeasured in that form, keep the integer domain for both modes. On an Intel
  // Xeon with AVX-512 F16C was 2-3x faster than the integer domain (docs/performance.md).
  bool f16_round_in_integers = false;
};

// For a CPU with `caches`:
// - tile edges: the largest power of two (at least 16) whose tile, input and output together
//   (2 * edge^2 * size bytes), fits L1d, and whose output fits kTransposeTileBytes;
// - stream_output_bytes: a quarter of the last level: from there an output, with its input, takes
//   half of it or more, so a reader after the call finds little of it cached, and write-allocate
//   reads (a third more traffic) are the larger cost;
// - stream_scattered_output_bytes: four times L2 (a sixteenth of the last level where no L2 is
//   reported), at most stream_output_bytes: rows a page or more apart are written-allocated
//   without prefetch, which costs from outputs the private caches cannot hold; on Zen 3 EPYC
//   stream_output_bytes (above).
// On a Zen 3 core's caches (32 KiB L1d, 512 KiB L2, 32 MiB L3) these are the values chosen by
// measurement on x86-64 VMs before they were derived (docs/performance.md, "Where the tuning
// constants come from").
CacheTuning TuningFor(const CpuCaches& caches);

// This machine's: TuningFor(MachineCaches()), on first use.
const CacheTuning& MachineTuning();

}  // namespace eltwise::cpu
