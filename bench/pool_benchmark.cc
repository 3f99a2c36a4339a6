// The thread pool against OpenMP, the measurement behind eltwise's own pool
// (src/cpu/thread_pool.h). Both split the same work the same way: the best table's f32 Sign kernel
// over `bytes` of output in tasks of 128 KiB (the CPU driver's task size), on all hardware threads,
// and an empty parallel loop (the dispatch cost alone). Names: pool/<eltwise|openmp>/<bytes or
// empty>.
#include <benchmark/benchmark.h>
#include <omp.h>

#include <algorithm>
#include <cstring>
#include <memory>
#include <new>
#include <string>
#include <thread>

#include "core/function.h"
#include "cpu/kernel_dispatch.h"
#include "cpu/thread_pool.h"

namespace eltwise {
namespace {

constexpr size_t kTaskBytes = size_t{128} << 10;

int Threads() { return static_cast<int>(std::max(1u, std::thread::hardware_concurrency())); }

struct Buffers {
  explicit Buffers(size_t bytes)
      : in(static_cast<std::byte*>(::operator new (bytes, std::align_val_t{64}))),
        out(static_cast<std::byte*>(::operator new (bytes, std::align_val_t{64}))) {
    std::memset(in, 0x3f, bytes);
    std::memset(out, 0, bytes);
  }
  ~Buffers() {
    ::operator delete (in, std::align_val_t{64});
    ::operator delete (out, std::align_val_t{64});
  }
  std::byte* in;
  std::byte* out;
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
    kernel(buffers.in + begin, buffers.out + begin, count / 4);
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

void RegisterAll() {
  for (size_t bytes : {size_t{0}, size_t{512} << 10, size_t{4} << 20, size_t{64} << 20}) {
    const std::string size = bytes == 0 ? "empty" : std::to_string(bytes >> 10) + "KiB";
    benchmark::RegisterBenchmark(("pool/eltwise/" + size).c_str(), PoolBenchmark<false>, bytes)
        ->UseRealTime();
    benchmark::RegisterBenchmark(("pool/openmp/" + size).c_str(), PoolBenchmark<true>, bytes)
        ->UseRealTime();
  }
}

}  // namespace
}  // namespace eltwise

int main(int argc, char** argv) {
  eltwise::RegisterAll();
  benchmark::Initialize(&argc, argv);
  if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 1;
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return 0;
}
