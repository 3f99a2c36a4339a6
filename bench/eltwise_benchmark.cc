// eltwise benchmarks (Google Benchmark). Names:
//   kernel/<target>/<function>/<dtype>/<bytes>       one contiguous kernel of one SIMD target, one
//                                                    thread
//   kernel_gathered/<target>/<function>/<dtype>/stride<k>/<bytes>
//                                                    the same for a gathered kernel (input stride
//                                                    k elements)
//   transposed_kernel/<target>/round/<dtype>/<bytes> one target's transposed-tile kernel over a
//                                                    square matrix, tile by tile, one thread
//   op/<function>/<dtype>/<layout>/<bytes>           a compiled operator through Execute (all
//                                                    threads)
//   copy/memcpy/<bytes>, copy/memset/<bytes>         baselines on the calling thread
//   kernel/F16CRoundTripBound/RoundHalvesToNearestEven/float16/<bytes>
//                                                    F16C's widen, round and narrow alone (x86-64
//                                                    with AVX2 and F16C): what no F16C route of
//                                                    f16 Round beats on the CPU
//   access/<read|write>/<strip>B_strips/row<R>_pitch<P>/<bytes>
//                                                    reads or writes alone, one thread: a matrix
//                                                    of rows of R bytes P apart, strip by strip
//                                                    (one side of a transpose; <strip> = R: row
//                                                    by row)
// <bytes> is the output size; bytes/s counts input + output (output only for broadcast and fills).
// Select with --benchmark_filter, e.g. --benchmark_filter='op/.*/float32/contiguous/.*'.
// For ratios against a copy measured in the same run, use `eltwise bench`.
#include <benchmark/benchmark.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <memory>
#include <random>
#include <string>
#include <string_view>
#include <vector>

#include "bench/baselines.h"
#include "bench/buffers.h"
#include "bench/layouts.h"
#include "bench/sizes.h"
#include "core/function.h"
#include "cpu/kernel_dispatch.h"
#include "eltwise/eltwise.h"
#include "measure_support.h"

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#include <immintrin.h>
#define ELTWISE_BENCH_F16C_BOUND 1
#else
#define ELTWISE_BENCH_F16C_BOUND 0
#endif

