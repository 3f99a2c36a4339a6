// CPU plan driver. The plan (src/core/plan.cc) has already dropped size-1 dims, ordered dims by
// output stride, merged contiguous ones and chosen the layout; this file runs it:
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
// Partial overlap of input and output: as the plan's overlap.staging says: walks that rise with the
// linear index go through bounded chunks (Note [bounded overlap of rising walks]), in windows of
// chunks with threads; other walks copy the input span first.
// Work is split into tasks of about kTaskBytes, run by the persistent pool above kParallelBytes.
#include "cpu/cpu_backend.h"

#include <unistd.h>

#include <algorithm>
#include <array>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <new>
#include <string>

#include "cpu/thread_pool.h"

namespace eltwise {
namespace {

constexpr size_t kCacheLine = 64;
// Below this many bytes moved (input + output) a call stays on the calling thread: waking workers
// costs more than it saves. Measured on a quiet 2-core EPYC (eltwise bench, f32 Sign, 2 threads
// against 1; workers join within a pause, bench/pool_benchmark.cc): 192 KiB output 1.7-2.4 us
// against 2.1-2.2 us; 256 KiB 1.8-2.0 us against 2.3-2.9 us; 4 MiB 48-51 us against 98 us (each
// core brings its own L2 bandwidth).
constexpr uint64_t kParallelBytes = uint64_t{512} << 10;
// Output bytes per parallel task (a multiple of the cache line).
constexpr uint64_t kTaskBytes = uint64_t{128} << 10;
// Elements per gathered row piece and rows per tile of the gathered path.
constexpr size_t kGatherBytes = 2048;
// Output bytes per task of the fused gathered kernel (input stride 2-4 elements, no staging).
// Measured (eltwise bench gathered, Sign, int8 and f32, 2 threads, medians of 3 runs on a busy
// 2-core EPYC, noisy): 4 KiB 0.22-0.53x a copy at 256 KiB / 4 MiB / 64 MiB, 16 KiB 0.36-0.58x,
// 32 KiB 0.28-0.58x, 128 KiB 0.34-0.60x; 16 KiB keeps 16 tasks at 256 KiB.
constexpr size_t kFusedGatherBytes = size_t{16} << 10;
constexpr size_t kTileRows = 128;
// Columns per tile when a transposed input is gathered tile by tile (kTileRows x kTileColumns).
constexpr size_t kTileColumns = 128;
// Row pitch of a gathered tile in elements: padded so that a tile's column (one element per row)
// does not map every row to the same few L1 sets.
constexpr size_t kTilePitch = kTileColumns + 16;
// Partial overlap of rising walks is processed in chunks of at most this many bytes (one stays in
// L1), a window of at most kOverlapWindowBytes of them at a time with threads.
constexpr size_t kOverlapChunkBytes = size_t{16} << 10;
constexpr size_t kOverlapWindowBytes = size_t{512} << 10;
// A packed piece of a partial overlap whose output lies at least this far from its input runs
// without the temporary, in sub-pieces of that distance (see RunChunkedOverlapping). 2048 measured
// slower (eltwise bench overlap, overlap_cross, 256 KiB, 1 thread: f32 0.40-0.52x a copy against
// 0.64-0.68x, u8 0.19-0.26x against 0.32x).
constexpr size_t kOverlapDirectBytes = 256;

uint64_t LastLevelCacheBytes() {
  static const uint64_t bytes = [] {
    long llc = -1;
#if defined(_SC_LEVEL3_CACHE_SIZE)
    llc = sysconf(_SC_LEVEL3_CACHE_SIZE);
    if (llc <= 0) llc = sysconf(_SC_LEVEL2_CACHE_SIZE);
#endif
    return llc > 0 ? static_cast<uint64_t>(llc) : uint64_t{32} << 20;
  }();
  return bytes;
}

// Non-temporal stores for outputs larger than the last-level cache. Off: measured through the API
// on a 2-core EPYC (Zen 5) VM, 64 MiB f32 Sign on 2 threads ran at 0.65-0.84x a copy with them and
// 1.0-1.46x without (three alternating runs each), and on one thread they tied (1.02-1.06x vs
// 1.04-1.18x), although the bare kernel gained 14-30 % on one thread (bench/ kernel_stream/...).
// The streaming kernels stay in the tables (and tested) for machines where they measure faster.
constexpr bool kStreamLargeOutputs = false;
bool UseStreamingStores(uint64_t output_bytes) {
  return kStreamLargeOutputs && output_bytes > LastLevelCacheBytes();
}

int ThreadsFor(int threads, uint64_t bytes_moved) {
  return bytes_moved < kParallelBytes ? 1 : std::max(threads, 1);
}

// Pointers of the first element of row `row` (row-major over dims [0, rank-1)).
struct RowWalker {
  const Plan& plan;
  int outer;  // number of outer dims
  std::array<uint64_t, kMaxRank> index{};
  const std::byte* in;
  std::byte* out;

