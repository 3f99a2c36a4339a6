// DirectML-compatible descriptors: the names, values and struct layouts of Microsoft's DirectML.h
// (DirectML 1.16, DML_TARGET_VERSION 0x6400) that a program filling ELEMENT_WISE_SIGN and
// ELEMENT_WISE_ROUND descriptions uses, plus DirectMLX.h's DMLCalcBufferTensorSize, so such code
// compiles and runs on eltwise unchanged. docs/directml.md lists what is declared, what is not and
// why, and how a DirectML program maps onto eltwise's compile/execute.
//
// Declared in the global namespace like DirectML's own header; do not include both in one
// translation unit. Names the real header guards by DML_TARGET_VERSION are guarded the same way:
// define DML_TARGET_VERSION (e.g. 0x3000) before including to pin an older target; the default is
// the latest, as the real header picks for a redistributable DirectML.
//
// In C++ the enums have int as their underlying type (as DirectML's have with MSVC), so any int a
// caller stores, e.g. an operator type eltwise does not implement, is a valid value that eltwise
// rejects with a message rather than undefined behaviour. The descriptor part (enums, structs,
// constants, DMLCalcBufferTensorSize) is also valid C; everything in namespace eltwise, and the
// DML_TENSOR_FLAGS operators, are C++ only.
#pragma once

#ifdef __cplusplus
#include <cstdint>
#include <memory>

#include "eltwise/device.h"
#else
#include <stdint.h>
#endif
#include "eltwise/export.h"

#ifndef DML_TARGET_VERSION
#define DML_TARGET_VERSION 0x6400
#endif

#ifdef __cplusplus
#define ELTWISE_DML_ENUM_BASE : int
#define ELTWISE_DML_EXTERN_C extern "C"
#else
#define ELTWISE_DML_ENUM_BASE
#define ELTWISE_DML_EXTERN_C
#endif

// ---- Constants. In C, where a const object is no constant expression, they are enumerators, so
// that they can size arrays there too.
#ifdef __cplusplus
static const uint32_t DML_TENSOR_DIMENSION_COUNT_MAX = 5;
#if DML_TARGET_VERSION >= 0x3000
static const uint32_t DML_TENSOR_DIMENSION_COUNT_MAX1 = 8;
#endif
static const uint32_t DML_TEMPORARY_BUFFER_ALIGNMENT = 256;
static const uint32_t DML_PERSISTENT_BUFFER_ALIGNMENT = 256;
static const uint32_t DML_MINIMUM_BUFFER_TENSOR_ALIGNMENT = 16;
#else
enum {
  DML_TENSOR_DIMENSION_COUNT_MAX = 5,
#if DML_TARGET_VERSION >= 0x3000
  DML_TENSOR_DIMENSION_COUNT_MAX1 = 8,
#endif
  DML_TEMPORARY_BUFFER_ALIGNMENT = 256,
  DML_PERSISTENT_BUFFER_ALIGNMENT = 256,
  DML_MINIMUM_BUFFER_TENSOR_ALIGNMENT = 16
};
#endif

// ---- Tensor descriptions.
typedef enum DML_TENSOR_DATA_TYPE ELTWISE_DML_ENUM_BASE {
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
#if DML_TARGET_VERSION >= 0x6300
  // Sub-byte types: DMLCalcBufferTensorSize sizes them; no Sign or Round accepts them.
  DML_TENSOR_DATA_TYPE_UINT4 = 12,
  DML_TENSOR_DATA_TYPE_INT4 = 13,
#endif
} DML_TENSOR_DATA_TYPE;

typedef enum DML_TENSOR_TYPE ELTWISE_DML_ENUM_BASE {
  DML_TENSOR_TYPE_INVALID = 0,
  DML_TENSOR_TYPE_BUFFER = 1,
} DML_TENSOR_TYPE;

typedef enum DML_TENSOR_FLAGS ELTWISE_DML_ENUM_BASE {
  DML_TENSOR_FLAG_NONE = 0x0,
  // DirectML: the input is bound (and copied) at operator initialization instead of execution.
  // eltwise: see CompileDirectML and InitializeDirectML below.
  DML_TENSOR_FLAG_OWNED_BY_DML = 0x1,
} DML_TENSOR_FLAGS;

