// One test per validation rule of docs/semantics.md section 2: accepted and rejected at the
// boundary of each feature level, with the message naming the field and the rule.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <vector>

#include "eltwise/eltwise.h"

namespace eltwise {
namespace {

using ::testing::HasSubstr;

constexpr FeatureLevel kDirectMLLevels[] = {
    FeatureLevel::k2_0, FeatureLevel::k2_1, FeatureLevel::k3_0, FeatureLevel::k3_1,
    FeatureLevel::k4_0, FeatureLevel::k4_1, FeatureLevel::k5_0, FeatureLevel::k5_1,
    FeatureLevel::k5_2, FeatureLevel::k6_0, FeatureLevel::k6_1, FeatureLevel::k6_2,
    FeatureLevel::k6_3, FeatureLevel::k6_4};

TensorDesc Packed4(DataType type, std::vector<uint64_t> sizes = {1, 2, 3, 4}) {
  return TensorDesc::Packed(type, std::move(sizes));
}

Status ValidateSign(FeatureLevel level, const TensorDesc& t) {
  return Validate(level, SignDesc{t, t, NanPolicy::kZero});
}
Status ValidateRound(FeatureLevel level, const TensorDesc& t,
                     RoundingMode mode = RoundingMode::kHalvesToNearestEven) {
  return Validate(level, RoundDesc{t, t, mode});
}

void ExpectRejected(const Status& s, const std::vector<std::string>& fragments) {
  ASSERT_FALSE(s.ok()) << "accepted, expected a message containing " << fragments[0];
  EXPECT_EQ(s.code(), StatusCode::kInvalidArgument);
  for (const std::string& f : fragments) EXPECT_THAT(s.message(), HasSubstr(f));
}

// ---- Operator availability per level ----

TEST(Availability, SignNeedsLevel2_0) {
  ExpectRejected(ValidateSign(FeatureLevel::k1_0, Packed4(DataType::kFloat32)),
                 {"Sign is not available at feature level 1_0", "2_0 or higher"});
  EXPECT_TRUE(ValidateSign(FeatureLevel::k2_0, Packed4(DataType::kFloat32)).ok());
}

TEST(Availability, RoundNeedsLevel2_1) {
  ExpectRejected(ValidateRound(FeatureLevel::k2_0, Packed4(DataType::kFloat32)),
                 {"Round is not available at feature level 2_0", "2_1 or higher"});
  EXPECT_TRUE(ValidateRound(FeatureLevel::k2_1, Packed4(DataType::kFloat32)).ok());
}

TEST(Availability, UnknownLevelIsRejected) {
  ExpectRejected(ValidateSign(static_cast<FeatureLevel>(0x2050), Packed4(DataType::kFloat32)),
                 {"is not a DirectML feature level"});
  Expected<Device> device = Device::Cpu({static_cast<FeatureLevel>(7), 1});
  ASSERT_FALSE(device.ok());
  EXPECT_THAT(device.status().message(), HasSubstr("feature_level 7"));
}

// ---- Data types per level ----

TEST(Types, SignAtEveryLevel) {
  const std::vector<DataType> small_ints = {DataType::kInt8,  DataType::kInt16,  DataType::kInt32,
                                            DataType::kUInt8, DataType::kUInt16, DataType::kUInt32};
  for (FeatureLevel level : kDirectMLLevels) {
    SCOPED_TRACE(std::string(Name(level)));
    const bool at_least_2_1 = level >= FeatureLevel::k2_1;
    const bool at_least_4_1 = level >= FeatureLevel::k4_1;
    EXPECT_TRUE(ValidateSign(level, Packed4(DataType::kFloat32)).ok());
    EXPECT_TRUE(ValidateSign(level, Packed4(DataType::kFloat16)).ok());
    for (DataType t : small_ints) EXPECT_EQ(ValidateSign(level, Packed4(t)).ok(), at_least_2_1);
    EXPECT_EQ(ValidateSign(level, Packed4(DataType::kInt64)).ok(), at_least_4_1);
    EXPECT_EQ(ValidateSign(level, Packed4(DataType::kUInt64)).ok(), at_least_4_1);
    ExpectRejected(ValidateSign(level, Packed4(DataType::kFloat64)),
                   {"input.type is float64", "Sign at feature level " + std::string(Name(level))});
    ExpectRejected(ValidateSign(level, Packed4(DataType::kBFloat16)), {"input.type is bfloat16"});
  }
  ExpectRejected(ValidateSign(FeatureLevel::k2_0, Packed4(DataType::kInt8)),
                 {"input.type is int8", "accepts float32, float16"});
  ExpectRejected(ValidateSign(FeatureLevel::k4_0, Packed4(DataType::kInt64)),
                 {"input.type is int64"});
}

TEST(Types, RoundAtEveryLevel) {
  for (FeatureLevel level : kDirectMLLevels) {
    if (level < FeatureLevel::k2_1) continue;
    SCOPED_TRACE(std::string(Name(level)));
    EXPECT_TRUE(ValidateRound(level, Packed4(DataType::kFloat32)).ok());
    EXPECT_TRUE(ValidateRound(level, Packed4(DataType::kFloat16)).ok());
    for (DataType t : {DataType::kFloat64, DataType::kBFloat16, DataType::kInt8, DataType::kInt32,
                       DataType::kUInt64}) {
      ExpectRejected(ValidateRound(level, Packed4(t)),
                     {"input.type is " + std::string(Name(t)), "accepts float32, float16"});
    }
  }
}

TEST(Types, ExtendedAcceptsAllTwelveForBothOps) {
  for (int t = 0; t < kDataTypeCount; ++t) {
    const auto type = static_cast<DataType>(t);
    EXPECT_TRUE(ValidateSign(FeatureLevel::kExtended, Packed4(type)).ok()) << Name(type);
    EXPECT_TRUE(ValidateRound(FeatureLevel::kExtended, Packed4(type)).ok()) << Name(type);
  }
}

TEST(Types, InvalidEnumValue) {
  TensorDesc t = Packed4(DataType::kFloat32);
  t.type = static_cast<DataType>(40);
  ExpectRejected(ValidateSign(FeatureLevel::kExtended, t), {"input.type is 40", "not a data type"});
}

TEST(Types, TheValueAfterTheLastTypeIsInvalid) {
  TensorDesc t = Packed4(DataType::kFloat32);
  t.type = static_cast<DataType>(kDataTypeCount);
  ExpectRejected(ValidateSign(FeatureLevel::kExtended, t),
                 {"input.type is " + std::to_string(kDataTypeCount), "not a data type"});
}

TEST(Types, InputAndOutputMustMatch) {
  ExpectRejected(Validate(FeatureLevel::kExtended,
                          SignDesc{Packed4(DataType::kFloat32), Packed4(DataType::kFloat16)}),
                 {"output.type is float16 but input.type is float32", "same type"});
}

// ---- Ranks per level ----

TEST(Ranks, FourOnlyBefore3_0) {
  for (FeatureLevel level : {FeatureLevel::k2_0, FeatureLevel::k2_1}) {
    EXPECT_TRUE(ValidateSign(level, Packed4(DataType::kFloat32, {2, 2, 2, 2})).ok());
    ExpectRejected(ValidateSign(level, Packed4(DataType::kFloat32, {2, 2, 2})),
                   {"input.sizes has 3 dimensions", "requires exactly 4"});
    ExpectRejected(ValidateSign(level, Packed4(DataType::kFloat32, {1, 2, 2, 2, 2})),
                   {"input.sizes has 5 dimensions"});
  }
  ExpectRejected(ValidateRound(FeatureLevel::k2_1, Packed4(DataType::kFloat32, {2})),
                 {"input.sizes has 1 dimensions", "Round at feature level 2_1 requires exactly 4"});
}

TEST(Ranks, OneToEightFrom3_0) {
  for (FeatureLevel level : kDirectMLLevels) {
    if (level < FeatureLevel::k3_0) continue;
    EXPECT_TRUE(ValidateSign(level, Packed4(DataType::kFloat32, {5})).ok());
    EXPECT_TRUE(ValidateRound(level, Packed4(DataType::kFloat32, {1, 1, 1, 1, 1, 1, 1, 5})).ok());
    ExpectRejected(ValidateSign(level, Packed4(DataType::kFloat32, {})),
                   {"input.sizes has 0 dimensions", "requires 1 to 8"});
    ExpectRejected(ValidateRound(level, Packed4(DataType::kFloat32, std::vector<uint64_t>(9, 1))),
                   {"input.sizes has 9 dimensions", "requires 1 to 8"});
  }
}

TEST(Ranks, ZeroToEightExtended) {
  EXPECT_TRUE(ValidateSign(FeatureLevel::kExtended, Packed4(DataType::kFloat32, {})).ok());
  EXPECT_TRUE(ValidateSign(FeatureLevel::kExtended,
                           Packed4(DataType::kFloat32, std::vector<uint64_t>(8, 2)))
                  .ok());
  ExpectRejected(ValidateSign(FeatureLevel::kExtended,
                              Packed4(DataType::kFloat32, std::vector<uint64_t>(9, 1))),
                 {"input.sizes has 9 dimensions", "extended feature level requires 0 to 8"});
}

TEST(Ranks, InputAndOutputMustMatch) {
  ExpectRejected(
      Validate(FeatureLevel::kExtended, SignDesc{Packed4(DataType::kFloat32, {2, 3}),
                                                 Packed4(DataType::kFloat32, {1, 2, 3})}),
      {"output.sizes has 3 dimensions but input.sizes has 2", "same rank"});
}

// ---- Rounding modes ----

TEST(Modes, DownAndUpAreExtendedOnly) {
  for (RoundingMode mode : {RoundingMode::kDown, RoundingMode::kUp}) {
    ExpectRejected(ValidateRound(FeatureLevel::k6_4, Packed4(DataType::kFloat32), mode),
                   {"mode is " + std::string(Name(mode)), "DML_ROUNDING_MODE 0-2"});
    EXPECT_TRUE(ValidateRound(FeatureLevel::kExtended, Packed4(DataType::kFloat32), mode).ok());
  }
  for (int m = 0; m <= 2; ++m) {
    EXPECT_TRUE(
        ValidateRound(FeatureLevel::k3_0, Packed4(DataType::kFloat32), static_cast<RoundingMode>(m))
            .ok());
  }
}

TEST(Modes, OutOfRangeIsRejected) {
  ExpectRejected(ValidateRound(FeatureLevel::kExtended, Packed4(DataType::kFloat32),
                               static_cast<RoundingMode>(5)),
                 {"mode is 5", "rounding modes are 0"});
  ExpectRejected(Validate(FeatureLevel::kExtended,
                          SignDesc{Packed4(DataType::kFloat32), Packed4(DataType::kFloat32),
                                   static_cast<NanPolicy>(2)}),
                 {"nan is 2"});
}

// ---- Sizes and element counts ----

TEST(Sizes, ZeroIsRejectedByDirectMLAndANoOpExtended) {
  const TensorDesc t = Packed4(DataType::kFloat32, {1, 2, 0, 4});
  for (FeatureLevel level : kDirectMLLevels) {
    ExpectRejected(ValidateSign(level, t),
                   {"input.sizes[2] is 0; DirectML requires every size >= 1"});
  }
  EXPECT_TRUE(ValidateSign(FeatureLevel::kExtended, t).ok());
}

TEST(Sizes, MustMatch) {
  ExpectRejected(Validate(FeatureLevel::kExtended, SignDesc{Packed4(DataType::kFloat32, {2, 3}),
                                                            Packed4(DataType::kFloat32, {2, 4})}),
                 {"output.sizes[1] is 4 but input.sizes[1] is 3", "same sizes"});
}

TEST(Sizes, DirectMLSizesAre32Bit) {
  const TensorDesc t = Packed4(DataType::kInt8, {1, 1, 1, 4294967296ull});
  ExpectRejected(ValidateSign(FeatureLevel::k6_4, t), {"input.sizes[3] is 4294967296", "32-bit"});
  EXPECT_TRUE(ValidateSign(FeatureLevel::kExtended, t).ok());
}

TEST(Sizes, DirectMLAcceptsTheLargest32BitSize) {
  const Status s =
      ValidateSign(FeatureLevel::k6_4, Packed4(DataType::kInt8, {1, 1, 1, 4294967295ull}));
  EXPECT_TRUE(s.ok()) << s.message();
}

// Every dimension is compared, the first included.
TEST(Sizes, MustMatchInTheFirstDimension) {
  ExpectRejected(Validate(FeatureLevel::kExtended, SignDesc{Packed4(DataType::kFloat32, {2, 3}),
                                                            Packed4(DataType::kFloat32, {3, 3})}),
                 {"output.sizes[0] is 3 but input.sizes[0] is 2", "same sizes"});
}

TEST(Sizes, DirectMLAllowsAtMost2To32Minus1Elements) {
  // 65535 * 65537 = 2^32 - 1 (accepted); 65536 * 65536 = 2^32 (rejected).
  EXPECT_TRUE(
      ValidateSign(FeatureLevel::k4_1, Packed4(DataType::kInt8, {1, 1, 65535, 65537})).ok());
  ExpectRejected(ValidateSign(FeatureLevel::k4_1, Packed4(DataType::kInt8, {1, 1, 65536, 65536})),
                 {"input has 4294967296 elements", "at most 4294967295"});
  EXPECT_TRUE(
      ValidateSign(FeatureLevel::kExtended, Packed4(DataType::kInt8, {1, 1, 65536, 65536})).ok());
}

TEST(Sizes, ElementCountOverflowIsRejected) {
  TensorDesc t = Packed4(DataType::kInt8, {1ull << 32, 1ull << 32});
  ExpectRejected(ValidateSign(FeatureLevel::kExtended, t), {"more than 2^64 - 1 elements"});
}

// ---- Strides ----

TEST(Strides, NegativeIsExtendedOnly) {
  TensorDesc t = TensorDesc::Strided(DataType::kFloat32, {1, 1, 2, 3}, {6, 6, 3, -1});
  for (FeatureLevel level : kDirectMLLevels) {
    ExpectRejected(ValidateSign(level, t),
                   {"input.strides[3] is -1; DirectML requires non-negative strides"});
  }
  EXPECT_TRUE(ValidateSign(FeatureLevel::kExtended, t).ok());
}

TEST(Strides, CountMustMatchRank) {
  TensorDesc t = Packed4(DataType::kFloat32);
  t.strides = std::vector<int64_t>{1, 2, 3};
  ExpectRejected(ValidateSign(FeatureLevel::kExtended, t),
                 {"input.strides has 3 entries", "one per dimension (4)"});
}

TEST(Strides, DirectMLStridesAre32Bit) {
  TensorDesc t = TensorDesc::Strided(DataType::kInt8, {1, 1, 2, 1}, {0, 0, 4294967296ll, 1});
  ExpectRejected(ValidateSign(FeatureLevel::k6_4, t), {"input.strides[2] is 4294967296"});
}

// Every stride is checked, the first included.
TEST(Strides, DirectMLRefusesA64BitStrideInTheFirstDimension) {
  const TensorDesc t = TensorDesc::Strided(DataType::kInt8, {2, 1, 1, 1}, {4294967296ll, 0, 0, 1});
  ExpectRejected(ValidateSign(FeatureLevel::k6_4, t), {"input.strides[0] is 4294967296"});
}

TEST(Strides, DirectMLAcceptsTheLargest32BitStride) {
  const TensorDesc t = TensorDesc::Strided(DataType::kInt8, {1, 1, 2, 1}, {0, 0, 4294967295ll, 1});
  const Status s = ValidateSign(FeatureLevel::k6_4, t);
  EXPECT_TRUE(s.ok()) << s.message();
}

TEST(Strides, ZeroStrideInputBroadcastIsAccepted) {
  TensorDesc in = TensorDesc::Strided(DataType::kFloat32, {1, 1, 3, 4}, {0, 0, 0, 1});
  TensorDesc out = Packed4(DataType::kFloat32, {1, 1, 3, 4});
  EXPECT_TRUE(Validate(FeatureLevel::k3_0, SignDesc{in, out}).ok());
}

// ---- TotalTensorSizeInBytes ----

TEST(TotalSize, DirectMLRequiresDMLCalcBufferTensorSize) {
  // float16 1x1x1x3: 6 bytes, rounded up to 8.
  TensorDesc t = Packed4(DataType::kFloat16, {1, 1, 1, 3});
  EXPECT_EQ(t.total_tensor_size_in_bytes, 8u);
  EXPECT_TRUE(ValidateSign(FeatureLevel::k2_0, t).ok());
  t.total_tensor_size_in_bytes = 7;
  ExpectRejected(
      ValidateSign(FeatureLevel::k2_0, t),
      {"input.total_tensor_size_in_bytes is 7", "DMLCalcBufferTensorSize requires at least 8"});
  // The extended level needs only the exact span.
  t.total_tensor_size_in_bytes = 6;
  EXPECT_TRUE(ValidateSign(FeatureLevel::kExtended, t).ok());
  t.total_tensor_size_in_bytes = 5;
  ExpectRejected(ValidateSign(FeatureLevel::kExtended, t),
                 {"input.total_tensor_size_in_bytes is 5", "at least 6"});
}

TEST(TotalSize, StridedSpanUsesLastElement) {
  // (1*4 + 2*1 + 1) elements * 4 bytes = 28 bytes.
  TensorDesc t = TensorDesc::Strided(DataType::kFloat32, {1, 1, 2, 3}, {100, 100, 4, 1});
  EXPECT_EQ(t.total_tensor_size_in_bytes, 28u);
  t.total_tensor_size_in_bytes = 27;
  ExpectRejected(ValidateSign(FeatureLevel::k3_0, t), {"requires at least 28"});
}

TEST(TotalSize, SpanOverflowIsRejected) {
  TensorDesc t = TensorDesc::Strided(DataType::kFloat64, {3, 3}, {INT64_MAX / 2, 1});
  t.total_tensor_size_in_bytes = UINT64_MAX;
  ExpectRejected(ValidateSign(FeatureLevel::kExtended, t), {"overflow 64 bits"});
}

TEST(TotalSize, CalcBufferTensorSizeMatchesDirectMLFormula) {
  EXPECT_EQ(CalcBufferTensorSize(DataType::kFloat32, {1, 2, 3, 4}, std::nullopt), 96u);
  EXPECT_EQ(CalcBufferTensorSize(DataType::kUInt8, {1, 1, 1, 5}, std::nullopt), 8u);
  EXPECT_EQ(CalcBufferTensorSize(DataType::kFloat16, {2, 3}, std::vector<int64_t>{0, 1}), 8u);
  EXPECT_EQ(CalcBufferTensorSize(DataType::kInt64, {2, 2}, std::vector<int64_t>{1, 2}), 32u);
  // 64-bit arithmetic: (2^32-1 - 1) * 2^32-1 + 1 elements of 8 bytes does not wrap at 32 bits.
  EXPECT_EQ(CalcBufferTensorSize(DataType::kFloat64, {2, 0xFFFFFFFFull},
                                 std::vector<int64_t>{0xFFFFFFFFll, 1}),
            ((0xFFFFFFFFull + 0xFFFFFFFEull + 1) * 8));
}

// ---- GuaranteedBaseOffsetAlignment ----

TEST(Alignment, ZeroOrPowerOfTwoAtLeastElementSize) {
  TensorDesc t = Packed4(DataType::kFloat32);
  for (uint32_t ok : {0u, 4u, 16u, 256u}) {
    t.guaranteed_base_offset_alignment = ok;
    EXPECT_TRUE(ValidateSign(FeatureLevel::k3_0, t).ok()) << ok;
  }
  for (uint32_t bad : {2u, 3u, 12u}) {
    t.guaranteed_base_offset_alignment = bad;
    ExpectRejected(ValidateSign(FeatureLevel::k3_0, t),
                   {"input.guaranteed_base_offset_alignment is " + std::to_string(bad),
                    "power of two >= the element size (4)"});
  }
}

// ---- Output self-overlap ----

// Above the exact check's limit (2^22 elements) only the sufficient test can accept an output:
// strides that nest, the smallest 1, must pass it.
TEST(OutputOverlap, LargeNestedStridesAreAccepted) {
  const TensorDesc in = TensorDesc::Packed(DataType::kInt8, {4096, 2048});
  const TensorDesc out = TensorDesc::Strided(DataType::kInt8, {4096, 2048}, {2048, 1});
  const Status s = Validate(FeatureLevel::kExtended, SignDesc{in, out});
  EXPECT_TRUE(s.ok()) << s.message();
}

TEST(OutputOverlap, ZeroStrideOutputIsRejected) {
  TensorDesc in = Packed4(DataType::kFloat32, {1, 1, 3, 4});
  TensorDesc out = TensorDesc::Strided(DataType::kFloat32, {1, 1, 3, 4}, {0, 0, 0, 1});
  for (FeatureLevel level : {FeatureLevel::k3_0, FeatureLevel::kExtended}) {
    ExpectRejected(Validate(level, SignDesc{in, out}),
                   {"output.strides[2] is 0 while output.sizes[2] is 3", "share an address"});
  }
}

TEST(OutputOverlap, SizeOneDimsMayHaveAnyStride) {
  TensorDesc in = Packed4(DataType::kFloat32, {1, 1, 3, 4});
  TensorDesc out = TensorDesc::Strided(DataType::kFloat32, {1, 1, 3, 4}, {0, 0, 4, 1});
  EXPECT_TRUE(Validate(FeatureLevel::k3_0, SignDesc{in, out}).ok());
}

TEST(OutputOverlap, InterleavedButDisjointIsAccepted) {
  // Offsets 2i + 3j for i<3, j<2: {0,2,4,3,5,7} are distinct.
  TensorDesc in = Packed4(DataType::kFloat32, {3, 2});
  TensorDesc out = TensorDesc::Strided(DataType::kFloat32, {3, 2}, {2, 3});
  EXPECT_TRUE(Validate(FeatureLevel::kExtended, SignDesc{in, out}).ok());
}

TEST(OutputOverlap, InterleavedAndSharedIsRejected) {
  // Offsets i + 2j for i,j<3: 2 = (2,0) = (0,1).
  TensorDesc in = Packed4(DataType::kFloat32, {3, 3});
  TensorDesc out = TensorDesc::Strided(DataType::kFloat32, {3, 3}, {1, 2});
  ExpectRejected(Validate(FeatureLevel::kExtended, SignDesc{in, out}),
                 {"output.strides map two output elements to the same address"});
  TensorDesc negative = TensorDesc::Strided(DataType::kFloat32, {3, 3}, {-1, 2});
  ExpectRejected(Validate(FeatureLevel::kExtended, SignDesc{in, negative}), {"same address"});
}

// Interleaved strides (3i + 4j, i < 4: disjoint, but not by the sufficient test) at the exact
// check's limit of 2^22 elements are checked and accepted; one row more is refused as unprovable.
TEST(OutputOverlap, InterleavedPastTheExactCheckIsRefused) {
  const auto validate = [](uint64_t rows) {
    const std::vector<uint64_t> sizes = {4, rows};
    return Validate(FeatureLevel::kExtended,
                    SignDesc{TensorDesc::Packed(DataType::kInt8, sizes),
                             TensorDesc::Strided(DataType::kInt8, sizes, {3, 4})});
  };
  const Status at_limit = validate(uint64_t{1} << 20);
  EXPECT_TRUE(at_limit.ok()) << at_limit.message();
  ExpectRejected(validate((uint64_t{1} << 20) + 1),
                 {"output.strides interleave dimensions and the output has more than 2^22 "
                  "elements; eltwise cannot prove that no two output elements share an address"});
}

// ---- Support queries ----

TEST(SupportQueries, MatchTheTable) {
  EXPECT_TRUE(Supports(FeatureLevel::k2_0, Op::kSign, DataType::kFloat16, 4));
  EXPECT_FALSE(Supports(FeatureLevel::k2_0, Op::kSign, DataType::kFloat16, 3));
  EXPECT_FALSE(Supports(FeatureLevel::k2_0, Op::kRound, DataType::kFloat32, 4));
  EXPECT_TRUE(Supports(FeatureLevel::k2_1, Op::kRound, DataType::kFloat32, 4));
  EXPECT_TRUE(Supports(FeatureLevel::k3_0, Op::kSign, DataType::kUInt32, 8));
  EXPECT_FALSE(Supports(FeatureLevel::k4_0, Op::kSign, DataType::kInt64, 2));
  EXPECT_TRUE(Supports(FeatureLevel::k4_1, Op::kSign, DataType::kInt64, 2));
  EXPECT_FALSE(Supports(FeatureLevel::k6_4, Op::kRound, DataType::kInt64, 2));
  EXPECT_TRUE(Supports(FeatureLevel::kExtended, Op::kRound, DataType::kBFloat16, 0));
  EXPECT_FALSE(Supports(FeatureLevel::kExtended, Op::kRound, DataType::kBFloat16, 9));
  EXPECT_FALSE(Supports(FeatureLevel::k6_4, RoundingMode::kUp));
  EXPECT_TRUE(Supports(FeatureLevel::kExtended, RoundingMode::kUp));
}

TEST(SupportQueries, ParseFeatureLevelAcceptsDirectMLNamesAndDots) {
  EXPECT_EQ(ParseFeatureLevel("5_1"), FeatureLevel::k5_1);
  EXPECT_EQ(ParseFeatureLevel("5.1"), FeatureLevel::k5_1);
  EXPECT_EQ(ParseFeatureLevel("DML_FEATURE_LEVEL_5_1"), FeatureLevel::k5_1);
  EXPECT_EQ(ParseFeatureLevel("DML_FEATURE_LEVEL_6.4"), FeatureLevel::k6_4);
  EXPECT_EQ(ParseFeatureLevel("1_0"), FeatureLevel::k1_0);
  EXPECT_EQ(ParseFeatureLevel("extended"), FeatureLevel::kExtended);
  EXPECT_EQ(ParseFeatureLevel("FEATURE_LEVEL_5_1"), std::nullopt);
  EXPECT_EQ(ParseFeatureLevel("5-1"), std::nullopt);
  EXPECT_EQ(ParseFeatureLevel(""), std::nullopt);
  EXPECT_EQ(AllFeatureLevels().size(), 16u);  // 1_0 ... 6_4 and extended, each once
}

// An unknown level supports nothing, and an option value past the last one is no option.
TEST(SupportQueries, UnknownLevelsAndOptionValuesSupportNothing) {
  const auto unknown = static_cast<FeatureLevel>(0x9900);
  EXPECT_FALSE(Supports(unknown, RoundingMode::kHalvesToNearestEven));
  EXPECT_FALSE(Supports(unknown, Op::kSign, DataType::kFloat32, 4));
  const auto past_last = static_cast<RoundingMode>(kRoundingModeCount);
  EXPECT_FALSE(Supports(FeatureLevel::kExtended, past_last));
  EXPECT_FALSE(Supports(FeatureLevel::k6_4, past_last));
  EXPECT_FALSE(Supports(FeatureLevel::kExtended, static_cast<RoundingMode>(-1)));
  EXPECT_TRUE(Supports(FeatureLevel::kExtended, static_cast<RoundingMode>(kRoundingModeCount - 1)));
}

TEST(SupportQueries, HighestSupported) {
  const FeatureLevel requested[] = {FeatureLevel::k3_0, FeatureLevel::k6_1, FeatureLevel::k4_1};
  EXPECT_EQ(HighestSupported(requested), FeatureLevel::k6_1);
  const FeatureLevel with_unknown[] = {FeatureLevel::k2_0, static_cast<FeatureLevel>(0x9900)};
  EXPECT_EQ(HighestSupported(with_unknown), FeatureLevel::k2_0);
  EXPECT_EQ(HighestSupported({}), std::nullopt);
}

TEST(SupportQueries, ValidatorAgreesWithSupports) {
  for (FeatureLevel level : AllFeatureLevels()) {
    for (int t = 0; t < kDataTypeCount; ++t) {
      for (int rank = 0; rank <= 9; ++rank) {
        const auto type = static_cast<DataType>(t);
        const TensorDesc desc = Packed4(type, std::vector<uint64_t>(rank, 2));
        EXPECT_EQ(ValidateSign(level, desc).ok(), Supports(level, Op::kSign, type, rank));
        EXPECT_EQ(ValidateRound(level, desc).ok(), Supports(level, Op::kRound, type, rank));
      }
    }
  }
}

// ---- Bindings (checked at Execute) and nothing written on error ----

class BindingTest : public ::testing::Test {
 protected:
  std::vector<float> in = std::vector<float>(24, -2.5f);
  std::vector<float> out = std::vector<float>(32, 7.0f);
  void ExpectOutputUntouched() {
    for (float v : out) ASSERT_EQ(v, 7.0f);
  }
};

TEST_F(BindingTest, NullAndShortBuffersAreRejected) {
  const Device device = *Device::Cpu({FeatureLevel::kExtended, 1});
  const TensorDesc t = Packed4(DataType::kFloat32);
  const CompiledOperator op = *Compile(device, SignDesc{t, t});
  ExpectRejected(op.Execute({nullptr, 96}, {out.data(), 96}), {"input binding is null"});
  ExpectRejected(op.Execute({in.data(), 92}, {out.data(), 96}),
                 {"input binding has 92 bytes", "requires at least 96"});
  ExpectRejected(op.Execute({in.data(), 96}, {out.data(), 95}), {"output binding has 95 bytes"});
  ExpectOutputUntouched();
}

TEST_F(BindingTest, DirectMLLevelsRequire16ByteAlignment) {
  const TensorDesc t = Packed4(DataType::kFloat32, {1, 1, 1, 4});
  alignas(64) float src[8] = {1, 2, 3, 4, 5, 6, 7, 8};
  alignas(64) float dst[8] = {7, 7, 7, 7, 7, 7, 7, 7};
  const CompiledOperator dml = *Compile(*Device::Cpu({FeatureLevel::k3_0, 1}), SignDesc{t, t});
  ExpectRejected(dml.Execute({src + 1, 16}, {dst, 16}), {"input binding address", "16 bytes"});
  ExpectRejected(dml.Execute({src, 16}, {dst + 1, 16}), {"output binding address"});
  for (float v : dst) EXPECT_EQ(v, 7.0f);
  EXPECT_TRUE(dml.Execute({src, 16}, {dst, 16}).ok());
  // Extended: any address.
  const CompiledOperator ext = *Compile(*Device::Cpu({FeatureLevel::kExtended, 1}), SignDesc{t, t});
  EXPECT_TRUE(ext.Execute({src + 1, 16}, {dst + 3, 16}).ok());
  EXPECT_EQ(dst[3], 1.0f);
}

// A guaranteed alignment below 16 does not lower DirectML's 16-byte rule: the binding must meet the
// larger of the two.
TEST_F(BindingTest, DirectMLLevelsKeep16BytesAboveASmallerGuarantee) {
  TensorDesc t = Packed4(DataType::kFloat32, {1, 1, 1, 4});
  t.guaranteed_base_offset_alignment = 4;
  alignas(64) float src[8] = {1, 2, 3, 4, 5, 6, 7, 8};
  alignas(64) float dst[8] = {7, 7, 7, 7, 7, 7, 7, 7};
  const CompiledOperator dml = *Compile(*Device::Cpu({FeatureLevel::k6_4, 1}), SignDesc{t, t});
  ExpectRejected(dml.Execute({src + 1, 16}, {dst, 16}), {"input binding address", "16 bytes"});
  ExpectRejected(dml.Execute({src, 16}, {dst + 2, 16}), {"output binding address", "16 bytes"});
  for (float v : dst) EXPECT_EQ(v, 7.0f);
  EXPECT_TRUE(dml.Execute({src + 4, 16}, {dst + 4, 16}).ok());
  EXPECT_EQ(dst[4], 1.0f);
  // The extended level takes the guarantee as it is: a 4-byte aligned binding is accepted.
  const CompiledOperator ext = *Compile(*Device::Cpu({FeatureLevel::kExtended, 1}), SignDesc{t, t});
  EXPECT_TRUE(ext.Execute({src + 1, 16}, {dst + 1, 16}).ok());
  EXPECT_EQ(dst[1], 1.0f);
}

TEST_F(BindingTest, GuaranteedAlignmentIsEnforced) {
  TensorDesc t = Packed4(DataType::kFloat32, {1, 1, 1, 4});
  t.guaranteed_base_offset_alignment = 32;
  alignas(64) float src[16] = {};
  alignas(64) float dst[16] = {};
  const CompiledOperator op = *Compile(*Device::Cpu(), SignDesc{t, t});
  ExpectRejected(op.Execute({src + 4, 16}, {dst, 16}), {"not aligned to 32 bytes"});
  EXPECT_TRUE(op.Execute({src + 8, 16}, {dst, 16}).ok());
}

TEST_F(BindingTest, ValidationFailureWritesNothing) {
  TensorDesc bad = Packed4(DataType::kFloat32, {1, 2, 0, 4});
  const Device device = *Device::Cpu({FeatureLevel::k3_0, 1});
  ExpectRejected(Execute(device, SignDesc{bad, bad}, {in.data(), 96}, {out.data(), 128}),
                 {"input.sizes[2] is 0"});
  ExpectOutputUntouched();
}

TEST(ThreadsOption, NegativeIsRejected) {
  Expected<Device> d = Device::Cpu({FeatureLevel::kExtended, -1});
  ASSERT_FALSE(d.ok());
  EXPECT_THAT(d.status().message(), HasSubstr("threads is -1"));
}

}  // namespace
}  // namespace eltwise