  RowWalker(const Plan& p, int outer_dims, const std::byte* input, std::byte* output, uint64_t row)
      : plan(p), outer(outer_dims), in(input), out(output) {
    const ptrdiff_t esize = plan.element_size;
    for (int d = outer - 1; d >= 0; --d) {
      index[d] = row % plan.sizes[d];
      row /= plan.sizes[d];
      in += static_cast<ptrdiff_t>(index[d]) * plan.input_strides[d] * esize;
      out += static_cast<ptrdiff_t>(index[d]) * plan.output_strides[d] * esize;
    }
  }
  void Next() {
    const ptrdiff_t esize = plan.element_size;
    for (int d = outer - 1; d >= 0; --d) {
      in += plan.input_strides[d] * esize;
      out += plan.output_strides[d] * esize;
      if (++index[d] < plan.sizes[d]) return;
      in -= static_cast<ptrdiff_t>(plan.sizes[d]) * plan.input_strides[d] * esize;
      out -= static_cast<ptrdiff_t>(plan.sizes[d]) * plan.output_strides[d] * esize;
      index[d] = 0;
    }
  }
  void Previous() {
    const ptrdiff_t esize = plan.element_size;
    for (int d = outer - 1; d >= 0; --d) {
      if (index[d]-- > 0) {
        in -= plan.input_strides[d] * esize;
        out -= plan.output_strides[d] * esize;
        return;
      }
      index[d] = plan.sizes[d] - 1;
      in += static_cast<ptrdiff_t>(index[d]) * plan.input_strides[d] * esize;
      out += static_cast<ptrdiff_t>(index[d]) * plan.output_strides[d] * esize;
    }
  }
};

uint64_t OuterCount(const Plan& plan, int outer) {
  uint64_t count = 1;
  for (int d = 0; d < outer; ++d) count *= plan.sizes[d];
  return count;
}

// ---- contiguous --------------------------------------------------------------------------------

void RunContiguous(const KernelTable& table, const Plan& plan, const std::byte* input,
                   std::byte* output, int threads) {
  const size_t esize = plan.element_size;
  const uint64_t n = plan.element_count;
  const uint64_t bytes = n * esize;
  const ContiguousKernel kernel = UseStreamingStores(bytes)
                                      ? table.ContiguousStream(plan.function, plan.type)
                                      : table.Contiguous(plan.function, plan.type);
  threads = ThreadsFor(threads, 2 * bytes);
  if (threads == 1) {
    kernel(input, output, n);
    return;
  }
  // Task boundaries fall on output cache lines (when the output is element aligned).
  size_t head = (kCacheLine - reinterpret_cast<uintptr_t>(output) % kCacheLine) % kCacheLine;
  if (head % esize != 0) head = 0;
  const uint64_t tasks = (bytes - head + kTaskBytes - 1) / kTaskBytes;
  auto start = [&](uint64_t task) -> uint64_t {
    if (task == 0) return 0;
    return std::min<uint64_t>(n, (head + task * kTaskBytes) / esize);
  };
  ThreadPool::Global().ParallelFor(tasks, threads, [&](size_t task) {
    const uint64_t begin = start(task);
    const uint64_t end = task + 1 == tasks ? n : start(task + 1);
    if (end > begin) kernel(input + begin * esize, output + begin * esize, end - begin);
  });
}

// ---- rows
// ----------------------------------------------------------------------------------------

void RunRows(const KernelTable& table, const Plan& plan, const std::byte* input, std::byte* output,
             int threads) {
  const size_t esize = plan.element_size;
  const int outer = plan.rank - 1;
  const uint64_t rows = OuterCount(plan, outer);
  const uint64_t row_elements = plan.sizes[outer];
  const uint64_t row_bytes = row_elements * esize;
  const uint64_t total = rows * row_bytes;
  const ContiguousKernel kernel = UseStreamingStores(total)
                                      ? table.ContiguousStream(plan.function, plan.type)
                                      : table.Contiguous(plan.function, plan.type);
  threads = ThreadsFor(threads, 2 * total);
  if (threads == 1 && outer == 1) {  // one outer dim (small 2-d calls): plain pointer steps
    const ptrdiff_t in_step = plan.input_strides[0] * static_cast<ptrdiff_t>(esize);
    const ptrdiff_t out_step = plan.output_strides[0] * static_cast<ptrdiff_t>(esize);
    for (uint64_t r = 0; r < rows; ++r) {
      const auto k = static_cast<ptrdiff_t>(r);
      kernel(input + k * in_step, output + k * out_step, row_elements);
    }
    return;
  }
  if (threads == 1) {
    RowWalker walk(plan, outer, input, output, 0);
    for (uint64_t r = 0; r < rows; ++r, walk.Next()) kernel(walk.in, walk.out, row_elements);
    return;
  }
  if (row_bytes >= kTaskBytes) {  // long rows: tasks are segments of one row
    const uint64_t segment = std::max<uint64_t>(1, kTaskBytes / esize);
    const uint64_t per_row = (row_elements + segment - 1) / segment;
    ThreadPool::Global().ParallelFor(rows * per_row, threads, [&](size_t task) {
      const RowWalker walk(plan, outer, input, output, task / per_row);
      const uint64_t begin = (task % per_row) * segment;
      const uint64_t count = std::min(segment, row_elements - begin);
      kernel(walk.in + begin * esize, walk.out + begin * esize, count);
    });
  } else {  // short rows: tasks are groups of rows
    const uint64_t per_task = std::max<uint64_t>(1, kTaskBytes / std::max<uint64_t>(row_bytes, 1));
    const uint64_t tasks = (rows + per_task - 1) / per_task;
    ThreadPool::Global().ParallelFor(tasks, threads, [&](size_t task) {
      const uint64_t first = task * per_task;
      const uint64_t last = std::min(rows, first + per_task);
      RowWalker walk(plan, outer, input, output, first);
      for (uint64_t r = first; r < last; ++r, walk.Next()) kernel(walk.in, walk.out, row_elements);
    });
  }
}

// Calls f(U{}) with U the unsigned integer type of `esize` bytes (1, 2, 4 or 8): the one place that
// maps an element size to a type for the size-generic loops below.
template <class F>
auto WithElementType(size_t esize, F f) {
  switch (esize) {
    case 1:
      return f(uint8_t{});
    case 2:
      return f(uint16_t{});
    case 4:
      return f(uint32_t{});
    default:
      return f(uint64_t{});
  }
}

// ---- gathered (strided innermost dim) -----------------------------------------------------------

template <class U>
void Gather(const std::byte* in, ptrdiff_t stride, std::byte* out, size_t n) {
  for (size_t i = 0; i < n; ++i, in += stride) std::memcpy(out + i * sizeof(U), in, sizeof(U));
}
template <class U>
void Scatter(const std::byte* in, std::byte* out, ptrdiff_t stride, size_t n) {
  for (size_t i = 0; i < n; ++i, out += stride) std::memcpy(out, in + i * sizeof(U), sizeof(U));
}
// out[i] = in[-i] for n elements (a row walked backwards), as a loop compilers vectorize.
template <class U>
void ReverseCopy(const std::byte* in, std::byte* out, size_t n) {
  const std::byte* from = in - static_cast<ptrdiff_t>(n - 1) * ptrdiff_t(sizeof(U));
  size_t i = 0;
  if constexpr (sizeof(U) == 1) {  // bytes: eight at a time, reversed within a word
    for (; i + 8 <= n; i += 8) {
      uint64_t word;
      std::memcpy(&word, from + (n - 8 - i), 8);
      word = __builtin_bswap64(word);
      std::memcpy(out + i, &word, 8);
    }
  }
  for (; i < n; ++i) {  // addresses need not be element-aligned
    U v;
    std::memcpy(&v, from + (n - 1 - i) * sizeof(U), sizeof(U));
    std::memcpy(out + i * sizeof(U), &v, sizeof(U));
  }
}
using ReverseFn = void (*)(const std::byte*, std::byte*, size_t);
using GatherFn = void (*)(const std::byte*, ptrdiff_t, std::byte*, size_t);
using ScatterFn = void (*)(const std::byte*, std::byte*, ptrdiff_t, size_t);
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

// ---- transposed (input packed along dim rank-2, output along rank-1) ----------------------------

// Tile edge in elements per element size (index log2(size)): each tile's input and output
// (edge^2 * size bytes each) stay in L1 while the tile is transposed.
constexpr std::array<size_t, 4> kTransposeTileEdge = {128, 64, 64, 32};

// Tiles of (a = rank-2, b = rank-1) in the order outer index, a-tile, b-tile: consecutive tasks
// continue the same output rows. Each tile is one call of the table's transposed kernel, which
// transposes in registers and applies the function on the way.
void RunTransposed(const KernelTable& table, const Plan& plan, const std::byte* input,
                   std::byte* output, int threads) {
  const size_t esize = plan.element_size;
  const int a_dim = plan.rank - 2;
  const int b_dim = plan.rank - 1;
  const uint64_t a_size = plan.sizes[a_dim];
  const uint64_t b_size = plan.sizes[b_dim];
  const ptrdiff_t in_b = plan.input_strides[b_dim] * static_cast<ptrdiff_t>(esize);
  const ptrdiff_t out_a = plan.output_strides[a_dim] * static_cast<ptrdiff_t>(esize);
  const size_t edge = kTransposeTileEdge[static_cast<size_t>(__builtin_ctz(esize))];
  const uint64_t a_tiles = (a_size + edge - 1) / edge;
  const uint64_t b_tiles = (b_size + edge - 1) / edge;
  const TransposedKernel kernel = table.Transposed(plan.function, plan.type);
  auto tile = [&](uint64_t task) {
    const uint64_t b0 = (task % b_tiles) * edge;
    const uint64_t a0 = (task / b_tiles % a_tiles) * edge;
    const RowWalker walk(plan, a_dim, input, output, task / b_tiles / a_tiles);
    kernel(walk.in + static_cast<ptrdiff_t>(a0 * esize) + static_cast<ptrdiff_t>(b0) * in_b, in_b,
           walk.out + static_cast<ptrdiff_t>(a0) * out_a + static_cast<ptrdiff_t>(b0 * esize),
           out_a, static_cast<size_t>(std::min<uint64_t>(edge, a_size - a0)),
           static_cast<size_t>(std::min<uint64_t>(edge, b_size - b0)));
  };
  const uint64_t tasks = OuterCount(plan, a_dim) * a_tiles * b_tiles;
  ThreadPool::Global().ParallelFor(tasks, ThreadsFor(threads, 2 * plan.element_count * esize),
                                   tile);
}

// ---- gathered and other transposed layouts ------------------------------------------------------

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
  const GatherFn gather =
      WithElementType(esize, [](auto u) -> GatherFn { return &Gather<decltype(u)>; });
  const ScatterFn scatter =
      WithElementType(esize, [](auto u) -> ScatterFn { return &Scatter<decltype(u)>; });
  const bool packed_in = in_b == static_cast<ptrdiff_t>(esize);
  const TileGatherFn tile_gather =
      WithElementType(esize, [](auto u) -> TileGatherFn { return &TileGather<decltype(u)>; });

