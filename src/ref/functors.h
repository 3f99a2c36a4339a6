// THE SEMANTICS OF eltwise. One scalar functor per function; every backend (reference loops, SIMD
// tails, CUDA kernels) calls these, and the SIMD kernels are tested bit for bit against them.
//
// Floating-point inputs are handled purely in the integer domain on their bit patterns, so results
// never depend on the floating-point environment (rounding mode, FTZ/DAZ), and float16/bfloat16 are
// exact without any conversion. One template serves float, double, float16_t and bfloat16_t.
//
//  * Sign: x > 0 -> +1, x < 0 -> -1 (subnormals and infinities included), +-0 -> +0,
//    NaN -> +0 (NanPolicy::kZero) or NaN (NanPolicy::kPropagate). Integers: -1/0/1, never via abs.
//  * Round (see RoundFloatBits below for the tie rules): the sign of zero is kept, +-inf and NaN
//    pass through, values with |x| >= 2^mantissa_bits are already integral and pass through.
//    Integers: identity.
#pragma once

#include <cstdint>
#include <type_traits>

#include "eltwise/operators.h"
#include "eltwise/types.h"

namespace eltwise {

// The bit layout of each floating-point storage type.
template <class T>
struct FloatFormat;
template <>
struct FloatFormat<float> {
  using Bits = uint32_t;
  static constexpr int kMantissaBits = 23;
};
template <>
struct FloatFormat<double> {
  using Bits = uint64_t;
  static constexpr int kMantissaBits = 52;
};
template <>
struct FloatFormat<float16_t> {
  using Bits = uint16_t;
  static constexpr int kMantissaBits = 10;
};
template <>
struct FloatFormat<bfloat16_t> {
  using Bits = uint16_t;
  static constexpr int kMantissaBits = 7;
};

template <class T>
inline constexpr bool kIsFloat = std::is_same_v<T, float> || std::is_same_v<T, double> ||
                                 std::is_same_v<T, float16_t> || std::is_same_v<T, bfloat16_t>;

// Derived constants of a format with bit type B and M mantissa bits.
template <class T>
struct FloatConstants {
  using Bits = typename FloatFormat<T>::Bits;
  static constexpr int kM = FloatFormat<T>::kMantissaBits;
  static constexpr int kWidth = 8 * sizeof(Bits);
  static constexpr Bits kSignMask = static_cast<Bits>(Bits{1} << (kWidth - 1));
  static constexpr Bits kAbsMask = static_cast<Bits>(~kSignMask);
  static constexpr Bits kMantissaMask = static_cast<Bits>((Bits{1} << kM) - 1);
  static constexpr Bits kInfBits = static_cast<Bits>(kAbsMask & ~kMantissaMask);  // also max exp
  static constexpr int kBias = static_cast<int>(kInfBits >> (kM + 1));
  static constexpr Bits kOneBits = static_cast<Bits>(Bits(kBias) << kM);       // 1.0
  static constexpr Bits kHalfBits = static_cast<Bits>(Bits(kBias - 1) << kM);  // 0.5
};

template <class T>
ELTWISE_HOST_DEVICE constexpr typename FloatFormat<T>::Bits ToBits(T x) {
  if constexpr (std::is_same_v<T, float16_t> || std::is_same_v<T, bfloat16_t>) {
    return x.bits;
  } else {
    return __builtin_bit_cast(typename FloatFormat<T>::Bits, x);
  }
}

template <class T>
ELTWISE_HOST_DEVICE constexpr T FromBits(typename FloatFormat<T>::Bits b) {
  if constexpr (std::is_same_v<T, float16_t> || std::is_same_v<T, bfloat16_t>) {
    return T{b};
  } else {
    return __builtin_bit_cast(T, b);
  }
}

// Sign of a floating-point bit pattern.
template <class T, NanPolicy kNan>
ELTWISE_HOST_DEVICE constexpr typename FloatFormat<T>::Bits SignFloatBits(
    typename FloatFormat<T>::Bits b) {
  using C = FloatConstants<T>;
  using Bits = typename C::Bits;
  const Bits magnitude = static_cast<Bits>(b & C::kAbsMask);
  if (magnitude == 0) return Bits{0};  // +0 for both zeros
  if (magnitude > C::kInfBits) {       // NaN
    return kNan == NanPolicy::kZero ? Bits{0} : b;
  }
  return static_cast<Bits>((b & C::kSignMask) | C::kOneBits);
}

// Round a floating-point bit pattern to an integral value.
//
// Tie rules (where Round's tie rule lives):
//   kHalvesToNearestEven: nearest; exact halves go to the even integer   (2.5 -> 2, -1.5 -> -2)
//   kTowardZero:          truncate                                        (2.5 -> 2, -1.75 -> -1)
//   kTowardInfinity:      nearest; exact halves go away from zero        (2.5 -> 3, -1.5 -> -2)
//   kDown / kUp:          floor / ceil                                    (-1.25 -> -2 / -1)
// The result keeps the sign of the input (so -0.4 -> -0.0 and ceil(-0.5) -> -0.0).
template <class T, RoundingMode kMode>
ELTWISE_HOST_DEVICE constexpr typename FloatFormat<T>::Bits RoundFloatBits(
    typename FloatFormat<T>::Bits b) {
  using C = FloatConstants<T>;
  using Bits = typename C::Bits;
  const Bits sign = static_cast<Bits>(b & C::kSignMask);
  const Bits magnitude = static_cast<Bits>(b & C::kAbsMask);
  const int exponent = static_cast<int>(magnitude >> C::kM) - C::kBias;
  if (exponent >= C::kM) return b;  // already integral, or inf, or NaN

  if (exponent < 0) {  // |x| < 1 (zeros and subnormals included): result is +-0 or +-1
    bool to_one = false;
    switch (kMode) {
      case RoundingMode::kHalvesToNearestEven:
        to_one = magnitude > C::kHalfBits;
        break;
      case RoundingMode::kTowardZero:
        to_one = false;
        break;
      case RoundingMode::kTowardInfinity:
        to_one = magnitude >= C::kHalfBits;
        break;
      case RoundingMode::kDown:
        to_one = sign != 0 && magnitude != 0;
        break;
      case RoundingMode::kUp:
        to_one = sign == 0 && magnitude != 0;
        break;
    }
    return static_cast<Bits>(sign | (to_one ? C::kOneBits : Bits{0}));
  }

  // 1 <= |x| < 2^M: the low (M - exponent) mantissa bits are the fraction.
  const Bits unit = static_cast<Bits>(Bits{1} << (C::kM - exponent));  // 1.0 at this exponent
  const Bits fraction_mask = static_cast<Bits>(unit - 1);
  const Bits fraction = static_cast<Bits>(magnitude & fraction_mask);
  if (fraction == 0) return b;
  const Bits truncated = static_cast<Bits>(magnitude & ~fraction_mask);
  const Bits half = static_cast<Bits>(unit >> 1);
  bool up = false;
  switch (kMode) {
    case RoundingMode::kHalvesToNearestEven:
      up = fraction > half || (fraction == half && (truncated & unit) != 0);
      break;
    case RoundingMode::kTowardZero:
      up = false;
      break;
    case RoundingMode::kTowardInfinity:
      up = fraction >= half;
      break;
    case RoundingMode::kDown:
      up = sign != 0;
      break;
    case RoundingMode::kUp:
      up = sign == 0;
      break;
  }
  // Adding `unit` to the magnitude adds 1.0; a carry out of the mantissa correctly bumps the
  // exponent (e.g. 1.75 -> 2.0).
  return static_cast<Bits>(sign | (up ? static_cast<Bits>(truncated + unit) : truncated));
}

template <NanPolicy kNan>
struct SignFunctor {
  template <class T>
  ELTWISE_HOST_DEVICE constexpr T operator()(T x) const {
    if constexpr (kIsFloat<T>) {
      return FromBits<T>(SignFloatBits<T, kNan>(ToBits(x)));
    } else if constexpr (std::is_signed_v<T>) {
      return static_cast<T>((x > 0) - (x < 0));  // INT_MIN -> -1: no abs, no negation
    } else {
      return static_cast<T>(x != 0);
    }
  }
};

template <RoundingMode kMode>
struct RoundFunctor {
  template <class T>
  ELTWISE_HOST_DEVICE constexpr T operator()(T x) const {
    if constexpr (kIsFloat<T>) {
      return FromBits<T>(RoundFloatBits<T, kMode>(ToBits(x)));
    } else {
      return x;  // integers are already integral
    }
  }
};

// Integer Round is planned as a copy.
struct CopyFunctor {
  template <class T>
  ELTWISE_HOST_DEVICE constexpr T operator()(T x) const {
    return x;
  }
};

}  // namespace eltwise
