/* eltwise/directml.h from C (C99): the descriptor part of DirectML.h (enums, structs, constants)
 * and DMLCalcBufferTensorSize are C. A C program fills a Round description the way DirectML's C++
 * samples do, sizes its tensors and checks values and layouts against DirectML.h's. */
#include <stddef.h>
#include <stdio.h>

#include "eltwise/directml.h"

static int failures = 0;

#define CHECK(condition)                                              \
  do {                                                                \
    if (!(condition)) {                                               \
      fprintf(stderr, "%s:%d: %s\n", __FILE__, __LINE__, #condition); \
      ++failures;                                                     \
    }                                                                 \
  } while (0)

int main(void) {
  /* The constants are constant expressions in C too: they size arrays. */
  uint32_t sizes[DML_TENSOR_DIMENSION_COUNT_MAX1] = {1, 1, 3, 3};
  const uint32_t hundred[1] = {100};
  DML_BUFFER_TENSOR_DESC buffer = {
      DML_TENSOR_DATA_TYPE_FLOAT32, DML_TENSOR_FLAG_NONE, 4, NULL, NULL, 0, 0};
  DML_TENSOR_DESC tensor;
  DML_ELEMENT_WISE_ROUND_OPERATOR_DESC round;
  DML_ELEMENT_WISE_SIGN_OPERATOR_DESC sign;
  DML_OPERATOR_DESC op;
  DML_FEATURE_LEVEL level = DML_FEATURE_LEVEL_6_4;

  buffer.Sizes = sizes;
  buffer.TotalTensorSizeInBytes =
      DMLCalcBufferTensorSize(buffer.DataType, buffer.DimensionCount, buffer.Sizes, buffer.Strides);
  tensor.Type = DML_TENSOR_TYPE_BUFFER;
  tensor.Desc = &buffer;
  round.InputTensor = &tensor;
  round.OutputTensor = &tensor;
  round.RoundingMode = DML_ROUNDING_MODE_TOWARD_INFINITY;
  sign.InputTensor = &tensor;
  sign.OutputTensor = &tensor;
  op.Type = DML_OPERATOR_ELEMENT_WISE_ROUND;
  op.Desc = &round;
  /* C has no DEFINE_ENUM_FLAG_OPERATORS: flags combine as ints. */
  buffer.Flags = (DML_TENSOR_FLAGS)(buffer.Flags | DML_TENSOR_FLAG_OWNED_BY_DML);

  CHECK(buffer.TotalTensorSizeInBytes == 36);
  CHECK(buffer.Flags == 1);
  CHECK(op.Desc == &round && sign.OutputTensor == &tensor && level == 0x6400);
  CHECK(DMLCalcBufferTensorSize(DML_TENSOR_DATA_TYPE_UINT4, 1, hundred, NULL) == 52);
  CHECK(DMLCalcBufferTensorSize(DML_TENSOR_DATA_TYPE_INT64, 1, hundred, NULL) == 800);
  CHECK(DMLCalcBufferTensorSize(DML_TENSOR_DATA_TYPE_UNKNOWN, 1, hundred, NULL) == 0);

  CHECK(DML_TARGET_VERSION == 0x6400);
  CHECK(DML_TENSOR_DIMENSION_COUNT_MAX == 5 && DML_TENSOR_DIMENSION_COUNT_MAX1 == 8);
  CHECK(DML_TEMPORARY_BUFFER_ALIGNMENT == 256 && DML_PERSISTENT_BUFFER_ALIGNMENT == 256);
  CHECK(DML_MINIMUM_BUFFER_TENSOR_ALIGNMENT == 16);
  CHECK(DML_TENSOR_DATA_TYPE_FLOAT16 == 2 && DML_TENSOR_DATA_TYPE_INT64 == 11);
  CHECK(DML_TENSOR_DATA_TYPE_UINT4 == 12 && DML_TENSOR_DATA_TYPE_INT4 == 13);
  CHECK(DML_OPERATOR_ELEMENT_WISE_SIGN == 79 && DML_OPERATOR_ELEMENT_WISE_ROUND == 99);
  CHECK(DML_ROUNDING_MODE_TOWARD_ZERO == 1 && DML_FEATURE_LEVEL_2_1 == 0x2100);
  CHECK(sizeof(DML_TENSOR_DATA_TYPE) == 4 && sizeof(DML_TENSOR_FLAGS) == 4);

  /* The C layout is the C++ one (tests/directml_test.cc checks the same offsets there). */
  if (sizeof(void*) == 8) {
    CHECK(offsetof(DML_BUFFER_TENSOR_DESC, Flags) == 4);
    CHECK(offsetof(DML_BUFFER_TENSOR_DESC, DimensionCount) == 8);
    CHECK(offsetof(DML_BUFFER_TENSOR_DESC, Sizes) == 16);
    CHECK(offsetof(DML_BUFFER_TENSOR_DESC, Strides) == 24);
    CHECK(offsetof(DML_BUFFER_TENSOR_DESC, TotalTensorSizeInBytes) == 32);
    CHECK(offsetof(DML_BUFFER_TENSOR_DESC, GuaranteedBaseOffsetAlignment) == 40);
    CHECK(sizeof(DML_BUFFER_TENSOR_DESC) == 48);
    CHECK(offsetof(DML_TENSOR_DESC, Desc) == 8 && sizeof(DML_TENSOR_DESC) == 16);
    CHECK(offsetof(DML_OPERATOR_DESC, Desc) == 8 && sizeof(DML_OPERATOR_DESC) == 16);
    CHECK(sizeof(DML_ELEMENT_WISE_SIGN_OPERATOR_DESC) == 16);
    CHECK(offsetof(DML_ELEMENT_WISE_ROUND_OPERATOR_DESC, RoundingMode) == 16);
    CHECK(sizeof(DML_ELEMENT_WISE_ROUND_OPERATOR_DESC) == 24);
  }
  if (failures == 0) printf("eltwise/directml.h from C: ok\n");
  return failures == 0 ? 0 : 1;
}
