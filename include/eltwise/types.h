// Element data types. ELTWISE_FOR_EACH_DATA_TYPE is the one list of types; dispatch tables, tests,
// benchmarks, the CLI and the bindings are all generated from it.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string_view>

#include "eltwise/export.h"

#if defined(__CUDACC__)
#define ELTWISE_HOST_DEVICE __host__ __device__
#else
#define ELTWISE_HOST_DEVICE
#endif

namespace eltwise {

// IEEE binary16, stored as its bit pattern. Arithmetic is never done on it directly.
struct float16_t {
  uint16_t bits;
};
// bfloat16 (the upper half of a binary32), stored as its bit pattern.
struct bfloat16_t {
  uint16_t bits;
};

// X(enumerator, storage type, canonical name)
#define ELTWISE_FOR_EACH_DATA_TYPE(X)             \
  X(kFloat32, float, "float32")                   \
  X(kFloat16, ::eltwise::float16_t, "float16")    \
  X(kBFloat16, ::eltwise::bfloat16_t, "bfloat16") \
  X(kFloat64, double, "float64")                  \
  X(kInt8, int8_t, "int8")                        \
  X(kInt16, int16_t, "int16")                     \
  X(kInt32, int32_t, "int32")                     \
  X(kInt64, int64_t, "int64")                     \
  X(kUInt8, uint8_t, "uint8")                     \
  X(kUInt16, uint16_t, "uint16")                  \
  X(kUInt32, uint32_t, "uint32")                  \
  X(kUInt64, uint64_t, "uint64")

enum class DataType : uint8_t {
#define ELTWISE_ENUMERATOR(e, T, name) e,
  ELTWISE_FOR_EACH_DATA_TYPE(ELTWISE_ENUMERATOR)
#undef ELTWISE_ENUMERATOR
};
inline constexpr int kDataTypeCount = 12;

// Size of one element in bytes.
ELTWISE_API size_t ElementSize(DataType type);
// Canonical lower-case name ("float32", "bfloat16", ...).
ELTWISE_API std::string_view Name(DataType type);
// Inverse of Name(); also accepts NumPy-style short names ("f4", "i1", "bf16", "half", ...).
ELTWISE_API std::optional<DataType> ParseDataType(std::string_view name);
ELTWISE_API bool IsFloatingPoint(DataType type);
ELTWISE_API bool IsSignedInteger(DataType type);

// Maps a storage type to its DataType at compile time.
template <class T>
struct DataTypeOf;
#define ELTWISE_DATA_TYPE_OF(e, T, name)           \
  template <>                                      \
  struct DataTypeOf<T> {                           \
    static constexpr DataType value = DataType::e; \
  };
ELTWISE_FOR_EACH_DATA_TYPE(ELTWISE_DATA_TYPE_OF)
#undef ELTWISE_DATA_TYPE_OF

}  // namespace eltwise
