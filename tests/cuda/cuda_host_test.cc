// CUDA backend checks that need no GPU: the fast division, kernel selection, the kernel table,
// and the kernels' per-thread code run on the host over every (block, thread) for every function,
// type and layout, compared byte for byte with the CPU reference (including bytes the kernels
// must not touch), with every memory access checked for bounds and alignment.
#include <gtest/gtest.h>

#include <array>
#include <cstring>
#include <random>
#include <set>
#include <utility>

#include "core/device_state.h"
#include "core/plan.h"
#include "cpu/cpu_backend.h"
#include "cpu/reference_kernels.h"
#include "cuda/cuda_backend.h"
#include "cuda/fast_divmod.h"
#include "cuda/kernel_bodies.h"
#include "cuda/kernel_types.h"
#include "cuda/launch.h"
#include "cuda/launch_table.h"
#include "eltwise/eltwise.h"
#include "layout_cases.h"
#include "test_values.h"

namespace eltwise::testing {
namespace {

using cuda::FastDivmod;
using cuda::KernelKind;
using cuda::Launch;
using cuda::PlanLaunch;

// ---------------------------------------------------------------------------------------------
// Fast division: the magic numbers against the hardware's division.

template <class U>
void ExpectDivides(const FastDivmod<U>& f, U n) {
  U r;
  const U q = f.Divmod(n, &r);
  ASSERT_EQ(q, n / f.divisor) << n << " / " << f.divisor;
  ASSERT_EQ(r, n % f.divisor) << n << " % " << f.divisor;
}

template <class U>
std::vector<U> InterestingDivisors(std::mt19937_64& rng) {
  constexpr U kLimit = U{1} << (8 * sizeof(U) - 1);  // divisors and dividends stay below
  std::vector<U> d;
  for (U k = 1; k <= 3000; ++k) d.push_back(k);
  for (int s = 1; s < 8 * static_cast<int>(sizeof(U)) - 1; ++s) {
    for (U delta : {U{0}, U{1}, U{2}}) {
      const U p = U{1} << s;
      if (p - delta > 0) d.push_back(p - delta);
      if (p + delta < kLimit) d.push_back(p + delta);
    }
  }
  d.push_back(kLimit - 1);
  for (int i = 0; i < 3000; ++i) d.push_back(static_cast<U>(rng() % (kLimit - 1)) + 1);
  for (int i = 0; i < 1000; ++i) {  // small and mid-sized, like real dimension sizes
    d.push_back(static_cast<U>(rng() % (U{1} << (rng() % (8 * sizeof(U) - 1)))) + 1);
  }
  return d;
}

template <class U>
void CheckFastDivmod() {
  constexpr U kLimit = U{1} << (8 * sizeof(U) - 1);
  std::mt19937_64 rng(sizeof(U));
  for (U d : InterestingDivisors<U>(rng)) {
    const FastDivmod<U> f(d);
    std::vector<U> n = {0, 1, 2, kLimit - 1, kLimit - 2, kLimit - d};
    for (U k : {U{1}, U{2}, U{3}, U{7}, kLimit / d - 1, kLimit / d, (kLimit - 1) / d}) {
      if (k == 0 || k > (kLimit - 1) / d) continue;
      for (U delta : {U{0}, U{1}}) {
        n.push_back(k * d - delta);
        if (k * d + delta < kLimit) n.push_back(k * d + delta);
      }
    }
    for (int i = 0; i < 64; ++i) n.push_back(static_cast<U>(rng() % kLimit));
    for (int i = 0; i < 16; ++i) {
      n.push_back(static_cast<U>(rng() % (U{1} << (rng() % (8 * sizeof(U) - 2) + 1))));
    }
    for (U x : n) {
      ASSERT_NO_FATAL_FAILURE(ExpectDivides(f, static_cast<U>(x % kLimit)));
    }
  }
}

TEST(FastDivmod, Matches32BitDivision) { CheckFastDivmod<uint32_t>(); }
TEST(FastDivmod, Matches64BitDivision) { CheckFastDivmod<uint64_t>(); }

TEST(FastDivmod, ExhaustiveSmallDividends) {
  for (uint32_t d = 1; d <= 70; ++d) {
    const FastDivmod<uint32_t> f32(d);
    const FastDivmod<uint64_t> f64(d);
    for (uint32_t n = 0; n < (1u << 18); ++n) {
      ASSERT_EQ(f32.Div(n), n / d) << n << " / " << d;
      ASSERT_EQ(f64.Div(n), n / d) << n << " / " << d;
    }
  }
}

// ---------------------------------------------------------------------------------------------
// Kernel selection.

Plan PlanFor(DataType type, std::vector<uint64_t> sizes,
             std::optional<std::vector<int64_t>> in_strides = {},
             std::optional<std::vector<int64_t>> out_strides = {}) {
  const TensorDesc in =
      in_strides ? TensorDesc::Strided(type, sizes, *in_strides) : TensorDesc::Packed(type, sizes);
  const TensorDesc out = out_strides ? TensorDesc::Strided(type, sizes, *out_strides)
                                     : TensorDesc::Packed(type, sizes);
  return MakePlan(Function::kSignNanZero, in, out, 1, 1);
}

Launch MustPlan(const Plan& plan, uintptr_t in, uintptr_t out) {
  Expected<Launch> launch = PlanLaunch(plan, in, out);
  EXPECT_TRUE(launch.ok()) << launch.status().ToString();
  return launch.ok() ? *launch : Launch{};
}

TEST(PlanLaunch, ContiguousSamePhaseUsesVectorLoads) {
  const Launch l = MustPlan(PlanFor(DataType::kFloat32, {1000}), 0x10000, 0x20000);
  EXPECT_EQ(l.kind, KernelKind::kContiguous);
  EXPECT_EQ(l.contiguous.head, 0u);
  EXPECT_EQ(l.contiguous.vectors, 250u);
  EXPECT_EQ(l.contiguous.tail, 0u);
  EXPECT_EQ(l.blocks, 1u);
  EXPECT_EQ(l.grid, 1u);
}

TEST(PlanLaunch, ContiguousHeadAndTail) {
  Launch l = MustPlan(PlanFor(DataType::kFloat32, {1000}), 0x10004, 0x20004);
  EXPECT_EQ(l.kind, KernelKind::kContiguous);
  EXPECT_EQ(l.contiguous.head, 3u);
  EXPECT_EQ(l.contiguous.vectors, 249u);
  EXPECT_EQ(l.contiguous.tail, 1u);

  l = MustPlan(PlanFor(DataType::kUInt8, {100}), 0x10005, 0x20005);
  EXPECT_EQ(l.contiguous.head, 11u);
  EXPECT_EQ(l.contiguous.vectors, 5u);
  EXPECT_EQ(l.contiguous.tail, 9u);

  l = MustPlan(PlanFor(DataType::kFloat64, {1}), 0x10008, 0x20008);
  EXPECT_EQ(l.contiguous.head, 1u);  // shorter than the head
  EXPECT_EQ(l.contiguous.vectors, 0u);
  EXPECT_EQ(l.contiguous.tail, 0u);
}

TEST(PlanLaunch, ContiguousDifferentPhaseLoadsElements) {
  const Launch l = MustPlan(PlanFor(DataType::kFloat16, {1000}), 0x10000, 0x20006);
  EXPECT_EQ(l.kind, KernelKind::kContiguousUnalignedInput);
  EXPECT_EQ(l.contiguous.head, 5u);
  EXPECT_EQ(l.contiguous.head + 8 * l.contiguous.vectors + l.contiguous.tail, 1000u);
}

TEST(PlanLaunch, MisalignedElementsUseByteAccess) {
  const Launch l = MustPlan(PlanFor(DataType::kInt32, {1000}), 0x10001, 0x20000);
  EXPECT_EQ(l.kind, KernelKind::kStridedUnaligned);
  EXPECT_EQ(l.strided64.rank, 1);
  EXPECT_EQ(l.strided64.count, 1000u);
  // A single byte is always aligned.
  EXPECT_EQ(MustPlan(PlanFor(DataType::kInt8, {1000}), 0x10001, 0x20000).kind,
            KernelKind::kContiguousUnalignedInput);
}

TEST(PlanLaunch, ContiguousGridCoversEveryVector) {
  const Launch l = MustPlan(PlanFor(DataType::kFloat32, {uint64_t{1} << 30}), 0x10000, 0x20000);
  EXPECT_EQ(l.contiguous.vectors, uint64_t{1} << 28);
  EXPECT_EQ(l.blocks, (uint64_t{1} << 28) / (cuda::kBlockThreads * cuda::kVectorsPerThread));
}

TEST(PlanLaunch, StridedIndexWidth) {
  // 2^31 - 1 elements fit 32-bit indexing; 2^31 do not.
  const uint64_t max32 = (uint64_t{1} << 31) - 1;
  Launch l = MustPlan(PlanFor(DataType::kInt8, {max32}, {}, std::vector<int64_t>{1}), 0, 0);
  EXPECT_EQ(l.kind, KernelKind::kContiguous);  // rank-1 packed is contiguous
  l = MustPlan(PlanFor(DataType::kInt8, {3, max32 / 3}, std::vector<int64_t>{1, 3}), 0,
               0x100000000);
  EXPECT_EQ(l.kind, KernelKind::kStrided32);
  l = MustPlan(PlanFor(DataType::kInt8, {2, uint64_t{1} << 30}, std::vector<int64_t>{1, 2}), 0,
               0x100000000);
  EXPECT_EQ(l.kind, KernelKind::kStrided64);  // 2^31 elements
  EXPECT_EQ(l.strided64.count, uint64_t{1} << 31);
  // Few elements, but input offsets beyond 2^31.
  l = MustPlan(PlanFor(DataType::kInt8, {3, 1000}, std::vector<int64_t>{int64_t{1} << 30, 1}), 0,
               0);
  EXPECT_EQ(l.kind, KernelKind::kStrided64);
  l = MustPlan(PlanFor(DataType::kInt8, {3, 1000}, std::vector<int64_t>{-(int64_t{1} << 30), 1}), 0,
               0);
  EXPECT_EQ(l.kind, KernelKind::kStrided64);
  l = MustPlan(PlanFor(DataType::kInt8, {3, 1000}, std::vector<int64_t>{-(int64_t{1} << 20), 1}), 0,
               0);
  EXPECT_EQ(l.kind, KernelKind::kStrided32);
  // Dimensions are stored innermost first with their magic numbers.
  EXPECT_EQ(l.strided32.rank, 2);
  EXPECT_EQ(l.strided32.sizes[0].divisor, 1000u);
  EXPECT_EQ(l.strided32.sizes[1].divisor, 3u);
  EXPECT_EQ(l.strided32.input_strides[0], 1);
}

TEST(PlanLaunch, TransposeUsesTiles) {
  Launch l = MustPlan(PlanFor(DataType::kFloat32, {64, 70}, std::vector<int64_t>{1, 64}), 0, 0);
  ASSERT_EQ(l.kind, KernelKind::kTiled);
  EXPECT_EQ(l.tiled.size_a, 64u);
  EXPECT_EQ(l.tiled.size_o, 70u);
  EXPECT_EQ(l.blocks, 2u * 3u);
  EXPECT_EQ(l.tiled.outer_rank, 0);
  // Batched: the batch dimension becomes an outer dimension.
  l = MustPlan(PlanFor(DataType::kFloat32, {5, 64, 70}, std::vector<int64_t>{64 * 70, 1, 64}), 0,
               0);
  ASSERT_EQ(l.kind, KernelKind::kTiled);
  EXPECT_EQ(l.tiled.outer_rank, 1);
  EXPECT_EQ(l.blocks, 5u * 2u * 3u);
  // Too narrow to tile, or broadcast along the output's fast dimension: the strided kernel.
  EXPECT_EQ(MustPlan(PlanFor(DataType::kFloat32, {4, 1000}, std::vector<int64_t>{1, 4}), 0, 0).kind,
            KernelKind::kStrided32);
  EXPECT_EQ(MustPlan(PlanFor(DataType::kFloat32, {64, 64}, std::vector<int64_t>{1, 0}), 0, 0).kind,
            KernelKind::kStrided32);
}

TEST(PlanLaunch, BroadcastUsesStridedKernel) {
  const Launch l =
      MustPlan(PlanFor(DataType::kFloat32, {7, 9}, std::vector<int64_t>{0, 0}), 0x100, 0x200);
  EXPECT_EQ(l.kind, KernelKind::kStrided32);
  EXPECT_EQ(l.strided32.input_strides[0], 0);
}

TEST(PlanLaunch, GridIsCappedAndKernelsGridStride) {
  const Launch l = MustPlan(PlanFor(DataType::kInt8, {uint64_t{1} << 50}, std::vector<int64_t>{0}),
                            0x100, 0x200);
  EXPECT_EQ(l.kind, KernelKind::kStrided64);
  EXPECT_EQ(l.blocks, (uint64_t{1} << 50) / (cuda::kBlockThreads * cuda::kElementsPerThread));
  EXPECT_EQ(l.grid, cuda::kMaxGridBlocks);
}

TEST(PlanLaunch, MoreThan63BitsIsUnsupported) {
  Plan plan;
  plan.type = DataType::kInt8;
  plan.element_size = 1;
  plan.layout = Layout::kGathered;
  plan.rank = 1;
  plan.sizes[0] = plan.element_count = (uint64_t{1} << 63) + 5;
  plan.input_strides[0] = 0;
  plan.output_strides[0] = 1;
  const Expected<Launch> l = PlanLaunch(plan, 0x100, 0x200);
  ASSERT_FALSE(l.ok());
  EXPECT_EQ(l.status().code(), StatusCode::kUnsupported);
}

// ---------------------------------------------------------------------------------------------
// The kernel table.

TEST(CudaKernelTable, EveryFunctionAndTypeHasExactlyOneLauncher) {
  cuda::LaunchTable parts[3];
  cuda::FillFloatKernels(parts[0]);
  cuda::FillHalfKernels(parts[1]);
  cuda::FillIntegerKernels(parts[2]);
  for (int f = 0; f < kFunctionCount; ++f) {
    for (int t = 0; t < kDataTypeCount; ++t) {
      int filled = 0;
      for (const auto& part : parts) filled += part.entries[f][t] != nullptr;
      EXPECT_EQ(filled, 1) << Name(static_cast<Function>(f)) << " "
                           << Name(static_cast<DataType>(t));
    }
  }
}

// ---------------------------------------------------------------------------------------------
// Host emulation of the kernels.

template <class F, class T>
void Emulate(const Launch& l, const std::byte* in, std::byte* out) {
  using cuda::kBlockThreads;
  using cuda::kTile;
  using cuda::kTileRows;
  switch (l.kind) {
    case KernelKind::kContiguous:
    case KernelKind::kContiguousUnalignedInput:
      for (uint64_t b = 0; b < l.blocks; ++b) {
        for (unsigned t = 0; t < kBlockThreads; ++t) {
          if (l.kind == KernelKind::kContiguous) {
            cuda::ContiguousThread<F, T, true>(l.contiguous, b, t, in, out);
          } else {
            cuda::ContiguousThread<F, T, false>(l.contiguous, b, t, in, out);
          }
        }
      }
      return;
    case KernelKind::kStrided32:
      for (uint64_t b = 0; b < l.blocks; ++b) {
        for (unsigned t = 0; t < kBlockThreads; ++t) {
          cuda::StridedThread<F, T, uint32_t, true>(l.strided32, static_cast<uint32_t>(b), t, in,
                                                    out);
        }
      }
      return;
    case KernelKind::kStrided64:
    case KernelKind::kStridedUnaligned:
      for (uint64_t b = 0; b < l.blocks; ++b) {
        for (unsigned t = 0; t < kBlockThreads; ++t) {
          if (l.kind == KernelKind::kStrided64) {
            cuda::StridedThread<F, T, uint64_t, true>(l.strided64, b, t, in, out);
          } else {
            cuda::StridedThread<F, T, uint64_t, false>(l.strided64, b, t, in, out);
          }
        }
      }
      return;
    case KernelKind::kTiled:
      for (uint64_t b = 0; b < l.blocks; ++b) {
        T tile[kTile][kTile + 1];
        const cuda::TileOrigin origin = cuda::TiledOrigin(l.tiled, b);
        for (unsigned ty = 0; ty < kTileRows; ++ty) {
          for (unsigned tx = 0; tx < kTile; ++tx) {
            cuda::TiledLoad<F, T>(l.tiled, origin, tx, ty, in, tile);
          }
        }
        for (unsigned ty = 0; ty < kTileRows; ++ty) {
          for (unsigned tx = 0; tx < kTile; ++tx)
            cuda::TiledStore<T>(l.tiled, origin, tx, ty, tile, out);
        }
      }
      return;
  }
}

using EmulateFunction = void (*)(const Launch&, const std::byte*, std::byte*);

// The kernel the GPU table runs for (function, type): the canonical (shared) instantiation.
template <size_t kIndex>
void EmulateEntry(const Launch& l, const std::byte* in, std::byte* out) {
  using F = typename cuda::FunctorOf<static_cast<Function>(kIndex / kDataTypeCount)>::type;
  using T = typename cuda::StorageOf<static_cast<DataType>(kIndex % kDataTypeCount)>::type;
  using C = cuda::Canonical<F, T>;
  Emulate<typename C::Functor, typename C::Type>(l, in, out);
}

EmulateFunction EmulatorFor(Function f, DataType t) {
  static const auto table = []<size_t... kIndex>(std::index_sequence<kIndex...>) {
    return std::array<EmulateFunction, sizeof...(kIndex)>{&EmulateEntry<kIndex>...};
  }
  (std::make_index_sequence<size_t{kFunctionCount} * kDataTypeCount>{});
  return table[static_cast<size_t>(f) * kDataTypeCount + static_cast<size_t>(t)];
}

// Runs `plan` on the image either with the CPU reference table or with the emulated CUDA
// kernels, reading a copy of the input when the buffers overlap partially (as both backends do).
enum class Runner { kCpuReference, kEmulatedCuda };

void RunOnImage(Runner runner, const Plan& plan, AlignedBuffer& image, uint64_t input_at,
                uint64_t output_at, cuda::LaunchOptions options, cuda::AccessWindow* window,
                std::set<KernelKind>* kinds) {
  if (plan.layout == Layout::kEmpty) return;
  const std::byte* in = image.data() + input_at;
  std::byte* out = image.data() + output_at;
  AlignedBuffer copy(plan.input_span);
  if (Classify(plan, in, out) == Aliasing::kPartial) {
    std::memcpy(copy.data(), in, plan.input_span);
    in = copy.data();
  }
  if (runner == Runner::kCpuReference) {
    RunPlanWithTable(ReferenceKernels(), plan, in, out);
    return;
  }
  const Expected<Launch> launch =
      PlanLaunch(plan, reinterpret_cast<uintptr_t>(in + plan.input_offset),
                 reinterpret_cast<uintptr_t>(out + plan.output_offset), options);
  ASSERT_TRUE(launch.ok()) << launch.status().ToString();
  kinds->insert(launch->kind);
  *window = {reinterpret_cast<uintptr_t>(in),
             reinterpret_cast<uintptr_t>(in) + plan.input_span,
             reinterpret_cast<uintptr_t>(out),
             reinterpret_cast<uintptr_t>(out) + plan.output_span,
             0,
             0};
  cuda::host_access_window = window;
  EmulatorFor(plan.function, plan.type)(*launch, in + plan.input_offset, out + plan.output_offset);
  cuda::host_access_window = nullptr;
}

struct EmulationCase {
  Function function;
  DataType type;
};

void PrintTo(const EmulationCase& c, std::ostream* os) {
  *os << Name(c.function) << " " << Name(c.type);
}

class EmulatedCudaKernels : public ::testing::TestWithParam<EmulationCase> {};

TEST_P(EmulatedCudaKernels, EveryLayoutMatchesCpuReference) {
  const auto [function, type] = GetParam();
  const std::vector<std::byte> values = TestInputs(type, 2048);
  const uint64_t n = values.size() / ElementSize(type);
  const Device cpu = *Device::Cpu(CpuOptions{FeatureLevel::kExtended, 1});
  std::set<KernelKind> kinds;
  for (const LayoutCase& layout : LayoutCases(type, n)) {
    SCOPED_TRACE(layout.name);
    const Image image = MakeImage(layout, type, values);
    Expected<CompiledOperator> compiled = Compile(cpu, SignDesc{image.input, image.output});
    ASSERT_TRUE(compiled.ok()) << compiled.status().ToString();
    Plan plan = compiled->state().plan;
    plan.function = function;  // every table entry, including those only reached internally

    AlignedBuffer want(image.bytes.size());
    std::memcpy(want.data(), image.bytes.data(), image.bytes.size());
    RunOnImage(Runner::kCpuReference, plan, want, image.input_at, image.output_at, {}, nullptr,
               nullptr);
    // The kernel the GPU would choose, and the strided kernels in its place (64-bit indexing
    // is otherwise only chosen for tensors too large to emulate).
    for (const cuda::LaunchOptions options :
         {cuda::LaunchOptions{true, true}, cuda::LaunchOptions{true, false},
          cuda::LaunchOptions{false, false}}) {
      SCOPED_TRACE(std::string("32-bit indexing ") + (options.allow_32bit_indexing ? "on" : "off") +
                   ", tiles " + (options.allow_tiled ? "on" : "off"));
      AlignedBuffer got(image.bytes.size());
      std::memcpy(got.data(), image.bytes.data(), image.bytes.size());
      cuda::AccessWindow window;
      RunOnImage(Runner::kEmulatedCuda, plan, got, image.input_at, image.output_at, options,
                 &window, &kinds);
      EXPECT_EQ(window.out_of_bounds, 0u);
      EXPECT_EQ(window.misaligned, 0u);
      const size_t first_difference = [&] {
        for (size_t i = 0; i < image.bytes.size(); ++i) {
          if (want.data()[i] != got.data()[i]) return i;
        }
        return image.bytes.size();
      }();
      EXPECT_EQ(first_difference, image.bytes.size())
          << "images differ first at byte " << first_difference << " (input at " << image.input_at
          << ", output at " << image.output_at << ")";
    }
  }
  // Every kernel (bytes are never misaligned, so 1-byte types have no kStridedUnaligned).
  EXPECT_EQ(kinds.size(), ElementSize(type) == 1 ? 5u : 6u);
}

std::vector<EmulationCase> AllEmulationCases() {
  std::vector<EmulationCase> cases;
  for (int f = 0; f < kFunctionCount; ++f) {
    for (int t = 0; t < kDataTypeCount; ++t) {
      cases.push_back({static_cast<Function>(f), static_cast<DataType>(t)});
    }
  }
  return cases;
}

INSTANTIATE_TEST_SUITE_P(AllFunctionsTypes, EmulatedCudaKernels,
                         ::testing::ValuesIn(AllEmulationCases()), [](const auto& info) {
                           return std::string(Name(info.param.function)) + "_" +
                                  std::string(Name(info.param.type));
                         });

// ---------------------------------------------------------------------------------------------
// The device without a GPU.

TEST(CudaDevice, BackendIsBuiltAndReported) {
  EXPECT_TRUE(CudaBackendBuilt());
  EXPECT_TRUE(GetSystemInfo().cuda_backend_built);
}

TEST(CudaDevice, WithoutGpuIsUnsupportedNotACrash) {
  if (!CudaDeviceNames().empty()) GTEST_SKIP() << "a CUDA GPU is present";
  const Expected<Device> device = Device::Cuda();
  ASSERT_FALSE(device.ok());
  EXPECT_EQ(device.status().code(), StatusCode::kUnsupported) << device.status().ToString();
  EXPECT_NE(device.status().message().find("CUDA"), std::string::npos) << device.status().message();
  EXPECT_TRUE(GetSystemInfo().cuda_devices.empty());
  // The CPU device is unaffected.
  EXPECT_TRUE(Device::Cpu().ok());
}

}  // namespace
}  // namespace eltwise::testing
