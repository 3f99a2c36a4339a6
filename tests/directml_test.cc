// eltwise/directml.h against Microsoft's DirectML.h (DirectML 1.16, DML_TARGET_VERSION 0x6400) and
// DirectMLX.h: every value, constant and struct offset it declares, the flag operators,
// DMLCalcBufferTensorSize for every data type, and the structural checks of the translation.
// Expected values are the published header's, written out here (docs/directml.md says where each
// comes from).
#include "eltwise/directml.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cmath>
#include <cstddef>
#include <cstring>
#include <iterator>
#include <type_traits>
#include <vector>

namespace {

using ::testing::HasSubstr;

static_assert(DML_TARGET_VERSION == 0x6400, "the default target is the latest, as DirectML.h's");

TEST(DirectML, ConstantsAreDirectMLs) {
  static_assert(std::is_same_v<decltype(DML_TENSOR_DIMENSION_COUNT_MAX), const uint32_t>);
  static_assert(DML_TENSOR_DIMENSION_COUNT_MAX == 5);
  static_assert(DML_TENSOR_DIMENSION_COUNT_MAX1 == 8);  // constant expressions, as in C++ DirectML
  static_assert(DML_TEMPORARY_BUFFER_ALIGNMENT == 256);
  static_assert(DML_PERSISTENT_BUFFER_ALIGNMENT == 256);
  static_assert(DML_MINIMUM_BUFFER_TENSOR_ALIGNMENT == 16);
  EXPECT_EQ(DML_TENSOR_DIMENSION_COUNT_MAX1, static_cast<uint32_t>(eltwise::kMaxRank));
}

TEST(DirectML, EnumValuesAreDirectMLs) {
  static_assert(sizeof(DML_TENSOR_DATA_TYPE) == 4 && sizeof(DML_TENSOR_FLAGS) == 4);
  static_assert(std::is_same_v<std::underlying_type_t<DML_TENSOR_DATA_TYPE>, int>);
  // DML_TENSOR_DATA_TYPE, value by value.
  EXPECT_EQ(DML_TENSOR_DATA_TYPE_UNKNOWN, 0);
  EXPECT_EQ(DML_TENSOR_DATA_TYPE_FLOAT32, 1);
  EXPECT_EQ(DML_TENSOR_DATA_TYPE_FLOAT16, 2);
  EXPECT_EQ(DML_TENSOR_DATA_TYPE_UINT32, 3);
  EXPECT_EQ(DML_TENSOR_DATA_TYPE_UINT16, 4);
  EXPECT_EQ(DML_TENSOR_DATA_TYPE_UINT8, 5);
  EXPECT_EQ(DML_TENSOR_DATA_TYPE_INT32, 6);
  EXPECT_EQ(DML_TENSOR_DATA_TYPE_INT16, 7);
  EXPECT_EQ(DML_TENSOR_DATA_TYPE_INT8, 8);
  EXPECT_EQ(DML_TENSOR_DATA_TYPE_FLOAT64, 9);
  EXPECT_EQ(DML_TENSOR_DATA_TYPE_UINT64, 10);
  EXPECT_EQ(DML_TENSOR_DATA_TYPE_INT64, 11);
  EXPECT_EQ(DML_TENSOR_DATA_TYPE_UINT4, 12);
  EXPECT_EQ(DML_TENSOR_DATA_TYPE_INT4, 13);
  // DML_TENSOR_TYPE, DML_TENSOR_FLAGS.
  EXPECT_EQ(DML_TENSOR_TYPE_INVALID, 0);
  EXPECT_EQ(DML_TENSOR_TYPE_BUFFER, 1);
  EXPECT_EQ(DML_TENSOR_FLAG_NONE, 0x0);
  EXPECT_EQ(DML_TENSOR_FLAG_OWNED_BY_DML, 0x1);
  // DML_OPERATOR_TYPE: the position of each in DirectML.h's enumeration.
  EXPECT_EQ(DML_OPERATOR_INVALID, 0);
  EXPECT_EQ(DML_OPERATOR_ELEMENT_WISE_SIGN, 79);
  EXPECT_EQ(DML_OPERATOR_ELEMENT_WISE_ROUND, 99);
  // DML_ROUNDING_MODE.
  EXPECT_EQ(DML_ROUNDING_MODE_HALVES_TO_NEAREST_EVEN, 0);
  EXPECT_EQ(DML_ROUNDING_MODE_TOWARD_ZERO, 1);
  EXPECT_EQ(DML_ROUNDING_MODE_TOWARD_INFINITY, 2);
  // DML_FEATURE_LEVEL, and each one's eltwise level.
  const std::pair<DML_FEATURE_LEVEL, int> levels[] = {
      {DML_FEATURE_LEVEL_1_0, 0x1000}, {DML_FEATURE_LEVEL_2_0, 0x2000},
      {DML_FEATURE_LEVEL_2_1, 0x2100}, {DML_FEATURE_LEVEL_3_0, 0x3000},
      {DML_FEATURE_LEVEL_3_1, 0x3100}, {DML_FEATURE_LEVEL_4_0, 0x4000},
      {DML_FEATURE_LEVEL_4_1, 0x4100}, {DML_FEATURE_LEVEL_5_0, 0x5000},
      {DML_FEATURE_LEVEL_5_1, 0x5100}, {DML_FEATURE_LEVEL_5_2, 0x5200},
      {DML_FEATURE_LEVEL_6_0, 0x6000}, {DML_FEATURE_LEVEL_6_1, 0x6100},
      {DML_FEATURE_LEVEL_6_2, 0x6200}, {DML_FEATURE_LEVEL_6_3, 0x6300},
      {DML_FEATURE_LEVEL_6_4, 0x6400}};
  const char* names[] = {"1_0", "2_0", "2_1", "3_0", "3_1", "4_0", "4_1", "5_0",
                         "5_1", "5_2", "6_0", "6_1", "6_2", "6_3", "6_4"};
  for (size_t i = 0; i < std::size(levels); ++i) {
    EXPECT_EQ(static_cast<int>(levels[i].first), levels[i].second) << names[i];
    EXPECT_EQ(eltwise::Name(eltwise::ToFeatureLevel(levels[i].first)), names[i]);
  }
}

// Offsets as DirectML.h lays the structs out with 8-byte pointers (x64 and arm64, where DirectML
// runs); 4-byte enums and UINTs, an 8-byte UINT64.
TEST(DirectML, StructLayoutsAreDirectMLs) {
  if (sizeof(void*) != 8) GTEST_SKIP() << "layouts are written out for 8-byte pointers";
  EXPECT_EQ(offsetof(DML_BUFFER_TENSOR_DESC, DataType), 0u);
  EXPECT_EQ(offsetof(DML_BUFFER_TENSOR_DESC, Flags), 4u);
  EXPECT_EQ(offsetof(DML_BUFFER_TENSOR_DESC, DimensionCount), 8u);
  EXPECT_EQ(offsetof(DML_BUFFER_TENSOR_DESC, Sizes), 16u);
  EXPECT_EQ(offsetof(DML_BUFFER_TENSOR_DESC, Strides), 24u);
  EXPECT_EQ(offsetof(DML_BUFFER_TENSOR_DESC, TotalTensorSizeInBytes), 32u);
  EXPECT_EQ(offsetof(DML_BUFFER_TENSOR_DESC, GuaranteedBaseOffsetAlignment), 40u);
  EXPECT_EQ(sizeof(DML_BUFFER_TENSOR_DESC), 48u);
  EXPECT_EQ(offsetof(DML_TENSOR_DESC, Type), 0u);
  EXPECT_EQ(offsetof(DML_TENSOR_DESC, Desc), 8u);
  EXPECT_EQ(sizeof(DML_TENSOR_DESC), 16u);
  EXPECT_EQ(offsetof(DML_OPERATOR_DESC, Type), 0u);
  EXPECT_EQ(offsetof(DML_OPERATOR_DESC, Desc), 8u);
  EXPECT_EQ(sizeof(DML_OPERATOR_DESC), 16u);
  EXPECT_EQ(offsetof(DML_ELEMENT_WISE_SIGN_OPERATOR_DESC, InputTensor), 0u);
  EXPECT_EQ(offsetof(DML_ELEMENT_WISE_SIGN_OPERATOR_DESC, OutputTensor), 8u);
  EXPECT_EQ(sizeof(DML_ELEMENT_WISE_SIGN_OPERATOR_DESC), 16u);
  EXPECT_EQ(offsetof(DML_ELEMENT_WISE_ROUND_OPERATOR_DESC, InputTensor), 0u);
  EXPECT_EQ(offsetof(DML_ELEMENT_WISE_ROUND_OPERATOR_DESC, OutputTensor), 8u);
  EXPECT_EQ(offsetof(DML_ELEMENT_WISE_ROUND_OPERATOR_DESC, RoundingMode), 16u);
  EXPECT_EQ(sizeof(DML_ELEMENT_WISE_ROUND_OPERATOR_DESC), 24u);
  static_assert(std::is_standard_layout_v<DML_BUFFER_TENSOR_DESC> &&
                std::is_trivially_copyable_v<DML_BUFFER_TENSOR_DESC>);
}

// DEFINE_ENUM_FLAG_OPERATORS(DML_TENSOR_FLAGS): |, |=, &, &=, ~, ^, ^= on the underlying int.
TEST(DirectML, FlagOperators) {
  constexpr DML_TENSOR_FLAGS owned = DML_TENSOR_FLAG_NONE | DML_TENSOR_FLAG_OWNED_BY_DML;
  static_assert(owned == DML_TENSOR_FLAG_OWNED_BY_DML);
  static_assert(std::is_same_v<decltype(owned | owned), DML_TENSOR_FLAGS>);
  static_assert((owned & DML_TENSOR_FLAG_NONE) == DML_TENSOR_FLAG_NONE);
  static_assert((owned ^ owned) == DML_TENSOR_FLAG_NONE);
  static_assert(static_cast<int>(~DML_TENSOR_FLAG_NONE) == -1);
  static_assert(static_cast<int>(~DML_TENSOR_FLAG_OWNED_BY_DML) == -2);
  static_assert((~DML_TENSOR_FLAG_OWNED_BY_DML & owned) == DML_TENSOR_FLAG_NONE);

  DML_BUFFER_TENSOR_DESC desc = {};
  desc.Flags |= DML_TENSOR_FLAG_OWNED_BY_DML;  // as onnxruntime flags constant inputs
  EXPECT_EQ(desc.Flags, DML_TENSOR_FLAG_OWNED_BY_DML);
  static_assert(std::is_same_v<decltype(desc.Flags |= owned), DML_TENSOR_FLAGS&>);
  EXPECT_EQ(&(desc.Flags |= DML_TENSOR_FLAG_NONE), &desc.Flags);
  EXPECT_TRUE(desc.Flags & DML_TENSOR_FLAG_OWNED_BY_DML);
  desc.Flags ^= DML_TENSOR_FLAG_OWNED_BY_DML;
  EXPECT_EQ(desc.Flags, DML_TENSOR_FLAG_NONE);
  desc.Flags ^= DML_TENSOR_FLAG_OWNED_BY_DML;
  desc.Flags &= ~DML_TENSOR_FLAG_OWNED_BY_DML;
  EXPECT_EQ(desc.Flags, DML_TENSOR_FLAG_NONE);
  desc.Flags |= owned;
  desc.Flags &= owned;
  EXPECT_EQ(desc.Flags, DML_TENSOR_FLAG_OWNED_BY_DML);
  EXPECT_EQ(&(desc.Flags &= owned), &desc.Flags);
  EXPECT_EQ(&(desc.Flags ^= DML_TENSOR_FLAG_NONE), &desc.Flags);
}

// DirectMLX.h's formula, written out: the index one past the last element (the product of the
// sizes when packed), times the element's bits, in whole bytes, rounded up to 4.
uint64_t WantedSize(uint64_t bits, const std::vector<uint32_t>& sizes,
                    const std::vector<uint32_t>& strides) {
  uint64_t elements = 1;
  if (strides.empty()) {
    for (uint32_t s : sizes) elements *= s;
  } else {
    for (size_t i = 0; i < sizes.size(); ++i) elements += uint64_t{sizes[i] - 1} * strides[i];
  }
  const uint64_t bytes = (elements * bits + 7) / 8;
  return (bytes + 3) / 4 * 4;
}

TEST(DirectML, CalcBufferTensorSizeForEveryDataType) {
  const std::pair<DML_TENSOR_DATA_TYPE, uint64_t> types[] = {
      {DML_TENSOR_DATA_TYPE_FLOAT32, 32}, {DML_TENSOR_DATA_TYPE_FLOAT16, 16},
      {DML_TENSOR_DATA_TYPE_UINT32, 32},  {DML_TENSOR_DATA_TYPE_UINT16, 16},
      {DML_TENSOR_DATA_TYPE_UINT8, 8},    {DML_TENSOR_DATA_TYPE_INT32, 32},
      {DML_TENSOR_DATA_TYPE_INT16, 16},   {DML_TENSOR_DATA_TYPE_INT8, 8},
      {DML_TENSOR_DATA_TYPE_FLOAT64, 64}, {DML_TENSOR_DATA_TYPE_UINT64, 64},
      {DML_TENSOR_DATA_TYPE_INT64, 64},   {DML_TENSOR_DATA_TYPE_UINT4, 4},
      {DML_TENSOR_DATA_TYPE_INT4, 4}};
  const std::vector<std::pair<std::vector<uint32_t>, std::vector<uint32_t>>> shapes = {
      {{100}, {}},
      {{1}, {}},
      {{3}, {}},
      {{7}, {}},
      {{9}, {}},
      {{1, 2, 3, 5}, {}},
      {{1, 2, 3, 5}, {0, 16, 5, 1}},   // padded rows
      {{2, 3, 4}, {1, 8, 2}},          // transposed
      {{4, 4}, {0, 0}},                // one element broadcast
      {{2, 3, 1, 1, 1, 1, 1, 5}, {}},  // DML_TENSOR_DIMENSION_COUNT_MAX1 dimensions
      {{3, 1, 1, 1, 1, 1, 1, 7}, {7, 0, 0, 0, 0, 0, 0, 1}},
      {{65536, 65536}, {}},  // 2^32 elements: 64-bit sizes
  };
  for (const auto& [type, bits] : types) {
    for (const auto& [sizes, strides] : shapes) {
      const uint64_t got =
          DMLCalcBufferTensorSize(type, static_cast<uint32_t>(sizes.size()), sizes.data(),
                                  strides.empty() ? nullptr : strides.data());
      EXPECT_EQ(got, WantedSize(bits, sizes, strides))
          << "type " << type << " rank " << sizes.size() << " strided " << !strides.empty();
    }
  }
  // Spot values, written out.
  const uint32_t hundred[1] = {100};
  EXPECT_EQ(DMLCalcBufferTensorSize(DML_TENSOR_DATA_TYPE_UINT4, 1, hundred, nullptr), 52u);
  EXPECT_EQ(DMLCalcBufferTensorSize(DML_TENSOR_DATA_TYPE_INT4, 1, hundred, nullptr), 52u);
  EXPECT_EQ(DMLCalcBufferTensorSize(DML_TENSOR_DATA_TYPE_UINT8, 1, hundred, nullptr), 100u);
  EXPECT_EQ(DMLCalcBufferTensorSize(DML_TENSOR_DATA_TYPE_FLOAT16, 1, hundred, nullptr), 200u);
  const uint32_t sizes[4] = {1, 2, 3, 5};
  EXPECT_EQ(DMLCalcBufferTensorSize(DML_TENSOR_DATA_TYPE_FLOAT16, 4, sizes, nullptr), 60u);
  EXPECT_EQ(DMLCalcBufferTensorSize(DML_TENSOR_DATA_TYPE_UINT8, 4, sizes, nullptr), 32u);
  EXPECT_EQ(DMLCalcBufferTensorSize(DML_TENSOR_DATA_TYPE_INT4, 4, sizes, nullptr), 16u);
  const uint32_t strides[4] = {0, 16, 5, 1};
  // (1*16 + 2*5 + 4*1 + 1) * 4 = 124; 4-bit: ceil(31 / 2) = 16.
  EXPECT_EQ(DMLCalcBufferTensorSize(DML_TENSOR_DATA_TYPE_FLOAT32, 4, sizes, strides), 124u);
  EXPECT_EQ(DMLCalcBufferTensorSize(DML_TENSOR_DATA_TYPE_UINT4, 4, sizes, strides), 16u);
  // No size for what has none: unknown types, null sizes.
  EXPECT_EQ(DMLCalcBufferTensorSize(DML_TENSOR_DATA_TYPE_UNKNOWN, 4, sizes, nullptr), 0u);
  EXPECT_EQ(DMLCalcBufferTensorSize(static_cast<DML_TENSOR_DATA_TYPE>(14), 4, sizes, nullptr), 0u);
  EXPECT_EQ(DMLCalcBufferTensorSize(DML_TENSOR_DATA_TYPE_UINT4, 4, nullptr, nullptr), 0u);
  // eltwise sums the strided index in 64 bits, where DirectMLX's 32-bit sum would wrap:
  // (65535 * 65537 + 65535 + 1) * 4 bytes.
  const uint32_t big_sizes[2] = {65536, 65536};
  const uint32_t big_strides[2] = {65537, 1};
  EXPECT_EQ(DMLCalcBufferTensorSize(DML_TENSOR_DATA_TYPE_FLOAT32, 2, big_sizes, big_strides),
            (uint64_t{65535} * 65537 + 65536) * 4);
}

TEST(DirectML, RoundLikeTheDocumentationSample) {
  uint32_t tensorSizes[4] = {1, 1, 3, 3};
  DML_BUFFER_TENSOR_DESC bufferTensorDesc = {};
  bufferTensorDesc.DataType = DML_TENSOR_DATA_TYPE_FLOAT32;
  bufferTensorDesc.Flags = DML_TENSOR_FLAG_NONE;
  bufferTensorDesc.DimensionCount = static_cast<uint32_t>(std::size(tensorSizes));
  bufferTensorDesc.Sizes = tensorSizes;
  bufferTensorDesc.Strides = nullptr;
  bufferTensorDesc.TotalTensorSizeInBytes =
      DMLCalcBufferTensorSize(bufferTensorDesc.DataType, bufferTensorDesc.DimensionCount,
                              bufferTensorDesc.Sizes, bufferTensorDesc.Strides);
  DML_TENSOR_DESC tensorDesc = {DML_TENSOR_TYPE_BUFFER, &bufferTensorDesc};

  DML_ELEMENT_WISE_ROUND_OPERATOR_DESC roundOperatorDesc = {};
  roundOperatorDesc.InputTensor = &tensorDesc;
  roundOperatorDesc.OutputTensor = &tensorDesc;  // in-place is allowed
  roundOperatorDesc.RoundingMode = DML_ROUNDING_MODE_TOWARD_INFINITY;
  DML_OPERATOR_DESC operatorDesc = {DML_OPERATOR_ELEMENT_WISE_ROUND, &roundOperatorDesc};

  const eltwise::Device device = *eltwise::Device::Cpu({eltwise::FeatureLevel::k3_0, 1});
  eltwise::Expected<eltwise::CompiledOperator> op = eltwise::CompileDirectML(device, operatorDesc);
  ASSERT_TRUE(op.ok()) << op.status().ToString();
  alignas(16) float data[9] = {-2.5f, -1.75f, -1.5f, -1.25f, 0, 1.25f, 1.5f, 1.75f, 2.5f};
  ASSERT_TRUE(op->Execute({data, sizeof data}, {data, sizeof data}).ok());
  const float want[9] = {-3, -2, -2, -1, 0, 1, 2, 2, 3};
  for (int i = 0; i < 9; ++i) EXPECT_EQ(data[i], want[i]) << i;
}

TEST(DirectML, SignWithStridesAndNaNGivesZero) {
  uint32_t sizes[4] = {1, 1, 2, 2};
  uint32_t strides[4] = {0, 0, 3, 1};
  DML_BUFFER_TENSOR_DESC input = {
      DML_TENSOR_DATA_TYPE_FLOAT32, DML_TENSOR_FLAG_NONE, 4, sizes, strides, 0, 0};
  input.TotalTensorSizeInBytes = DMLCalcBufferTensorSize(input.DataType, 4, sizes, strides);
  DML_BUFFER_TENSOR_DESC output = {
      DML_TENSOR_DATA_TYPE_FLOAT32, DML_TENSOR_FLAG_NONE, 4, sizes, nullptr, 16, 0};
  DML_TENSOR_DESC in_desc = {DML_TENSOR_TYPE_BUFFER, &input};
  DML_TENSOR_DESC out_desc = {DML_TENSOR_TYPE_BUFFER, &output};
  DML_ELEMENT_WISE_SIGN_OPERATOR_DESC sign = {&in_desc, &out_desc};
  DML_OPERATOR_DESC desc = {DML_OPERATOR_ELEMENT_WISE_SIGN, &sign};
  const eltwise::Device device = *eltwise::Device::Cpu({eltwise::FeatureLevel::k2_0, 1});
  eltwise::Expected<eltwise::CompiledOperator> op = eltwise::CompileDirectML(device, desc);
  ASSERT_TRUE(op.ok()) << op.status().ToString();
  alignas(16) float in[5] = {-3.0f, __builtin_nanf(""), 99.0f, 0.0f, -1e-40f};
  alignas(16) float out[4] = {7, 7, 7, 7};
  ASSERT_TRUE(op->Execute({in, 20}, {out, 16}).ok());
  EXPECT_EQ(out[0], -1.0f);
  EXPECT_EQ(out[1], 0.0f);  // Sign(NaN) = 0 in DirectML
  EXPECT_EQ(out[2], 0.0f);
  EXPECT_EQ(out[3], -1.0f);  // negative subnormal
}

TEST(DirectML, LevelRulesApply) {
  uint32_t sizes[4] = {1, 1, 1, 4};
  DML_BUFFER_TENSOR_DESC buffer = {
      DML_TENSOR_DATA_TYPE_FLOAT32, DML_TENSOR_FLAG_NONE, 4, sizes, nullptr, 16, 0};
  DML_TENSOR_DESC tensor = {DML_TENSOR_TYPE_BUFFER, &buffer};
  DML_ELEMENT_WISE_ROUND_OPERATOR_DESC round = {&tensor, &tensor,
                                                DML_ROUNDING_MODE_HALVES_TO_NEAREST_EVEN};
  DML_OPERATOR_DESC desc = {DML_OPERATOR_ELEMENT_WISE_ROUND, &round};
  auto compiled =
      eltwise::CompileDirectML(*eltwise::Device::Cpu({eltwise::FeatureLevel::k2_0, 1}), desc);
  ASSERT_FALSE(compiled.ok());
  EXPECT_THAT(compiled.status().message(),
              HasSubstr("Round is not available at feature level 2_0"));
  buffer.DataType = DML_TENSOR_DATA_TYPE_INT32;
  compiled =
      eltwise::CompileDirectML(*eltwise::Device::Cpu({eltwise::FeatureLevel::k6_4, 1}), desc);
  ASSERT_FALSE(compiled.ok());
  EXPECT_THAT(compiled.status().message(), HasSubstr("input.type is int32"));
}

TEST(DirectML, MalformedDescriptorsAreRejected) {
  uint32_t sizes[4] = {1, 1, 1, 4};
  DML_BUFFER_TENSOR_DESC buffer = {
      DML_TENSOR_DATA_TYPE_FLOAT32, DML_TENSOR_FLAG_NONE, 4, sizes, nullptr, 16, 0};
  DML_TENSOR_DESC tensor = {DML_TENSOR_TYPE_BUFFER, &buffer};
  DML_ELEMENT_WISE_SIGN_OPERATOR_DESC sign = {&tensor, nullptr};
  DML_OPERATOR_DESC desc = {DML_OPERATOR_ELEMENT_WISE_SIGN, &sign};
  auto message = [&] { return eltwise::FromDirectML(desc).status().message(); };
  EXPECT_THAT(message(), HasSubstr("OutputTensor is null"));
  sign.OutputTensor = &tensor;
  EXPECT_TRUE(eltwise::FromDirectML(desc).ok());
  buffer.DataType = static_cast<DML_TENSOR_DATA_TYPE>(14);
  EXPECT_EQ(message(),
            "InputTensor->Desc->DataType is 14, which is not a DML_TENSOR_DATA_TYPE eltwise knows");
  buffer.DataType = DML_TENSOR_DATA_TYPE_UNKNOWN;
  EXPECT_THAT(message(), HasSubstr("InputTensor->Desc->DataType is 0,"));
  buffer.DataType = DML_TENSOR_DATA_TYPE_FLOAT32;
  buffer.DimensionCount = 9;
  EXPECT_THAT(message(), HasSubstr("DimensionCount is 9"));
  buffer.DimensionCount = 4;
  buffer.Sizes = nullptr;
  EXPECT_THAT(message(), HasSubstr("Sizes is null"));
  buffer.Sizes = sizes;
  tensor.Type = DML_TENSOR_TYPE_INVALID;
  EXPECT_THAT(message(), HasSubstr("InputTensor->Type is 0"));
  tensor.Type = DML_TENSOR_TYPE_BUFFER;
  desc.Type = static_cast<DML_OPERATOR_TYPE>(5);
  EXPECT_THAT(message(), HasSubstr("DML_OPERATOR_DESC.Type is 5"));
  desc.Type = DML_OPERATOR_ELEMENT_WISE_ROUND;
  DML_ELEMENT_WISE_ROUND_OPERATOR_DESC round = {&tensor, &tensor,
                                                static_cast<DML_ROUNDING_MODE>(3)};
  desc.Desc = &round;
  EXPECT_THAT(message(), HasSubstr("RoundingMode is 3"));
  desc.Desc = nullptr;
  EXPECT_THAT(message(), HasSubstr("Desc is null"));
}

// DirectMLX sizes 4-bit tensors; no Sign or Round accepts them, at any level.
TEST(DirectML, FourBitTypesAreRejectedForSignAndRound) {
  uint32_t sizes[4] = {1, 1, 1, 100};
  DML_BUFFER_TENSOR_DESC in = {
      DML_TENSOR_DATA_TYPE_UINT4, DML_TENSOR_FLAG_NONE, 4, sizes, nullptr, 0, 0};
  in.TotalTensorSizeInBytes = DMLCalcBufferTensorSize(in.DataType, 4, sizes, nullptr);
  DML_BUFFER_TENSOR_DESC out = in;
  DML_TENSOR_DESC in_tensor = {DML_TENSOR_TYPE_BUFFER, &in};
  DML_TENSOR_DESC out_tensor = {DML_TENSOR_TYPE_BUFFER, &out};
  DML_ELEMENT_WISE_SIGN_OPERATOR_DESC sign = {&in_tensor, &out_tensor};
  DML_ELEMENT_WISE_ROUND_OPERATOR_DESC round = {&in_tensor, &out_tensor,
                                                DML_ROUNDING_MODE_TOWARD_ZERO};
  const DML_OPERATOR_DESC sign_desc = {DML_OPERATOR_ELEMENT_WISE_SIGN, &sign};
  const DML_OPERATOR_DESC round_desc = {DML_OPERATOR_ELEMENT_WISE_ROUND, &round};
  for (eltwise::FeatureLevel level : {eltwise::FeatureLevel::k6_3, eltwise::FeatureLevel::k6_4,
                                      eltwise::FeatureLevel::kExtended}) {
    const eltwise::Device device = *eltwise::Device::Cpu({level, 1});
    EXPECT_EQ(eltwise::CompileDirectML(device, sign_desc).status().message(),
              "InputTensor->Desc->DataType is DML_TENSOR_DATA_TYPE_UINT4 (12); Sign accepts no "
              "4-bit data type at any feature level");
    in.DataType = DML_TENSOR_DATA_TYPE_FLOAT16;  // the output's type is checked too
    out.DataType = DML_TENSOR_DATA_TYPE_INT4;
    EXPECT_EQ(eltwise::CompileDirectML(device, round_desc).status().message(),
              "OutputTensor->Desc->DataType is DML_TENSOR_DATA_TYPE_INT4 (13); Round accepts no "
              "4-bit data type at any feature level");
    in.DataType = out.DataType = DML_TENSOR_DATA_TYPE_UINT4;
  }
}

// DML_TENSOR_FLAG_OWNED_BY_DML: accepted on the input (CompileDirectML binds it at Execute),
// rejected on the output as DirectML does; no other flag bit exists.
TEST(DirectML, OwnedByDmlFlag) {
  uint32_t sizes[1] = {4};
  DML_BUFFER_TENSOR_DESC in = {
      DML_TENSOR_DATA_TYPE_FLOAT32, DML_TENSOR_FLAG_NONE, 1, sizes, nullptr, 16, 0};
  DML_BUFFER_TENSOR_DESC out = in;
  DML_TENSOR_DESC in_tensor = {DML_TENSOR_TYPE_BUFFER, &in};
  DML_TENSOR_DESC out_tensor = {DML_TENSOR_TYPE_BUFFER, &out};
  DML_ELEMENT_WISE_SIGN_OPERATOR_DESC sign = {&in_tensor, &out_tensor};
  const DML_OPERATOR_DESC desc = {DML_OPERATOR_ELEMENT_WISE_SIGN, &sign};
  const eltwise::Device device = *eltwise::Device::Cpu({eltwise::FeatureLevel::k3_0, 1});

  in.Flags |= DML_TENSOR_FLAG_OWNED_BY_DML;
  eltwise::Expected<eltwise::CompiledOperator> op = eltwise::CompileDirectML(device, desc);
  ASSERT_TRUE(op.ok()) << op.status().ToString();
  alignas(16) float x[4] = {-2.0f, 0.5f, -0.0f, 3.0f};
  alignas(16) float y[4] = {};
  ASSERT_TRUE(op->Execute({x, 16}, {y, 16}).ok());
  EXPECT_EQ(y[0], -1.0f);
  EXPECT_EQ(y[1], 1.0f);
  EXPECT_EQ(y[2], 0.0f);
  EXPECT_EQ(y[3], 1.0f);

  out.Flags = DML_TENSOR_FLAG_OWNED_BY_DML;
  EXPECT_EQ(eltwise::CompileDirectML(device, desc).status().message(),
            "OutputTensor->Desc->Flags is 1; DML_TENSOR_FLAG_OWNED_BY_DML is for input tensors "
            "only");
  sign.OutputTensor = &in_tensor;  // in place on one owned description: the output is owned too
  EXPECT_THAT(eltwise::CompileDirectML(device, desc).status().message(),
              HasSubstr("OutputTensor->Desc->Flags is 1"));
  sign.OutputTensor = &out_tensor;
  out.Flags = DML_TENSOR_FLAG_NONE;
  in.Flags = static_cast<DML_TENSOR_FLAGS>(2);
  EXPECT_EQ(eltwise::CompileDirectML(device, desc).status().message(),
            "InputTensor->Desc->Flags is 2; DML_TENSOR_FLAGS has DML_TENSOR_FLAG_NONE (0) and "
            "DML_TENSOR_FLAG_OWNED_BY_DML (1) only");
  in.Flags = static_cast<DML_TENSOR_FLAGS>(3);
  EXPECT_THAT(eltwise::CompileDirectML(device, desc).status().message(),
              HasSubstr("InputTensor->Desc->Flags is 3;"));
}

// A Round description with an owned input, for the InitializeDirectML tests.
struct OwnedRound {
  uint32_t sizes[2] = {2, 3};
  DML_BUFFER_TENSOR_DESC in = {
      DML_TENSOR_DATA_TYPE_FLOAT32, DML_TENSOR_FLAG_OWNED_BY_DML, 2, sizes, nullptr, 24, 0};
  DML_BUFFER_TENSOR_DESC out = {
      DML_TENSOR_DATA_TYPE_FLOAT32, DML_TENSOR_FLAG_NONE, 2, sizes, nullptr, 24, 0};
  DML_TENSOR_DESC in_tensor = {DML_TENSOR_TYPE_BUFFER, &in};
  DML_TENSOR_DESC out_tensor = {DML_TENSOR_TYPE_BUFFER, &out};
  DML_ELEMENT_WISE_ROUND_OPERATOR_DESC round = {&in_tensor, &out_tensor,
                                                DML_ROUNDING_MODE_HALVES_TO_NEAREST_EVEN};
  DML_OPERATOR_DESC desc = {DML_OPERATOR_ELEMENT_WISE_ROUND, &round};
};

TEST(DirectML, InitializeDirectMLCopiesTheInputOnce) {
  OwnedRound r;
  const eltwise::Device device = *eltwise::Device::Cpu({eltwise::FeatureLevel::k3_0, 1});
  alignas(16) float weights[6] = {0.5f, 1.5f, 2.5f, -0.5f, -1.5f, -2.5f};
  eltwise::Expected<eltwise::InitializedOperator> op =
      eltwise::InitializeDirectML(device, r.desc, {weights, sizeof weights});
  ASSERT_TRUE(op.ok()) << op.status().ToString();
  std::memset(weights, 0x7F, sizeof weights);  // the caller reuses its buffer
  alignas(16) float out[6] = {};
  ASSERT_TRUE(op->Execute({out, sizeof out}).ok());
  const float want[6] = {0.0f, 2.0f, 2.0f, -0.0f, -2.0f, -2.0f};
  for (int i = 0; i < 6; ++i) {
    EXPECT_EQ(out[i], want[i]) << i;
    EXPECT_EQ(std::signbit(out[i]), std::signbit(want[i])) << i;
  }
  // Copies share the state; the output is validated as CompiledOperator::Execute does.
  const eltwise::InitializedOperator copy = *op;
  EXPECT_EQ(copy.Execute({nullptr, 24}).message(), "output binding is null");
  EXPECT_THAT(copy.Execute({out, 20}).message(), HasSubstr("output binding has 20 bytes"));
  EXPECT_EQ(copy.compiled().device().feature_level(), eltwise::FeatureLevel::k3_0);
}

TEST(DirectML, InitializeDirectMLRejections) {
  OwnedRound r;
  const eltwise::Device device = *eltwise::Device::Cpu({eltwise::FeatureLevel::k3_0, 1});
  alignas(16) float weights[8] = {};
  auto message = [&](eltwise::ConstBinding input) {
    return eltwise::InitializeDirectML(device, r.desc, input).status().message();
  };
  EXPECT_EQ(message({nullptr, 24}), "initialization input binding is null");
  EXPECT_EQ(message({weights, 20}),
            "initialization input binding has 20 bytes; "
            "InputTensor->Desc->TotalTensorSizeInBytes requires at least 24");
  EXPECT_THAT(message({weights + 1, 24}),
              HasSubstr("is not aligned to 16 bytes (InputTensor->Desc->"
                        "GuaranteedBaseOffsetAlignment, or 16 at DirectML feature levels)"));
  // Descriptor rules come first, as at Compile.
  r.in.TotalTensorSizeInBytes = 8;
  EXPECT_THAT(message({nullptr, 0}), HasSubstr("input.total_tensor_size_in_bytes is 8"));
  r.in.TotalTensorSizeInBytes = 24;
  r.out.Flags = DML_TENSOR_FLAG_OWNED_BY_DML;
  EXPECT_THAT(message({weights, 24}), HasSubstr("OutputTensor->Desc->Flags is 1"));
  r.out.Flags = DML_TENSOR_FLAG_NONE;
  // An input DirectML binds at execution is not bound at initialization.
  r.in.Flags = DML_TENSOR_FLAG_NONE;
  EXPECT_EQ(message({weights, 24}),
            "InputTensor->Desc->Flags is 0; only an input flagged DML_TENSOR_FLAG_OWNED_BY_DML is "
            "bound at initialization (CompileDirectML binds it at execution)");
}

// The same on a CUDA device: the copy is device memory, complete when InitializeDirectML returns.
// Skips without a GPU.
TEST(DirectML, InitializeDirectMLOnCuda) {
  eltwise::Expected<eltwise::Device> cuda = eltwise::Device::Cuda({eltwise::FeatureLevel::k3_0});
  if (!cuda.ok()) GTEST_SKIP() << cuda.status().ToString();
  OwnedRound r;
  const float weights[6] = {0.5f, 1.5f, 2.5f, -0.5f, -1.5f, -2.5f};
  const float other[6] = {9.5f, 9.5f, 9.5f, 9.5f, 9.5f, 9.5f};
  eltwise::Expected<void*> in = eltwise::Allocate(*cuda, 24);
  eltwise::Expected<void*> out = eltwise::Allocate(*cuda, 24);
  ASSERT_TRUE(in.ok() && out.ok());
  ASSERT_TRUE(eltwise::CopyToDevice(*cuda, *in, weights, 24).ok());
  eltwise::Expected<eltwise::InitializedOperator> op =
      eltwise::InitializeDirectML(*cuda, r.desc, {*in, 24});
  ASSERT_TRUE(op.ok()) << op.status().ToString();
  ASSERT_TRUE(eltwise::CopyToDevice(*cuda, *in, other, 24).ok());
  ASSERT_TRUE(op->Execute({*out, 24}).ok());
  float result[6] = {};
  ASSERT_TRUE(eltwise::CopyToHost(*cuda, result, *out, 24).ok());
  ASSERT_TRUE(eltwise::Synchronize(*cuda).ok());
  const float want[6] = {0.0f, 2.0f, 2.0f, -0.0f, -2.0f, -2.0f};
  for (int i = 0; i < 6; ++i) {
    EXPECT_EQ(result[i], want[i]) << i;
    EXPECT_EQ(std::signbit(result[i]), std::signbit(want[i])) << i;
  }
  eltwise::Free(*cuda, *in);
  eltwise::Free(*cuda, *out);
}

// The copy is eltwise's own memory: a large guaranteed alignment binds the caller's buffer at
// initialization, and execution does not depend on it.
TEST(DirectML, InitializeDirectMLWithGuaranteedAlignment) {
  OwnedRound r;
  r.in.GuaranteedBaseOffsetAlignment = 256;
  const eltwise::Device device = *eltwise::Device::Cpu({eltwise::FeatureLevel::k6_4, 1});
  alignas(256) float weights[64] = {0.5f, 1.5f, 2.5f, 3.5f, 4.5f, 5.5f};
  EXPECT_THAT(eltwise::InitializeDirectML(device, r.desc, {weights + 4, 24}).status().message(),
              HasSubstr("is not aligned to 256 bytes"));
  eltwise::Expected<eltwise::InitializedOperator> op =
      eltwise::InitializeDirectML(device, r.desc, {weights, 24});
  ASSERT_TRUE(op.ok()) << op.status().ToString();
  alignas(16) float out[6] = {};
  ASSERT_TRUE(op->Execute({out, 24}).ok());
  const float want[6] = {0, 2, 2, 4, 4, 6};
  for (int i = 0; i < 6; ++i) EXPECT_EQ(out[i], want[i]) << i;
}

// At the extended level a DirectML description may have a zero-sized dimension: nothing to copy,
// nothing bound, nothing written.
TEST(DirectML, InitializeDirectMLEmptyTensor) {
  OwnedRound r;
  r.sizes[1] = 0;
  r.in.TotalTensorSizeInBytes = r.out.TotalTensorSizeInBytes = 0;
  const eltwise::Device device = *eltwise::Device::Cpu({eltwise::FeatureLevel::kExtended, 1});
  eltwise::Expected<eltwise::InitializedOperator> op =
      eltwise::InitializeDirectML(device, r.desc, {nullptr, 0});
  ASSERT_TRUE(op.ok()) << op.status().ToString();
  EXPECT_TRUE(op->Execute({nullptr, 0}).ok());
}

}  // namespace
