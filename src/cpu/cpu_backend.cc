// CPU plan driver. The plan (src/core/plan.cc) has already dropped size-1 dims, ordered dims by
// output stride and merged contiguous ones; this file picks the loop:
//   contiguous   one kernel call over the whole run (in place too), split across threads;
//   rows         the innermost dim is packed in both tensors: one kernel call per row (segment);
//   broadcast    every output element is f(the one input element): compute once, then fill;
//   gathered     the innermost dim is strided: tiles of rows are gathered into a small buffer, run
//                through the contiguous kernel and stored (scattered if the output is strided).
//                Tiles span two dims so a transposed input is read a cache line at a time.
// Partial overlap of input and output: a contiguous run is processed in bounded chunks in the
// direction that never overwrites unread input (like memmove); other layouts copy the input span.
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
constexpr size_t kTileRows = 128;
// Columns per tile when a transposed input is gathered tile by tile (kTileRows x kTileColumns).
constexpr size_t kTileColumns = 128;
// Row pitch of a gathered tile in elements: padded so that a tile's column (one element per row)
// does not map every row to the same few L1 sets.
constexpr size_t kTilePitch = kTileColumns + 16;
// Partial overlap of a contiguous run is processed through a temporary of this many bytes.
constexpr size_t kOverlapChunkBytes = size_t{64} << 10;

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

// Partial overlap of two contiguous runs: chunks through a bounded temporary, front to back when
// the output starts below the input (an output chunk can only overwrite input that its own chunk
// or an earlier one has read), back to front otherwise.
Status RunContiguousOverlapping(const KernelTable& table, const Plan& plan, const std::byte* input,
                                std::byte* output) {
  const size_t esize = plan.element_size;
  const uint64_t n = plan.element_count;
  const size_t chunk = std::max<size_t>(1, kOverlapChunkBytes / esize);
  std::unique_ptr<std::byte[]> buffer(new (std::nothrow)
                                          std::byte[std::min<uint64_t>(n, chunk) * esize]);
  if (!buffer) {
    return Status(StatusCode::kOutOfMemory, "input and output overlap partially and a " +
                                                std::to_string(chunk * esize) +
                                                "-byte temporary failed to allocate");
  }
  const ContiguousKernel kernel = table.Contiguous(plan.function, plan.type);
  const uint64_t chunks = (n + chunk - 1) / chunk;
  const bool forward = output < input;
  for (uint64_t c = 0; c < chunks; ++c) {
    const uint64_t k = forward ? c : chunks - 1 - c;
    const uint64_t begin = k * chunk;
    const uint64_t count = std::min<uint64_t>(chunk, n - begin);
    kernel(input + begin * esize, buffer.get(), count);
    std::memcpy(output + begin * esize, buffer.get(), count * esize);
  }
  return Status::Ok();
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

// Iteration: outer dims [0, rank-2), then tiles of kTileRows along dim rank-2 ("a") by `piece`
// elements along the innermost dim ("b"). Each task is one (outer index, a-tile, b-piece).
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
  const size_t piece = kGatherBytes / esize;
  const uint64_t b_pieces = (b_size + piece - 1) / piece;
  const uint64_t a_tiles = (a_size + kTileRows - 1) / kTileRows;
  const uint64_t b_tiles = (b_size + kTileColumns - 1) / kTileColumns;
  const ContiguousKernel kernel = table.Contiguous(plan.function, plan.type);
  const GatherFn gather =
      WithElementType(esize, [](auto u) -> GatherFn { return &Gather<decltype(u)>; });
  const ScatterFn scatter =
      WithElementType(esize, [](auto u) -> ScatterFn { return &Scatter<decltype(u)>; });
  const bool packed_in = in_b == static_cast<ptrdiff_t>(esize);
  const bool packed_out = out_b == static_cast<ptrdiff_t>(esize);

  // A transposed input (contiguous along `a`, strided along `b`): gather whole tiles reading
  // along `a`, so every input cache line is used once per tile instead of once per row.
  const bool transpose = !packed_in && a_dim >= 0 && std::llabs(in_a) < std::llabs(in_b);
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
    const uint64_t a_end = std::min(a_size, (a_tile + 1) * kTileRows);
    for (uint64_t a = a_tile * kTileRows; a < a_end; ++a) {
      const std::byte* in =
          walk.in + static_cast<ptrdiff_t>(a) * in_a + static_cast<ptrdiff_t>(b0) * in_b;
      std::byte* out =
          walk.out + static_cast<ptrdiff_t>(a) * out_a + static_cast<ptrdiff_t>(b0) * out_b;
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

// ---- broadcast
// -----------------------------------------------------------------------------------

// Fills `bytes` bytes at `out` with out[i] = pattern[i % 8] (kernels.h). Fills of more than
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
    case Layout::kStrided:
      if (plan.input_strides[plan.rank - 1] == 1 && plan.output_strides[plan.rank - 1] == 1) {
        RunRows(table, plan, input, output, threads);
      } else {
        RunGathered(table, plan, input, output, threads);
      }
      return;
  }
}

class Cpu final : public Backend {
 public:
  explicit Cpu(int threads) : threads_(threads) {}

  Status Run(const Plan& plan, const std::byte* input, std::byte* output,
             Aliasing aliasing) const override {
    const KernelTable& table = BestKernelTable();
    if (aliasing == Aliasing::kPartial) {
      if (plan.layout == Layout::kContiguous) {
        return RunContiguousOverlapping(table, plan, input + plan.input_offset,
                                        output + plan.output_offset);
      }
      // Strided partial overlap: read the whole input span first.
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
    RunPlan(table, plan, input, output, threads_);
    return Status::Ok();
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

std::shared_ptr<const Backend> MakeCpuBackend(int threads) {
  return std::make_shared<const Cpu>(threads);
}

}  // namespace eltwise
