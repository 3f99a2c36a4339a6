// The thread pool against OpenMP, the measurement behind eltwise's own pool
// (src/cpu/thread_pool.h). Both split the same work the same way: the best table's f32 Sign kernel
// over `bytes` of output in tasks of 128 KiB (the CPU driver's task size), on all hardware threads,
// and an empty parallel loop (the dispatch cost alone). Names: pool/<eltwise|openmp>/<bytes or
// empty>, bytes as 512KiB, 4MiB, 64MiB.
#include <benchmark/benchmark.h>
#include <omp.h>

#include <algorithm>
#include <cstring>
#include <string>
#include <thread>

#include "bench/buffers.h"
#include "bench/sizes.h"
#include "core/function.h"
#include "cpu/kernel_dispatch.h"
#include "cpu/thread_pool.h"
#include "measure_support.h"

namespace eltwise {
namespace {

constexpr size_t kTaskBytes = size_t{128} << 10;

int Threads() { return static_cast<int>(std::max(1u, std::thread::hardware_concurrency())); }

// The kernel's input (any finite float32 values) and output, every page written before timing.
struct Buffers {
  explicit Buffers(size_t bytes) : in(bytes), out(bytes) {
    std::memset(in.data(), 0x3f, bytes);
    std::memset(out.data(), 0, bytes);
  }
  bench::AlignedBuffer in, out;
};

template <bool kOpenMp>
void PoolBenchmark(benchmark::State& state, size_t bytes) {
  const ContiguousKernel kernel =
      BestKernelTable().Contiguous(Function::kSignNanZero, DataType::kFloat32);
  Buffers buffers(std::max<size_t>(bytes, 64));
  const size_t tasks = bytes == 0 ? size_t(Threads()) : (bytes + kTaskBytes - 1) / kTaskBytes;
  const int threads = Threads();
  auto task = [&](size_t t) {
    const size_t begin = t * kTaskBytes;
    if (begin >= bytes) return;
    const size_t count = std::min(kTaskBytes, bytes - begin);
    kernel(buffers.in.data() + begin, buffers.out.data() + begin, count / 4);
  };
  for (auto _ : state) {
    if constexpr (kOpenMp) {
#pragma omp parallel for schedule(dynamic, 1) num_threads(threads)
      for (size_t t = 0; t < tasks; ++t) task(t);
    } else {
      ThreadPool::Global().ParallelFor(tasks, threads, task);
    }
    benchmark::ClobberMemory();
  }
  state.SetBytesProcessed(static_cast<int64_t>(state.iterations() * 2 * bytes));
  state.counters["threads"] = threads;
}

// Registered from a static initializer for benchmark_main: registration needs nothing of the
// library (the kernel is looked up when the benchmark runs).
bool RegisterAll() {
  for (size_t bytes : {size_t{0}, size_t{512} << 10, size_t{4} << 20, size_t{64} << 20}) {
    const std::string size = bytes == 0 ? "empty" : bench::SizeName(bytes);
    benchmark::RegisterBenchmark(("pool/eltwise/" + size).c_str(), PoolBenchmark<false>, bytes)
        ->UseRealTime();
    benchmark::RegisterBenchmark(("pool/openmp/" + size).c_str(), PoolBenchmark<true>, bytes)
        ->UseRealTime();
  }
  return true;
}
[[maybe_unused]] const bool kRegistered = RegisterAll();

}  // namespace
}  // namespace eltwise