#ifdef __cplusplus
// The operators DirectML.h defines for DML_TENSOR_FLAGS through DEFINE_ENUM_FLAG_OPERATORS
// (winnt.h), which defines none in C. Computed on the underlying int: no overflow, no UB.
constexpr DML_TENSOR_FLAGS operator|(DML_TENSOR_FLAGS a, DML_TENSOR_FLAGS b) noexcept {
  return static_cast<DML_TENSOR_FLAGS>(static_cast<int>(a) | static_cast<int>(b));
}
constexpr DML_TENSOR_FLAGS operator&(DML_TENSOR_FLAGS a, DML_TENSOR_FLAGS b) noexcept {
  return static_cast<DML_TENSOR_FLAGS>(static_cast<int>(a) & static_cast<int>(b));
}
constexpr DML_TENSOR_FLAGS operator^(DML_TENSOR_FLAGS a, DML_TENSOR_FLAGS b) noexcept {
  return static_cast<DML_TENSOR_FLAGS>(static_cast<int>(a) ^ static_cast<int>(b));
}
constexpr DML_TENSOR_FLAGS operator~(DML_TENSOR_FLAGS a) noexcept {
  return static_cast<DML_TENSOR_FLAGS>(~static_cast<int>(a));
}
constexpr DML_TENSOR_FLAGS& operator|=(DML_TENSOR_FLAGS& a, DML_TENSOR_FLAGS b) noexcept {
  return a = a | b;
}
constexpr DML_TENSOR_FLAGS& operator&=(DML_TENSOR_FLAGS& a, DML_TENSOR_FLAGS b) noexcept {
  return a = a & b;
}
constexpr DML_TENSOR_FLAGS& operator^=(DML_TENSOR_FLAGS& a, DML_TENSOR_FLAGS b) noexcept {
  return a = a ^ b;
}
#endif

typedef struct DML_BUFFER_TENSOR_DESC {
  DML_TENSOR_DATA_TYPE DataType;
  DML_TENSOR_FLAGS Flags;
  uint32_t DimensionCount;
  const uint32_t* Sizes;
  const uint32_t* Strides;  // optional: null = packed
  uint64_t TotalTensorSizeInBytes;
  uint32_t GuaranteedBaseOffsetAlignment;
} DML_BUFFER_TENSOR_DESC;

typedef struct DML_TENSOR_DESC {
  DML_TENSOR_TYPE Type;
  const void* Desc;
} DML_TENSOR_DESC;

// ---- Operators. Only the two eltwise implements; any other value is rejected with a message.
typedef enum DML_OPERATOR_TYPE ELTWISE_DML_ENUM_BASE {
  DML_OPERATOR_INVALID = 0,
#if DML_TARGET_VERSION >= 0x2000
  DML_OPERATOR_ELEMENT_WISE_SIGN = 79,
#endif
#if DML_TARGET_VERSION >= 0x2100
  DML_OPERATOR_ELEMENT_WISE_ROUND = 99,
#endif
} DML_OPERATOR_TYPE;

#if DML_TARGET_VERSION >= 0x2100
typedef enum DML_ROUNDING_MODE ELTWISE_DML_ENUM_BASE {
  DML_ROUNDING_MODE_HALVES_TO_NEAREST_EVEN = 0,
  DML_ROUNDING_MODE_TOWARD_ZERO = 1,
  DML_ROUNDING_MODE_TOWARD_INFINITY = 2,
} DML_ROUNDING_MODE;
#endif

typedef struct DML_OPERATOR_DESC {
  DML_OPERATOR_TYPE Type;
  const void* Desc;
} DML_OPERATOR_DESC;

#if DML_TARGET_VERSION >= 0x2000
typedef struct DML_ELEMENT_WISE_SIGN_OPERATOR_DESC {
  const DML_TENSOR_DESC* InputTensor;
  const DML_TENSOR_DESC* OutputTensor;
} DML_ELEMENT_WISE_SIGN_OPERATOR_DESC;
#endif

#if DML_TARGET_VERSION >= 0x2100
typedef struct DML_ELEMENT_WISE_ROUND_OPERATOR_DESC {
  const DML_TENSOR_DESC* InputTensor;
  const DML_TENSOR_DESC* OutputTensor;
  DML_ROUNDING_MODE RoundingMode;
} DML_ELEMENT_WISE_ROUND_OPERATOR_DESC;
#endif

