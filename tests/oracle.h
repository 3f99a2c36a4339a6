// The test oracle: docs/semantics.md section 1 written a second time, independently of
// src/ref/functors.h. It decodes values to double (exact for every float format) or 64-bit integers
// and uses <cmath> (nearbyint under an explicitly set FE_TONEAREST, trunc, round = halves away,
// floor, ceil).
#pragma once

#include <cfenv>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <string>

#include "eltwise/eltwise.h"

namespace eltwise::testing {

// A decoded element: floats as double (sign of zero kept), integers as int64/uint64.
struct Decoded {
  bool is_nan = false;
  double real = 0;
  int64_t signed_value = 0;
  uint64_t unsigned_value = 0;
};

inline double DecodeHalf(uint16_t bits) {
  const int sign = bits >> 15;
  const int exponent = (bits >> 10) & 0x1F;
  const int mantissa = bits & 0x3FF;
  double magnitude;
  if (exponent == 0x1F) {
    magnitude = mantissa ? std::numeric_limits<double>::quiet_NaN()
                         : std::numeric_limits<double>::infinity();
  } else if (exponent == 0) {
    magnitude = std::ldexp(static_cast<double>(mantissa), -24);
  } else {
    magnitude = std::ldexp(static_cast<double>(1024 + mantissa), exponent - 25);
  }
  return sign ? -magnitude : magnitude;
}

inline double DecodeBFloat16(uint16_t bits) {
  const uint32_t wide = static_cast<uint32_t>(bits) << 16;
  float f;
  std::memcpy(&f, &wide, 4);
  return f;
}

inline Decoded Decode(DataType type, const void* p) {
  Decoded d;
  auto load = [p](auto v) {
    std::memcpy(&v, p, sizeof v);
    return v;
  };
  switch (type) {
    case DataType::kFloat32:
      d.real = load(float{});
      break;
    case DataType::kFloat64:
      d.real = load(double{});
      break;
    case DataType::kFloat16:
      d.real = DecodeHalf(load(uint16_t{}));
      break;
    case DataType::kBFloat16:
      d.real = DecodeBFloat16(load(uint16_t{}));
      break;
    case DataType::kInt8:
      d.signed_value = load(int8_t{});
      break;
    case DataType::kInt16:
      d.signed_value = load(int16_t{});
      break;
    case DataType::kInt32:
      d.signed_value = load(int32_t{});
      break;
    case DataType::kInt64:
      d.signed_value = load(int64_t{});
      break;
    case DataType::kUInt8:
      d.unsigned_value = load(uint8_t{});
      break;
    case DataType::kUInt16:
      d.unsigned_value = load(uint16_t{});
      break;
    case DataType::kUInt32:
      d.unsigned_value = load(uint32_t{});
      break;
    case DataType::kUInt64:
      d.unsigned_value = load(uint64_t{});
      break;
  }
  d.is_nan = IsFloatingPoint(type) && std::isnan(d.real);
  return d;
}

// What Sign must return for input x (same type).
inline Decoded OracleSign(DataType type, const Decoded& x, NanPolicy nan) {
  Decoded r;
  if (IsFloatingPoint(type)) {
    if (x.is_nan) {
      r.is_nan = nan == NanPolicy::kPropagate;
      r.real = r.is_nan ? std::numeric_limits<double>::quiet_NaN() : 0.0;
    } else {
      r.real = x.real > 0 ? 1.0 : x.real < 0 ? -1.0 : 0.0;  // +0 for both zeros
    }
  } else if (IsSignedInteger(type)) {
    r.signed_value = x.signed_value > 0 ? 1 : x.signed_value < 0 ? -1 : 0;
  } else {
    r.unsigned_value = x.unsigned_value != 0 ? 1 : 0;
  }
  return r;
}

// What Round must return for input x (same type).
inline Decoded OracleRound(DataType type, const Decoded& x, RoundingMode mode) {
  if (!IsFloatingPoint(type)) return x;
  Decoded r = x;
  if (x.is_nan) return r;
  switch (mode) {
    case RoundingMode::kHalvesToNearestEven: {
      const int saved = std::fegetround();
      std::fesetround(FE_TONEAREST);
      r.real = std::nearbyint(x.real);
      std::fesetround(saved);
      break;
    }
    case RoundingMode::kTowardZero:
      r.real = std::trunc(x.real);
      break;
    case RoundingMode::kTowardInfinity:
      r.real = std::round(x.real);
      break;  // halves away
    case RoundingMode::kDown:
      r.real = std::floor(x.real);
      break;
    case RoundingMode::kUp:
      r.real = std::ceil(x.real);
      break;
  }
  return r;
}

// Bit-exact equality of decoded values (NaN matches NaN; +0 differs from -0).
inline bool SameValue(const Decoded& a, const Decoded& b) {
  if (a.is_nan || b.is_nan) return a.is_nan && b.is_nan;
  uint64_t x, y;
  std::memcpy(&x, &a.real, 8);
  std::memcpy(&y, &b.real, 8);
  return x == y && a.signed_value == b.signed_value && a.unsigned_value == b.unsigned_value;
}

inline std::string ToString(DataType type, const Decoded& d) {
  if (d.is_nan) return "nan";
  if (IsFloatingPoint(type)) {
    char buffer[64];
    snprintf(buffer, sizeof buffer, "%.17g", d.real);
    return (std::signbit(d.real) && d.real == 0) ? "-0" : buffer;
  }
  return IsSignedInteger(type) ? std::to_string(d.signed_value) : std::to_string(d.unsigned_value);
}

}  // namespace eltwise::testing
