// CPU backend layouts, threads and kernels, bit for bit against the scalar reference:
//  * every kernel table (each SIMD target) under every MXCSR/FPCR rounding mode and with
//    subnormals flushed (FTZ/DAZ, FZ), including the non-temporal-store kernels and guard bytes
//    around the output;
//  * the public API (Compile/Execute) on transposed, broadcast, padded-row, negative-stride,
//    in-place and partially overlapping tensors, with 1, 2 and 3 threads and sizes around the
//    parallel grain, checking that bytes no output element addresses are never written;
//  * one compiled operator executed from several threads at once.
// Expected outputs come from walking the original descriptors element by element with the
// reference table, independently of the planner and the CPU driver.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <map>
#include <memory>
#include <numeric>
#include <random>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#if defined(__unix__) || defined(__APPLE__)
#include <sys/mman.h>
#include <unistd.h>
#endif

#include "core/device_state.h"
#include "core/function.h"
#include "core/op_registry.h"
#include "core/plan.h"
#include "cpu/cpu_backend.h"
#include "cpu/cpu_caches.h"
#include "cpu/kernel_dispatch.h"
#include "cpu/overlap/scheme.h"
#include "cpu/reference_kernels.h"
#include "eltwise/eltwise.h"
#include "fp_control.h"
#include "ref/compare.h"
#include "test_values.h"