  auto tile = [&](uint64_t task) {
    alignas(64) std::byte gathered[kGatherBytes];
    alignas(64) std::byte computed[kGatherBytes];
    if (transpose) {
      static thread_local std::unique_ptr<std::byte[]> block_storage(
          new std::byte[kTileRows * kTilePitch * 8]);
      std::byte* const block = block_storage.get();
      const uint64_t b_piece = task % b_tiles;
      const uint64_t a_tile = (task / b_tiles) % a_tiles;
      const uint64_t o = task / b_tiles / a_tiles;
      const RowWalker walk(plan, outer, input, output, o);
      const uint64_t b0 = b_piece * kTileColumns;
      const size_t count = static_cast<size_t>(std::min<uint64_t>(kTileColumns, b_size - b0));
      const uint64_t a0 = a_tile * kTileRows;
      const size_t rows = static_cast<size_t>(std::min<uint64_t>(kTileRows, a_size - a0));
      tile_gather(walk.in + static_cast<ptrdiff_t>(a0) * in_a + static_cast<ptrdiff_t>(b0) * in_b,
                  in_a, in_b, block, rows, count);
      for (size_t r = 0; r < rows; ++r) {
        std::byte* out =
            walk.out + static_cast<ptrdiff_t>(a0 + r) * out_a + static_cast<ptrdiff_t>(b0) * out_b;
        const std::byte* src = block + r * kTilePitch * esize;
        if (packed_out) {
          kernel(src, out, count);
        } else {
          kernel(src, computed, count);
          scatter(computed, out, out_b, count);
        }
      }
      return;
    }
    const uint64_t b_piece = task % b_pieces;
    const uint64_t a_tile = (task / b_pieces) % a_tiles;
    const uint64_t o = task / b_pieces / a_tiles;
    const RowWalker walk(plan, outer, input, output, o);
    const uint64_t b0 = b_piece * piece;
    const size_t count = static_cast<size_t>(std::min<uint64_t>(piece, b_size - b0));
    const uint64_t a_end = std::min(a_size, (a_tile + 1) * tile_rows);
    for (uint64_t a = a_tile * tile_rows; a < a_end; ++a) {
      const std::byte* in =
          walk.in + static_cast<ptrdiff_t>(a) * in_a + static_cast<ptrdiff_t>(b0) * in_b;
      std::byte* out =
          walk.out + static_cast<ptrdiff_t>(a) * out_a + static_cast<ptrdiff_t>(b0) * out_b;
      if (fused != nullptr) {
        fused(in, out, count);
        continue;
      }
      const std::byte* src = in;
      if (!packed_in) {
        gather(in, in_b, gathered, count);
        src = gathered;
      }
      if (packed_out) {
        kernel(src, out, count);
      } else {
        kernel(src, computed, count);
        scatter(computed, out, out_b, count);
      }
    }
  };
  const uint64_t tasks = outer_count * a_tiles * (transpose ? b_tiles : b_pieces);
  const uint64_t bytes = plan.element_count * esize;
  ThreadPool::Global().ParallelFor(tasks, ThreadsFor(threads, 2 * bytes), tile);
}

// ---- partial overlap ---------------------------------------------------------------------------

// Note [bounded overlap of rising walks]. A kChunked plan (plan.h): both walks rise with the
// linear index, so for elements e < f, in(f) >= in(e) + esize and out(f) >= out(e) + esize (byte
// addresses of the first bytes). Split the elements into P = {e : out(e) <= in(e)} and
// Q = {e : out(e) > in(e)}. Writing e overwrites the input of f exactly when
// |out(e) - in(f)| < esize. Then:
//  * e in P overwrites only inputs of f <= e, and only of f in P: in(f) < out(e) + esize <=
//    in(e) + esize gives f <= e; were f in Q with f < e, out(f) > in(f) > out(e) - esize would
//    contradict out(f) <= out(e) - esize.
//  * e in Q overwrites only inputs of f >= e in Q: in(f) > out(e) - esize > in(e) - esize gives
//    f >= e; were f in P with f > e, out(f) <= in(f) < out(e) + esize would contradict
//    out(f) >= out(e) + esize.
// So running P in rising order and Q in falling order (the two independent of each other) is
// exact, and so are chunks of consecutive elements of one set, each read whole before it is
// written: a write only overwrites inputs of its own chunk or of chunks already done. Threads run
// rounds: every chunk of a window of consecutive chunks (in the pass's order) is read before any of
// them is written, so a write only overwrites inputs that were read in this round or before.
// Within a row, out - in = D + k * delta is linear in the inner index k, so each row's part of P is
// one prefix or suffix of it, and Q the rest: no element is ever tested alone.

// Elements at or below their input (P) in a row whose first output byte lies `row_distance` bytes
// above its first input byte (negative: below) and whose output-minus-input distance grows by
// `delta` bytes per element: [first, last) of the row's n elements.
struct Range {
  uint64_t first, last;
};
Range AtOrBelowInput(int64_t row_distance, int64_t delta, uint64_t n) {
  if (delta == 0) return row_distance <= 0 ? Range{0, n} : Range{0, 0};
  if (delta > 0) {  // a prefix: k <= -row_distance / delta
    if (row_distance > 0) return {0, 0};
    const uint64_t last = static_cast<uint64_t>(-row_distance) / static_cast<uint64_t>(delta) + 1;
    return {0, std::min(n, last)};
  }
  // delta < 0: a suffix, k >= ceil(row_distance / -delta)
  if (row_distance <= 0) return {0, n};
  const auto step = static_cast<uint64_t>(-delta);
  const uint64_t first = (static_cast<uint64_t>(row_distance) + step - 1) / step;
  return {std::min(n, first), n};
}

// Which elements a pass of the chunked overlap runs.
enum class OverlapPart : uint8_t {
  kAll,        // every element (the plan's gap says one direction is exact for all)
  kAtOrBelow,  // P of Note [bounded overlap of rising walks], in rising order
  kAbove,      // Q, in falling order
};

// Temporary memory of the calling thread's last partially overlapping Run (see cpu_backend.h).
thread_local uint64_t last_overlap_staging_bytes = 0;

Status StagingFailed(uint64_t bytes) {
  return Status(StatusCode::kOutOfMemory, "input and output overlap partially and a " +
                                              std::to_string(bytes) +
                                              "-byte temporary failed to allocate");
}

// A partial overlap of a kChunked plan, exact by Note [bounded overlap of rising walks], through at
// most kOverlapWindowBytes of temporary memory. Chunks are groups of whole rows when rows are
// short, segments of a row when they are long. `direction` is OverlapDirection's: +1 or -1 run
// every element in one pass, 0 runs P then Q.
Status RunChunkedOverlapping(const KernelTable& table, const Plan& plan, const std::byte* input,
                             std::byte* output, int direction, int threads) {
  const size_t esize = plan.element_size;
  const int inner = std::max(plan.rank - 1, 0);
  const uint64_t n = plan.rank > 0 ? plan.sizes[inner] : 1;
  const ptrdiff_t in_step = (plan.rank > 0 ? plan.input_strides[inner] : 1) * ptrdiff_t(esize);
  const ptrdiff_t out_step = (plan.rank > 0 ? plan.output_strides[inner] : 1) * ptrdiff_t(esize);
  const int64_t delta = out_step - in_step;
  const uint64_t rows = OuterCount(plan, inner);
  const size_t capacity = std::max<size_t>(1, kOverlapChunkBytes / esize);  // elements
  const uint64_t rows_per_chunk = std::max<uint64_t>(1, capacity / n);
  const uint64_t segment = std::min<uint64_t>(n, capacity);
  const uint64_t per_row = rows_per_chunk > 1 ? 1 : (n + segment - 1) / segment;
  const uint64_t chunks =
      rows_per_chunk > 1 ? (rows + rows_per_chunk - 1) / rows_per_chunk : rows * per_row;
  threads = ThreadsFor(threads, 2 * plan.element_count * esize);
  // One chunk at a time on one thread (it stays in L1); windows of chunks with threads.
  const uint64_t window =
      threads == 1 ? 1 : std::min<uint64_t>(chunks, kOverlapWindowBytes / kOverlapChunkBytes);
  const uint64_t slot = std::min<uint64_t>(rows_per_chunk * n, capacity) * esize;  // bytes
  const uint64_t staging = window * slot;
  std::unique_ptr<std::byte[]> buffer(new (std::nothrow) std::byte[staging]);
  if (!buffer) return StagingFailed(staging);
  last_overlap_staging_bytes = staging;

  const ContiguousKernel kernel = table.Contiguous(plan.function, plan.type);
  const GatherFn gather =
      WithElementType(esize, [](auto u) -> GatherFn { return &Gather<decltype(u)>; });
  const ScatterFn scatter =
      WithElementType(esize, [](auto u) -> ScatterFn { return &Scatter<decltype(u)>; });
  // Calls f(in, out, count) for each row piece of chunk `k` that belongs to `part`, rows in rising
  // or falling order.
  auto for_each_piece = [&](uint64_t k, OverlapPart part, bool rising, auto f) {
    uint64_t first_row = k, row_count = 1, begin = 0, count = n;
    if (rows_per_chunk > 1) {
      first_row = k * rows_per_chunk;
      row_count = std::min(rows_per_chunk, rows - first_row);
    } else {
      first_row = k / per_row;
      begin = (k % per_row) * segment;
      count = std::min(segment, n - begin);
    }
    RowWalker walk(plan, inner, input, output, rising ? first_row : first_row + row_count - 1);
    for (uint64_t r = 0; r < row_count; ++r) {
      uint64_t lo = begin, hi = begin + count;
      if (part != OverlapPart::kAll) {
        const int64_t distance = static_cast<int64_t>(reinterpret_cast<uintptr_t>(walk.out) -
                                                      reinterpret_cast<uintptr_t>(walk.in));
        const Range p = AtOrBelowInput(distance, delta, n);
        Range mine = p;  // Q is the rest of the row: one prefix or suffix
        if (part == OverlapPart::kAbove) mine = p.first == 0 ? Range{p.last, n} : Range{0, p.first};
        lo = std::max(lo, mine.first);
        hi = std::min(hi, mine.last);
      }
      if (lo < hi) {
        f(walk.in + static_cast<ptrdiff_t>(lo) * in_step,
          walk.out + static_cast<ptrdiff_t>(lo) * out_step, hi - lo);
      }
      if (r + 1 < row_count) rising ? walk.Next() : walk.Previous();
    }
  };
  const bool packed =
      in_step == static_cast<ptrdiff_t>(esize) && out_step == static_cast<ptrdiff_t>(esize);
  // A round of chunks on several threads: first every chunk's pieces are read into its slot,
  // then written. A packed piece whose inputs all lie beyond every output of the round (above
  // `limit`, the round's highest output byte + 1, in a rising pass; below `limit`, its lowest
  // output byte, in a falling one) is not read first but runs straight through the kernel when
  // written: no write of the round reaches its inputs, and its own writes, which lie beyond none
  // of its inputs, only reach inputs already read (the Note).
  auto direct_in_round = [&](const std::byte* in, uint64_t count, bool rising, uintptr_t limit) {
    if (!packed) return false;
    const auto lo = reinterpret_cast<uintptr_t>(in);
    return rising ? lo >= limit : lo + count * esize <= limit;
  };
  auto read = [&](uint64_t k, OverlapPart part, std::byte* p, bool rising, uintptr_t limit) {
    for_each_piece(k, part, true, [&](const std::byte* in, std::byte*, uint64_t count) {
      if (direct_in_round(in, count, rising, limit)) return;
      if (in_step == static_cast<ptrdiff_t>(esize)) {
        std::memcpy(p, in, count * esize);
      } else {
        gather(in, in_step, p, count);
      }
      p += count * esize;
    });
  };
  auto write = [&](uint64_t k, OverlapPart part, std::byte* p, bool rising, uintptr_t limit) {
    for_each_piece(k, part, true, [&](const std::byte* in, std::byte* out, uint64_t count) {
      if (direct_in_round(in, count, rising, limit)) {
        kernel(in, out, count);
        return;
      }
      if (out_step == static_cast<ptrdiff_t>(esize)) {
        kernel(p, out, count);
      } else {
        kernel(p, p, count);
        scatter(p, out, out_step, count);
      }
      p += count * esize;
    });
  };
  // A span of chunks whose outputs all lie on the far side of all their inputs (below them in a
  // rising pass, above in a falling one) runs straight through the kernel, on every thread at once:
  // its writes overwrite no input of its own and, by the Note, none of chunks still to come.
  // The lowest input (out: output) address of chunk k (a rising walk).
  auto first_element = [&](uint64_t k, bool out) {
    const uint64_t row = rows_per_chunk > 1 ? k * rows_per_chunk : k / per_row;
    const uint64_t begin = rows_per_chunk > 1 ? 0 : (k % per_row) * segment;
    const RowWalker walk(plan, inner, input, output, row);
    return reinterpret_cast<uintptr_t>(out ? walk.out + static_cast<ptrdiff_t>(begin) * out_step
                                           : walk.in + static_cast<ptrdiff_t>(begin) * in_step);
  };
  auto last_element = [&](uint64_t k, bool out) {  // the highest address of chunk k, + esize
    uint64_t row, end;
    if (rows_per_chunk > 1) {
      row = std::min(rows, (k + 1) * rows_per_chunk) - 1;
      end = n;
    } else {
      row = k / per_row;
      end = std::min(n, (k % per_row + 1) * segment);
    }
    const RowWalker walk(plan, inner, input, output, row);
    const std::byte* p = out ? walk.out + static_cast<ptrdiff_t>(end - 1) * out_step
                             : walk.in + static_cast<ptrdiff_t>(end - 1) * in_step;
    return reinterpret_cast<uintptr_t>(p) + esize;
  };
  // Chunks [lo, hi) (indices) lie apart: all outputs below all inputs (rising) or above (falling).
  auto apart = [&](uint64_t lo, uint64_t hi, bool rising) {
    return rising ? last_element(hi - 1, true) <= first_element(lo, false)
                  : first_element(lo, true) >= last_element(hi - 1, false);
  };
  auto direct = [&](uint64_t k, OverlapPart part) {
    for_each_piece(k, part, true, [&](const std::byte* in, std::byte* out, uint64_t count) {
      kernel(in, out, count);
    });
  };
  // One chunk on the calling thread. A packed row piece whose output lies at least
  // kOverlapDirectBytes beyond its input (below it in a rising pass, above in a falling one) runs
  // straight through the kernel in sub-pieces no longer than that distance, in the pass's order:
  // each sub-piece's outputs then lie beyond all its own inputs, so by the Note its writes only
  // reach inputs already read. The other pieces are read into the buffer first (all of them,
  // before any piece of the chunk is written).
  auto direct_length = [&](const std::byte* in, const std::byte* out, bool rising) -> uint64_t {
    if (!packed) return 0;
    const auto a = reinterpret_cast<uintptr_t>(in), b = reinterpret_cast<uintptr_t>(out);
    const uintptr_t distance = rising ? (a >= b ? a - b : 0) : (b >= a ? b - a : 0);
    return distance >= kOverlapDirectBytes ? distance / esize : 0;
  };
  auto run_one = [&](uint64_t k, OverlapPart part, bool rising) {
    std::byte* p = buffer.get();
    for_each_piece(k, part, rising, [&](const std::byte* in, const std::byte* out, uint64_t count) {
      if (direct_length(in, out, rising) != 0) return;
      if (in_step == static_cast<ptrdiff_t>(esize)) {
        std::memcpy(p, in, count * esize);
      } else {
        gather(in, in_step, p, count);
      }
      p += count * esize;
    });
    p = buffer.get();
    for_each_piece(k, part, rising, [&](const std::byte* in, std::byte* out, uint64_t count) {
      if (const uint64_t length = direct_length(in, out, rising); length != 0) {
        for (uint64_t done = 0; done < count;) {
          const uint64_t step = std::min(length, count - done);
          const uint64_t at = rising ? done : count - done - step;
          kernel(in + at * esize, out + at * esize, step);
          done += step;
        }
        return;
      }
      if (out_step == static_cast<ptrdiff_t>(esize)) {
        kernel(p, out, count);
      } else {
        kernel(p, p, count);
        scatter(p, out, out_step, count);
      }
      p += count * esize;
    });
  };
  auto pass = [&](OverlapPart part, bool rising) {
    // Chunks in the pass's order: positions [i, j) are indices [i, j) rising, or
    // [chunks - j, chunks - i) falling.
    auto index_range = [&](uint64_t i, uint64_t j) {
      return rising ? Range{i, j} : Range{chunks - j, chunks - i};
    };
    for (uint64_t i = 0; i < chunks;) {
      // The longest span from position i that lies apart (binary search: it only grows shorter
      // as it extends, since the outputs rise and the inputs fall away from it).
      uint64_t good = i, bad = chunks + 1;
      if (packed) {
        while (bad - good > 1) {
          const uint64_t mid = good + (bad - good) / 2;
          const Range r = index_range(i, mid);
          (apart(r.first, r.last, rising) ? good : bad) = mid;
        }
      }
      // On threads, only spans of at least a window: each span is one parallel loop.
      if (good > i && (window == 1 || good - i >= window)) {
        const Range r = index_range(i, good);
        ThreadPool::Global().ParallelFor(r.last - r.first, threads,
                                         [&](size_t j) { direct(r.first + j, part); });
        i = good;
        continue;
      }
      const uint64_t count = std::min(window, chunks - i);
      const Range r = index_range(i, i + count);
      if (count == 1) {
        run_one(r.first, part, rising);
      } else {
        const uintptr_t limit =
            rising ? last_element(r.last - 1, true) : first_element(r.first, true);
        const auto slot_of = [&](uint64_t k) { return buffer.get() + (k - r.first) * slot; };
        // One task per thread, each the same run of chunks in both phases (its slots stay in
        // its own cache when the pool keeps the task on the same thread).
        const auto tasks = static_cast<size_t>(std::min<uint64_t>(count, threads));
        auto each = [&](size_t t, auto f) {
          for (uint64_t k = r.first + count * t / tasks; k < r.first + count * (t + 1) / tasks; ++k)
            f(k, part, slot_of(k), rising, limit);
        };
        ThreadPool::Global().ParallelFor(tasks, threads, [&](size_t t) { each(t, read); });
        ThreadPool::Global().ParallelFor(tasks, threads, [&](size_t t) { each(t, write); });
      }
      i += count;
    }
  };
  if (direction > 0) {
    pass(OverlapPart::kAll, true);
  } else if (direction < 0) {
    pass(OverlapPart::kAll, false);
  } else {
    pass(OverlapPart::kAtOrBelow, true);
    pass(OverlapPart::kAbove, false);
  }
  return Status::Ok();
}

// A kSwapTiles plan at its mirror distance (plan.h): the elements are split into tiles that the
// mirror map s takes onto tiles (per dim: swapped dims share one partition; a reversed dim is cut
// from both ends towards its middle, with the middle element of an odd size alone; other dims
// anywhere), and each pair {T, s(T)} is read whole into two small buffers before either is
// written. Writing T overwrites only the inputs of s(T) and writing s(T) only those of T, both
// read already, so pairs run in any order, on any number of threads.
constexpr size_t kSwapTileBytes = size_t{16} << 10;  // one tile; a task holds two

Status RunSwappedTiles(const KernelTable& table, const Plan& plan, const std::byte* input,
                       std::byte* output, int threads) {
  const size_t esize = plan.element_size;
  const int rank = plan.rank;
  const int a = plan.overlap.swap_a, b = plan.overlap.swap_b;
  const auto reversed = [&](int d) { return (plan.overlap.reversed_dims >> d & 1u) != 0; };
  // Tile extents: the swapped pair first (square tiles), then the other dims innermost first.
  std::array<uint64_t, kMaxRank> edge{}, count{};
  uint64_t room = std::max<uint64_t>(1, kSwapTileBytes / esize);  // elements per tile
  if (a >= 0) {  // a power of two (whole vectors for the transposed-tile kernel)
    uint64_t t = 1;
    while (4 * t * t <= room && t < plan.sizes[a]) t *= 2;
    edge[a] = edge[b] = t;
    room /= t * t;
  }
  for (int d = rank - 1; d >= 0; --d) {
    if (d == a || d == b) continue;
    edge[d] = std::max<uint64_t>(1, std::min(plan.sizes[d], room));
    room = std::max<uint64_t>(1, room / edge[d]);
  }
  // Per dim: tile j covers [first, last); reversed dims: ceil(half / edge) tiles from each end.
  auto half_tiles = [&](int d) { return (plan.sizes[d] / 2 + edge[d] - 1) / edge[d]; };
  uint64_t total = 1;
  for (int d = 0; d < rank; ++d) {
    count[d] = reversed(d) ? 2 * half_tiles(d) + plan.sizes[d] % 2
                           : (plan.sizes[d] + edge[d] - 1) / edge[d];
    total *= count[d];
  }
  auto tile_range = [&](int d, uint64_t j) -> Range {
    const uint64_t size = plan.sizes[d];
    if (!reversed(d)) return {j * edge[d], std::min(size, (j + 1) * edge[d])};
    const uint64_t half = size / 2, front = half_tiles(d);
    if (j < front) return {j * edge[d], std::min(half, (j + 1) * edge[d])};
    if (size % 2 == 1 && j == front) return {half, half + 1};
    const uint64_t m = count[d] - 1 - j;  // the mirror of front tile m
    return {size - std::min(half, (m + 1) * edge[d]), size - m * edge[d]};
  };
  const ContiguousKernel kernel = table.Contiguous(plan.function, plan.type);
  const GatherFn gather =
      WithElementType(esize, [](auto u) -> GatherFn { return &Gather<decltype(u)>; });
  const ScatterFn scatter =
      WithElementType(esize, [](auto u) -> ScatterFn { return &Scatter<decltype(u)>; });
  const ReverseFn reverse =
      WithElementType(esize, [](auto u) -> ReverseFn { return &ReverseCopy<decltype(u)>; });
  const int inner = rank - 1;
  const auto e = static_cast<ptrdiff_t>(esize);
  const ptrdiff_t in_step = plan.input_strides[inner] * e;
  const ptrdiff_t out_step = plan.output_strides[inner] * e;
  // Calls f(in, out, range) for each block of the tile with per-dim indices j that spans the tile's
  // `whole` innermost dims (in, out: the block's first element; range: the tile's range per dim).
  auto for_each_block = [&](const std::array<uint64_t, kMaxRank>& j, int whole, auto f) {
    std::array<Range, kMaxRank> range{};
    for (int d = 0; d < rank; ++d) range[d] = tile_range(d, j[d]);
    std::array<uint64_t, kMaxRank> x{};
    for (int d = 0; d < rank; ++d) x[d] = range[d].first;
    while (true) {
      ptrdiff_t in_offset = 0, out_offset = 0;
      for (int d = 0; d < rank; ++d) {
        in_offset += static_cast<ptrdiff_t>(x[d]) * plan.input_strides[d] * e;
        out_offset += static_cast<ptrdiff_t>(x[d]) * plan.output_strides[d] * e;
      }
      f(input + in_offset, output + out_offset, range);
      int d = rank - 1 - whole;
      for (; d >= 0; --d) {
        if (++x[d] < range[d].last) break;
        x[d] = range[d].first;
      }
      if (d < 0) return;
    }
  };
  // Calls f(in, out, count) for each row (innermost-dim run) of the tile with per-dim indices j.
  auto for_each_row = [&](const std::array<uint64_t, kMaxRank>& j, auto f) {
    for_each_block(j, 1, [&](const std::byte* in, std::byte* out, const auto& range) {
      f(in, out, range[inner].last - range[inner].first);
    });
  };
  // A square transpose whose input is packed along dim rank-2 and output along rank-1 (the
  // usual one): each 2-d tile is read through the table's transposed-tile kernel, which applies
  // the function on the way, and written back as rows.
  const bool transposed =
      a == rank - 2 && b == rank - 1 && plan.input_strides[a] == 1 && plan.output_strides[b] == 1;
  const TransposedKernel transpose = table.Transposed(plan.function, plan.type);
  // Calls f(in, out, a_range, b_range) for each 2-d (a, b) tile of the tile with indices j.
  auto for_each_plane = [&](const std::array<uint64_t, kMaxRank>& j, auto f) {
    for_each_block(j, 2, [&](const std::byte* in, std::byte* out, const auto& range) {
      f(in, out, range[a], range[b]);
    });
  };
  auto read = [&](const std::array<uint64_t, kMaxRank>& j, std::byte* p) {
    if (transposed) {
      for_each_plane(j, [&](const std::byte* in, std::byte*, Range ra, Range rb) {
        const uint64_t rows = ra.last - ra.first, columns = rb.last - rb.first;
        transpose(in, plan.input_strides[b] * e, p, static_cast<ptrdiff_t>(columns * esize), rows,
                  columns);
        p += rows * columns * esize;
      });
      return;
    }
    for_each_row(j, [&](const std::byte* in, std::byte*, uint64_t n) {
      if (in_step == -e) {
        reverse(in, p, n);
      } else if (in_step == e) {
        std::memcpy(p, in, n * esize);
      } else {
        gather(in, in_step, p, n);
      }
      p += n * esize;
    });
  };
  auto write = [&](const std::array<uint64_t, kMaxRank>& j, std::byte* p) {
    if (transposed) {
      for_each_plane(j, [&](const std::byte*, std::byte* out, Range ra, Range rb) {
        const uint64_t rows = ra.last - ra.first, columns = rb.last - rb.first;
        for (uint64_t r = 0; r < rows; ++r, p += columns * esize) {
          std::memcpy(out + static_cast<ptrdiff_t>(r) * plan.output_strides[a] * e, p,
                      columns * esize);
        }
      });
      return;
    }
    for_each_row(j, [&](const std::byte*, std::byte* out, uint64_t n) {
      if (out_step == e) {
        kernel(p, out, n);
      } else {
        kernel(p, p, n);
        scatter(p, out, out_step, n);
      }
      p += n * esize;
    });
  };
  const uint64_t tile_bytes = [&] {
    uint64_t elements = 1;
    for (int d = 0; d < rank; ++d) elements *= std::min(plan.sizes[d], edge[d]);
    return elements * esize;
  }();
  threads = ThreadsFor(threads, 2 * plan.element_count * esize);
  last_overlap_staging_bytes = 2 * tile_bytes * static_cast<uint64_t>(threads);
  ThreadPool::Global().ParallelFor(total, threads, [&](size_t task) {
    std::array<uint64_t, kMaxRank> j{}, mirror{};
    uint64_t rest = task;
    for (int d = rank - 1; d >= 0; --d) {
      j[d] = rest % count[d];
      rest /= count[d];
    }
    mirror = j;
    for (int d = 0; d < rank; ++d) {
      if (reversed(d)) mirror[d] = count[d] - 1 - j[d];
    }
    if (a >= 0) std::swap(mirror[a], mirror[b]);
    if (mirror < j) return;  // the pair runs from its lower tile
    alignas(64) std::byte tiles[2][kSwapTileBytes];
    read(j, tiles[0]);
    if (mirror != j) read(mirror, tiles[1]);
    write(j, tiles[0]);
    if (mirror != j) write(mirror, tiles[1]);
  });
  return Status::Ok();
}

// ---- broadcast
// -----------------------------------------------------------------------------------

// Fills `bytes` bytes at `out` with out[i] = pattern[i % 8] (kernel_table.h). Fills of more than
// kStringFillBytes (in total, over all threads) use `rep stosq` on x86-64: like the library
// memset, it writes whole lines without reading them first. Measured on a 2-core EPYC (Zen 5),
// one thread, GB/s: 512 KiB vector stores 165 / rep stosq 108; 2 MiB 93 / 108; 16 MiB 67 / 96;
// 64 MiB 25 / 39 (memset 38); below that the vector stores of the kernel table win.
constexpr uint64_t kStringFillBytes = uint64_t{1} << 20;
void FillRun(const KernelTable& table, std::byte* out, size_t bytes, const std::byte* pattern,
             bool large) {
#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
  if (large && bytes >= 4 * kCacheLine) {
    const size_t head = (kCacheLine - reinterpret_cast<uintptr_t>(out) % kCacheLine) % kCacheLine;
    std::memcpy(out, pattern, head);
    const std::byte* const phased = pattern + head % 8;  // the pattern as seen from out + head
    uint64_t word;
    std::memcpy(&word, phased, 8);
    void* destination = out + head;
    size_t words = (bytes - head) / 8;
    asm volatile("rep stosq" : "+D"(destination), "+c"(words) : "a"(word) : "memory");
    std::memcpy(destination, phased, (bytes - head) % 8);
    return;
  }
#else
  (void)large;
#endif
  table.pattern_fill(out, bytes, pattern);
}

// The element at `value` repeated over 8 bytes (element sizes divide 8).
uint64_t RepeatToWord(const std::byte* value, size_t esize) {
  return WithElementType(esize, [value](auto u) {
    using U = decltype(u);
    std::memcpy(&u, value, sizeof(U));
    std::byte bytes[8];
    for (size_t i = 0; i < 8; i += sizeof(U)) std::memcpy(bytes + i, &u, sizeof(U));
    uint64_t word;
    std::memcpy(&word, bytes, 8);
    return word;
  });
}

void RunBroadcast(const KernelTable& table, const Plan& plan, const std::byte* input,
                  std::byte* output, int threads) {
  const size_t esize = plan.element_size;
  alignas(16) std::byte value[16];
  table.Contiguous(plan.function, plan.type)(input, value, 1);
  alignas(64) std::byte pattern[kFillPatternBytes];
  const uint64_t word = RepeatToWord(value, esize);
  for (size_t i = 0; i < kFillPatternBytes; i += 8) std::memcpy(pattern + i, &word, 8);
  // A value of equal bytes (0, ±0, -1, any 8-bit value) is a memset.
  const bool uniform =
      std::all_of(value, value + esize, [&](std::byte b) { return b == value[0]; });

  const int inner = plan.rank - 1;
  const uint64_t bytes = plan.element_count * esize;
  if (plan.rank == 1 && plan.output_strides[0] == 1 && bytes < kParallelBytes) {
    // One small packed run (the common small call): one fill, no task machinery.
    if (uniform) {
      std::memset(output, static_cast<int>(value[0]), bytes);
    } else {
      table.pattern_fill(output, bytes, pattern);
    }
    return;
  }
  threads = ThreadsFor(threads, bytes);
  if (plan.output_strides[inner] == 1) {  // packed rows: fills
    const uint64_t rows = OuterCount(plan, inner);
    const uint64_t row_bytes = plan.sizes[inner] * esize;
    const bool large = bytes > kStringFillBytes;
    const uint64_t per_row = std::max<uint64_t>(1, row_bytes / kTaskBytes);
    const uint64_t segment = (row_bytes / esize + per_row - 1) / per_row * esize;
    ThreadPool::Global().ParallelFor(rows * per_row, threads, [&](size_t task) {
      const RowWalker walk(plan, inner, input, output, task / per_row);
      const uint64_t begin = (task % per_row) * segment;
      if (begin >= row_bytes) return;
      if (uniform) {
        std::memset(walk.out + begin, static_cast<int>(value[0]),
                    std::min(segment, row_bytes - begin));
      } else {
        FillRun(table, walk.out + begin, std::min(segment, row_bytes - begin), pattern, large);
      }
    });
    return;
  }
  // Strided output: element stores.
  const ptrdiff_t step = plan.output_strides[inner] * static_cast<ptrdiff_t>(esize);
  const uint64_t rows = OuterCount(plan, inner);
  ThreadPool::Global().ParallelFor(rows, threads, [&](size_t row) {
    const RowWalker walk(plan, inner, input, output, row);
    std::byte* p = walk.out;
    for (uint64_t i = 0; i < plan.sizes[inner]; ++i, p += step) std::memcpy(p, value, esize);
  });
}

// A contiguous plan that RunContiguous would run as one kernel call on the calling thread.
bool IsSmallContiguous(const Plan& plan) {
  return plan.element_count * plan.element_size < kParallelBytes / 2;
}

void RunPlan(const KernelTable& table, const Plan& plan, const std::byte* input, std::byte* output,
             int threads) {
  input += plan.input_offset;
  output += plan.output_offset;
  switch (plan.layout) {
    case Layout::kEmpty:
      return;
    case Layout::kContiguous:
      RunContiguous(table, plan, input, output, threads);
      return;
    case Layout::kBroadcast:
      RunBroadcast(table, plan, input, output, threads);
      return;
    case Layout::kRows:
      RunRows(table, plan, input, output, threads);
      return;
    case Layout::kTransposed:
      if (plan.input_strides[plan.rank - 2] == 1 && plan.output_strides[plan.rank - 1] == 1) {
        RunTransposed(table, plan, input, output, threads);
      } else {
        RunGathered(table, plan, input, output, threads);
      }
      return;
    case Layout::kGathered:
      RunGathered(table, plan, input, output, threads);
      return;
  }
}

class Cpu final : public Backend {
 public:
  explicit Cpu(int threads) : threads_(threads) {}

