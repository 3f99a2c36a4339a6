// The test oracle: docs/semantics.md section 1 written a second time, independently of
// src/ref/functors.h. It decodes values to double (exact for every float format) or 64-bit
// integers and rounds with exact double arithmetic and the language's float-to-integer conversion
// (which truncates), never with the C library: libm's round/nearbyint/floor/ceil/ldexp are the
// very functions whose halves, near-halves and subnormals the tests check (mingw-w64's
// round(0.49999999999999994) is 1), and nearbyint would also follow the caller's rounding mode.
// Comparisons and conversions of subnormals are exact as long as the caller has not set FTZ/DAZ
// (the tests restore the floating-point environment before consulting the oracle).
#pragma once

#include <cstdint>
#include <cstdio>
#include <cstring>
#include <limits>
#include <string>
#include <variant>

#include "eltwise/eltwise.h"

namespace eltwise::testing {

// A decoded element: floats as double (sign of zero kept), integers as int64/uint64.
struct Decoded {
  bool is_nan = false;
  double real = 0;
  int64_t signed_value = 0;
  uint64_t unsigned_value = 0;
};

// 2^e as a double, built from its bit pattern (e in [-1074, 1023]).
inline double PowerOfTwo(int e) {
  const uint64_t bits =
      e >= -1022 ? static_cast<uint64_t>(e + 1023) << 52 : uint64_t{1} << (e + 1074);  // subnormal
  double d;
  std::memcpy(&d, &bits, 8);
  return d;
}

inline double Negated(double x, bool negative) {
  uint64_t bits;
  std::memcpy(&bits, &x, 8);
  if (negative) bits |= uint64_t{1} << 63;
  std::memcpy(&x, &bits, 8);
  return x;
}

inline bool SignBit(double x) {
  uint64_t bits;
  std::memcpy(&bits, &x, 8);
  return (bits >> 63) != 0;
}

// A binary floating-point format with `exponent_bits` and `mantissa_bits` below the sign bit:
// (-1)^s * mantissa * 2^(e - bias - mantissa_bits), with the implicit 1 for normal numbers. The
// product is exact (every format here fits in a double).
inline double DecodeBinary(uint64_t bits, int exponent_bits, int mantissa_bits) {
  const int bias = (1 << (exponent_bits - 1)) - 1;
  const bool negative = ((bits >> (exponent_bits + mantissa_bits)) & 1) != 0;
  const int exponent = static_cast<int>((bits >> mantissa_bits) & ((1u << exponent_bits) - 1));
  const uint64_t mantissa = bits & ((uint64_t{1} << mantissa_bits) - 1);
  double magnitude;
  if (exponent == (1 << exponent_bits) - 1) {
    magnitude = mantissa != 0 ? std::numeric_limits<double>::quiet_NaN()
                              : std::numeric_limits<double>::infinity();
  } else if (exponent == 0) {
    magnitude = static_cast<double>(mantissa) * PowerOfTwo(1 - bias - mantissa_bits);
  } else {
    magnitude = static_cast<double>(mantissa | (uint64_t{1} << mantissa_bits)) *
                PowerOfTwo(exponent - bias - mantissa_bits);
  }
  return Negated(magnitude, negative);
}

inline double DecodeHalf(uint16_t bits) { return DecodeBinary(bits, 5, 10); }
inline double DecodeBFloat16(uint16_t bits) { return DecodeBinary(bits, 8, 7); }

inline Decoded Decode(DataType type, const void* p) {
  Decoded d;
  auto load = [p](auto v) {
    std::memcpy(&v, p, sizeof v);
    return v;
  };
  switch (type) {
    case DataType::kFloat32:
      d.real = DecodeBinary(load(uint32_t{}), 8, 23);
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
  d.is_nan = IsFloatingPoint(type) && d.real != d.real;
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

// x rounded to an integral value by `mode`, keeping the sign of x (-0.4 -> -0, ceil(-0.5) -> -0).
// Below 2^52 the conversion to int64_t truncates exactly, x - trunc(x) is exact, and so are the
// comparisons with 0.5 and the +-1 steps; from 2^52 on (and +-inf) every double is integral.
inline double OracleRoundReal(double x, RoundingMode mode) {
  const double magnitude = SignBit(x) ? -x : x;
  if (!(magnitude < 4503599627370496.0)) return x;  // 2^52, infinities
  const int64_t whole = static_cast<int64_t>(x);
  const double truncated = static_cast<double>(whole);
  const double fraction = x - truncated;  // exact; same sign as x (or zero)
  const double away = x < 0 ? -1.0 : 1.0;
  const double fraction_magnitude = fraction < 0 ? -fraction : fraction;
  double r = truncated;
  switch (mode) {
    case RoundingMode::kHalvesToNearestEven:
      if (fraction_magnitude > 0.5 || (fraction_magnitude == 0.5 && whole % 2 != 0)) {
        r = truncated + away;
      }
      break;
    case RoundingMode::kTowardZero:
      break;
    case RoundingMode::kTowardInfinity:  // halves away from zero
      if (fraction_magnitude >= 0.5) r = truncated + away;
      break;
    case RoundingMode::kDown:
      if (fraction < 0) r = truncated - 1.0;
      break;
    case RoundingMode::kUp:
      if (fraction > 0) r = truncated + 1.0;
      break;
  }
  return r == 0 ? Negated(0.0, SignBit(x)) : r;
}

// What Round must return for input x (same type).
inline Decoded OracleRound(DataType type, const Decoded& x, RoundingMode mode) {
  if (!IsFloatingPoint(type)) return x;
  Decoded r = x;
  if (x.is_nan) return r;
  r.real = OracleRoundReal(x.real, mode);
  return r;
}

// What the operator `desc` must return for input x: one overload per description type, so a new
// op fails to compile here until the oracle knows it.
inline Decoded OracleOf(const SignDesc& desc, DataType type, const Decoded& x) {
  return OracleSign(type, x, desc.nan);
}
inline Decoded OracleOf(const RoundDesc& desc, DataType type, const Decoded& x) {
  return OracleRound(type, x, desc.mode);
}
inline Decoded OracleFor(const OperatorDesc& desc, DataType type, const Decoded& x) {
  return std::visit([&](const auto& d) { return OracleOf(d, type, x); }, desc);
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
    return (SignBit(d.real) && d.real == 0) ? "-0" : buffer;
  }
  return IsSignedInteger(type) ? std::to_string(d.signed_value) : std::to_string(d.unsigned_value);
}

}  // namespace eltwise::testing
