// Inputs the fuzzers (fuzz/) found that eltwise mishandled, kept as plain tests so the default and
// sanitizer test runs (ctest --preset asan: UBSan catches the arithmetic ones) cover them.
#include <gtest/gtest.h>

#include <cstdint>
#include <limits>

#include "eltwise/eltwise.h"

namespace eltwise::testing {
namespace {

// An output with a zero-sized dimension has no elements, so no two share an address, whichever
// dimension is zero-sized and whatever the strides of the others (was rejected as overlapping
// when a stride-0 dimension came before the zero-sized one).
TEST(FuzzRegression, EmptyOutputWithZeroStrideIsNotOverlapping) {
  const TensorDesc t = TensorDesc::Strided(DataType::kFloat16, {2, 0, 50}, {0, 5, 1});
  const Status s = Validate(FeatureLevel::kExtended, SignDesc{t, t});
  EXPECT_TRUE(s.ok()) << s.ToString();
}

// Sizes whose running product overflows before a later zero-sized dimension: the tensor is empty
// (was rejected as "multiply to more than 2^64 - 1 elements"; found through a .npy shape).
TEST(FuzzRegression, ZeroSizedDimensionAfterHugeOnesIsEmpty) {
  const TensorDesc t =
      TensorDesc::Packed(DataType::kFloat32, {51615, 15, 110, 5000105, 10100, 50, 0});
  const Status s = Validate(FeatureLevel::kExtended, RoundDesc{t, t});
  ASSERT_TRUE(s.ok()) << s.ToString();
  Expected<CompiledOperator> op = Compile(*Device::Cpu(), RoundDesc{t, t});
  ASSERT_TRUE(op.ok());
  EXPECT_TRUE(op->Execute(ConstBinding{}, Binding{}).ok());  // no elements: nothing to bind
}

// Strides near the int64 limits whose span still fits in 64 bits: planning must not overflow
// (signed overflow in the dim-merge test and in negating INT64_MIN, reported by UBSan), and
// execution is then refused because no buffer can be that large.
TEST(FuzzRegression, PlanningHugeStridesDoesNotOverflow) {
  const Device cpu = *Device::Cpu();
  const int64_t q = int64_t{1} << 62;
  const TensorDesc merged = TensorDesc::Strided(DataType::kInt8, {2, 3}, {q + 1, q});
  const TensorDesc minimum =
      TensorDesc::Strided(DataType::kUInt8, {2}, {std::numeric_limits<int64_t>::min()});
  for (const TensorDesc& t : {merged, minimum}) {
    Expected<CompiledOperator> op = Compile(cpu, SignDesc{t, t});
    ASSERT_TRUE(op.ok()) << op.status().ToString();
    std::byte buffer[64] = {};
    const Status s =
        op->Execute(ConstBinding{buffer, sizeof buffer}, Binding{buffer, sizeof buffer});
    EXPECT_EQ(s.code(), StatusCode::kInvalidArgument);
  }
}

}  // namespace
}  // namespace eltwise::testing