  Status Run(const Plan& plan, const std::byte* input, std::byte* output,
             Aliasing aliasing) const override {
    const KernelTable& table = table_;
    // Small contiguous calls (the common case of many small tensors): straight to the kernel,
    // without the layout switch and the threading decisions.
    if (aliasing != Aliasing::kPartial) {
      if (const DirectKernel kernel = DirectKernelFor(plan)) {
        kernel(input + plan.input_offset, output + plan.output_offset, plan.element_count);
        return Status::Ok();
      }
    }
    if (aliasing == Aliasing::kPartial && plan.overlap.staging != OverlapStaging::kNone) {
      return RunOverlapping(table, plan, input, output);
    }
    RunPlan(table, plan, input, output, threads_);
    return Status::Ok();
  }

  // A partial overlap that the plan's overlap.staging must make exact. Out of line: it keeps
  // Run's frame small for the calls that need none of this.
  [[gnu::noinline]] Status RunOverlapping(const KernelTable& table, const Plan& plan,
                                          const std::byte* input, std::byte* output) const {
    if (plan.overlap.staging == OverlapStaging::kChunked) {
      const int direction =
          OverlapDirection(plan, input + plan.input_offset, output + plan.output_offset);
      return RunChunkedOverlapping(table, plan, input + plan.input_offset,
                                   output + plan.output_offset, direction, threads_);
    }
    if (plan.overlap.staging == OverlapStaging::kSwapTiles &&
        reinterpret_cast<uintptr_t>(input + plan.input_offset) -
                reinterpret_cast<uintptr_t>(output + plan.output_offset) ==
            plan.overlap.swap_distance) {
      return RunSwappedTiles(table, plan, input + plan.input_offset, output + plan.output_offset,
                             threads_);
    }
    // Walks that do not both rise and are no tile swap at its distance (plan.h): read the
    // whole input span first.
    last_overlap_staging_bytes = plan.input_span;
    std::unique_ptr<std::byte[]> copy(new (std::nothrow) std::byte[plan.input_span]);
    if (!copy) {
      return Status(StatusCode::kOutOfMemory, "input and output overlap partially and a " +
                                                  std::to_string(plan.input_span) +
                                                  "-byte copy of the input failed");
    }
    std::memcpy(copy.get(), input, plan.input_span);
    RunPlan(table, plan, copy.get(), output, threads_);
    return Status::Ok();
  }

