// Bit-exact semantics: every kernel table (reference and every SIMD target this CPU runs) and the
// public API, for every function and type, against the independent oracle.
#include <gtest/gtest.h>

#include <cstring>
#include <memory>
#include <ostream>
#include <string>
#include <vector>

#include "core/function.h"
#include "core/op_registry.h"
#include "cpu/kernel_dispatch.h"
#include "fp_control.h"
#include "oracle.h"
#include "test_values.h"

namespace eltwise {
// As gtest prints a DataType parameter: its name. In namespace eltwise, where gtest finds it (by
// argument-dependent lookup); internal linkage, as other tests may print types their own way.
[[maybe_unused]] static void PrintTo(DataType type, std::ostream* os) { *os << Name(type); }
}  // namespace eltwise

namespace eltwise::testing {
namespace {

// What function `f` must return for x: the oracle of the operator description `f` stands for (its
// op and option value, from function.h's list; `desc`), or x itself for the copy.
Decoded OracleResult(Function f, const OperatorDesc& desc, DataType type, const Decoded& x) {
  return f == Function::kCopy ? x : OracleFor(desc, type, x);
}

// Compares outputs element by element; reports the first few mismatches.
void ExpectMatchesOracle(Function f, DataType type, const std::vector<std::byte>& in,
                         const std::byte* out, ptrdiff_t out_stride, const std::string& where) {
  const size_t esize = ElementSize(type);
  const size_t n = in.size() / esize;
  const OperatorDesc desc = MakeDesc(OpOfFunction(f), OptionOfFunction(f), {}, {});
  int reported = 0;
  for (size_t i = 0; i < n && reported < 5; ++i) {
    const Decoded x = Decode(type, in.data() + i * esize);
    const Decoded want = OracleResult(f, desc, type, x);
    const Decoded got = Decode(type, out + static_cast<ptrdiff_t>(i) * out_stride);
    if (!SameValue(want, got)) {
      ADD_FAILURE() << where << " " << Name(f) << " " << Name(type) << " x=" << ToString(type, x)
                    << " want " << ToString(type, want) << " got " << ToString(type, got);
      ++reported;
    }
  }
}

struct KernelCase {
  NamedKernelTable table;
  Function function;
  DataType type;
};

// As gtest prints a case (--gtest_list_tests, failures): the table's, function's and type's names.
void PrintTo(const KernelCase& c, std::ostream* os) {
  *os << c.table.name << " " << Name(c.function) << " " << Name(c.type);
}

// The test name of a case, e.g. AVX3_RoundTowardZero_uint64: table first, so that filters such as
// '*KernelSemantics*/SVE_256_*' select one table's cases.
std::string CaseName(const ::testing::TestParamInfo<KernelCase>& info) {
  return std::string(info.param.table.name) + "_" + std::string(Name(info.param.function)) + "_" +
         std::string(Name(info.param.type));
}

std::vector<KernelCase> AllKernelCases() {
  std::vector<KernelCase> cases;
  for (const NamedKernelTable& table : AvailableKernelTables()) {
    for (int f = 0; f < kFunctionCount; ++f) {
      for (int t = 0; t < kDataTypeCount; ++t) {
        cases.push_back({table, static_cast<Function>(f), static_cast<DataType>(t)});
      }
    }
  }
  return cases;
}

class KernelSemantics : public ::testing::TestWithParam<KernelCase> {};

TEST_P(KernelSemantics, ContiguousMatchesOracle) {
  const auto& [table, f, type] = GetParam();
  const std::vector<std::byte> in = TestInputs(type);
  // Every length up to 67 (tails) and the whole set, at an odd address offset (unaligned).
  std::vector<std::byte> out(in.size() + 1);
  for (size_t offset : {size_t{0}, size_t{1}}) {
    std::vector<std::byte> shifted(in.size() + 1);
    std::memcpy(shifted.data() + offset, in.data(), in.size());
    table.table->Contiguous(f, type)(shifted.data() + offset, out.data() + offset,
                                     in.size() / ElementSize(type));
    ExpectMatchesOracle(f, type, in, out.data() + offset, ElementSize(type),
                        std::string(table.name) + " offset " + std::to_string(offset));
  }
}

TEST_P(KernelSemantics, ShortLengthsDoNotTouchNeighbours) {
  const auto& [table, f, type] = GetParam();
  const size_t esize = ElementSize(type);
  const std::vector<std::byte> all = TestInputs(type, 64);
  for (size_t n = 0; n <= 67; ++n) {
    std::vector<std::byte> in(all.begin(), all.begin() + n * esize);
    std::vector<std::byte> out((n + 64) * esize, std::byte{0xA5});
    table.table->Contiguous(f, type)(in.data(), out.data() + 32 * esize, n);
    ExpectMatchesOracle(f, type, in, out.data() + 32 * esize, esize,
                        std::string(table.name) + " n=" + std::to_string(n));
    for (size_t b = 0; b < 32 * esize; ++b) {
      ASSERT_EQ(out[b], std::byte{0xA5}) << "wrote before the output, n=" << n;
      ASSERT_EQ(out[out.size() - 1 - b], std::byte{0xA5}) << "wrote past the output, n=" << n;
    }
  }
}

TEST_P(KernelSemantics, InPlaceMatchesOracle) {
  const auto& [table, f, type] = GetParam();
  const std::vector<std::byte> in = TestInputs(type, 4096);
  std::vector<std::byte> buffer = in;
  table.table->Contiguous(f, type)(buffer.data(), buffer.data(), in.size() / ElementSize(type));
  ExpectMatchesOracle(f, type, in, buffer.data(), ElementSize(type), std::string(table.name));
}

TEST_P(KernelSemantics, StridedMatchesOracle) {
  const auto& [table, f, type] = GetParam();
  const std::vector<std::byte> in = TestInputs(type, 4096);
  const ptrdiff_t esize = static_cast<ptrdiff_t>(ElementSize(type));
  const size_t n = in.size() / esize;
  // Read backwards, write every other element.
  std::vector<std::byte> reversed(in.size());
  for (size_t i = 0; i < n; ++i) {
    std::memcpy(reversed.data() + (n - 1 - i) * esize, in.data() + i * esize, esize);
  }
  std::vector<std::byte> out(2 * in.size());
  table.table->Strided(f, type)(reversed.data() + (n - 1) * esize, -esize, out.data(), 2 * esize,
                                n);
  ExpectMatchesOracle(f, type, in, out.data(), 2 * esize, std::string(table.name));
}

// Every value (exhaustive for 8/16-bit types) through the gathered kernels: input strides 2, 3
// and 4 elements, the input allocated to end at its last element.
TEST_P(KernelSemantics, GatheredMatchesOracle) {
  const auto& [table, f, type] = GetParam();
  const std::vector<std::byte> in = TestInputs(type, 4096);
  const size_t esize = ElementSize(type);
  const size_t n = in.size() / esize;
  for (size_t k = kMinGatherStride; k <= kMaxGatherStride; ++k) {
    const size_t spread_bytes = (k * (n - 1) + 1) * esize;
    const auto spread = std::make_unique<std::byte[]>(spread_bytes);
    for (size_t i = 0; i < n; ++i) {
      std::memcpy(spread.get() + k * i * esize, in.data() + i * esize, esize);
    }
    std::vector<std::byte> out(in.size());
    table.table->Gathered(f, type, k)(spread.get(), out.data(), n);
    ExpectMatchesOracle(f, type, in, out.data(), static_cast<ptrdiff_t>(esize),
                        std::string(table.name) + " stride " + std::to_string(k));
  }
}

INSTANTIATE_TEST_SUITE_P(AllTablesFunctionsTypes, KernelSemantics,
                         ::testing::ValuesIn(AllKernelCases()), CaseName);

// NaN bit patterns of a float type, `count` of them: signaling and quiet, payloads at both ends,
// both signs, cycled.
std::vector<std::byte> NanPatterns(DataType type, size_t count) {
  const size_t esize = ElementSize(type);
  const int mantissa_bits = type == DataType::kFloat64   ? 52
                            : type == DataType::kFloat32 ? 23
                            : type == DataType::kFloat16 ? 10
                                                         : 7;
  const uint64_t mantissa = (uint64_t{1} << mantissa_bits) - 1;
  const uint64_t quiet = uint64_t{1} << (mantissa_bits - 1);
  const uint64_t exponent = ((uint64_t{1} << (8 * esize - 1)) - 1) & ~mantissa;
  const uint64_t sign = uint64_t{1} << (8 * esize - 1);
  const uint64_t payloads[] = {1, quiet - 1, quiet >> 1, quiet, quiet | 1, mantissa};
  std::vector<std::byte> bytes(count * esize);
  for (size_t i = 0; i < count; ++i) {
    const uint64_t bits = exponent | payloads[i % std::size(payloads)] | ((i / 6) % 2 ? sign : 0);
    std::byte* element = bytes.data() + i * esize;
    if (esize == 2) {
      const auto narrow = static_cast<uint16_t>(bits);
      std::memcpy(element, &narrow, 2);
    } else if (esize == 4) {
      const auto narrow = static_cast<uint32_t>(bits);
      std::memcpy(element, &narrow, 4);
    } else {
      std::memcpy(element, &bits, 8);
    }
  }
  return bytes;
}

// The cases of NanKernelSemantics: the floating-point types with a function whose result for a NaN
// is a NaN (the copy, Round, Sign with nan=propagate; Sign with nan=zero gives +0, which the
// oracle checks in KernelSemantics). Integer types have no NaN and are left out, not skipped.
bool GivesNanForNan(Function f, DataType type) {
  if (!IsFloatingPoint(type)) return false;
  const OperatorDesc desc = MakeDesc(OpOfFunction(f), OptionOfFunction(f), {}, {});
  return OracleResult(f, desc, type, Decode(type, NanPatterns(type, 1).data())).is_nan;
}

std::vector<KernelCase> NanKernelCases() {
  std::vector<KernelCase> cases;
  for (const KernelCase& c : AllKernelCases()) {
    if (GivesNanForNan(c.function, c.type)) cases.push_back(c);
  }
  return cases;
}

class NanKernelSemantics : public ::testing::TestWithParam<KernelCase> {};

// A NaN in gives exactly that NaN out (payload and signaling bit) from every function whose result
// for a NaN is a NaN, on every table and kernel kind: the CPU's vectors, its scalar reference and
// the GPU (the functors) agree to the bit. (Sign with nan=zero gives +0, checked by the oracle.)
TEST_P(NanKernelSemantics, NanComesOutUnchanged) {
  const auto& [table, f, type] = GetParam();
  const std::vector<std::byte> in = NanPatterns(type, 203);
  const size_t esize = ElementSize(type);
  const size_t n = in.size() / esize;
  ASSERT_TRUE(GivesNanForNan(f, type)) << "NanKernelCases() admits only such cases";
  std::vector<std::byte> out(2 * in.size()), spread(2 * in.size());
  for (size_t i = 0; i < n; ++i)
    std::memcpy(spread.data() + 2 * i * esize, in.data() + i * esize, esize);
  auto expect_same = [&](const std::byte* got, size_t stride, const char* kind) {
    for (size_t i = 0; i < n; ++i) {
      ASSERT_EQ(std::memcmp(got + i * stride, in.data() + i * esize, esize), 0)
          << table.name << " " << kind << " element " << i << " changed a NaN's bits";
    }
  };
  table.table->Contiguous(f, type)(in.data(), out.data(), n);
  expect_same(out.data(), esize, "contiguous");
  table.table->Strided(f, type)(in.data(), static_cast<ptrdiff_t>(esize), out.data(),
                                static_cast<ptrdiff_t>(2 * esize), n);
  expect_same(out.data(), 2 * esize, "strided");
  table.table->Gathered(f, type, 2)(spread.data(), out.data(), n);
  expect_same(out.data(), esize, "gathered");
}

INSTANTIATE_TEST_SUITE_P(AllTablesNanResults, NanKernelSemantics,
                         ::testing::ValuesIn(NanKernelCases()), CaseName);

// The public one-call API, which goes through validation, planning and dispatch.
class PublicApiSemantics : public ::testing::TestWithParam<DataType> {};

TEST_P(PublicApiSemantics, SignAndEveryRoundModeMatchOracle) {
  const DataType type = GetParam();
  const std::vector<std::byte> in = TestInputs(type);
  const size_t n = in.size() / ElementSize(type);
  std::vector<std::byte> out(in.size());
  for (NanPolicy nan : {NanPolicy::kZero, NanPolicy::kPropagate}) {
    ASSERT_TRUE(Sign(type, n, in.data(), out.data(), nan).ok());
    ExpectMatchesOracle(SignFunction(nan), type, in, out.data(), ElementSize(type), "Sign()");
  }
  for (int m = 0; m < kRoundingModeCount; ++m) {
    const auto mode = static_cast<RoundingMode>(m);
    ASSERT_TRUE(Round(type, n, in.data(), out.data(), mode).ok());
    const Function f = IsFloatingPoint(type) ? RoundFunction(mode, type) : Function::kCopy;
    ExpectMatchesOracle(f, type, in, out.data(), ElementSize(type), "Round()");
  }
}

INSTANTIATE_TEST_SUITE_P(AllTypes, PublicApiSemantics,
                         ::testing::Values(DataType::kFloat32, DataType::kFloat16,
                                           DataType::kBFloat16, DataType::kFloat64, DataType::kInt8,
                                           DataType::kInt16, DataType::kInt32, DataType::kInt64,
                                           DataType::kUInt8, DataType::kUInt16, DataType::kUInt32,
                                           DataType::kUInt64),
                         [](const auto& info) { return std::string(Name(info.param)); });

// DirectML's documented table, verbatim, for every float type.
TEST(DirectMLRoundingTable, HoldsVerbatim) {
  const double x[] = {-2.5, -1.75, -1.5, -1.25, 0, 1.25, 1.5, 1.75, 2.5};
  const double even[] = {-2, -2, -2, -1, 0, 1, 2, 2, 2};
  const double toward_zero[] = {-2, -1, -1, -1, 0, 1, 1, 1, 2};
  const double toward_infinity[] = {-3, -2, -2, -1, 0, 1, 2, 2, 3};
  const std::pair<RoundingMode, const double*> rows[] = {
      {RoundingMode::kHalvesToNearestEven, even},
      {RoundingMode::kTowardZero, toward_zero},
      {RoundingMode::kTowardInfinity, toward_infinity}};
  float in32[9], out32[9];
  double in64[9], out64[9];
  for (int i = 0; i < 9; ++i) {
    in32[i] = static_cast<float>(x[i]);
    in64[i] = x[i];
  }
  // float16 and bfloat16 bit patterns of the same values, written out by hand.
  const uint16_t in16[9] = {0xC100, 0xBF00, 0xBE00, 0xBD00, 0x0000, 0x3D00, 0x3E00, 0x3F00, 0x4100};
  const uint16_t inbf[9] = {0xC020, 0xBFE0, 0xBFC0, 0xBFA0, 0x0000, 0x3FA0, 0x3FC0, 0x3FE0, 0x4020};
  uint16_t out16[9], outbf[9];
  for (const auto& [mode, want] : rows) {
    ASSERT_TRUE(Round(DataType::kFloat32, 9, in32, out32, mode).ok());
    ASSERT_TRUE(Round(DataType::kFloat64, 9, in64, out64, mode).ok());
    ASSERT_TRUE(Round(DataType::kFloat16, 9, in16, out16, mode).ok());
    ASSERT_TRUE(Round(DataType::kBFloat16, 9, inbf, outbf, mode).ok());
    for (int i = 0; i < 9; ++i) {
      SCOPED_TRACE(std::string(Name(mode)) + " x=" + std::to_string(x[i]));
      EXPECT_EQ(out32[i], want[i]);
      EXPECT_EQ(out64[i], want[i]);
      EXPECT_EQ(DecodeHalf(out16[i]), want[i]);
      EXPECT_EQ(DecodeBFloat16(outbf[i]), want[i]);
    }
  }
}

TEST(SignOnnxExample, RangeMinusFiveToFive) {
  float in[11], out[11];
  for (int i = 0; i < 11; ++i) in[i] = static_cast<float>(i - 5);
  ASSERT_TRUE(Sign(DataType::kFloat32, 11, in, out).ok());
  const float want[11] = {-1, -1, -1, -1, -1, 0, 1, 1, 1, 1, 1};
  for (int i = 0; i < 11; ++i) EXPECT_EQ(out[i], want[i]) << i;
}

TEST(SignedZeroAndSpecials, Float32) {
  const float in[] = {-0.0f, 0.0f, -0.4f, 0.4f, -1e-45f, 1e-45f};
  float out[6];
  ASSERT_TRUE(Round(DataType::kFloat32, 6, in, out).ok());
  EXPECT_TRUE(std::signbit(out[0]) && out[0] == 0);
  EXPECT_TRUE(!std::signbit(out[1]) && out[1] == 0);
  EXPECT_TRUE(std::signbit(out[2]) && out[2] == 0);  // -0.4 -> -0.0
  EXPECT_TRUE(!std::signbit(out[3]) && out[3] == 0);
  ASSERT_TRUE(Sign(DataType::kFloat32, 6, in, out).ok());
  EXPECT_FALSE(std::signbit(out[0]));  // Sign(-0) = +0
  EXPECT_EQ(out[4], -1.0f);            // negative subnormal
  EXPECT_EQ(out[5], 1.0f);             // positive subnormal
}

TEST(IntegerSign, MinimumIsMinusOne) {
  const int64_t in[] = {INT64_MIN, -1, 0, 1, INT64_MAX};
  int64_t out[5];
  ASSERT_TRUE(Sign(DataType::kInt64, 5, in, out).ok());
  EXPECT_EQ(out[0], -1);
  EXPECT_EQ(out[1], -1);
  EXPECT_EQ(out[2], 0);
  EXPECT_EQ(out[3], 1);
  EXPECT_EQ(out[4], 1);
}

#if ELTWISE_TEST_FP_CONTROL
// Results must not depend on MXCSR / FPCR: every rounding mode, with and without flushing
// subnormals (FTZ/DAZ, FZ/FZ16).
TEST(FloatingPointEnvironment, ResultsIndependentOfControlRegister) {
  for (DataType type :
       {DataType::kFloat32, DataType::kFloat64, DataType::kFloat16, DataType::kBFloat16}) {
    const std::vector<std::byte> in = TestInputs(type, 1 << 14);
    const size_t n = in.size() / ElementSize(type);
    std::vector<std::byte> out(in.size());
    const Expected<Device> cpu = Device::Cpu();
    ASSERT_TRUE(cpu.ok());
    const FpControl saved = GetFpControl();
    for (FpControl state : FpControlStates(saved)) {
      for (int f = 0; f < kFunctionCount; ++f) {
        const auto function = static_cast<Function>(f);
        if (function == Function::kCopy) continue;
        // The operator that runs `function` on this floating-point type, through the public API.
        const TensorDesc t = TensorDesc::Packed(type, {n});
        const OperatorDesc desc = DescribeFunction(function, t, t);
        SetFpControl(state);
        const Status status = Execute(*cpu, desc, ConstBinding{in.data(), in.size()},
                                      Binding{out.data(), out.size()});
        SetFpControl(saved);
        ASSERT_TRUE(status.ok());
        ExpectMatchesOracle(function, type, in, out.data(), ElementSize(type),
                            FpControlName(state));
      }
    }
  }
}
#endif

}  // namespace
}  // namespace eltwise::testing
