// A client that pins DML_TARGET_VERSION 0x2000. DirectML.h then declares Sign (from 0x2000) but
// not Round, DML_ROUNDING_MODE (0x2100), DML_TENSOR_DIMENSION_COUNT_MAX1 (0x3000) or the 4-bit
// data types (0x6300); eltwise/directml.h follows the same guards. This file declares those names
// itself, which does not compile if the header declared them too.
#define DML_TARGET_VERSION 0x2000
#include <cstdio>

#include "eltwise/directml.h"

static_assert(DML_TARGET_VERSION == 0x2000, "the client's pin is kept");
constexpr int DML_OPERATOR_ELEMENT_WISE_ROUND = -1;
constexpr int DML_TENSOR_DATA_TYPE_UINT4 = -1;
constexpr int DML_TENSOR_DATA_TYPE_INT4 = -1;
constexpr int DML_TENSOR_DIMENSION_COUNT_MAX1 = -1;
struct DML_ROUNDING_MODE {};
struct DML_ELEMENT_WISE_ROUND_OPERATOR_DESC {};
static_assert(DML_OPERATOR_ELEMENT_WISE_ROUND + DML_TENSOR_DATA_TYPE_UINT4 +
                  DML_TENSOR_DATA_TYPE_INT4 + DML_TENSOR_DIMENSION_COUNT_MAX1 ==
              -4);

int main() {
  // What 0x2000 does declare works: Sign at DML_FEATURE_LEVEL_2_0, packed NCHW, in place.
  const uint32_t sizes[4] = {1, 1, 2, 2};
  DML_BUFFER_TENSOR_DESC buffer = {
      DML_TENSOR_DATA_TYPE_FLOAT32, DML_TENSOR_FLAG_NONE, 4, sizes, nullptr, 0, 0};
  buffer.TotalTensorSizeInBytes = DMLCalcBufferTensorSize(buffer.DataType, 4, sizes, nullptr);
  const DML_TENSOR_DESC tensor = {DML_TENSOR_TYPE_BUFFER, &buffer};
  const DML_ELEMENT_WISE_SIGN_OPERATOR_DESC sign = {&tensor, &tensor};
  const DML_OPERATOR_DESC desc = {DML_OPERATOR_ELEMENT_WISE_SIGN, &sign};
  auto device = eltwise::Device::Cpu({eltwise::ToFeatureLevel(DML_FEATURE_LEVEL_2_0), 1});
  if (!device.ok()) return 1;
  eltwise::Expected<eltwise::CompiledOperator> op = eltwise::CompileDirectML(*device, desc);
  if (!op.ok()) {
    std::fprintf(stderr, "%s\n", op.status().ToString().c_str());
    return 1;
  }
  alignas(16) float data[4] = {-2.0f, -0.0f, 0.25f, 7.0f};
  const float want[4] = {-1.0f, 0.0f, 1.0f, 1.0f};  // DirectML: 0 for negative zero
  if (!op->Execute({data, sizeof data}, {data, sizeof data}).ok()) return 1;
  for (int i = 0; i < 4; ++i) {
    if (data[i] != want[i]) {
      std::fprintf(stderr, "element %d: got %g, want %g\n", i, data[i], want[i]);
      return 1;
    }
  }
  std::printf("DML_TARGET_VERSION 0x2000 client: ok\n");
  return 0;
}
