// Division by a run-time invariant divisor as a multiply-high, an add and a shift (Granlund and
// Montgomery, "Division by invariant integers using multiplication", 1994). The strided CUDA
// kernels split linear element indices into coordinates with it: GPUs have no integer divide
// instruction (a division is a routine of tens of instructions); this is three.
//
// For a W-bit unsigned type, divisor d >= 1, l = ceil(log2(d)) and
// m = floor(2^W * (2^l - d) / d) + 1 (which fits in W bits):
//   n / d == (mulhi(m, n) + n) >> l   for every 0 <= n < 2^(W-1).
// (m + 2^W = floor(2^(W+l) / d) + 1 = (2^(W+l) + e) / d with 0 < e <= d <= 2^l, so the product
// overshoots n / d by e*n / (d * 2^(W+l)) < 1/d, which never crosses the next integer; the sum
// mulhi(m, n) + n < 2n does not overflow when n < 2^(W-1).) The constructor requires
// 1 <= d < 2^(W-1); callers guarantee dividends below 2^(W-1). Host and device share the code, so
// host tests check the exact arithmetic the kernels run.
#pragma once

#include <cstdint>
#include <type_traits>

#include "eltwise/types.h"  // ELTWISE_HOST_DEVICE

namespace eltwise::cuda {

ELTWISE_HOST_DEVICE inline uint32_t MulHi(uint32_t a, uint32_t b) {
#if defined(__CUDA_ARCH__)
  return __umulhi(a, b);
#else
  return static_cast<uint32_t>((static_cast<uint64_t>(a) * b) >> 32);
#endif
}

ELTWISE_HOST_DEVICE inline uint64_t MulHi(uint64_t a, uint64_t b) {
#if defined(__CUDA_ARCH__)
  return __umul64hi(a, b);
#else
  return static_cast<uint64_t>((static_cast<unsigned __int128>(a) * b) >> 64);
#endif
}

template <class U>
struct FastDivmod {
  static_assert(std::is_same_v<U, uint32_t> || std::is_same_v<U, uint64_t>);
  static constexpr int kWidth = 8 * sizeof(U);

  U divisor = 1;
  U multiplier = 1;  // m above; divisor 1 gives m = 1, l = 0
  uint32_t shift = 0;

  FastDivmod() = default;
  // Host only. Requires 1 <= d < 2^(W-1).
  explicit FastDivmod(U d) : divisor(d) {
    uint32_t l = 0;
    while (l < kWidth - 1 && (U{1} << l) < d) ++l;
    shift = l;
    using Wide = std::conditional_t<std::is_same_v<U, uint32_t>, uint64_t, unsigned __int128>;
    const Wide numerator = static_cast<Wide>((U{1} << l) - d) << kWidth;
    multiplier = static_cast<U>(numerator / d + 1);
  }

  ELTWISE_HOST_DEVICE U Div(U n) const { return (MulHi(multiplier, n) + n) >> shift; }
  // Quotient, and the remainder in *remainder.
  ELTWISE_HOST_DEVICE U Divmod(U n, U* remainder) const {
    const U q = Div(n);
    *remainder = n - q * divisor;
    return q;
  }
};

}  // namespace eltwise::cuda
