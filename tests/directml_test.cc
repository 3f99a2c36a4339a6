// DirectML-compatible descriptors, filled the way DirectML's documentation samples fill them.
#include "eltwise/directml.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <iterator>

namespace {

using ::testing::HasSubstr;

TEST(DirectML, EnumValuesAreDirectMLs) {
  EXPECT_EQ(DML_OPERATOR_ELEMENT_WISE_SIGN, 79);
  EXPECT_EQ(DML_OPERATOR_ELEMENT_WISE_ROUND, 99);
  EXPECT_EQ(DML_TENSOR_DATA_TYPE_FLOAT16, 2);
  EXPECT_EQ(DML_TENSOR_DATA_TYPE_INT64, 11);
  EXPECT_EQ(DML_ROUNDING_MODE_TOWARD_INFINITY, 2);
  EXPECT_EQ(DML_FEATURE_LEVEL_6_4, 0x6400);
  EXPECT_EQ(eltwise::ToFeatureLevel(DML_FEATURE_LEVEL_3_1), eltwise::FeatureLevel::k3_1);
}

TEST(DirectML, CalcBufferTensorSize) {
  const uint32_t sizes[4] = {1, 2, 3, 5};
  EXPECT_EQ(DMLCalcBufferTensorSize(DML_TENSOR_DATA_TYPE_FLOAT16, 4, sizes, nullptr), 60u);
  EXPECT_EQ(DMLCalcBufferTensorSize(DML_TENSOR_DATA_TYPE_UINT8, 4, sizes, nullptr), 32u);
  const uint32_t strides[4] = {0, 16, 5, 1};
  // (1*16 + 2*5 + 4*1 + 1) * 4 = 124.
  EXPECT_EQ(DMLCalcBufferTensorSize(DML_TENSOR_DATA_TYPE_FLOAT32, 4, sizes, strides), 124u);
  EXPECT_EQ(DMLCalcBufferTensorSize(DML_TENSOR_DATA_TYPE_UNKNOWN, 4, sizes, nullptr), 0u);
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
  buffer.Flags = DML_TENSOR_FLAG_OWNED_BY_DML;
  EXPECT_THAT(message(), HasSubstr("InputTensor->Desc->Flags is 1"));
  buffer.Flags = DML_TENSOR_FLAG_NONE;
  buffer.DataType = static_cast<DML_TENSOR_DATA_TYPE>(12);
  EXPECT_THAT(message(), HasSubstr("InputTensor->Desc->DataType is 12"));
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

}  // namespace
