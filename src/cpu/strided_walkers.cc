// The strided layout walkers (layout_walkers.h): transposed tiles and gathered (strided innermost
// dim) rows.
#include <algorithm>
#include <array>
#include <cstring>
#include <memory>
#include <new>

#include "cpu/cache_tuning.h"
#include "cpu/element_copy.h"
#include "cpu/layout_walkers.h"
#include "cpu/row_walker.h"
#include "cpu/thread_pool.h"

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

namespace eltwise::cpu {
namespace {

// Elements per gathered row piece and rows per tile of the gathered path.
constexpr size_t kGatherBytes = 2048;
// Output bytes per task of the fused gathered kernel (input stride 2-4 elements, no staging).
// Task sizes from 4 KiB to 128 KiB measured alike within the noise on x86-64 (docs/performance.md);
// 16 KiB keeps 16 tasks at 256 KiB.
constexpr size_t kFusedGatherBytes = size_t{16} << 10;
constexpr size_t kTileRows = 128;
// Columns per tile when a transposed input is gathered tile by tile (kTileRows x kTileColumns).
constexpr size_t kTileColumns = 128;
// Row pitch of a gathered tile in elements: padded so that a tile's column (one element per row)
// does not map every row to the same few L1 sets.
constexpr size_t kTilePitch = kTileColumns + 16;

// A rows x count tile, element (r, c) at in + r*row_stride + c*column_stride, into `block` with
// rows of kTilePitch elements; reads run along r (the input's contiguous direction).
template <class U>
void TileGather(const std::byte* in, ptrdiff_t row_stride, ptrdiff_t column_stride,
                std::byte* block, size_t rows, size_t count) {
  for (size_t c = 0; c < count; ++c) {
    const std::byte* src = in + static_cast<ptrdiff_t>(c) * column_stride;
    std::byte* dst = block + c * sizeof(U);
    for (size_t r = 0; r < rows; ++r) {
      std::memcpy(dst + r * kTilePitch * sizeof(U), src + static_cast<ptrdiff_t>(r) * row_stride,
                  sizeof(U));
    }
  }
}
using TileGatherFn = void (*)(const std::byte*, ptrdiff_t, ptrdiff_t, std::byte*, size_t, size_t);

// Transposed tiles are handed out in runs of consecutive tiles, about kRunsPerThread runs per
// thread, each at most kMaxRunBytes of output (a helper descheduled mid-run delays its caller by
// at most that much work). Handed out one at a time, two threads alternated tiles and ran slower
// than one thread on mid-sized transposes (the shared counter's line moving between the cores for
// every tile); in runs they are faster than one (measured on x86-64; docs/performance.md). A cap
// of 1 MiB measured the same as none.
constexpr uint64_t kRunsPerThread = 4;
constexpr uint64_t kMaxRunBytes = uint64_t{1} << 20;

#if defined(__SSE2__)
// Transposed outputs from a size the caches decide (cache_tuning.h: MachineTuning) are written
// with non-temporal stores, a tile at a time from an L1 buffer: an ordinary store first reads the
// line it writes (write-allocate), a third more memory traffic, which a large memcpy avoids the
// same way; a tile's rows are whole lines, which the write-combining buffers need. Below it, the
// output is better left in the caches. From a smaller size (stream_scattered_output_bytes) when
// input and output rows are both far apart (kFarRowBytes) and the output's rows start on cache
// lines: each tile then writes row pieces of whole lines a page or more apart, whose
// write-allocate reads the prefetchers do not follow: there streaming gained on 1 and 2 threads.
// Rows that do not start on lines lost on one thread; where a tile writes whole output rows one
// after another (NCHW -> NHWC) it lost on 2 threads, and where input rows are closer (batched
// transposes) too: those keep the larger size. Chosen by measurement on x86-64
// (eltwise_transpose_peers; see docs/performance.md).
//
// 1-byte elements (tiles of 128 rows) whose input and output rows lie at least this far apart and
// whose output rows start on lines are taken along the input and streamed as if far (above): that
// gained on 2 threads and tied or gained on 1. Without lined output rows, along the input without
// the stream, it lost on 2 threads though it gained on 1. Chosen by measurement on x86-64 (int8
// 2-d transposes, eltwise_transpose_peers; see docs/performance.md).
constexpr ptrdiff_t kByteRowBytes = 2048;

// `bytes` from `from` (16-byte aligned) to `to` (16-byte aligned), 16 bytes at a time with
// non-temporal stores, the last bytes with ordinary ones.
void StreamRow(const std::byte* from, std::byte* to, size_t bytes) {
  size_t i = 0;
  for (; i + 16 <= bytes; i += 16) {
    _mm_stream_si128(reinterpret_cast<__m128i*>(to + i),
                     _mm_load_si128(reinterpret_cast<const __m128i*>(from + i)));
  }
  std::memcpy(to + i, from + i, bytes - i);
}
constexpr bool kCanStream = true;
#else
constexpr ptrdiff_t kByteRowBytes = kFarRowBytes;
void StreamRow(const std::byte*, std::byte*, size_t) {}
constexpr bool kCanStream = false;
#endif

}  // namespace

// Tiles of (a = rank-2, b = rank-1) in the order outer index, a-tile, b-tile: consecutive tasks
// continue the same output rows. Each tile is one call of the table's transposed kernel, which
// transposes in registers and applies the function on the way; for large outputs into an L1
// buffer whose rows are then streamed out (CacheTuning::stream_output_bytes).
void RunTransposed(const KernelTable& table, const Plan& plan, const std::byte* input,
                   std::byte* output, int threads) {
  const size_t esize = plan.element_size;
  const int a_dim = plan.rank - 2;
  const int b_dim = plan.rank - 1;
  const uint64_t a_size = plan.sizes[a_dim];
  const uint64_t b_size = plan.sizes[b_dim];
  const ptrdiff_t in_b = plan.input_strides[b_dim] * static_cast<ptrdiff_t>(esize);
  const ptrdiff_t out_a = plan.output_strides[a_dim] * static_cast<ptrdiff_t>(esize);
  const CacheTuning& tuning = MachineTuning();
  const size_t edge = tuning.transpose_tile_edge[static_cast<size_t>(__builtin_ctz(esize))];
  const uint64_t a_tiles = (a_size + edge - 1) / edge;
  const uint64_t b_tiles = (b_size + edge - 1) / edge;
  const TransposedKernel kernel = table.Transposed(plan.function, plan.type);
  // Far input rows: tiles follow each other along a, so a run reads the same input rows on (edge
  // streams, which the prefetchers follow); else along b, continuing the same output rows.
  const bool lined_output = out_a % 64 == 0 && reinterpret_cast<uintptr_t>(output) % 64 == 0;
  const bool near_byte_rows = esize == 1 && lined_output && AtLeastApart(in_b, kByteRowBytes) &&
                              AtLeastApart(out_a, kByteRowBytes);
  const bool along_input = FarRows(in_b) || near_byte_rows;
  const bool scattered_output = near_byte_rows || (along_input && FarRows(out_a) && lined_output);
  const bool stream =
      kCanStream &&
      plan.element_count * esize >=
          (scattered_output ? tuning.stream_scattered_output_bytes : tuning.stream_output_bytes) &&
      out_a % 16 == 0;
  auto tile = [&](uint64_t task) {
    const uint64_t b0 = (along_input ? task / a_tiles % b_tiles : task % b_tiles) * edge;
    const uint64_t a0 = (along_input ? task % a_tiles : task / b_tiles % a_tiles) * edge;
    const RowWalker walk(plan, a_dim, input, output, task / b_tiles / a_tiles);
    const std::byte* in =
        walk.in + static_cast<ptrdiff_t>(a0 * esize) + static_cast<ptrdiff_t>(b0) * in_b;
    std::byte* out =
        walk.out + static_cast<ptrdiff_t>(a0) * out_a + static_cast<ptrdiff_t>(b0 * esize);
    const size_t a_count = static_cast<size_t>(std::min<uint64_t>(edge, a_size - a0));
    const size_t b_count = static_cast<size_t>(std::min<uint64_t>(edge, b_size - b0));
    if (!stream || reinterpret_cast<uintptr_t>(out) % 16 != 0) {
      return kernel(in, in_b, out, out_a, a_count, b_count);
    }
    alignas(64) std::byte buffer[kTransposeTileBytes];  // rows edge * esize apart
    const size_t row_bytes = b_count * esize;
    const ptrdiff_t pitch = static_cast<ptrdiff_t>(edge * esize);
    kernel(in, in_b, buffer, pitch, a_count, b_count);
    for (size_t r = 0; r < a_count; ++r) {
      StreamRow(buffer + static_cast<ptrdiff_t>(r) * pitch, out + static_cast<ptrdiff_t>(r) * out_a,
                row_bytes);
    }
  };
  const uint64_t tiles = OuterCount(plan, a_dim) * a_tiles * b_tiles;
  const uint64_t weight = esize <= 2 ? kNarrowTransposeWeight : 1;
  const int workers = ThreadsFor(threads, weight * 2 * plan.element_count * esize);
  // Each thread takes runs of consecutive tiles, about kRunsPerThread of them.
  const uint64_t run =
      workers > 1
          ? std::clamp<uint64_t>(tiles / (static_cast<uint64_t>(workers) * kRunsPerThread), 1,
                                 std::max<uint64_t>(1, kMaxRunBytes / (edge * edge * esize)))
          : 1;
  const uint64_t tasks = (tiles + run - 1) / run;
  ThreadPool::Global().ParallelFor(tasks, workers, [&](uint64_t task) {
    const uint64_t end = std::min(tiles, (task + 1) * run);
    for (uint64_t t = task * run; t < end; ++t) tile(t);
#if defined(__SSE2__)
    // Each thread's non-temporal stores are ordered before its tasks count as done.
    if (stream) _mm_sfence();
#endif
  });
}

// Iteration: outer dims [0, rank-2), then tiles of `tile_rows` along dim rank-2 ("a") by `piece`
// elements along the innermost dim ("b"). Each task is one (outer index, a-tile, b-piece). An
// input stride of 2-4 elements into a packed output runs the table's gathered kernel straight
// from input to output (no staging), in tasks of about kFusedGatherBytes of output; other
// strides gather a kGatherBytes piece into a buffer, run the contiguous kernel and scatter.
void RunGathered(const KernelTable& table, const Plan& plan, const std::byte* input,
                 std::byte* output, int threads) {
  const size_t esize = plan.element_size;
  const int b_dim = plan.rank - 1;
  const int a_dim = plan.rank - 2;  // -1 for rank 1
  const uint64_t b_size = plan.sizes[b_dim];
  const uint64_t a_size = a_dim >= 0 ? plan.sizes[a_dim] : 1;
  const int outer = std::max(a_dim, 0);
  const uint64_t outer_count = OuterCount(plan, outer);
  const ptrdiff_t in_b = plan.input_strides[b_dim] * static_cast<ptrdiff_t>(esize);
  const ptrdiff_t out_b = plan.output_strides[b_dim] * static_cast<ptrdiff_t>(esize);
  const ptrdiff_t in_a = a_dim >= 0 ? plan.input_strides[a_dim] * static_cast<ptrdiff_t>(esize) : 0;
  const ptrdiff_t out_a =
      a_dim >= 0 ? plan.output_strides[a_dim] * static_cast<ptrdiff_t>(esize) : 0;
  const bool packed_out = out_b == static_cast<ptrdiff_t>(esize);
  // A transposed input that is not packed along `a` or an output not packed along `b`: gather
  // whole tiles reading along `a`, so every input cache line is used once per tile instead of once
  // per row.
  const bool transpose = plan.layout == Layout::kTransposed;
  const GatheredKernel fused =
      !transpose && packed_out && in_b > 0 && in_b % static_cast<ptrdiff_t>(esize) == 0
          ? table.Gathered(plan.function, plan.type, static_cast<size_t>(in_b) / esize)
          : nullptr;
  const size_t piece = (fused != nullptr ? kFusedGatherBytes : kGatherBytes) / esize;
  const uint64_t b_pieces = (b_size + piece - 1) / piece;
  // Short rows: several per fused task, up to about kFusedGatherBytes of output.
  const uint64_t tile_rows =
      fused != nullptr
          ? std::clamp<uint64_t>(kFusedGatherBytes / (std::min<uint64_t>(piece, b_size) * esize), 1,
                                 kTileRows)
          : kTileRows;
  const uint64_t a_tiles = (a_size + tile_rows - 1) / tile_rows;
  const uint64_t b_tiles = (b_size + kTileColumns - 1) / kTileColumns;
  const ContiguousKernel kernel = table.Contiguous(plan.function, plan.type);
  const GatherFn gather = GatherFor(esize);
  const ScatterFn scatter = ScatterFor(esize);
  const bool packed_in = in_b == static_cast<ptrdiff_t>(esize);
  const TileGatherFn tile_gather =
      WithElementType(esize, [](auto u) -> TileGatherFn { return &TileGather<decltype(u)>; });

  // Tasks: (outer index, a-tile, b-tile) when transposing, (outer index, a-tile, b-piece) else.
  const uint64_t b_tasks = transpose ? b_tiles : b_pieces;
  auto tile = [&](uint64_t task) {
    alignas(64) std::byte gathered[kGatherBytes];
    alignas(64) std::byte computed[kGatherBytes];
    // f of `count` packed elements at `src` into the output row piece at `out`.
    auto compute = [&](const std::byte* src, std::byte* out, size_t count) {
      if (packed_out) {
        kernel(src, out, count);
      } else {
        kernel(src, computed, count);
        scatter(computed, out, out_b, count);
      }
    };
    const uint64_t b_task = task % b_tasks;
    const uint64_t a_tile = (task / b_tasks) % a_tiles;
    const RowWalker walk(plan, outer, input, output, task / b_tasks / a_tiles);
    if (transpose) {
      // One tile buffer per thread, allocated on the thread's first tile. Tasks run on worker
      // threads and after other tasks have written, so a failed allocation cannot be reported:
      // the tile is then gathered row by row through `gathered` (slower, same result), and the
      // next tile tries again.
      static thread_local std::unique_ptr<std::byte[]> block_storage;
      if (block_storage == nullptr) {
        block_storage.reset(new (std::nothrow) std::byte[kTileRows * kTilePitch * 8]);
      }
      std::byte* const block = block_storage.get();
      const uint64_t b0 = b_task * kTileColumns;
      const size_t count = static_cast<size_t>(std::min<uint64_t>(kTileColumns, b_size - b0));
      const uint64_t a0 = a_tile * kTileRows;
      const size_t rows = static_cast<size_t>(std::min<uint64_t>(kTileRows, a_size - a0));
      if (block == nullptr) {
        static_assert(kTileColumns * 8 <= kGatherBytes, "a tile row fits in `gathered`");
        for (size_t r = 0; r < rows; ++r) {
          gather(
              walk.in + static_cast<ptrdiff_t>(a0 + r) * in_a + static_cast<ptrdiff_t>(b0) * in_b,
              in_b, gathered, count);
          compute(gathered,
                  walk.out + static_cast<ptrdiff_t>(a0 + r) * out_a +
                      static_cast<ptrdiff_t>(b0) * out_b,
                  count);
        }
        return;
      }
      tile_gather(walk.in + static_cast<ptrdiff_t>(a0) * in_a + static_cast<ptrdiff_t>(b0) * in_b,
                  in_a, in_b, block, rows, count);
      for (size_t r = 0; r < rows; ++r) {
        compute(
            block + r * kTilePitch * esize,
            walk.out + static_cast<ptrdiff_t>(a0 + r) * out_a + static_cast<ptrdiff_t>(b0) * out_b,
            count);
      }
      return;
    }
    const uint64_t b0 = b_task * piece;
    const size_t count = static_cast<size_t>(std::min<uint64_t>(piece, b_size - b0));
    const uint64_t a_end = std::min(a_size, (a_tile + 1) * tile_rows);
    for (uint64_t a = a_tile * tile_rows; a < a_end; ++a) {
      const std::byte* in =
          walk.in + static_cast<ptrdiff_t>(a) * in_a + static_cast<ptrdiff_t>(b0) * in_b;
      std::byte* out =
          walk.out + static_cast<ptrdiff_t>(a) * out_a + static_cast<ptrdiff_t>(b0) * out_b;
      if (fused != nullptr) {
        fused(in, out, count);
      } else if (packed_in) {
        compute(in, out, count);
      } else {
        gather(in, in_b, gathered, count);
        compute(gathered, out, count);
      }
    }
  };
  const uint64_t tasks = outer_count * a_tiles * b_tasks;
  const uint64_t bytes = plan.element_count * esize;
  ThreadPool::Global().ParallelFor(tasks, ThreadsFor(threads, kGatheredWalkWeight * 2 * bytes),
                                   tile);
}

}  // namespace eltwise::cpu