  // Small contiguous plans: the table's kernel itself (the same call Run makes for them).
  DirectKernel DirectKernelFor(const Plan& plan) const override {
    if (plan.layout != Layout::kContiguous || !IsSmallContiguous(plan)) return nullptr;
    return table_.Contiguous(plan.function, plan.type);
  }

  Expected<void*> Allocate(uint64_t bytes) const override {
    void* p = ::operator new (std::max<uint64_t>(bytes, 1), std::align_val_t{64}, std::nothrow);
    if (p == nullptr) {
      return Status(StatusCode::kOutOfMemory,
                    "allocating " + std::to_string(bytes) + " bytes of host memory failed");
    }
    return p;
  }
  void Free(void* pointer) const override {
    ::operator delete (pointer, std::align_val_t{64}, std::nothrow);
  }
  Status Copy(void* dst, const void* src, uint64_t bytes, CopyKind /*kind*/) const override {
    if (bytes != 0) std::memmove(dst, src, bytes);
    return Status::Ok();
  }
  Status Synchronize() const override { return Status::Ok(); }

  std::string description() const override {
    return "cpu (" + std::to_string(threads_) + " threads)";
  }
  int threads() const override { return threads_; }

 private:
  int threads_;
  const KernelTable& table_ = BestKernelTable();  // chosen once: the CPU does not change
};

}  // namespace

void RunPlanWithTable(const KernelTable& table, const Plan& plan, const std::byte* input,
                      std::byte* output) {
  RunPlan(table, plan, input, output, 1);
}

void RunPlanWithTable(const KernelTable& table, const Plan& plan, const std::byte* input,
                      std::byte* output, int threads) {
  RunPlan(table, plan, input, output, threads);
}

uint64_t LastOverlapStagingBytes() { return last_overlap_staging_bytes; }

std::shared_ptr<const Backend> MakeCpuBackend(int threads) {
  return std::make_shared<const Cpu>(threads);
}

}  // namespace eltwise