namespace eltwise {
namespace {

// Aligned memory whose every page is written before timing: random bits that read as finite
// values in every type.
struct FilledBuffer : bench::AlignedBuffer {
  explicit FilledBuffer(size_t bytes) : AlignedBuffer(bytes) {
    std::mt19937_64 rng(1);
    for (size_t i = 0; i < bytes; i += 8) {
      const uint64_t r = rng() & 0xBFFFBFFFBFFFBFFFull;  // no exponent of all ones, any type
      std::memcpy(data() + i, &r, std::min<size_t>(8, bytes - i));
    }
  }
};

const std::vector<uint64_t>& Sizes() {
  static const std::vector<uint64_t> sizes = {uint64_t{1} << 10,   uint64_t{16} << 10,
                                              uint64_t{256} << 10, uint64_t{4} << 20,
                                              uint64_t{64} << 20,  uint64_t{256} << 20};
  return sizes;
}

void KernelBenchmark(benchmark::State& state, ContiguousKernel kernel, size_t esize,
                     uint64_t bytes) {
  FilledBuffer in(bytes), out(bytes + bench::kOutputSlack);
  const size_t n = bytes / esize;
  std::byte* dst = bench::OutputBeside(out, in.data());  // no 4K aliasing
  for (auto _ : state) {
    kernel(in.data(), dst, n);
    benchmark::ClobberMemory();
  }
  state.SetBytesProcessed(static_cast<int64_t>(state.iterations() * 2 * n * esize));
}

#if ELTWISE_BENCH_F16C_BOUND
// The instructions of f16 Round to nearest even through F16C and nothing else: 16 halves at a
// time widened straight from memory (the fastest form on Zen 3), rounded in f32 with the rounding
// in the instruction, narrowed and stored; no NaN lanes put back, whole vectors only (n a multiple
// of 16). Not exact for signaling NaNs, so not a kernel: the bound the F16C route's kernels
// approach, for the in-cache f16 Round figures.
__attribute__((target("avx2,f16c"))) void F16CRoundTripBound(const std::byte* in, std::byte* out,
                                                             size_t n) {
  const auto* src = reinterpret_cast<const __m128i*>(in);
  auto* dst = reinterpret_cast<__m128i*>(out);
  for (size_t i = 0; i + 16 <= n; i += 16, src += 2, dst += 2) {
    const __m256 lower = _mm256_cvtph_ps(_mm_loadu_si128(src));
    const __m256 upper = _mm256_cvtph_ps(_mm_loadu_si128(src + 1));
    constexpr int kNearest = _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC;
    _mm_storeu_si128(dst, _mm256_cvtps_ph(_mm256_round_ps(lower, kNearest), kNearest));
    _mm_storeu_si128(dst + 1, _mm256_cvtps_ph(_mm256_round_ps(upper, kNearest), kNearest));
  }
}
#endif

// A square matrix of `bytes` transposed by one target's tile kernel, tile by tile (edges of 128
// int8, 64 16/32-bit, 32 64-bit elements, as the CPU backend cuts them), on one thread.
void TransposedKernelBenchmark(benchmark::State& state, TransposedKernel kernel, size_t esize,
                               uint64_t bytes) {
  const auto side = static_cast<size_t>(std::sqrt(static_cast<double>(bytes / esize)));
  const size_t edge = esize == 1 ? 128 : esize == 8 ? 32 : 64;
  const auto pitch = static_cast<ptrdiff_t>(side * esize);
  FilledBuffer in(side * side * esize), out(side * side * esize);
  for (auto _ : state) {
    for (size_t a = 0; a < side; a += edge) {
      for (size_t b = 0; b < side; b += edge) {
        kernel(in.data() + static_cast<ptrdiff_t>(b) * pitch + a * esize, pitch,
               out.data() + static_cast<ptrdiff_t>(a) * pitch + b * esize, pitch,
               std::min(edge, side - a), std::min(edge, side - b));
      }
    }
    benchmark::ClobberMemory();
  }
  state.SetBytesProcessed(static_cast<int64_t>(state.iterations() * 2 * side * side * esize));
}

void GatheredKernelBenchmark(benchmark::State& state, GatheredKernel kernel, size_t esize,
                             size_t stride, uint64_t bytes) {
  FilledBuffer in(stride * bytes), out(bytes + bench::kOutputSlack);
  const size_t n = bytes / esize;
  std::byte* dst = bench::OutputBeside(out, in.data());  // no 4K aliasing
  for (auto _ : state) {
    kernel(in.data(), dst, n);
    benchmark::ClobberMemory();
  }
  state.SetBytesProcessed(static_cast<int64_t>(state.iterations() * (stride + 1) * n * esize));
}

void OpBenchmark(benchmark::State& state, Function f, DataType type, bench::Layout layout,
                 uint64_t bytes) {
  const bench::Shapes shapes = bench::MakeShapes(layout, type, bytes);
  Expected<Device> device = Device::Cpu();
  Expected<CompiledOperator> op =
      Compile(*device, DescribeFunction(f, shapes.input, shapes.output));
  if (!op.ok()) {
    state.SkipWithError(op.status().message().c_str());
    return;
  }
  FilledBuffer input(std::max(shapes.input_bytes, shapes.output_shift + shapes.output_bytes));
  std::unique_ptr<FilledBuffer> output;
  std::byte* out_data = input.data() + shapes.output_shift;
  if (!shapes.shares_buffer) {
    output = std::make_unique<FilledBuffer>(shapes.output_bytes);
    out_data = output->data();
  }
  for (auto _ : state) {
    const Status s =
        op->Execute({input.data(), shapes.input_bytes}, {out_data, shapes.output_bytes});
    if (!s.ok()) state.SkipWithError(s.message().c_str());
    benchmark::ClobberMemory();
  }
  const uint64_t payload = shapes.elements * ElementSize(type);
  const uint64_t moved = layout == bench::Layout::kBroadcast ? payload : 2 * payload;
  state.SetBytesProcessed(static_cast<int64_t>(state.iterations() * moved));
  state.counters["threads"] = device->threads();
}

void CopyBenchmark(benchmark::State& state, bench::Baseline baseline, uint64_t bytes) {
  FilledBuffer in(bytes), out(bytes);
  for (auto _ : state) {
    bench::RunBaseline(baseline, in.data(), out.data(), bytes);
    benchmark::ClobberMemory();
  }
  const uint64_t moved = baseline == bench::Baseline::kFill ? bytes : 2 * bytes;
  state.SetBytesProcessed(static_cast<int64_t>(state.iterations() * moved));
}

// Reads (or, with kWrite, writes) a matrix of `bytes`, rows of `row_bytes` `pitch` apart, column
// strip by column strip: `strip` bytes of every row, then the next strip (strip == row_bytes: row
// by row). One side of a transpose that takes each line once, without its shuffles and the other
// side: a bound on transposes from that memory level (bench/kernel_routes.py record-access).
template <bool kWrite>
void StripAccessBenchmark(benchmark::State& state, size_t row_bytes, size_t pitch, size_t strip,
                          uint64_t bytes) {
  const size_t rows = bytes / row_bytes;
  FilledBuffer matrix(rows * pitch);
  // 16-byte vectors (GCC and Clang; the width every target has in registers), four per 64-byte
  // line: read and XORed into four accumulators, or written from them.
  using Vec = uint64_t __attribute__((vector_size(16)));
  for (auto _ : state) {
    Vec acc0{1, 2}, acc1{3, 4}, acc2{5, 6}, acc3{7, 8};
    for (size_t column = 0; column < row_bytes; column += strip) {
      for (size_t r = 0; r < rows; ++r) {
        std::byte* piece = matrix.data() + r * pitch + column;
        for (size_t k = 0; k < strip; k += 4 * sizeof(Vec)) {
          Vec v[4];
          if constexpr (kWrite) {
            v[0] = acc0;
            v[1] = acc1;
            v[2] = acc2;
            v[3] = acc3;
            std::memcpy(piece + k, v, sizeof(v));
          } else {
            std::memcpy(v, piece + k, sizeof(v));
            acc0 ^= v[0];
            acc1 ^= v[1];
            acc2 ^= v[2];
            acc3 ^= v[3];
          }
        }
      }
    }
    Vec sink = (acc0 ^ acc1) ^ (acc2 ^ acc3);  // the accumulators themselves stay in registers
    benchmark::DoNotOptimize(sink);
    benchmark::ClobberMemory();
  }
  state.SetBytesProcessed(static_cast<int64_t>(state.iterations() * rows * row_bytes));
}

// The access/ cases of one matrix size: reads and writes, rows of 2048 and 4096 bytes, packed and
// 64 bytes further apart, in strips of 64, 256 and 1024 bytes and row by row.
void RegisterStripAccesses(uint64_t access_bytes) {
  for (const bool write : {false, true}) {
    for (size_t row_bytes : {size_t{2048}, size_t{4096}}) {
      for (size_t pad : {size_t{0}, size_t{64}}) {
        for (size_t strip : {size_t{64}, size_t{256}, size_t{1024}, row_bytes}) {
          const std::string name =
              std::string("access/") + (write ? "write/" : "read/") + std::to_string(strip) +
              "B_strips/row" + std::to_string(row_bytes) + "_pitch" +
              std::to_string(row_bytes + pad) + "/" + bench::SizeName(access_bytes);
          benchmark::RegisterBenchmark(
              name.c_str(), write ? StripAccessBenchmark<true> : StripAccessBenchmark<false>,
              row_bytes, row_bytes + pad, strip, access_bytes)
              ->UseRealTime();
        }
      }
    }
  }
}

void RegisterAll() {
  // Kernels of every target, in-cache sizes (compute-bound regime).
  for (const NamedKernelTable& table : AvailableKernelTables()) {
    for (int f = 0; f < kFunctionCount; ++f) {
      for (int t = 0; t < kDataTypeCount; ++t) {
        const auto function = static_cast<Function>(f);
        const auto type = static_cast<DataType>(t);
        for (uint64_t bytes : {uint64_t{4} << 10, uint64_t{64} << 10}) {
          const std::string name = "kernel/" + std::string(table.name) + "/" +
                                   std::string(Name(function)) + "/" + std::string(Name(type)) +
                                   "/" + bench::SizeName(bytes);
          benchmark::RegisterBenchmark(name.c_str(), KernelBenchmark,
                                       table.table->Contiguous(function, type), ElementSize(type),
                                       bytes);
        }
      }
    }
  }
#if ELTWISE_BENCH_F16C_BOUND
  // Highway's AVX2 target, whose table runs here only where the CPU has AVX2 and F16C.
  const auto& tables = AvailableKernelTables();
  if (std::any_of(tables.begin(), tables.end(),
                  [](const NamedKernelTable& t) { return t.name == "AVX2"; })) {
    for (uint64_t bytes : {uint64_t{4} << 10, uint64_t{64} << 10}) {
      const std::string name =
          "kernel/F16CRoundTripBound/RoundHalvesToNearestEven/float16/" + bench::SizeName(bytes);
      benchmark::RegisterBenchmark(name.c_str(), KernelBenchmark, &F16CRoundTripBound, size_t{2},
                                   bytes);
    }
  }
#endif
  // Transposed-tile kernels of every target, in cache (256 KiB) and out of it (64 MiB).
  for (const NamedKernelTable& table : AvailableKernelTables()) {
    for (DataType type :
         {DataType::kInt8, DataType::kFloat16, DataType::kFloat32, DataType::kFloat64}) {
      for (uint64_t bytes : {uint64_t{256} << 10, uint64_t{64} << 20}) {
        const std::string name = "transposed_kernel/" + std::string(table.name) + "/round/" +
                                 std::string(Name(type)) + "/" + bench::SizeName(bytes);
        benchmark::RegisterBenchmark(
            name.c_str(), TransposedKernelBenchmark,
            table.table->Transposed(Function::kRoundHalvesToNearestEven, type), ElementSize(type),
            bytes);
      }
    }
  }
  // Gathered kernels of every target, one size in L2, Sign and Round (a copy for integers).
  for (const NamedKernelTable& table : AvailableKernelTables()) {
    for (Function function : {Function::kSignNanZero, Function::kRoundHalvesToNearestEven}) {
      for (int t = 0; t < kDataTypeCount; ++t) {
        const auto type = static_cast<DataType>(t);
        for (size_t k = kMinGatherStride; k <= kMaxGatherStride; ++k) {
          const uint64_t bytes = uint64_t{64} << 10;
          const std::string name = "kernel_gathered/" + std::string(table.name) + "/" +
                                   std::string(Name(function)) + "/" + std::string(Name(type)) +
                                   "/stride" + std::to_string(k) + "/" + bench::SizeName(bytes);
          benchmark::RegisterBenchmark(name.c_str(), GatheredKernelBenchmark,
                                       table.table->Gathered(function, type, k), ElementSize(type),
                                       k, bytes);
        }
      }
    }
  }
  // The best table's kernels with ordinary and with non-temporal stores, one thread, out of cache:
  // the measurement behind the driver's streaming-store threshold.
  for (int f = 0; f < kFunctionCount; ++f) {
    for (DataType type : {DataType::kFloat32, DataType::kFloat16, DataType::kUInt8}) {
      const auto function = static_cast<Function>(f);
      for (uint64_t bytes : {uint64_t{4} << 20, uint64_t{64} << 20}) {
        const std::string suffix = std::string(Name(function)) + "/" + std::string(Name(type)) +
                                   "/" + bench::SizeName(bytes);
        benchmark::RegisterBenchmark(("kernel_store/" + suffix).c_str(), KernelBenchmark,
                                     BestKernelTable().Contiguous(function, type),
                                     ElementSize(type), bytes)
            ->UseRealTime();
        benchmark::RegisterBenchmark(("kernel_stream/" + suffix).c_str(), KernelBenchmark,
                                     BestKernelTable().ContiguousStream(function, type),
                                     ElementSize(type), bytes)
            ->UseRealTime();
      }
    }
  }
  for (int f = 0; f < kFunctionCount; ++f) {
    const auto function = static_cast<Function>(f);
    if (function == Function::kCopy) continue;
    for (int t = 0; t < kDataTypeCount; ++t) {
      const auto type = static_cast<DataType>(t);
      for (const std::string_view layout : bench::kDefaultLayouts) {
        for (uint64_t bytes : Sizes()) {
          const std::string name = "op/" + std::string(Name(function)) + "/" +
                                   std::string(Name(type)) + "/" + std::string(layout) + "/" +
                                   bench::SizeName(bytes);
          benchmark::RegisterBenchmark(name.c_str(), OpBenchmark, function, type,
                                       *bench::ParseLayout(layout), bytes)
              ->UseRealTime();
        }
      }
    }
  }
  // Strip reads and writes of the row sizes of the power-of-two transposes (int8 2048², float32
  // 1024²) and of the same rows 64 bytes further apart, at 4 MiB (in the last level of a 32 MiB
  // L3, out of L2: where transposes fall furthest behind a copy) and at 128 MiB (four times it),
  // with a memcpy of each size beside them.
  for (const uint64_t access_bytes : {uint64_t{4} << 20, uint64_t{128} << 20}) {
    RegisterStripAccesses(access_bytes);
  }
  benchmark::RegisterBenchmark("copy/memcpy/128MiB", CopyBenchmark, bench::Baseline::kMemcpy,
                               uint64_t{128} << 20)
      ->UseRealTime();
  for (uint64_t bytes : Sizes()) {
    benchmark::RegisterBenchmark(("copy/memcpy/" + bench::SizeName(bytes)).c_str(), CopyBenchmark,
                                 bench::Baseline::kMemcpy, bytes)
        ->UseRealTime();
    benchmark::RegisterBenchmark(("copy/memset/" + bench::SizeName(bytes)).c_str(), CopyBenchmark,
                                 bench::Baseline::kFill, bytes)
        ->UseRealTime();
  }
}

}  // namespace
}  // namespace eltwise

// Its own main rather than benchmark_main: the benchmark names list the SIMD targets, whose kernel
// tables register themselves from static initializers of the library; registering from a static
// initializer here could run before them and miss every SIMD target.
int main(int argc, char** argv) {
  eltwise::RegisterAll();
  benchmark::Initialize(&argc, argv);
  if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 1;
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return 0;
}
