// DirectML-compatible descriptors: the DirectML names, layouts and values as documented for
// DirectML.h, so code that fills DirectML descriptors for ELEMENT_WISE_SIGN and ELEMENT_WISE_ROUND
// runs on eltwise unchanged. Declared in the global namespace like DirectML's own header; do not
// include both in one translation unit. The enums have int as their underlying type (as DirectML's
// have with MSVC), so any int a caller stores, e.g. an operator type eltwise does not implement,
// is a valid value that eltwise rejects with a message rather than undefined behaviour.
#pragma once

#include <cstdint>

#include "eltwise/device.h"
#include "eltwise/export.h"

enum DML_TENSOR_DATA_TYPE : int {
  DML_TENSOR_DATA_TYPE_UNKNOWN = 0,
  DML_TENSOR_DATA_TYPE_FLOAT32 = 1,
  DML_TENSOR_DATA_TYPE_FLOAT16 = 2,
  DML_TENSOR_DATA_TYPE_UINT32 = 3,
  DML_TENSOR_DATA_TYPE_UINT16 = 4,
  DML_TENSOR_DATA_TYPE_UINT8 = 5,
  DML_TENSOR_DATA_TYPE_INT32 = 6,
  DML_TENSOR_DATA_TYPE_INT16 = 7,
  DML_TENSOR_DATA_TYPE_INT8 = 8,
  DML_TENSOR_DATA_TYPE_FLOAT64 = 9,
  DML_TENSOR_DATA_TYPE_UINT64 = 10,
  DML_TENSOR_DATA_TYPE_INT64 = 11,
};

enum DML_TENSOR_TYPE : int {
  DML_TENSOR_TYPE_INVALID = 0,
  DML_TENSOR_TYPE_BUFFER = 1,
};

enum DML_TENSOR_FLAGS : int {
  DML_TENSOR_FLAG_NONE = 0x0,
  DML_TENSOR_FLAG_OWNED_BY_DML = 0x1,
};

struct DML_BUFFER_TENSOR_DESC {
  DML_TENSOR_DATA_TYPE DataType;
  DML_TENSOR_FLAGS Flags;
  uint32_t DimensionCount;
  const uint32_t* Sizes;
  const uint32_t* Strides;  // optional: nullptr = packed
  uint64_t TotalTensorSizeInBytes;
  uint32_t GuaranteedBaseOffsetAlignment;
};

struct DML_TENSOR_DESC {
  DML_TENSOR_TYPE Type;
  const void* Desc;
};

enum DML_OPERATOR_TYPE : int {
  DML_OPERATOR_INVALID = 0,
  DML_OPERATOR_ELEMENT_WISE_SIGN = 79,
  DML_OPERATOR_ELEMENT_WISE_ROUND = 99,
};

enum DML_ROUNDING_MODE : int {
  DML_ROUNDING_MODE_HALVES_TO_NEAREST_EVEN = 0,
  DML_ROUNDING_MODE_TOWARD_ZERO = 1,
  DML_ROUNDING_MODE_TOWARD_INFINITY = 2,
};

enum DML_FEATURE_LEVEL : int {
  DML_FEATURE_LEVEL_1_0 = 0x1000,
  DML_FEATURE_LEVEL_2_0 = 0x2000,
  DML_FEATURE_LEVEL_2_1 = 0x2100,
  DML_FEATURE_LEVEL_3_0 = 0x3000,
  DML_FEATURE_LEVEL_3_1 = 0x3100,
  DML_FEATURE_LEVEL_4_0 = 0x4000,
  DML_FEATURE_LEVEL_4_1 = 0x4100,
  DML_FEATURE_LEVEL_5_0 = 0x5000,
  DML_FEATURE_LEVEL_5_1 = 0x5100,
  DML_FEATURE_LEVEL_5_2 = 0x5200,
  DML_FEATURE_LEVEL_6_0 = 0x6000,
  DML_FEATURE_LEVEL_6_1 = 0x6100,
  DML_FEATURE_LEVEL_6_2 = 0x6200,
  DML_FEATURE_LEVEL_6_3 = 0x6300,
  DML_FEATURE_LEVEL_6_4 = 0x6400,
};

struct DML_ELEMENT_WISE_SIGN_OPERATOR_DESC {
  const DML_TENSOR_DESC* InputTensor;
  const DML_TENSOR_DESC* OutputTensor;
};

struct DML_ELEMENT_WISE_ROUND_OPERATOR_DESC {
  const DML_TENSOR_DESC* InputTensor;
  const DML_TENSOR_DESC* OutputTensor;
  DML_ROUNDING_MODE RoundingMode;
};

struct DML_OPERATOR_DESC {
  DML_OPERATOR_TYPE Type;
  const void* Desc;
};

// DirectML's helper: roundup4((sum (Sizes[i]-1)*Strides[i] + 1) * element size), in 64 bits; packed
// strides when `strides` is nullptr. Returns 0 for an unknown data type or a null `sizes`.
ELTWISE_API uint64_t DMLCalcBufferTensorSize(DML_TENSOR_DATA_TYPE dataType, uint32_t dimensionCount,
                                             const uint32_t* sizes, const uint32_t* stridesOpt);

namespace eltwise {

ELTWISE_API FeatureLevel ToFeatureLevel(DML_FEATURE_LEVEL level);
// The eltwise description of a DirectML operator description (Sign gets NanPolicy::kZero, as in
// DirectML). Pointers, tensor types, flags and data types are checked here; the rest by Validate.
ELTWISE_API Expected<OperatorDesc> FromDirectML(const DML_OPERATOR_DESC& desc);
// FromDirectML + Compile on `device` (whose feature level applies).
ELTWISE_API Expected<CompiledOperator> CompileDirectML(const Device& device,
                                                       const DML_OPERATOR_DESC& desc);

}  // namespace eltwise
