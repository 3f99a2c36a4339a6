// The packed layout walkers (layout_walkers.h): contiguous runs, rows packed in both tensors, and
// broadcast fills.
#include <algorithm>
#include <cstring>

#include "cpu/cache_tuning.h"
#include "cpu/cpu_caches.h"
#include "cpu/element_copy.h"
#include "cpu/layout_walkers.h"
#include "cpu/row_walker.h"
#include "cpu/thread_pool.h"

namespace eltwise::cpu {
namespace {

// Non-temporal stores for outputs larger than the last-level cache, on the thread counts where the
// microarchitecture gains from them (CacheTuning::stream_past_last_level_threads), and for rows
// of at least CacheTuning::stream_row_bytes (docs/performance.md, "Where the tuning constants
// come from").
bool UseStreamingStores(uint64_t output_bytes, int threads, uint64_t row_bytes) {
  const CacheTuning& tuning = MachineTuning();
  return threads <= tuning.stream_past_last_level_threads &&
         output_bytes > MachineCaches().LastLevelBytes() && row_bytes >= tuning.stream_row_bytes;
}

// The contiguous kernel for a plan with `output_bytes` bytes of output, in rows of `row_bytes`,
// on `threads` threads.
ContiguousKernel ContiguousKernelFor(const KernelTable& table, const Plan& plan,
                                     uint64_t output_bytes, int threads, uint64_t row_bytes) {
  return UseStreamingStores(output_bytes, threads, row_bytes)
             ? table.ContiguousStream(plan.function, plan.type)
             : table.Contiguous(plan.function, plan.type);
}

// Fills `bytes` bytes at `out` with out[i] = pattern[i % 8] (kernel_table.h). Fills of more than
// kStringFillBytes (in total, over all threads) use `rep stosq` on x86-64: like the library
// memset, it writes whole lines without reading them first; below that the vector stores of the
// kernel table win. Measured on a Zen 5 VM (1 MiB of L2: vector stores ahead at 512 KiB, behind
// from 2 MiB); on a Zen 3 VM (512 KiB of L2) a switch at L2's size lost at 640 KiB and 1 MiB, so
// it is not derived from the caches (docs/performance.md).
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

}  // namespace

void RunContiguous(const KernelTable& table, const Plan& plan, const std::byte* input,
                   std::byte* output, int threads) {
  const size_t esize = plan.element_size;
  const uint64_t n = plan.element_count;
  const uint64_t bytes = n * esize;
  threads = ThreadsFor(threads, 2 * bytes);
  const ContiguousKernel kernel = ContiguousKernelFor(table, plan, bytes, threads, bytes);
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

void RunRows(const KernelTable& table, const Plan& plan, const std::byte* input, std::byte* output,
             int threads) {
  const size_t esize = plan.element_size;
  const int outer = plan.rank - 1;
  const uint64_t rows = OuterCount(plan, outer);
  const uint64_t row_elements = plan.sizes[outer];
  const uint64_t row_bytes = row_elements * esize;
  const uint64_t total = rows * row_bytes;
  threads = ThreadsFor(threads, 2 * total);
  const ContiguousKernel kernel = ContiguousKernelFor(table, plan, total, threads, row_bytes);
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
  return plan.element_count * plan.element_size < kInlineBytes;
}

}  // namespace eltwise::cpu