// ---- Feature levels.
#if DML_TARGET_VERSION >= 0x2000
typedef enum DML_FEATURE_LEVEL ELTWISE_DML_ENUM_BASE {
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
} DML_FEATURE_LEVEL;
#endif

// DirectMLX's helper: the bytes a buffer tensor needs, roundup4(ceil(elements * element bits / 8))
// where elements = 1 + sum (Sizes[i]-1)*Strides[i] (the product of the sizes when `stridesOpt` is
// null); 4-bit types take half a byte each. Computed in 64 bits (DirectMLX sums the strided
// index in 32). Returns 0 for an unknown data type, a null `sizes` with dimensions, a tensor with
// a zero-sized dimension, or a size that does not fit in 64 bits. C linkage, callable from C.
ELTWISE_DML_EXTERN_C ELTWISE_API uint64_t DMLCalcBufferTensorSize(DML_TENSOR_DATA_TYPE dataType,
                                                                  uint32_t dimensionCount,
                                                                  const uint32_t* sizes,
                                                                  const uint32_t* stridesOpt);

#undef ELTWISE_DML_ENUM_BASE
#undef ELTWISE_DML_EXTERN_C

#ifdef __cplusplus
namespace eltwise {

#if DML_TARGET_VERSION >= 0x2000
ELTWISE_API FeatureLevel ToFeatureLevel(DML_FEATURE_LEVEL level);
#endif

// The eltwise description of a DirectML operator description (Sign gets NanPolicy::kZero, as in
// DirectML). Pointers, tensor types, flags and data types are checked here; the rest by Validate.
// DML_TENSOR_FLAG_OWNED_BY_DML is accepted on the input (DirectML allows it on inputs only).
ELTWISE_API Expected<OperatorDesc> FromDirectML(const DML_OPERATOR_DESC& desc);

// FromDirectML + Compile on `device` (whose feature level applies). eltwise binds every tensor at
// Execute: an input flagged DML_TENSOR_FLAG_OWNED_BY_DML is read from the buffer passed to each
// Execute (the buffer a DirectML program binds at initialization). For DirectML's exact meaning,
// a copy taken once at initialization, use InitializeDirectML.
ELTWISE_API Expected<CompiledOperator> CompileDirectML(const Device& device,
                                                       const DML_OPERATOR_DESC& desc);

// An operator whose input DirectML owns (DML_TENSOR_FLAG_OWNED_BY_DML), initialized: it holds its
// own copy of the input, taken by InitializeDirectML, the way DirectML keeps it in the operator's
// persistent resource. Copies share the same state; Execute may run from many threads at once.
class ELTWISE_API InitializedOperator {
 public:
  // DirectML's execution binding for such an operator: the output only (the input is bound as
  // DML_BINDING_TYPE_NONE). Same rules and guarantees as CompiledOperator::Execute.
  Status Execute(Binding output) const;

  // The compiled operator that Execute runs on the copy.
  const CompiledOperator& compiled() const { return compiled_; }

 private:
  friend Expected<InitializedOperator> InitializeDirectML(const Device&, const DML_OPERATOR_DESC&,
                                                          ConstBinding);
  InitializedOperator(CompiledOperator compiled, std::shared_ptr<void> input, uint64_t bytes)
      : compiled_(std::move(compiled)), input_(std::move(input)), bytes_(bytes) {}
  CompiledOperator compiled_;
  std::shared_ptr<void> input_;  // device memory holding the input's TotalTensorSizeInBytes bytes
  uint64_t bytes_ = 0;
};

// DirectML's operator initialization for a description whose input is flagged
// DML_TENSOR_FLAG_OWNED_BY_DML: compiles `desc` on `device` and copies the input's
// TotalTensorSizeInBytes bytes from `input` (a buffer on `device`, bound with DirectML's rules)
// before returning, so later changes to `input` do not affect the results. An input without the
// flag is rejected: DirectML binds it at execution (use CompileDirectML).
ELTWISE_API Expected<InitializedOperator> InitializeDirectML(const Device& device,
                                                             const DML_OPERATOR_DESC& desc,
                                                             ConstBinding input);

}  // namespace eltwise
#endif
