// Result equality as the contract defines it (docs/semantics.md section 1): bit for bit, except
// that a NaN matches any NaN (payloads are not part of the contract). Used by `eltwise onnx-test`,
// the tests and the fuzzers.
#pragma once

#include <cstddef>
#include <cstring>

#include "ref/functors.h"

namespace eltwise {

// Whether the element of `type` at `p` is a NaN (false for integer types). Any alignment.
inline bool IsNanElement(DataType type, const void* p) {
  auto is_nan = [p](auto format_tag) {
    using T = decltype(format_tag);
    using C = FloatConstants<T>;
    typename C::Bits bits;
    std::memcpy(&bits, p, sizeof bits);
    return static_cast<typename C::Bits>(bits & C::kAbsMask) > C::kInfBits;
  };
  switch (type) {
    case DataType::kFloat32:
      return is_nan(float{});
    case DataType::kFloat64:
      return is_nan(double{});
    case DataType::kFloat16:
      return is_nan(float16_t{});
    case DataType::kBFloat16:
      return is_nan(bfloat16_t{});
    default:
      return false;
  }
}

// Bit-exact equality of two elements, NaN matching NaN.
inline bool SameResult(DataType type, const void* a, const void* b) {
  if (std::memcmp(a, b, ElementSize(type)) == 0) return true;
  return IsNanElement(type, a) && IsNanElement(type, b);
}

}  // namespace eltwise