namespace eltwise::testing {
namespace {

constexpr std::byte kSentinel{0xCD};

std::vector<std::byte> RandomBytes(size_t n, uint64_t seed) {
  std::vector<std::byte> bytes(n);
  uint64_t state = seed;
  for (size_t i = 0; i < n; i += 8) {  // splitmix64
    uint64_t z = (state += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    z ^= z >> 31;
    std::memcpy(bytes.data() + i, &z, std::min<size_t>(8, n - i));
  }
  return bytes;
}

// Element inputs that exercise every branch: the exhaustive/special set of test_values, repeated
// to `n` elements and mixed with random bits.
std::vector<std::byte> MixedInputs(DataType type, size_t n, uint64_t seed) {
  const size_t esize = ElementSize(type);
  const std::vector<std::byte> special = TestInputs(type, 4096);
  std::vector<std::byte> out = RandomBytes(n * esize, seed);
  for (size_t i = 0; i < n; i += 2) {
    const size_t k = (i * 7919) % (special.size() / esize);
    std::memcpy(out.data() + i * esize, special.data() + k * esize, esize);
  }
  return out;
}

bool SameBytes(const std::byte* a, const std::byte* b, size_t n, std::string* where) {
  for (size_t i = 0; i < n; ++i) {
    if (a[i] != b[i]) {
      *where = "byte " + std::to_string(i) + ": want " + std::to_string(static_cast<int>(a[i])) +
               " got " + std::to_string(static_cast<int>(b[i]));
      return false;
    }
  }
  return true;
}

std::vector<Function> AllFunctions() {
  std::vector<Function> fs;
  for (int f = 0; f < kFunctionCount; ++f) fs.push_back(static_cast<Function>(f));
  return fs;
}
std::vector<DataType> AllTypes() {
  std::vector<DataType> ts;
  for (int t = 0; t < kDataTypeCount; ++t) ts.push_back(static_cast<DataType>(t));
  return ts;
}
bool IsFloat(DataType t) { return IsFloatingPoint(t); }

// ---- kernel tables -----------------------------------------------------------------------------

// Runs `kernel` on n elements at an output offset inside guard bytes; compares with the reference.
void CheckKernel(const std::string& name, ContiguousKernel kernel, Function f, DataType type,
                 const std::vector<std::byte>& input, size_t n, size_t out_shift, bool in_place) {
  const size_t esize = ElementSize(type);
  std::vector<std::byte> want(n * esize);
  ReferenceKernels().Contiguous(f, type)(input.data(), want.data(), n);
  constexpr size_t kGuard = 64;
  std::vector<std::byte> buffer(n * esize + 2 * kGuard + out_shift, kSentinel);
  std::byte* out = buffer.data() + kGuard + out_shift;
  if (in_place) {
    std::memcpy(out, input.data(), n * esize);
    kernel(out, out, n);
  } else {
    kernel(input.data(), out, n);
  }
  for (size_t i = 0; i < kGuard + out_shift; ++i) {
    ASSERT_EQ(buffer[i], kSentinel) << name << ": wrote before the output";
  }
  for (size_t i = kGuard + out_shift + n * esize; i < buffer.size(); ++i) {
    ASSERT_EQ(buffer[i], kSentinel) << name << ": wrote past the output";
  }
  for (size_t i = 0; i < n; ++i) {
    if (!SameResult(type, want.data() + i * esize, out + i * esize)) {
      ADD_FAILURE() << name << " " << Name(f) << " " << Name(type) << " n=" << n << " element " << i
                    << (in_place ? " (in place)" : "");
      return;
    }
  }
}

TEST(CpuKernelTables, ContiguousAndStreamingMatchReferenceAtEveryLengthAndOffset) {
  for (const NamedKernelTable& table : AvailableKernelTables()) {
    for (Function f : AllFunctions()) {
      for (DataType type : AllTypes()) {
        const std::vector<std::byte> input = MixedInputs(type, 1200, 7);
        const std::string name = std::string(table.name);
        for (size_t n : {size_t{0}, size_t{1}, size_t{3}, size_t{15}, size_t{16}, size_t{17},
                         size_t{31}, size_t{33}, size_t{63}, size_t{64}, size_t{65}, size_t{127},
                         size_t{129}, size_t{255}, size_t{257}, size_t{1023}, size_t{1200}}) {
          for (size_t shift : {size_t{0}, size_t{1}, ElementSize(type), 3 * ElementSize(type)}) {
            CheckKernel(name, table.table->Contiguous(f, type), f, type, input, n, shift, false);
            CheckKernel(name + " stream", table.table->ContiguousStream(f, type), f, type, input, n,
                        shift, false);
          }
          CheckKernel(name, table.table->Contiguous(f, type), f, type, input, n, 0, true);
          CheckKernel(name + " stream", table.table->ContiguousStream(f, type), f, type, input, n,
                      0, true);
        }
      }
    }
  }
}

// The streamed copy kernels (Round on integers past the last level) take memmove from 16 MiB, a
// whole call on one thread, and stream below it: runs on either side of that limit, out of place
// at an odd offset, each byte checked against the input.
TEST(CpuKernelTables, StreamedCopyKernelsAroundTheMemmoveLimit) {
  const size_t limit = size_t{16} << 20;
  std::vector<std::byte> input(limit + 64), output(limit + 64);
  for (size_t i = 0; i < input.size(); ++i) input[i] = static_cast<std::byte>((i * 131) >> 3);
  for (const NamedKernelTable& table : AvailableKernelTables()) {
    const ContiguousKernel kernel =
        table.table->ContiguousStream(Function::kRoundHalvesToNearestEven, DataType::kUInt8);
    for (size_t n : {limit - 65, limit}) {
      std::fill(output.begin(), output.end(), std::byte{0x5a});
      kernel(input.data() + 1, output.data() + 3, n);
      EXPECT_EQ(std::memcmp(output.data() + 3, input.data() + 1, n), 0) << table.name << " n=" << n;
      EXPECT_EQ(output[2], std::byte{0x5a}) << table.name;
      EXPECT_EQ(output[3 + n], std::byte{0x5a}) << table.name << " n=" << n;
    }
  }
}

// The copy kernels (Round on integers) of every table switch from a vector loop to memmove at
// 32 KiB: lengths around that limit, at every element size, out of place at odd offsets and in
// place. Partial overlaps of copies are covered through the API (InPlaceAndPartialOverlap).
TEST(CpuKernelTables, CopyKernelsAroundTheVectorLoopLimit) {
  for (const NamedKernelTable& table : AvailableKernelTables()) {
    for (DataType type :
         {DataType::kUInt8, DataType::kInt16, DataType::kUInt32, DataType::kInt64}) {
      const size_t esize = ElementSize(type);
      const size_t limit = (size_t{32} << 10) / esize;
      const std::vector<std::byte> input = MixedInputs(type, limit + 80, 3);
      const ContiguousKernel kernel =
          table.table->Contiguous(Function::kRoundHalvesToNearestEven, type);
      for (size_t n : {limit - 65, limit - 1, limit, limit + 1, limit + 79}) {
        for (size_t shift : {size_t{0}, size_t{1}, esize + 3}) {
          CheckKernel(std::string(table.name), kernel, Function::kRoundHalvesToNearestEven, type,
                      input, n, shift, false);
        }
        CheckKernel(std::string(table.name), kernel, Function::kRoundHalvesToNearestEven, type,
                    input, n, 0, true);
      }
    }
  }
}

// The broadcast fill of every table: every start address phase within a cache line, lengths
// around the vector widths, every element size, guard bytes on both sides.
TEST(CpuKernelTables, PatternFillAtEveryAlignmentAndLength) {
  const std::byte value[8] = {std::byte{0x81}, std::byte{0x02}, std::byte{0xC3}, std::byte{0x04},
                              std::byte{0x95}, std::byte{0x06}, std::byte{0xE7}, std::byte{0x08}};
  for (const NamedKernelTable& table : AvailableKernelTables()) {
    for (size_t esize : {1, 2, 4, 8}) {
      alignas(64) std::byte pattern[kFillPatternBytes];
      for (size_t i = 0; i < kFillPatternBytes; ++i) pattern[i] = value[i % esize];
      for (size_t shift = 0; shift < 64; ++shift) {
        for (size_t bytes :
             {0, 1, 7, 8, 15, 63, 64, 65, 127, 128, 255, 256, 257, 511, 1000, 4099}) {
          std::vector<std::byte> buffer(bytes + 192, kSentinel);
          std::byte* const out = buffer.data() + 64 + shift;
          table.table->pattern_fill(out, bytes, pattern);
          for (size_t i = 0; i < buffer.size(); ++i) {
            const auto at = static_cast<size_t>(&buffer[i] - out);
            const bool inside = &buffer[i] >= out && at < bytes;
            const std::byte want = inside ? value[at % esize] : kSentinel;
            if (buffer[i] != want) {
              ADD_FAILURE() << table.name << " esize=" << esize << " shift=" << shift
                            << " bytes=" << bytes << " buffer byte " << i;
              break;
            }
          }
        }
      }
    }
  }
}

#if ELTWISE_TEST_FP_CONTROL
// Every table, every float function: independent of the MXCSR / FPCR rounding mode and of
// flushing subnormals (FTZ/DAZ, FZ/FZ16).
TEST(CpuKernelTables, IndependentOfControlRegisterOnEveryTarget) {
  const FpControl saved = GetFpControl();
  for (const NamedKernelTable& table : AvailableKernelTables()) {
    for (DataType type :
         {DataType::kFloat32, DataType::kFloat64, DataType::kFloat16, DataType::kBFloat16}) {
      const std::vector<std::byte> input = TestInputs(type, 1 << 14);
      const size_t esize = ElementSize(type);
      const size_t n = input.size() / esize;
      for (Function f : AllFunctions()) {
        std::vector<std::byte> want(input.size()), got(input.size());
        ReferenceKernels().Contiguous(f, type)(input.data(), want.data(), n);
        for (FpControl state : FpControlStates(saved)) {
          for (bool stream : {false, true}) {
            const ContiguousKernel kernel =
                stream ? table.table->ContiguousStream(f, type) : table.table->Contiguous(f, type);
            SetFpControl(state);
            kernel(input.data(), got.data(), n);
            SetFpControl(saved);
            for (size_t i = 0; i < n; ++i) {
              if (!SameResult(type, want.data() + i * esize, got.data() + i * esize)) {
                ADD_FAILURE() << table.name << " " << Name(f) << " " << Name(type) << " "
                              << FpControlName(state) << " element " << i;
                break;
              }
            }
          }
        }
      }
    }
  }
}
#endif

// ---- public API layouts ------------------------------------------------------------------------

struct LayoutCase {
  std::string name;
  DataType type;
  std::vector<uint64_t> sizes;
  std::vector<int64_t> in_strides;   // empty: packed
  std::vector<int64_t> out_strides;  // empty: packed
};

// Byte offset of element (0,...,0) from the lowest addressed byte.
uint64_t FirstOffset(const std::vector<uint64_t>& sizes, const std::vector<int64_t>& strides,
                     size_t esize) {
  uint64_t offset = 0;
  for (size_t d = 0; d < sizes.size(); ++d) {
    if (strides[d] < 0) offset += (sizes[d] - 1) * static_cast<uint64_t>(-strides[d]);
  }
  return offset * esize;
}

// For every element (row-major index), calls visit(input byte offset, output byte offset).
template <class Visit>
void ForEachElement(const std::vector<uint64_t>& sizes, const std::vector<int64_t>& in_strides,
                    const std::vector<int64_t>& out_strides, size_t esize, Visit visit) {
  uint64_t count = 1;
  for (uint64_t s : sizes) count *= s;
  const int64_t in0 = static_cast<int64_t>(FirstOffset(sizes, in_strides, esize));
  const int64_t out0 = static_cast<int64_t>(FirstOffset(sizes, out_strides, esize));
  std::vector<uint64_t> index(sizes.size(), 0);
  for (uint64_t e = 0; e < count; ++e) {
    int64_t in = in0, out = out0;
    for (size_t d = 0; d < sizes.size(); ++d) {
      in += static_cast<int64_t>(index[d]) * in_strides[d] * static_cast<int64_t>(esize);
      out += static_cast<int64_t>(index[d]) * out_strides[d] * static_cast<int64_t>(esize);
    }
    visit(static_cast<uint64_t>(in), static_cast<uint64_t>(out));
    for (size_t d = sizes.size(); d-- > 0;) {
      if (++index[d] < sizes[d]) break;
      index[d] = 0;
    }
  }
}

// What the operator computes for (f, type): kCopy on integers for an op that is the identity
// there (Round; the registry's identity_on_integers).
Function Planned(Function f, DataType type) {
  if (f == Function::kCopy) return f;
  return FunctionFor(OpOfFunction(f), OptionOfFunction(f), type);
}

TensorDesc Desc(DataType type, const std::vector<uint64_t>& sizes,
                const std::vector<int64_t>& strides) {
  return strides.empty() ? TensorDesc::Packed(type, sizes)
                         : TensorDesc::Strided(type, sizes, strides);
}

// The reference kernel of `planned` run element by element over the walk: out_bytes of output,
// the bytes no element maps to left at kSentinel.
std::vector<std::byte> ReferenceOutput(Function planned, DataType type,
                                       const std::vector<uint64_t>& sizes,
                                       const std::vector<int64_t>& in_strides,
                                       const std::vector<int64_t>& out_strides,
                                       const std::vector<std::byte>& input, size_t out_bytes) {
  std::vector<std::byte> want(out_bytes, kSentinel);
  const ContiguousKernel ref = ReferenceKernels().Contiguous(planned, type);
  ForEachElement(sizes, in_strides, out_strides, ElementSize(type),
                 [&](uint64_t i, uint64_t o) { ref(input.data() + i, want.data() + o, 1); });
  return want;
}

// Bytes after the output binding that must stay untouched: a walk one row or task past the end
// writes there.
constexpr size_t kGuardBytes = 256;

// Runs one case out of place on a device with `threads` threads and checks every output element
// and that every other output byte, and kGuardBytes after the output, are untouched.
void CheckLayout(const LayoutCase& c, Function f, int threads) {
  SCOPED_TRACE(c.name + " " + std::string(Name(f)) + " " + std::string(Name(c.type)) +
               " threads=" + std::to_string(threads));
  const size_t esize = ElementSize(c.type);
  const std::vector<int64_t> in_strides =
      c.in_strides.empty() ? PackedStrides(c.sizes) : c.in_strides;
  const std::vector<int64_t> out_strides =
      c.out_strides.empty() ? PackedStrides(c.sizes) : c.out_strides;
  const TensorDesc in_desc = Desc(c.type, c.sizes, c.in_strides);
  const TensorDesc out_desc = Desc(c.type, c.sizes, c.out_strides);
  Expected<Device> device = Device::Cpu(CpuOptions{.threads = threads});
  ASSERT_TRUE(device.ok());
  Expected<CompiledOperator> op = Compile(*device, DescribeFunction(f, in_desc, out_desc));
  ASSERT_TRUE(op.ok()) << op.status().message();

  const size_t in_bytes = in_desc.total_tensor_size_in_bytes;
  const size_t out_bytes = out_desc.total_tensor_size_in_bytes;
  const std::vector<std::byte> input = MixedInputs(c.type, in_bytes / esize + 1, 11);
  std::vector<std::byte> output(out_bytes + kGuardBytes, kSentinel);
  ASSERT_TRUE(op->Execute({input.data(), in_bytes}, {output.data(), out_bytes}).ok());

  for (size_t b = out_bytes; b < output.size(); ++b) {
    ASSERT_EQ(output[b], kSentinel) << "byte " << b - out_bytes << " after the output";
  }
  const std::vector<std::byte> want = ReferenceOutput(Planned(f, c.type), c.type, c.sizes,
                                                      in_strides, out_strides, input, out_bytes);
  for (size_t b = 0; b < out_bytes; b += esize) {
    if (!SameResult(c.type, want.data() + b, output.data() + b)) {
      // Either a wrong element or a written padding element (want holds the sentinel there).
      std::string where;
      SameBytes(want.data() + b, output.data() + b, esize, &where);
      ADD_FAILURE() << "output byte offset " << b << ": " << where;
      return;
    }
  }
}

std::vector<LayoutCase> LayoutCases(DataType t) {
  return {
      {"packed odd", t, {1037}, {}, {}},
      {"transposed 2d", t, {301, 517}, {1, 301}, {}},
      {"transposed output", t, {67, 129}, {}, {1, 67}},
      {"permuted 3d", t, {13, 17, 19}, {1, 13 * 19, 13}, {}},
      {"broadcast all", t, {33, 70}, {0, 0}, {}},
      {"broadcast into padded rows", t, {9, 70}, {0, 0}, {80, 1}},
      {"broadcast strided output", t, {9, 70}, {0, 0}, {1, 9}},
      {"broadcast into a strided vector", t, {301}, {0}, {3}},
      {"broadcast rows", t, {40, 77}, {0, 1}, {}},
      {"broadcast columns", t, {40, 77}, {1, 0}, {}},
      {"padded rows", t, {37, 101}, {109, 1}, {113, 1}},
      {"padded rows in two outer dims",
       t,
       {3, 5, 101},
       {5 * 109 + 7, 109, 1},
       {5 * 113 + 3, 113, 1}},
      {"strided inner", t, {5, 300}, {900, 3}, {}},
      {"every second", t, {5, 301}, {700, 2}, {}},
      {"every third", t, {5, 301}, {1000, 3}, {}},
      {"every fourth, rows reversed", t, {5, 301}, {-1300, 4}, {}},
      {"every third, short rows", t, {900, 7}, {21, 3}, {}},
      {"every second, strided output", t, {4, 77}, {160, 2}, {1, 4}},
      {"strided output inner", t, {5, 300}, {}, {600, 2}},
      {"negative inner", t, {7, 333}, {333, -1}, {}},
      {"negative outer", t, {7, 333}, {-333, 1}, {}},
      {"negative output", t, {7, 333}, {}, {-333, -1}},
      {"rank 5", t, {2, 3, 1, 5, 7}, {1, 2, 6, 6, 30}, {}},
      {"rank 0", t, {}, {}, {}},
  };
}

TEST(CpuLayouts, EveryLayoutFunctionTypeAndThreadCount) {
  for (DataType t : AllTypes()) {
    for (const LayoutCase& c : LayoutCases(t)) {
      for (Function f : AllFunctions()) {
        if (f == Function::kCopy) continue;
        for (int threads : {1, 3}) CheckLayout(c, f, threads);
      }
    }
  }
}

// Sizes around the parallel grain (512 KiB moved) and the task size, odd counts, 1/2/3 threads,
// and one output larger than any last-level cache (non-temporal stores).
TEST(CpuLayouts, ThreadedSizesAroundTheGrain) {
  const Function functions[] = {Function::kSignNanZero, Function::kRoundTowardInfinity};
  for (DataType t :
       {DataType::kFloat32, DataType::kFloat16, DataType::kUInt8, DataType::kFloat64}) {
    const uint64_t esize = ElementSize(t);
    const uint64_t grain = (uint64_t{256} << 10) / esize;  // elements moving 512 KiB (in + out)
    int k = 0;
    for (uint64_t n : {grain - 1, grain + 1, 3 * grain + 13}) {
      for (int threads : {2, 3}) {
        CheckLayout({"contiguous n=" + std::to_string(n), t, {n}, {}, {}}, functions[k++ % 2],
                    threads);
      }
    }
    const uint64_t rows = grain * 3 / 2 / 1031 + 1;
    const auto side = static_cast<uint64_t>(std::sqrt(1.5 * static_cast<double>(grain)));
    for (int threads : {2, 3}) {
      CheckLayout({"big padded rows", t, {rows, 1031}, {1040, 1}, {1033, 1}}, functions[1],
                  threads);
      CheckLayout({"big rows long",
                   t,
                   {3, grain / 2 + 7},
                   {static_cast<int64_t>(grain / 2 + 11), 1},
                   {static_cast<int64_t>(grain / 2 + 9), 1}},
                  functions[0], threads);
      // Rows one element short of two tasks (kTaskBytes each) in padded pitches.
      CheckLayout({"big rows one short of two tasks",
                   t,
                   {3, grain - 1},
                   {static_cast<int64_t>(grain + 11), 1},
                   {static_cast<int64_t>(grain + 9), 1}},
                  functions[1], threads);
      CheckLayout({"big transposed", t, {side, side + 2}, {1, static_cast<int64_t>(side)}, {}},
                  functions[1], threads);
      CheckLayout(
          {"big broadcast", t, {side, side + 2}, {0, 0}, {static_cast<int64_t>(side + 9), 1}},
          functions[0], threads);
    }
  }
  // 48 MiB of output: above the last-level cache of common CPUs (where streaming stores would be
  // chosen if enabled).
  CheckLayout({"larger than LLC", DataType::kFloat32, {12 << 20}, {}, {}},
              Function::kRoundHalvesToNearestEven, 2);
  CheckLayout({"larger than LLC bf16", DataType::kBFloat16, {(24 << 20) + 7}, {}, {}},
              Function::kRoundDown, 3);
}

// A broadcast into an output at any byte address (the extended level needs no alignment), small
// fills (vector stores) and fills above 1 MiB (string stores), 1 and 2 threads.
TEST(CpuLayouts, BroadcastFillAtUnalignedAddresses) {
  for (DataType t : {DataType::kFloat32, DataType::kFloat16, DataType::kFloat64}) {
    const size_t esize = ElementSize(t);
    for (uint64_t n : {uint64_t{1000}, (uint64_t{3} << 20) / esize + 3}) {
      for (size_t shift : {0, 1, 3, 5, 60}) {
        for (int threads : {1, 2}) {
          SCOPED_TRACE(std::string(Name(t)) + " n=" + std::to_string(n) +
                       " shift=" + std::to_string(shift) + " threads=" + std::to_string(threads));
          Expected<Device> device =
              Device::Cpu(CpuOptions{.feature_level = FeatureLevel::kExtended, .threads = threads});
          ASSERT_TRUE(device.ok());
          const TensorDesc in = TensorDesc::Strided(t, {n}, {0});
          const TensorDesc out = TensorDesc::Packed(t, {n});
          Expected<CompiledOperator> op = Compile(*device, SignDesc{in, out, NanPolicy::kZero});
          ASSERT_TRUE(op.ok()) << op.status().message();
          std::byte x[8];
          const float minus_three = -3.0f;  // Sign gives -1: bytes that are not all equal
          if (t == DataType::kFloat32) std::memcpy(x, &minus_three, 4);
          if (t == DataType::kFloat16) std::memcpy(x, "\x00\xC2", 2);  // -3 in f16 (LE)
          if (t == DataType::kFloat64) {
            const double d = -3.0;
            std::memcpy(x, &d, 8);
          }
          std::byte want[8];
          ReferenceKernels().Contiguous(Function::kSignNanZero, t)(x, want, 1);
          std::vector<std::byte> buffer(out.total_tensor_size_in_bytes + 128, kSentinel);
          std::byte* const dst = buffer.data() + 64 + shift;
          const Status status = op->Execute({x, in.total_tensor_size_in_bytes},
                                            {dst, out.total_tensor_size_in_bytes});
          ASSERT_TRUE(status.ok()) << status.message();
          for (size_t i = 0; i < buffer.size(); ++i) {
            const std::byte* p = buffer.data() + i;
            const bool inside = p >= dst && p < dst + n * esize;
            const std::byte expected =
                inside ? want[static_cast<size_t>(p - dst) % esize] : kSentinel;
            if (buffer[i] != expected) {
              ADD_FAILURE() << "buffer byte " << i;
              break;
            }
          }
        }
      }
    }
  }
}

// In place (output == input) and partial overlap (output shifted against the input by whole and
// fractional elements, both directions): the result is as if the whole input were read first.
void CheckOverlap(DataType t, Function f, const std::vector<uint64_t>& sizes,
                  const std::vector<int64_t>& strides, int64_t shift_bytes, int threads,
                  const std::vector<int64_t>& output_strides = {}) {
  SCOPED_TRACE(std::string(Name(f)) + " " + std::string(Name(t)) +
               " shift=" + std::to_string(shift_bytes) + " threads=" + std::to_string(threads) +
               " rank=" + std::to_string(sizes.size()));
  const size_t esize = ElementSize(t);
  const std::vector<int64_t> s = strides.empty() ? PackedStrides(sizes) : strides;
  const std::vector<int64_t> so = output_strides.empty() ? s : output_strides;
  const TensorDesc desc = Desc(t, sizes, strides);
  const TensorDesc out_desc = Desc(t, sizes, so);
  const uint64_t bytes =
      std::max(desc.total_tensor_size_in_bytes, out_desc.total_tensor_size_in_bytes);
  Expected<Device> device = Device::Cpu(CpuOptions{.threads = threads});
  ASSERT_TRUE(device.ok());
  Expected<CompiledOperator> op = Compile(*device, DescribeFunction(f, desc, out_desc));
  ASSERT_TRUE(op.ok()) << op.status().message();

  const uint64_t margin = static_cast<uint64_t>(std::abs(shift_bytes)) + 64;
  std::vector<std::byte> buffer = MixedInputs(t, (bytes + 2 * margin) / esize + 1, 5);
  std::byte* in = buffer.data() + margin;
  std::byte* out = in + shift_bytes;
  const std::vector<std::byte> before = buffer;
  std::vector<std::byte> want = buffer;
  const ContiguousKernel ref = ReferenceKernels().Contiguous(Planned(f, t), t);
  const std::byte* snapshot_in = before.data() + margin;
  std::byte* want_out = want.data() + margin + shift_bytes;
  ForEachElement(sizes, s, so, esize,
                 [&](uint64_t i, uint64_t o) { ref(snapshot_in + i, want_out + o, 1); });
  ASSERT_TRUE(op->Execute({in, bytes}, {out, bytes}).ok());
  // Bytes outside output elements must be untouched; output elements must match (NaN as NaN).
  std::vector<int64_t> owner(buffer.size(), -1);
  ForEachElement(sizes, s, so, esize, [&](uint64_t, uint64_t o) {
    const int64_t start = static_cast<int64_t>(margin + o) + shift_bytes;
    for (size_t k = 0; k < esize; ++k) owner[static_cast<size_t>(start) + k] = start;
  });
  for (size_t b = 0; b < buffer.size(); ++b) {
    if (want[b] == buffer[b]) continue;
    if (owner[b] < 0) {
      ADD_FAILURE() << "byte " << b - margin << " (relative to the input) is no output element "
                    << "but was written";
      return;
    }
    const size_t start = static_cast<size_t>(owner[b]);
    if (!SameResult(t, want.data() + start, buffer.data() + start)) {
      ADD_FAILURE() << "output element at byte " << start - margin << " differs";
      return;
    }
  }
}

TEST(CpuLayouts, InPlaceAndPartialOverlap) {
  for (DataType t : {DataType::kFloat32, DataType::kFloat16, DataType::kInt8, DataType::kFloat64}) {
    const int64_t e = static_cast<int64_t>(ElementSize(t));
    for (Function f : {Function::kSignNanPropagate, Function::kRoundUp}) {
      for (int threads : {1, 3}) {
        for (int64_t shift : {int64_t{0}, e, -e, -7 * e, int64_t{1}, int64_t{-3},
                              int64_t{100000} * e + 1, int64_t{-70000} * e}) {
          if (e == 1 && (shift == 1 || shift == -3)) continue;  // whole elements already
          CheckOverlap(t, f, {300001}, {}, shift, threads);
          CheckOverlap(t, f, {301, 203}, {220, 1}, shift, threads);  // padded rows
          CheckOverlap(t, f, {203, 301}, {1, 203}, shift, threads);  // transposed walk
        }
      }
    }
  }
}

// Small contiguous calls go from Execute straight to the kernel (Backend::DirectKernelFor):
// in place, disjoint at every address phase, and partial overlaps (which take Run's exact path),
// every function on 1, 2, 4 and 8-byte types; the direct kernel is set exactly for small
// contiguous plans.
TEST(CpuLayouts, SmallContiguousDirectPath) {
  Expected<Device> device = Device::Cpu(CpuOptions{.threads = 2});
  ASSERT_TRUE(device.ok());
  for (DataType t : {DataType::kFloat32, DataType::kFloat16, DataType::kInt8, DataType::kInt64}) {
    const uint64_t small = 4096 / ElementSize(t);
    const CompiledOperator packed =
        *Compile(*device, SignDesc{Desc(t, {small}, {}), Desc(t, {small}, {})});
    EXPECT_NE(packed.state().direct_kernel, nullptr) << Name(t);
    const uint64_t big = (uint64_t{1} << 20) / ElementSize(t);
    const CompiledOperator large =
        *Compile(*device, SignDesc{Desc(t, {big}, {}), Desc(t, {big}, {})});
    EXPECT_EQ(large.state().direct_kernel, nullptr) << Name(t);
    const TensorDesc rows = Desc(t, {4, 250}, {256, 1});
    EXPECT_EQ(Compile(*device, SignDesc{rows, rows})->state().direct_kernel, nullptr);
    const TensorDesc broadcast = Desc(t, {small}, {0});
    EXPECT_EQ(Compile(*device, SignDesc{broadcast, Desc(t, {small}, {})})->state().direct_kernel,
              nullptr);

    const int64_t e = static_cast<int64_t>(ElementSize(t));
    for (Function f : AllFunctions()) {
      if (f == Function::kCopy) continue;  // no operator of its own (Round on integers is it)
      for (uint64_t n : {uint64_t{1}, uint64_t{7}, uint64_t{65}, small - 1, small}) {
        for (int64_t shift : {int64_t{0}, e, -e, int64_t{1}, -3 * e, static_cast<int64_t>(n) * e,
                              -static_cast<int64_t>(n) * e - 5}) {
          CheckOverlap(t, f, {n}, {}, shift, 2);
        }
      }
    }
  }
}

// Bindings of a small contiguous operator are checked on every call like any other's: each
// rejected call names its rule and writes nothing, and a valid call after them runs.
TEST(CpuLayouts, SmallContiguousDirectPathChecksEveryBinding) {
  const TensorDesc t = Desc(DataType::kFloat32, {1024}, {});
  alignas(64) static float in[1024 + 16];
  alignas(64) static float out[1024 + 16];
  for (size_t i = 0; i < 1024 + 16; ++i) in[i] = static_cast<float>(i) - 511.5f;
  for (FeatureLevel level : {FeatureLevel::kExtended, FeatureLevel::k3_0}) {
    const CompiledOperator op = *Compile(*Device::Cpu({level, 1}), SignDesc{t, t});
    ASSERT_NE(op.state().direct_kernel, nullptr);
    std::fill(std::begin(out), std::end(out), 7.0f);
    auto expect_error = [&](const Status& s, const std::string& fragment) {
      EXPECT_EQ(s.code(), StatusCode::kInvalidArgument) << fragment;
      EXPECT_NE(s.message().find(fragment), std::string::npos) << s.message();
    };
    expect_error(op.Execute({nullptr, 4096}, {out, 4096}), "input binding is null");
    expect_error(op.Execute({in, 4096}, {nullptr, 4096}), "output binding is null");
    expect_error(op.Execute({in, 4095}, {out, 4096}), "input binding has 4095 bytes");
    expect_error(op.Execute({in, 4096}, {out, 4092}), "output binding has 4092 bytes");
    if (level != FeatureLevel::kExtended) {  // DirectML levels: 16-byte aligned buffers
      expect_error(op.Execute({in + 1, 4096}, {out, 4096}), "input binding address");
      expect_error(op.Execute({in, 4096}, {out + 2, 4096}), "output binding address");
    }
    for (float v : out) ASSERT_EQ(v, 7.0f);
    // Misaligned by one element at the extended level (any address), and 16-byte aligned.
    const size_t shift = level == FeatureLevel::kExtended ? 1 : 4;
    ASSERT_TRUE(op.Execute({in + shift, 4096}, {out + shift, 4096}).ok());
    for (size_t i = 0; i < 1024 + 16; ++i) {
      const float want = i < shift || i >= shift + 1024 ? 7.0f : (in[i] > 0 ? 1.0f : -1.0f);
      ASSERT_EQ(out[i], want) << i;
    }
  }
}

// One compiled operator executed from several threads at once, each call big enough to use the
// pool.
// Partial overlaps with different input and output walks: chunked (bounded memory) where both
// walks rise and one direction is safe, the whole-input copy otherwise; rows longer than the
// chunk, many short rows, strided inner dims, in both directions and at distances around the
// planner's gap.
TEST(CpuLayouts, PartialOverlapOfDifferentWalks) {
  for (DataType t : {DataType::kFloat32, DataType::kInt8, DataType::kFloat64}) {
    const int64_t e = static_cast<int64_t>(ElementSize(t));
    for (Function f : {Function::kSignNanPropagate, Function::kRoundUp}) {
      for (int64_t shift :
           std::vector<int64_t>{-3 * e, -e, -1, 0, 1, e, 5 * e, 300 * e, -300 * e}) {
        CheckOverlap(t, f, {301, 203}, {220, 1}, shift, 1, {203, 1});      // compaction of rows
        CheckOverlap(t, f, {301, 203}, {203, 1}, shift, 2, {220, 1});      // expansion of rows
        CheckOverlap(t, f, {3, 70001}, {70001, 1}, shift, 1, {70003, 1});  // rows > a chunk
        CheckOverlap(t, f, {4001, 3}, {6, 2}, shift, 1, {3, 1});           // strided inner dims
        CheckOverlap(t, f, {4001, 3}, {3, 1}, shift, 2, {7, 2});
        CheckOverlap(t, f, {60, 50}, {1, 60}, shift, 1, {50, 1});  // transposed walk
      }
    }
  }
}

TEST(CpuLayouts, OneCompiledOperatorFromManyThreads) {
  Expected<Device> device = Device::Cpu(CpuOptions{.threads = 3});
  ASSERT_TRUE(device.ok());
  const uint64_t n = (uint64_t{3} << 20) + 5;
  const TensorDesc desc = TensorDesc::Packed(DataType::kFloat32, {n});
  Expected<CompiledOperator> op =
      Compile(*device, RoundDesc{desc, desc, RoundingMode::kTowardInfinity});
  ASSERT_TRUE(op.ok());
  constexpr int kCallers = 4;
  std::vector<std::vector<std::byte>> inputs, outputs;
  for (int i = 0; i < kCallers; ++i) {
    inputs.push_back(MixedInputs(DataType::kFloat32, n, 100 + i));
    outputs.emplace_back(n * 4);
  }
  std::vector<std::thread> callers;
  std::vector<int> ok(kCallers, 0);
  for (int i = 0; i < kCallers; ++i) {
    callers.emplace_back([&, i] {
      for (int rep = 0; rep < 5; ++rep) {
        ok[i] += op->Execute({inputs[i].data(), n * 4}, {outputs[i].data(), n * 4}).ok();
      }
    });
  }
  for (std::thread& t : callers) t.join();
  for (int i = 0; i < kCallers; ++i) {
    EXPECT_EQ(ok[i], 5);
    std::vector<std::byte> want(n * 4);
    ReferenceKernels().Contiguous(Function::kRoundTowardInfinity, DataType::kFloat32)(
        inputs[i].data(), want.data(), n);
    std::string where;
    for (uint64_t k = 0; k < n; ++k) {
      if (!SameResult(DataType::kFloat32, want.data() + 4 * k, outputs[i].data() + 4 * k)) {
        ADD_FAILURE() << "caller " << i << " element " << k;
        break;
      }
    }
  }
}

// ---- transposed tiles ---------------------------------------------------------------------------

// The transposed-tile kernel of every table (each SIMD target) against the reference functor,
// element by element: tile extents around the 128-bit block edge (16 / element size) and the
// vector widths (along a and, since each vector holds one output row's piece, along b), positive
// and negative input row strides, output rows with padding between them that must stay untouched
// (also a 4 KiB output pitch, which takes the kernels' staging buffer), and guard bytes before and
// after the output.
TEST(CpuKernelTables, TransposedTilesMatchReferenceAtEveryShape) {
  constexpr size_t kGuard = 64;
  const std::vector<std::byte> sentinels(4096, kSentinel);  // longer than any run compared
  // Inputs per type, made once: with a padded pitch, and with a 4 KiB pitch.
  std::map<DataType, std::vector<std::byte>> inputs, wide_inputs;
  for (DataType type : AllTypes()) {
    inputs[type] = MixedInputs(type, (130 + 5) * 130, 17);
    wide_inputs[type] = MixedInputs(type, 4096 / ElementSize(type) * 130, 19);
  }
  for (const NamedKernelTable& table : AvailableKernelTables()) {
    for (Function f : AllFunctions()) {
      for (DataType type : AllTypes()) {
        const size_t esize = ElementSize(type);
        const ContiguousKernel ref = ReferenceKernels().Contiguous(f, type);
        const TransposedKernel kernel = table.table->Transposed(f, type);
        const size_t lanes = 16 / esize;  // one 128-bit block
        const std::vector<std::byte>& input = inputs[type];
        const std::vector<std::byte>& wide_input = wide_inputs[type];
        for (size_t a_count : {size_t{3}, lanes, lanes + 1, size_t{33}, size_t{130}}) {
          // Input rows b: one block's, and 2 and 4 blocks' (256- and 512-bit vectors) with
          // the last vector shifted back, and a whole int8 tile and more.
          for (size_t b_count :
               {lanes, lanes + 3, size_t{31}, 2 * lanes + 1, 4 * lanes + 5, size_t{130}}) {
            for (int variant = 0; variant < 4; ++variant) {
              const bool negative = variant == 1;
              const bool aliasing = variant == 2;
              const bool aliasing_input = variant == 3;
              // Built only when something fails (this loop runs under emulators in CI).
              auto where = [&] {
                return std::string(table.name) + " " + std::string(Name(f)) + " " +
                       std::string(Name(type)) + " a=" + std::to_string(a_count) +
                       " b=" + std::to_string(b_count) + (negative ? " negative" : "") +
                       (aliasing ? " 4 KiB pitch" : "") +
                       (aliasing_input ? " 4 KiB input pitch" : "");
              };
              // Bytes between input rows (b); 4 KiB puts a band's rows into one L1 set (the
              // kernels then stage each band of input rows through a buffer).
              const size_t in_pitch = aliasing_input ? 4096 : (a_count + 5) * esize;
              const std::byte* in = aliasing_input ? wide_input.data() : input.data();
              ptrdiff_t in_stride = static_cast<ptrdiff_t>(in_pitch);
              if (negative) {  // row b at (b_count - 1 - b) * in_pitch
                in += (b_count - 1) * in_pitch;
                in_stride = -in_stride;
              }
              // A padded pitch, and one of 4 KiB, whose rows all alias in the L1 sets (the
              // kernels stage those through a buffer when a step covers more than 4 rows).
              const size_t out_pitch = aliasing ? 4096 : (b_count + 3) * esize;
              std::vector<std::byte> buffer(2 * kGuard + a_count * out_pitch, kSentinel);
              std::byte* out = buffer.data() + kGuard;
              kernel(in, in_stride, out, static_cast<ptrdiff_t>(out_pitch), a_count, b_count);
              // Bytes outside the elements (guards, row padding) keep the sentinel: compared a
              // run at a time, byte by byte only to name the first difference.
              auto untouched = [&](size_t begin, size_t end) {
                if (std::memcmp(buffer.data() + begin, sentinels.data(), end - begin) == 0) {
                  return true;
                }
                for (size_t i = begin; i < end; ++i) {
                  if (buffer[i] != kSentinel) {
                    ADD_FAILURE() << where() << ": wrote byte " << i << " outside the tile";
                    break;
                  }
                }
                return false;
              };
              const size_t row_bytes = b_count * esize;
              ASSERT_TRUE(untouched(0, kGuard));
              for (size_t a = 0; a < a_count; ++a) {
                const size_t row = kGuard + a * out_pitch;
                ASSERT_TRUE(untouched(row + row_bytes, row + out_pitch));
                for (size_t b = 0; b < b_count; ++b) {
                  std::byte want[8];
                  ref(in + static_cast<ptrdiff_t>(b) * in_stride + a * esize, want, 1);
                  ASSERT_TRUE(SameResult(type, want, buffer.data() + row + b * esize))
                      << where() << ": element a=" << a << " b=" << b;
                }
              }
              ASSERT_TRUE(untouched(kGuard + a_count * out_pitch, buffer.size()));
            }
          }
        }
      }
    }
  }
}

// Bytes that end where an inaccessible page begins (POSIX: mmap and mprotect), so that a read
// past End() faults; elsewhere a heap allocation of exactly `bytes` (the sanitizer builds catch a
// read past it).
class BytesBeforeGuardPage {
 public:
  explicit BytesBeforeGuardPage(size_t bytes) {
#if defined(__unix__) || defined(__APPLE__)
    const auto page = static_cast<size_t>(sysconf(_SC_PAGESIZE));
    span_ = (bytes + page - 1) / page * page + page;
    void* base = mmap(nullptr, span_, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (base == MAP_FAILED) std::abort();
    base_ = static_cast<std::byte*>(base);
    end_ = base_ + span_ - page;
    if (mprotect(end_, page, PROT_NONE) != 0) std::abort();
#else
    heap_ = std::make_unique<std::byte[]>(bytes);
    end_ = heap_.get() + bytes;
#endif
  }
  ~BytesBeforeGuardPage() {
#if defined(__unix__) || defined(__APPLE__)
    munmap(base_, span_);
#endif
  }
  BytesBeforeGuardPage(const BytesBeforeGuardPage&) = delete;
  BytesBeforeGuardPage& operator=(const BytesBeforeGuardPage&) = delete;
  std::byte* End() const { return end_; }

 private:
  std::byte* base_ = nullptr;
  size_t span_ = 0;
  std::unique_ptr<std::byte[]> heap_;
  std::byte* end_ = nullptr;
};

// The gathered kernels (input stride 2, 3, 4 elements) of every table, function and type against
// the reference functor element by element: every length up to 200 and two long ones, the input's
// last element the last byte before a guard page (a read past in[k * (n - 1)] faults), inputs
// and outputs at odd byte addresses (lengths up to 40 and two long ones), guard bytes around the
// output.
TEST(CpuKernelTables, GatheredAtEveryLengthWithinItsInput) {
  constexpr size_t kGuard = 64;
  // Aligned: every length to 200 and two long ones; odd addresses: every length to 40, two more.
  std::vector<size_t> aligned_lengths(201);
  std::iota(aligned_lengths.begin(), aligned_lengths.end(), size_t{0});
  aligned_lengths.push_back(1000);
  aligned_lengths.push_back(4099);
  std::vector<size_t> odd_lengths(41);
  std::iota(odd_lengths.begin(), odd_lengths.end(), size_t{0});
  odd_lengths.push_back(97);
  odd_lengths.push_back(1000);
  const size_t max_n = aligned_lengths.back();
  for (const NamedKernelTable& table : AvailableKernelTables()) {
    for (DataType type : AllTypes()) {
      const size_t esize = ElementSize(type);
      for (size_t k = kMinGatherStride; k <= kMaxGatherStride; ++k) {
        const size_t max_in = (k * (max_n - 1) + 1) * esize + 1;
        BytesBeforeGuardPage storage(max_in);
        const std::vector<std::byte> values = MixedInputs(type, max_in / esize + 1, k);
        std::memcpy(storage.End() - max_in, values.data(), max_in);
        for (Function f : AllFunctions()) {
          const GatheredKernel kernel = table.table->Gathered(f, type, k);
          ASSERT_NE(kernel, nullptr);
          const ContiguousKernel ref = ReferenceKernels().Contiguous(f, type);
          // (input end before the guard page, output shift): aligned, then odd addresses.
          for (const auto& [in_gap, out_shift] : {std::pair<size_t, size_t>{0, 0}, {1, 3}}) {
            for (size_t n : in_gap == 0 ? aligned_lengths : odd_lengths) {
              const auto where = [&] {
                return std::string(table.name) + " " + std::string(Name(f)) + " " +
                       std::string(Name(type)) + " stride " + std::to_string(k) +
                       " n=" + std::to_string(n) + " in_gap " + std::to_string(in_gap) + ": ";
              };
              const size_t in_bytes = n == 0 ? 0 : (k * (n - 1) + 1) * esize;
              const std::byte* in = storage.End() - in_gap - in_bytes;
              std::vector<std::byte> buffer(2 * kGuard + out_shift + n * esize, kSentinel);
              std::byte* out = buffer.data() + kGuard + out_shift;
              kernel(in, out, n);
              for (size_t i = 0; i < kGuard + out_shift; ++i) {
                ASSERT_EQ(buffer[i], kSentinel) << where() << "wrote before the output";
              }
              for (size_t i = kGuard + out_shift + n * esize; i < buffer.size(); ++i) {
                ASSERT_EQ(buffer[i], kSentinel) << where() << "wrote past the output";
              }
              // The reference over a packed copy of the elements the kernel should read.
              std::vector<std::byte> picked(n * esize), want(n * esize);
              for (size_t i = 0; i < n; ++i) {
                std::memcpy(picked.data() + i * esize, in + k * i * esize, esize);
              }
              ref(picked.data(), want.data(), n);
              if (n != 0 &&
                  std::memcmp(want.data(), out, n * esize) != 0) {  // NaN payloads may differ
                for (size_t i = 0; i < n; ++i) {
                  ASSERT_TRUE(SameResult(type, want.data() + i * esize, out + i * esize))
                      << where() << "element " << i;
                }
              }
            }
          }
        }
      }
    }
  }
}

// Runs `plan` through `table` on `threads` threads and checks every output byte against `want`.
void ExpectPlanOutput(const KernelTable& table, const Plan& plan, DataType type,
                      const std::vector<std::byte>& input, const std::vector<std::byte>& want,
                      int threads) {
  std::vector<std::byte> output(want.size(), kSentinel);
  RunPlanWithTable(table, plan, input.data(), output.data(), threads);
  for (size_t b = 0; b < output.size(); b += ElementSize(type)) {
    ASSERT_TRUE(SameResult(type, want.data() + b, output.data() + b)) << "output byte offset " << b;
  }
}

// A contiguous call and a rows call larger than the last-level cache on one thread (which take
// non-temporal stores where CacheTuning says so) and on two, through the best table, against the
// reference: Sign on float32, an output one element past a cache line, rows of 4 KiB (which
// stream wherever contiguous outputs do). Skipped where the last level reported is over 512 MiB
// (about 1.6 GiB of buffers).
TEST(CpuLayouts, PastTheLastLevelCache) {
  const uint64_t last = cpu::MachineCaches().LastLevelBytes();
  if (last > (uint64_t{512} << 20)) GTEST_SKIP() << "last-level cache " << last << " bytes";
  const DataType type = DataType::kFloat32;
  const uint64_t n = (last + (uint64_t{1} << 20)) / 4;
  const NamedKernelTable table = AvailableKernelTables().back();
  const std::vector<std::byte> input = MixedInputs(type, n, 11);
  std::vector<std::byte> want(n * 4);
  ReferenceKernels().Contiguous(Function::kSignNanPropagate, type)(input.data(), want.data(), n);
  for (const std::vector<uint64_t>& sizes : {std::vector<uint64_t>{n}, {n / 1024, 1024}}) {
    const TensorDesc desc = Desc(type, sizes, {});
    const Plan plan = MakePlan(Function::kSignNanPropagate, desc, desc, 1, 1);
    for (int threads : {1, 2}) {
      SCOPED_TRACE("rank " + std::to_string(sizes.size()) + ", threads " + std::to_string(threads));
      std::vector<std::byte> output(n * 4 + 68, kSentinel);
      std::byte* const at =
          output.data() + (64 - reinterpret_cast<uintptr_t>(output.data()) % 64) % 64 + 4;
      RunPlanWithTable(*table.table, plan, input.data(), at, threads);
      const size_t begin = static_cast<size_t>(at - output.data());
      for (size_t b = 0; b < begin; ++b) ASSERT_EQ(output[b], kSentinel) << "byte " << b;
      for (size_t b = begin + n * 4; b < output.size(); ++b) {
        ASSERT_EQ(output[b], kSentinel) << "byte " << b;
      }
      if (std::memcmp(want.data(), at, n * 4) == 0) continue;  // NaN payloads may differ
      for (uint64_t i = 0; i < n; ++i) {
        ASSERT_TRUE(SameResult(type, want.data() + i * 4, at + i * 4)) << "element " << i;
      }
    }
  }
}

// Plans through every kernel table (RunPlanWithTable), 1 and 2 threads: 2-d transposes at tile
// edges and odd sizes, N-d permutations the planner reduces to batched 2-d transposes, a
// transposed input into a strided output and a transposed input with a stride along its fast dim
// (both through the generic tile path), against the element-by-element reference walk.
TEST(CpuLayouts, TransposedPlansOnEveryTable) {
  struct Case {
    std::vector<uint64_t> sizes;
    std::vector<int64_t> in_strides, out_strides;  // empty: packed
  };
  const std::vector<Case> cases = {
      {{64, 64}, {1, 64}, {}},
      {{129, 67}, {1, 129}, {}},
      {{8, 300}, {1, 8}, {}},
      {{300, 9}, {1, 300}, {}},
      {{4099, 20}, {1, 4099}, {}},        // input rows a page or more apart: tiles along them
      {{9, 33, 20}, {1, 9, 9 * 33}, {}},  // 3-d permutation (2, 1, 0)
      {{5, 40, 3, 36}, {40, 1, 40 * 5 * 36, 200}, {}},  // 4-d, batched
      {{70, 90}, {1, 70}, {200, 2}},                    // output strided along b: generic tiles
      {{70, 90}, {2, 140}, {}},                         // input not packed along a: generic tiles
      {{70, 90}, {-1, 70}, {}},                         // input reversed along a: generic tiles
      // Dims reversed at ranks 6 and 8, which no merging shortens: the walk reads the plan's
      // strides at rank - 1 and rank - 2 (the asan preset's _GLIBCXX_ASSERTIONS checks each index).
      {{8, 2, 3, 2, 3, 8}, {1, 8, 16, 48, 96, 288}, {}},
      {{8, 2, 2, 2, 2, 2, 2, 8}, {1, 8, 16, 32, 64, 128, 256, 512}, {}},
  };
  for (const NamedKernelTable& table : AvailableKernelTables()) {
    for (DataType type : AllTypes()) {
      const size_t esize = ElementSize(type);
      for (const Case& c : cases) {
        for (Function f :
             {Function::kSignNanPropagate, Function::kRoundHalvesToNearestEven, Function::kCopy}) {
          const Function planned = Planned(f, type);
          const std::vector<int64_t> in_strides =
              c.in_strides.empty() ? PackedStrides(c.sizes) : c.in_strides;
          const std::vector<int64_t> out_strides =
              c.out_strides.empty() ? PackedStrides(c.sizes) : c.out_strides;
          const TensorDesc in_desc = Desc(type, c.sizes, c.in_strides);
          const TensorDesc out_desc = Desc(type, c.sizes, c.out_strides);
          const Plan plan = MakePlan(planned, in_desc, out_desc, 1, 1);
          ASSERT_EQ(plan.layout, Layout::kTransposed);
          if (c.sizes.size() >= 6) ASSERT_EQ(plan.rank, static_cast<int>(c.sizes.size()));
          const std::vector<std::byte> input =
              MixedInputs(type, in_desc.total_tensor_size_in_bytes / esize + 1, 5);
          const std::vector<std::byte> want =
              ReferenceOutput(planned, type, c.sizes, in_strides, out_strides, input,
                              out_desc.total_tensor_size_in_bytes);
          for (int threads : {1, 2}) {
            SCOPED_TRACE(std::string(table.name) + " " + std::string(Name(planned)) + " " +
                         std::string(Name(type)) + " rank " + std::to_string(c.sizes.size()) +
                         " threads=" + std::to_string(threads));
            ExpectPlanOutput(*table.table, plan, type, input, want, threads);
          }
        }
      }
    }
  }
}

// Transposed inputs gathered tile by tile (not packed along their fastest output dim) whose last
// element is the last byte before a guard page: the last column tile (200 = 128 + 72 columns, and
// 129 = 128 + 1) reads none of the columns past the tensor. Each element size, 1 and 2 threads.
TEST(CpuLayouts, GatheredTilesReadNothingPastTheInput) {
  struct Case {
    std::vector<uint64_t> sizes;
    std::vector<int64_t> in_strides;
  };
  const std::vector<Case> cases = {{{300, 200}, {2, 600}}, {{70, 129}, {3, 210}}};
  const NamedKernelTable table = AvailableKernelTables().back();
  for (DataType type :
       {DataType::kInt8, DataType::kFloat16, DataType::kFloat32, DataType::kFloat64}) {
    const size_t esize = ElementSize(type);
    for (const Case& c : cases) {
      const std::vector<int64_t> out_strides = PackedStrides(c.sizes);
      const TensorDesc in_desc = Desc(type, c.sizes, c.in_strides);
      const TensorDesc out_desc = Desc(type, c.sizes, {});
      const Plan plan = MakePlan(Function::kRoundHalvesToNearestEven, in_desc, out_desc, 1, 1);
      ASSERT_EQ(plan.layout, Layout::kTransposed);
      const size_t in_bytes = plan.input_span;  // exact: ends with the last element
      const std::vector<std::byte> input = MixedInputs(type, in_bytes / esize, 7);
      ASSERT_EQ(input.size(), in_bytes);
      const std::vector<std::byte> want =
          ReferenceOutput(plan.function, type, c.sizes, c.in_strides, out_strides, input,
                          out_desc.total_tensor_size_in_bytes);
      BytesBeforeGuardPage storage(in_bytes);
      std::byte* const in = storage.End() - in_bytes;
      std::memcpy(in, input.data(), in_bytes);
      for (int threads : {1, 2}) {
        SCOPED_TRACE(std::string(table.name) + " " + std::string(Name(type)) + " " +
                     std::to_string(c.sizes[0]) + "x" + std::to_string(c.sizes[1]) +
                     " threads=" + std::to_string(threads));
        std::vector<std::byte> output(want.size(), kSentinel);
        RunPlanWithTable(*table.table, plan, in, output.data(), threads);
        for (size_t b = 0; b < output.size(); b += esize) {
          ASSERT_TRUE(SameResult(type, want.data() + b, output.data() + b)) << "byte " << b;
        }
      }
    }
  }
}

// Transposes with outputs of 8 MiB and more, or 2 MiB and more when input and output rows are both
// a page or more apart (2 KiB for 1-byte elements) and output rows start on cache lines, which
// stream their tiles' rows out of an L1 buffer with non-temporal stores (x86): one element size
// each, edges that are not whole tiles, an output pitch that is not a multiple of 16 bytes and an
// output 1 element past a 16-byte boundary (both written with ordinary stores), padded output rows
// whose last tile's rows end in a piece shorter than 16 bytes (ordinary stores after streamed
// ones), through every
// kernel table on 1 and 2 threads, against the element-by-element reference walk; the bytes
// around the output stay untouched.
TEST(CpuLayouts, LargeTransposesStreamTheirOutput) {
  struct Case {
    DataType type;
    std::vector<uint64_t> sizes;
    int64_t out_pitch = 0;  // elements between output rows; 0: packed
  };
  const std::vector<Case> cases = {
      {DataType::kInt8, {3001, 3008}},  // rows 3001 and 3008 bytes apart: along the input
      {DataType::kFloat16, {2101, 2096}},
      {DataType::kFloat32, {1501, 1504}},
      {DataType::kFloat64, {1101, 1098}},
      {DataType::kFloat32, {1501, 1499}},  // pitch 5996 bytes
      {DataType::kFloat32, {1025, 1040}},  // 4.1 MiB, rows 4100 and 4160 bytes apart
      {DataType::kFloat64, {601, 520}},    // 2.4 MiB, rows 4808 and 4160 bytes apart
      // 4.4 MiB, output rows of 1030 elements 4160 bytes apart: the last tile's rows are 24 bytes.
      {DataType::kFloat32, {1100, 1030}, 1040},
  };
  for (const Case& c : cases) {
    const size_t esize = ElementSize(c.type);
    const std::vector<int64_t> in_strides = {1, static_cast<int64_t>(c.sizes[0])};
    const TensorDesc in_desc = Desc(c.type, c.sizes, in_strides);
    const std::vector<int64_t> out_strides =
        c.out_pitch != 0 ? std::vector<int64_t>{c.out_pitch, 1} : PackedStrides(c.sizes);
    const TensorDesc out_desc = Desc(c.type, c.sizes, out_strides);
    const Plan plan = MakePlan(Function::kSignNanPropagate, in_desc, out_desc, 1, 1);
    ASSERT_EQ(plan.layout, Layout::kTransposed);
    const size_t out_bytes = out_desc.total_tensor_size_in_bytes;
    ASSERT_GE(out_bytes, size_t{2} << 20);
    const std::vector<std::byte> input =
        MixedInputs(c.type, in_desc.total_tensor_size_in_bytes / esize + 1, 23);
    const std::vector<std::byte> want = ReferenceOutput(
        Function::kSignNanPropagate, c.type, c.sizes, in_strides, out_strides, input, out_bytes);
    for (const NamedKernelTable& table : AvailableKernelTables()) {
      for (int threads : {1, 2}) {
        for (size_t shift : {size_t{0}, esize}) {  // from a 64-byte boundary, or one element on
          SCOPED_TRACE(std::string(table.name) + " " + std::string(Name(c.type)) + " " +
                       std::to_string(c.sizes[0]) + "x" + std::to_string(c.sizes[1]) +
                       " threads=" + std::to_string(threads) + " shift=" + std::to_string(shift));
          std::vector<std::byte> output(out_bytes + 128, kSentinel);
          std::byte* const at =
              output.data() + (64 - reinterpret_cast<uintptr_t>(output.data()) % 64) % 64 + shift;
          RunPlanWithTable(*table.table, plan, input.data(), at, threads);
          const size_t begin = static_cast<size_t>(at - output.data());
          for (size_t b = 0; b < begin; ++b) ASSERT_EQ(output[b], kSentinel) << "byte " << b;
          for (size_t b = begin + out_bytes; b < output.size(); ++b) {
            ASSERT_EQ(output[b], kSentinel) << "byte " << b;
          }
          if (std::memcmp(want.data(), at, out_bytes) == 0) continue;
          for (size_t b = 0; b < out_bytes; b += esize) {
            ASSERT_TRUE(SameResult(c.type, want.data() + b, at + b)) << "output byte offset " << b;
          }
        }
      }
    }
  }
}

// Gathered plans (input strides 2, 3, 4 elements into a packed output: the tables' gathered
// kernels) through every kernel table, 1 and 2 threads: vectors, long and short rows (several
// rows per task), rows walked backwards, and for the best table sizes that take the thread pool
// with many tasks; against the element-by-element reference walk.
TEST(CpuLayouts, GatheredPlansOnEveryTable) {
  const std::vector<NamedKernelTable> tables = AvailableKernelTables();
  for (const NamedKernelTable& table : tables) {
    for (DataType type : AllTypes()) {
      const size_t esize = ElementSize(type);
      const auto k_cases = [&](int64_t k) {
        const auto ku = static_cast<uint64_t>(k);
        std::vector<std::pair<std::vector<uint64_t>, std::vector<int64_t>>> cases = {
            {{2}, {k}},
            {{1001}, {k}},
            {{7, 333}, {333 * k + 5, k}},
            {{300, 9}, {9 * k + 2, k}},
            {{3, 1500}, {-1500 * k, k}},
        };
        if (&table == &tables.back()) {  // above the parallel grain: tasks of whole pieces
          const uint64_t elements = (uint64_t{300} << 10) / esize;
          cases.push_back({{elements}, {k}});
          cases.push_back({{3, elements / 3}, {static_cast<int64_t>(elements / 3 * ku + 1), k}});
        }
        return cases;
      };
      for (int64_t k = kMinGatherStride; k <= static_cast<int64_t>(kMaxGatherStride); ++k) {
        for (const auto& [sizes, in_strides] : k_cases(k)) {
          for (Function f :
               {Function::kSignNanZero, Function::kRoundTowardInfinity, Function::kRoundDown}) {
            const bool large = sizes.back() > 10000;
            if (large && f != Function::kSignNanZero) continue;  // one function is enough there
            const Function planned = Planned(f, type);
            const TensorDesc in_desc = Desc(type, sizes, in_strides);
            const TensorDesc out_desc = Desc(type, sizes, {});
            const Plan plan = MakePlan(planned, in_desc, out_desc, 1, 1);
            ASSERT_EQ(plan.layout, Layout::kGathered);
            const std::vector<std::byte> input =
                MixedInputs(type, in_desc.total_tensor_size_in_bytes / esize + 1, 3);
            const std::vector<std::byte> want =
                ReferenceOutput(planned, type, sizes, in_strides, PackedStrides(sizes), input,
                                out_desc.total_tensor_size_in_bytes);
            for (int threads : {1, 2}) {
              if (large && threads == 1) continue;
              SCOPED_TRACE(std::string(table.name) + " " + std::string(Name(planned)) + " " +
                           std::string(Name(type)) + " stride " + std::to_string(k) + " rows " +
                           std::to_string(sizes.size() > 1 ? sizes[0] : 1) +
                           " threads=" + std::to_string(threads));
              ExpectPlanOutput(*table.table, plan, type, input, want, threads);
            }
          }
        }
      }
    }
  }
}

// The planner's layout decision, shared by every backend.
TEST(Planner, LayoutSubKinds) {
  const DataType t = DataType::kFloat32;
  auto plan = [&](std::vector<uint64_t> sizes, std::vector<int64_t> in,
                  std::vector<int64_t> out = {}) {
    return MakePlan(Function::kSignNanZero, Desc(t, sizes, in), Desc(t, sizes, out), 1, 1);
  };
  EXPECT_EQ(plan({10, 20}, {}).layout, Layout::kContiguous);
  EXPECT_EQ(plan({10, 20}, {0, 0}).layout, Layout::kBroadcast);
  EXPECT_EQ(plan({10, 20}, {30, 1}).layout, Layout::kRows);
  EXPECT_EQ(plan({10, 20}, {1, 10}).layout, Layout::kTransposed);
  EXPECT_EQ(plan({10, 20}, {2, 20}).layout, Layout::kTransposed);  // |2| < |20|
  EXPECT_EQ(plan({4, 20}, {1, 4}).layout, Layout::kGathered);      // too narrow to tile
  EXPECT_EQ(plan({10, 20}, {40, 2}).layout, Layout::kGathered);    // strided rows
  EXPECT_EQ(plan({10, 20}, {1, 0}).layout, Layout::kGathered);     // broadcast along rows
  // A 3-d permutation: the input's fastest dim (size 9) moves next to the innermost; the other
  // keeps its place as the batch dim.
  const Plan p = plan({9, 33, 20}, {1, 9, 9 * 33});
  ASSERT_EQ(p.layout, Layout::kTransposed);
  ASSERT_EQ(p.rank, 3);
  EXPECT_EQ(p.sizes[0], 33u);
  EXPECT_EQ(p.sizes[1], 9u);
  EXPECT_EQ(p.sizes[2], 20u);
  EXPECT_EQ(p.input_strides[1], 1);
  EXPECT_EQ(p.output_strides[2], 1);
  EXPECT_EQ(cpu::AnalyzeOverlap(p).scheme,
            cpu::OverlapScheme::kWholeInput);  // the input walk does not rise
}

// The CPU's partial-overlap scheme of a plan: chunked with the gaps that make each direction exact.
TEST(Planner, OverlapScheme) {
  const DataType t = DataType::kFloat32;
  auto plan = [&](std::vector<uint64_t> sizes, std::vector<int64_t> in,
                  std::vector<int64_t> out = {}) {
    return MakePlan(Function::kSignNanZero, Desc(t, sizes, in), Desc(t, sizes, out), 1, 1);
  };
  Plan p = plan({10, 20}, {});
  EXPECT_EQ(cpu::AnalyzeOverlap(p).scheme, cpu::OverlapScheme::kChunked);
  EXPECT_EQ(cpu::AnalyzeOverlap(p).forward_gap, 0u);
  EXPECT_EQ(cpu::AnalyzeOverlap(p).backward_gap, 0u);
  p = plan({10, 20}, {0, 0});
  EXPECT_EQ(cpu::AnalyzeOverlap(p).scheme, cpu::OverlapScheme::kNone);
  // Rows of 20 in a pitch of 25 into packed rows: each output row lies 5 (elements) per row
  // further below its input, so front to back always works, back to front from 9 * 5 elements.
  p = plan({10, 20}, {25, 1});
  EXPECT_EQ(cpu::AnalyzeOverlap(p).scheme, cpu::OverlapScheme::kChunked);
  EXPECT_EQ(cpu::AnalyzeOverlap(p).forward_gap, 0u);
  EXPECT_EQ(cpu::AnalyzeOverlap(p).backward_gap, 9u * 5 * 4);
  p = plan({10, 20}, {}, {25, 1});
  EXPECT_EQ(cpu::AnalyzeOverlap(p).forward_gap, 9u * 5 * 4);
  EXPECT_EQ(cpu::AnalyzeOverlap(p).backward_gap, 0u);
  EXPECT_EQ(cpu::AnalyzeOverlap(plan({10, 20}, {1, 10})).scheme,
            cpu::OverlapScheme::kWholeInput);  // not square
  // Rows in reverse order: a mirror (tile pairs) when the input's first row is the output's last.
  p = plan({10, 20}, {-20, 1});
  EXPECT_EQ(cpu::AnalyzeOverlap(p).scheme, cpu::OverlapScheme::kSwapTiles);
  EXPECT_EQ(cpu::AnalyzeOverlap(p).swap_a, -1);
  EXPECT_EQ(cpu::AnalyzeOverlap(p).reversed_dims, 1u);
  EXPECT_EQ(cpu::AnalyzeOverlap(p).swap_distance, 9u * 20 * 4);
  // A square transpose: dims 0 and 1 swapped, at distance 0.
  p = plan({16, 16}, {1, 16});
  EXPECT_EQ(cpu::AnalyzeOverlap(p).scheme, cpu::OverlapScheme::kSwapTiles);
  EXPECT_EQ(cpu::AnalyzeOverlap(p).swap_b - cpu::AnalyzeOverlap(p).swap_a, 1);
  EXPECT_EQ(cpu::AnalyzeOverlap(p).reversed_dims, 0u);
  EXPECT_EQ(cpu::AnalyzeOverlap(p).swap_distance, 0u);
  // Reversed and transposed at once, or reversed into a different pitch: no chunk order, but
  // both walks are nested, so the element map can be followed.
  EXPECT_EQ(cpu::AnalyzeOverlap(plan({16, 16}, {-1, 16})).scheme, cpu::OverlapScheme::kWholeInput);
  EXPECT_TRUE(cpu::AnalyzeOverlap(plan({16, 16}, {-1, 16})).invertible);
  EXPECT_EQ(cpu::AnalyzeOverlap(plan({10, 20}, {-30, 1})).scheme, cpu::OverlapScheme::kWholeInput);
  EXPECT_TRUE(cpu::AnalyzeOverlap(plan({10, 20}, {-30, 1})).invertible);
  EXPECT_TRUE(cpu::AnalyzeOverlap(plan({10, 20}, {1, 10})).invertible);
  EXPECT_TRUE(cpu::AnalyzeOverlap(plan({3, 4, 5}, {1, 15, 3})).invertible);
  // Not nested: a zero input stride in one dim, or strides that interleave without nesting.
  EXPECT_FALSE(cpu::AnalyzeOverlap(plan({10, 20}, {1, 0})).invertible);
  EXPECT_FALSE(cpu::AnalyzeOverlap(plan({3, 2}, {-2, 3})).invertible);
}

// The planner's decisions at their boundaries: ties, the smallest tiled extent, walks that just
// fail to rise or nest, and a swap pair beside a third moved dim. A wrong decision here keeps
// results exact (every plan is executed exactly) but costs speed or, for the overlap, correctness.
TEST(Planner, DecisionBoundaries) {
  const DataType t = DataType::kFloat32;
  auto plan = [&](std::vector<uint64_t> sizes, std::vector<int64_t> in,
                  std::vector<int64_t> out = {}) {
    return MakePlan(Function::kSignNanZero, Desc(t, sizes, in), Desc(t, sizes, out), 1, 1);
  };
  auto sizes_of = [](const Plan& p) {
    return std::vector<uint64_t>(p.sizes.begin(), p.sizes.begin() + p.rank);
  };
  // The input's fastest dim is found among all outer dims, not just the first (a batch of 10
  // transposes of 9 x 20)...
  Plan p = plan({10, 9, 20}, {180, 1, 9});
  ASSERT_EQ(p.layout, Layout::kTransposed);
  EXPECT_EQ(sizes_of(p), (std::vector<uint64_t>{10, 9, 20}));
  EXPECT_EQ(p.input_strides[1], 1);
  // ...and on a tie the outermost is moved next to the innermost.
  p = plan({9, 10, 20}, {1, 1, 9});
  ASSERT_EQ(p.layout, Layout::kTransposed);
  EXPECT_EQ(sizes_of(p), (std::vector<uint64_t>{10, 9, 20}));
  // An outer stride equal to the inner one is no transpose.
  EXPECT_EQ(plan({10, 20}, {3, 3}).layout, Layout::kGathered);
  // Tiles need both extents at least kMinTransposeExtent (8).
  EXPECT_EQ(plan({8, 9}, {1, 8}).layout, Layout::kTransposed);
  EXPECT_EQ(plan({9, 8}, {1, 9}).layout, Layout::kTransposed);
  EXPECT_EQ(plan({7, 9}, {1, 7}).layout, Layout::kGathered);
  EXPECT_EQ(plan({9, 7}, {1, 9}).layout, Layout::kGathered);
  // Rows whose pitch (19) equals the extent of a row (19 elements past its first): element (1, 0)
  // is element (0, 19), so the input walk neither rises nor nests.
  p = plan({10, 20}, {19, 1});
  EXPECT_EQ(p.layout, Layout::kRows);
  EXPECT_EQ(cpu::AnalyzeOverlap(p).scheme, cpu::OverlapScheme::kWholeInput);
  EXPECT_FALSE(cpu::AnalyzeOverlap(p).invertible);
  // Output rows one element further apart than the input's (pitch 21 against 20): row r of the
  // output lies r elements above its input, so front to back needs the input at least 9 elements
  // (the last row's shift) above the output; back to front needs nothing.
  p = plan({10, 20}, {20, 1}, {21, 1});
  EXPECT_EQ(cpu::AnalyzeOverlap(p).scheme, cpu::OverlapScheme::kChunked);
  EXPECT_EQ(cpu::AnalyzeOverlap(p).forward_gap, 9u * 4);
  EXPECT_EQ(cpu::AnalyzeOverlap(p).backward_gap, 0u);
  // An interleaved output (addresses 2i + 3j: 0, 3, 2, 5, 4, 7; no element twice) whose walk
  // neither rises nor nests, from an input that does both: the output's walk decides too.
  p = plan({3, 2}, {1, 3}, {2, 3});
  EXPECT_EQ(cpu::AnalyzeOverlap(p).scheme, cpu::OverlapScheme::kWholeInput);
  EXPECT_FALSE(cpu::AnalyzeOverlap(p).invertible);
  // Dims 0 and 1 swapped, but dim 2 moved too (input stride 2, output 1): no mirror.
  p = plan({4, 4, 3}, {3, 12, 2});
  EXPECT_EQ(cpu::AnalyzeOverlap(p).scheme, cpu::OverlapScheme::kWholeInput);
  EXPECT_EQ(cpu::AnalyzeOverlap(p).swap_a, -1);
}

}  // namespace
}  // namespace eltwise::testing
