// Highway SIMD kernels: one KernelTable per compiled target (foreach_target.h), selected at run
// time by HWY_DYNAMIC_DISPATCH. Every entry is bit-identical to the scalar functors of
// src/ref/functors.h on every target and under any floating-point environment (rounding mode,
// FTZ/DAZ):
//
//  * Sign works on bit patterns with integer compares (never float compares, which DAZ would bend).
//  * Round on f32/f64 uses explicit-rounding instructions (x86 ROUNDPS/VRNDSCALE immediates, Arm
//    FRINT*), which ignore the MXCSR/FPCR rounding mode. DAZ/FZ make them read a subnormal as ±0,
//    which only matters for floor/ceil (floor(-tiny) is -1): those lanes are put back from the
//    bit pattern. Ties-away is trunc(x) ± 1 where |x - trunc(x)| >= 0.5 (the subtraction is exact).
//  * Round on bf16 rounds both halves of each 32-bit pair as f32 (a mask and a shift, both exact)
//    and recombines them; f16 widens and narrows with F16C (exact for integer results, Inf/NaN
//    kept; f16 subnormals are normal in f32 and VCVTPH2PS ignores DAZ).
//    Without F16C (SSE4, SCALAR, Arm), and for ties-away on AVX-512, f16 rounds in the 16-bit
//    integer domain instead (RoundF16IntOp; Highway's emulated f16 DemoteTo would break Inf/NaN).
//  * Targets without explicit rounding (SSSE3, whose Round drops -0; EMU128/SCALAR) use the
//    reference loop for f32/f64/bf16 Round; SSSE3 also for f16.
//
// Kernels: unrolled full vectors, then one last full vector ending exactly at n (it may recompute
// elements already done: every function is idempotent, f(f(x)) == f(x), so this is exact even in
// place), then 128-bit vectors and finally the scalar functor for what is shorter than a vector.
// Nothing is read or written outside [0, n).
#include <algorithm>
#include <cstring>
#include <numeric>
#include <type_traits>

#include "cpu/kernels.h"
#include "ref/functors.h"

#ifndef ELTWISE_SIMD_TARGET_TABLES
#define ELTWISE_SIMD_TARGET_TABLES
namespace eltwise {
// Every compiled target's table, registered by that target's pass of this file (below) with its
// HWY_TARGET bit: Highway's public API only, so that testing each target does not depend on how a
// Highway version lays out its dispatch tables.
struct TargetTable {
  int64_t target;
  const KernelTable* (*get)();
};
std::vector<TargetTable>& TargetTables() {
  static std::vector<TargetTable> tables;  // function-local: complete before any registration
  return tables;
}
bool RegisterTargetTable(int64_t target, const KernelTable* (*get)()) {
  TargetTables().push_back({target, get});
  return true;
}
}  // namespace eltwise
#endif

// Every target the compiler can generate, including HWY_SCALAR where the baseline is better
// (aarch64: NEON), so that the scalar Highway paths are built and tested on every architecture.
#ifndef HWY_COMPILE_ALL_ATTAINABLE
#define HWY_COMPILE_ALL_ATTAINABLE
#endif
#undef HWY_TARGET_INCLUDE
#define HWY_TARGET_INCLUDE "cpu/simd/simd_kernels.cc"
#include <hwy/foreach_target.h>  // IWYU pragma: keep
// Must come after foreach_target.h.
#include <hwy/cache_control.h>
#include <hwy/highway.h>

HWY_BEFORE_NAMESPACE();
namespace eltwise {
namespace HWY_NAMESPACE {
namespace hn = hwy::HWY_NAMESPACE;

#if (HWY_ARCH_X86 && HWY_TARGET <= HWY_SSE4) || \
    (HWY_ARCH_ARM_A64 && HWY_TARGET != HWY_EMU128 && HWY_TARGET != HWY_SCALAR)
#define ELTWISE_HWY_EXPLICIT_ROUND 1
#else
#define ELTWISE_HWY_EXPLICIT_ROUND 0
#endif
#if HWY_ARCH_X86 && HWY_TARGET <= HWY_AVX2
#define ELTWISE_HWY_NATIVE_F16 1  // F16C: exact conversions that keep Inf and NaN
#else
#define ELTWISE_HWY_NATIVE_F16 0
#endif

// ---------------------------------------------------------------------------------------------
// Vector operations. Each has `Lane` (the lane type it works on, same size as the storage type)
// and Apply(d, v) on a vector of Lane.

// Sign of float bit patterns, in signed integer lanes of the same width. A lane is "finite
// non-zero or infinite" when its magnitude m is in [1, inf]: adding (max - inf) maps exactly that
// range to the top of the signed range (m = 0 lands just below it, NaN magnitudes wrap negative),
// so one add and one signed compare classify it. The add is done on unsigned lanes, where the
// wrap-around is defined (a signed lane add that overflows is undefined behaviour, and GCC folds
// it on NEON into m > 0, which turns NaN into ±1).
template <class T, NanPolicy kNan>
struct SignFloatOp {
  using C = FloatConstants<T>;
  using Lane = std::make_signed_t<typename C::Bits>;
  using Wide = Lane;
  template <class D>
  static HWY_INLINE hn::Vec<D> Apply(D d, hn::Vec<D> b) {
    const hn::RebindToUnsigned<D> du;
    using Bits = typename C::Bits;
    constexpr Lane kMax = static_cast<Lane>(C::kAbsMask);
    constexpr Lane kInf = static_cast<Lane>(C::kInfBits);
    const auto abs_mask = hn::Set(d, kMax);
    const auto magnitude = hn::And(b, abs_mask);
    const auto shifted = hn::BitCast(
        d, hn::Add(hn::BitCast(du, magnitude), hn::Set(du, static_cast<Bits>(kMax - kInf))));
    const auto nonzero_number = hn::Gt(shifted, hn::Set(d, static_cast<Lane>(kMax - kInf)));
    const auto one = hn::Or(hn::AndNot(abs_mask, b), hn::Set(d, static_cast<Lane>(C::kOneBits)));
    if constexpr (kNan == NanPolicy::kZero) {
      return hn::IfThenElseZero(nonzero_number, one);  // ±0 and NaN give +0
    } else {
      const auto is_nan = hn::Gt(magnitude, hn::Set(d, kInf));
      return hn::IfThenElse(nonzero_number, one, hn::IfThenElseZero(is_nan, b));
    }
  }
};

// Integer sign is a clamp to [-1, 1] (INT_MIN gives -1: no abs, no negation); unsigned: min(x, 1).
template <class T>
struct SignIntOp {
  using Lane = T;
  using Wide = T;
  template <class D>
  static HWY_INLINE hn::Vec<D> Apply(D d, hn::Vec<D> v) {
    if constexpr (std::is_signed_v<T>) {
      return hn::Min(hn::Max(v, hn::Set(d, T{-1})), hn::Set(d, T{1}));
    } else {
      return hn::Min(v, hn::Set(d, T{1}));
    }
  }
};

// DAZ (x86) and FZ (Arm) make rounding instructions read a subnormal input as ±0. For every
// mode but floor and ceil that gives the right result (±0); floor(-tiny) must be -1 and ceil(+tiny)
// must be +1. This puts those two back, from the bit pattern b (signed lanes of the format's
// width): negative subnormals are the patterns strictly between the sign bit alone and the
// smallest negative normal, positive ones lie strictly between 0 and the smallest normal.
template <class T, RoundingMode kMode, class DI>
HWY_INLINE hn::Vec<DI> FixSubnormal(DI di, hn::Vec<DI> b, hn::Vec<DI> r) {
  using C = FloatConstants<T>;
  using Lane = hn::TFromD<DI>;
  const Lane min_normal = static_cast<Lane>(C::kMantissaMask + 1);
  if constexpr (kMode == RoundingMode::kDown) {
    const Lane sign = static_cast<Lane>(C::kSignMask);  // the most negative Lane
    const auto tiny = hn::And(hn::Gt(b, hn::Set(di, sign)),
                              hn::Lt(b, hn::Set(di, static_cast<Lane>(sign | min_normal))));
    return hn::IfThenElse(tiny, hn::Set(di, static_cast<Lane>(C::kSignMask | C::kOneBits)), r);
  } else if constexpr (kMode == RoundingMode::kUp) {
    const auto tiny = hn::And(hn::Gt(b, hn::Zero(di)), hn::Lt(b, hn::Set(di, min_normal)));
    return hn::IfThenElse(tiny, hn::Set(di, static_cast<Lane>(C::kOneBits)), r);
  } else {
    return r;
  }
}

// f16 Round in the 16-bit integer domain (any target; no conversions): with a = |bits| and the
// biased exponent e = a >> 10,
//   a >= 0x6400 (|x| >= 1024, inf, NaN): already integral, kept;
//   a <  0x3C00 (|x| < 1): ±0 or ±1 by the mode's rule for |x| against 0.5;
//   otherwise the low 25 - e bits are the fraction: frac = 0x3FF >> (e - 15), and rounding adds
//   to the magnitude before clearing frac (a carry into the exponent is the right result, e.g.
//   1023.5 -> 1024). The sign bit is put back last.
// The arithmetic is on unsigned lanes (lanes that are replaced afterwards may wrap, e.g. NaN
// magnitudes + 1); compares read a <= 0x7FFF as signed, which orders it the same way.
template <RoundingMode kMode>
struct RoundF16IntOp {
  using Lane = int16_t;
  using Wide = int16_t;
  template <class D>
  static HWY_INLINE hn::Vec<D> Apply(D d, hn::Vec<D> b) {
    const hn::RebindToUnsigned<D> du;
    const auto abs_mask = hn::Set(du, 0x7FFF);
    const auto a = hn::And(hn::BitCast(du, b), abs_mask);
    const auto a_signed = hn::BitCast(d, a);
    const auto one = hn::Set(du, 0x3C00);
    // e - 15, clamped so that no lane shifts by its width or more (lanes outside [15, 24] are
    // replaced below, but an oversized shift is undefined on the scalar target); e < 15 wraps
    // to a large count and is clamped too.
    const auto count = hn::Min(hn::Sub(hn::ShiftRight<10>(a), hn::Set(du, 15)), hn::Set(du, 15));
    const auto frac = hn::Shr(hn::Set(du, 0x3FF), count);
    hn::Vec<decltype(du)> mid, small;
    if constexpr (kMode == RoundingMode::kHalvesToNearestEven) {
      // + (half - 1) + the integer's lowest bit (unit = frac + 1): ties go to the even neighbour.
      const auto odd = hn::VecFromMask(du, hn::TestBit(a, hn::Add(frac, hn::Set(du, 1))));
      mid = hn::AndNot(frac, hn::Sub(hn::Add(a, hn::ShiftRight<1>(frac)), odd));
      small = hn::IfThenElseZero(hn::RebindMask(du, hn::Gt(a_signed, hn::Set(d, 0x3800))), one);
    } else if constexpr (kMode == RoundingMode::kTowardInfinity) {
      mid = hn::AndNot(frac, hn::Add(a, hn::Add(hn::ShiftRight<1>(frac), hn::Set(du, 1))));
      // a >= half (0x3800)
      small = hn::IfThenElseZero(hn::RebindMask(du, hn::Gt(a_signed, hn::Set(d, 0x37FF))), one);
    } else if constexpr (kMode == RoundingMode::kTowardZero) {
      mid = hn::AndNot(frac, a);
      small = hn::Zero(du);
    } else {
      // Down: magnitudes of negatives round up; Up: of positives.
      const auto negative = hn::RebindMask(du, hn::Lt(b, hn::Zero(d)));
      const auto away = kMode == RoundingMode::kDown ? negative : hn::Not(negative);
      mid = hn::AndNot(frac, hn::IfThenElse(away, hn::Add(a, frac), a));
      small =
          hn::IfThenElseZero(hn::And(away, hn::RebindMask(du, hn::Gt(a_signed, hn::Zero(d)))), one);
    }
    const auto magnitude = hn::IfThenElse(
        hn::RebindMask(du, hn::Gt(a_signed, hn::Set(d, 0x63FF))), a,  // >= 1024
        hn::IfThenElse(hn::RebindMask(du, hn::Lt(a_signed, hn::Set(d, 0x3C00))), small, mid));
    return hn::BitCast(d, hn::Or(hn::AndNot(abs_mask, hn::BitCast(du, b)), magnitude));
  }
};

#if ELTWISE_HWY_EXPLICIT_ROUND
// Round of f32/f64 vectors with explicit-rounding instructions. `kFixSmall`: also put back
// floor/ceil of subnormals, which DAZ would bend.
template <RoundingMode kMode, bool kFixSmall, class DF>
HWY_INLINE hn::Vec<DF> RoundFloatVec(DF df, hn::Vec<DF> v) {
  using F = hn::TFromD<DF>;
  hn::Vec<DF> r;
  if constexpr (kMode == RoundingMode::kHalvesToNearestEven) {
    r = hn::Round(v);
  } else if constexpr (kMode == RoundingMode::kTowardZero) {
    r = hn::Trunc(v);
  } else if constexpr (kMode == RoundingMode::kDown) {
    r = hn::Floor(v);
  } else if constexpr (kMode == RoundingMode::kUp) {
    r = hn::Ceil(v);
  } else {
    // Ties away from zero: NaN and ±inf give a NaN or zero difference and pass through trunc.
    const auto t = hn::Trunc(v);
    const auto away = hn::Ge(hn::Abs(hn::Sub(v, t)), hn::Set(df, F(0.5)));
    r = hn::IfThenElse(away, hn::Add(t, hn::CopySign(hn::Set(df, F(1)), v)), t);
  }
  if constexpr (kFixSmall && (kMode == RoundingMode::kDown || kMode == RoundingMode::kUp)) {
    const hn::RebindToSigned<DF> di;
    r = hn::BitCast(df, FixSubnormal<F, kMode>(di, hn::BitCast(di, v), hn::BitCast(di, r)));
  }
  return r;
}

template <class F, RoundingMode kMode>
struct RoundFloatOp {
  using Lane = F;
  using Wide = F;
  template <class D>
  static HWY_INLINE hn::Vec<D> Apply(D d, hn::Vec<D> v) {
    return RoundFloatVec<kMode, true>(d, v);
  }
};

// bf16 is the upper half of an f32: a vector of bf16 pairs read as u32 lanes holds one element in
// the upper half (as an f32 once the lower half is masked off) and one in the lower half (an f32
// after a 16-bit shift). Both round exactly in f32 and the results have zero low halves (integers
// of at most 8 significant bits, ±inf, or NaNs, whose quieting bit is in the upper half), so they
// recombine with one shift and an OR. bf16 subnormals stay subnormal in f32, so floor/ceil get
// the DAZ fix-up in the 16-bit domain.
template <RoundingMode kMode>
struct RoundBF16Op {
  using Lane = int16_t;
  using Wide = int16_t;
  template <class D>
  static HWY_INLINE hn::Vec<D> Apply(D d, hn::Vec<D> v) {
    const hn::Repartition<uint32_t, D> du;
    const hn::Repartition<float, D> df;
    const auto pairs = hn::BitCast(du, v);
    const auto upper = hn::BitCast(df, hn::And(pairs, hn::Set(du, 0xFFFF0000u)));
    const auto lower = hn::BitCast(df, hn::ShiftLeft<16>(pairs));
    const auto r_upper = hn::BitCast(du, RoundFloatVec<kMode, false>(df, upper));
    const auto r_lower = hn::BitCast(du, RoundFloatVec<kMode, false>(df, lower));
    const auto r = hn::BitCast(d, hn::Or(r_upper, hn::ShiftRight<16>(r_lower)));
    if constexpr (kMode == RoundingMode::kDown || kMode == RoundingMode::kUp) {
      return FixSubnormal<bfloat16_t, kMode>(d, v, r);
    } else {
      return r;
    }
  }
};

#if ELTWISE_HWY_NATIVE_F16
// f16: vectors of 16-bit lanes half as wide as an f32 vector (so no lane shuffles), widened to
// f32 and narrowed with F16C (exact here: results are integers of at most 11 significant bits,
// ±inf or NaN). f16 subnormals are normal in f32 and VCVTPH2PS ignores DAZ, so no fix-up.
template <RoundingMode kMode>
struct RoundF16Op {
  using Lane = int16_t;
  using Wide = float;  // vectors hold as many lanes as an f32 vector
  template <class D>
  static HWY_INLINE hn::Vec<D> Apply(D d, hn::Vec<D> v) {
    const hn::Rebind<float, D> df;
    const hn::Rebind<hwy::float16_t, D> df16;
    const auto r = RoundFloatVec<kMode, false>(df, hn::PromoteTo(df, hn::BitCast(df16, v)));
    return hn::BitCast(d, hn::DemoteTo(df16, r));
  }
};
#endif
#endif  // ELTWISE_HWY_EXPLICIT_ROUND

// ---------------------------------------------------------------------------------------------
// Loops.

// Scalar tail through the functor on the storage type.
template <class Functor, class T>
HWY_INLINE void ScalarLoop(const std::byte* in, std::byte* out, size_t n) {
  for (size_t i = 0; i < n; ++i) {
    T x;
    std::memcpy(&x, in + i * sizeof(T), sizeof(T));
    const T y = Functor{}(x);
    std::memcpy(out + i * sizeof(T), &y, sizeof(T));
  }
}

template <class Op, class D>
HWY_INLINE void Step(D d, const std::byte* in, std::byte* out, size_t i) {
  using Lane = hn::TFromD<D>;
  const auto v = hn::LoadU(d, reinterpret_cast<const Lane*>(in) + i);
  hn::StoreU(Op::Apply(d, v), d, reinterpret_cast<Lane*>(out) + i);
}

// Up to n < Lanes(full vector): 128-bit vectors (one last overlapping), else scalar.
// The vector tags of an op: lanes of Op::Lane, as many as a vector of Op::Wide holds.
template <class Op>
using FullTag = hn::Rebind<typename Op::Lane, hn::ScalableTag<typename Op::Wide>>;
template <class Op>
using ShortTag =
    hn::Rebind<typename Op::Lane, hn::CappedTag<typename Op::Wide, 16 / sizeof(typename Op::Wide)>>;

template <class Op, class Functor, class T>
HWY_INLINE void ShortRun(const std::byte* in, std::byte* out, size_t n) {
  const ShortTag<Op> d;
  const size_t lanes = hn::Lanes(d);
  if (lanes > 1 && n >= lanes) {
    size_t i = 0;
    for (; i + lanes <= n; i += lanes) Step<Op>(d, in, out, i);
    if (i < n) Step<Op>(d, in, out, n - lanes);
    return;
  }
  ScalarLoop<Functor, T>(in, out, n);
}

template <class Op, class Functor, class T>
void VectorKernel(const std::byte* in, std::byte* out, size_t n) {
  using Lane = typename Op::Lane;
  static_assert(sizeof(Lane) == sizeof(T));
  const FullTag<Op> d;
  const size_t lanes = hn::Lanes(d);
  if (n < lanes) return ShortRun<Op, Functor, T>(in, out, n);
  size_t i = 0;
  for (; i + 4 * lanes <= n; i += 4 * lanes) {
    const Lane* src = reinterpret_cast<const Lane*>(in) + i;
    Lane* dst = reinterpret_cast<Lane*>(out) + i;
    const auto v0 = hn::LoadU(d, src);
    const auto v1 = hn::LoadU(d, src + lanes);
    const auto v2 = hn::LoadU(d, src + 2 * lanes);
    const auto v3 = hn::LoadU(d, src + 3 * lanes);
    hn::StoreU(Op::Apply(d, v0), d, dst);
    hn::StoreU(Op::Apply(d, v1), d, dst + lanes);
    hn::StoreU(Op::Apply(d, v2), d, dst + 2 * lanes);
    hn::StoreU(Op::Apply(d, v3), d, dst + 3 * lanes);
  }
  for (; i + lanes <= n; i += lanes) Step<Op>(d, in, out, i);
  if (i < n) Step<Op>(d, in, out, n - lanes);
}

// Non-temporal variant: ordinary stores up to a vector-aligned output address, streaming stores
// for the aligned body, ordinary stores for the tail, then a store fence.
template <class Op, class Functor, class T>
void VectorKernelStream(const std::byte* in, std::byte* out, size_t n) {
  using Lane = typename Op::Lane;
  const FullTag<Op> d;
  const size_t lanes = hn::Lanes(d);
  const size_t vector_bytes = lanes * sizeof(T);
  const auto address = reinterpret_cast<uintptr_t>(out);
  // Highway's Stream of a vector narrower than 16 bytes stores 16 bytes: ordinary stores then.
  if (vector_bytes < 16 || address % sizeof(T) != 0 || n < 8 * lanes) {
    return VectorKernel<Op, Functor, T>(in, out, n);
  }
  const size_t head = ((vector_bytes - address % vector_bytes) % vector_bytes) / sizeof(T);
  VectorKernel<Op, Functor, T>(in, out, head);
  size_t i = head;
  for (; i + 2 * lanes <= n; i += 2 * lanes) {
    const Lane* src = reinterpret_cast<const Lane*>(in) + i;
    Lane* dst = reinterpret_cast<Lane*>(out) + i;
    const auto v0 = hn::LoadU(d, src);
    const auto v1 = hn::LoadU(d, src + lanes);
    hn::Stream(Op::Apply(d, v0), d, dst);
    hn::Stream(Op::Apply(d, v1), d, dst + lanes);
  }
  VectorKernel<Op, Functor, T>(in + i * sizeof(T), out + i * sizeof(T), n - i);
  hwy::FlushStream();
}

// Broadcast fill: whole vectors of the pattern stored at vector-aligned addresses, 4 per
// iteration; the unaligned head and the tail are copied bytes.
void PatternFill(std::byte* out, size_t bytes, const std::byte* pattern) {
  const hn::CappedTag<uint8_t, 64> d;  // whole periods, and within the pattern from any phase < 8
  const size_t lanes = hn::Lanes(d);
  if (lanes < 8 || bytes < 4 * lanes) {
    for (size_t i = 0; i < bytes; i += 64) {
      std::memcpy(out + i, pattern, std::min<size_t>(64, bytes - i));
    }
    return;
  }
  const size_t head = (lanes - reinterpret_cast<uintptr_t>(out) % lanes) % lanes;
  std::memcpy(out, pattern, head);
  const uint8_t* const phased = reinterpret_cast<const uint8_t*>(pattern) + head % 8;
  const auto v = hn::LoadU(d, phased);  // the pattern as seen from out + head
  uint8_t* p = reinterpret_cast<uint8_t*>(out + head);
  size_t rest = bytes - head;
  for (; rest >= 4 * lanes; rest -= 4 * lanes, p += 4 * lanes) {
    hn::Store(v, d, p);
    hn::Store(v, d, p + lanes);
    hn::Store(v, d, p + 2 * lanes);
    hn::Store(v, d, p + 3 * lanes);
  }
  for (; rest >= lanes; rest -= lanes, p += lanes) hn::Store(v, d, p);
  std::memcpy(p, phased, rest);
}

// ---------------------------------------------------------------------------------------------
// Transposed tiles (KernelTable::transposed): L x L blocks, L = 16 / sizeof(T), one per 128-bit
// block of vectors that hold L input rows, transposed in registers by log2(L) rounds of
// InterleaveLower/InterleaveUpper at doubling lane widths; the op is applied to each transposed
// vector, stored whole along one output row (TransposeRangeToRows: the blocks come from input
// rows L apart) or a block at a time along L output rows (TransposeRangeInBlocks: the blocks are
// one input row's consecutive elements); TransposedVector picks one. Vectors at the far edges are
// shifted back to end exactly at the tile's edge (they recompute a few elements; input and output
// do not overlap, so this is exact). Tiles narrower than L fall back to the scalar functor. Not on
// the scalar target (one lane) nor SVE (whose 128-bit interleaves this code does not use).
#if HWY_TARGET != HWY_SCALAR && HWY_TARGET != HWY_SVE && HWY_TARGET != HWY_SVE2 && \
    HWY_TARGET != HWY_SVE_256 && HWY_TARGET != HWY_SVE2_128
#define ELTWISE_HWY_TRANSPOSE 1
#else
#define ELTWISE_HWY_TRANSPOSE 0
#endif

// The identity on unsigned lanes of sizeof(T) (the transposed copy).
template <class T>
struct IdentityOp {
  using Lane = hwy::UnsignedFromSize<sizeof(T)>;
  using Wide = Lane;
  template <class D>
  static HWY_INLINE hn::Vec<D> Apply(D /*d*/, hn::Vec<D> v) {
    return v;
  }
};

template <class Functor, class T>
void ScalarTransposed(const std::byte* in, ptrdiff_t in_stride, std::byte* out, ptrdiff_t out_pitch,
                      size_t a_count, size_t b_count) {
  for (size_t a = 0; a < a_count; ++a) {
    for (size_t b = 0; b < b_count; ++b) {
      T x;
      std::memcpy(&x, in + static_cast<ptrdiff_t>(b) * in_stride + a * sizeof(T), sizeof(T));
      const T y = Functor{}(x);
      std::memcpy(out + static_cast<ptrdiff_t>(a) * out_pitch + b * sizeof(T), &y, sizeof(T));
    }
  }
}

#if ELTWISE_HWY_TRANSPOSE
// One round: vector k of the result interleaves rows 2k and 2k+1 (lower halves of their
// kLaneBytes lanes), vector k + L/2 their upper halves. After log2(L) rounds vector i holds
// column BitReverse(i) (checked by the tests against the reference on every target).
template <size_t kLaneBytes, class D, size_t L>
HWY_INLINE void InterleaveRound(D d, hn::Vec<D> (&rows)[L]) {
  const hn::Repartition<hwy::UnsignedFromSize<kLaneBytes>, D> dw;
  hn::Vec<D> next[L];
  for (size_t k = 0; k < L / 2; ++k) {
    const auto lo = hn::BitCast(dw, rows[2 * k]);
    const auto hi = hn::BitCast(dw, rows[2 * k + 1]);
    next[k] = hn::BitCast(d, hn::InterleaveLower(dw, lo, hi));
    next[k + L / 2] = hn::BitCast(d, hn::InterleaveUpper(dw, lo, hi));
  }
  for (size_t k = 0; k < L; ++k) rows[k] = next[k];
}

constexpr size_t BitReverse(size_t i, size_t bits) {
  size_t r = 0;
  for (size_t b = 0; b < bits; ++b) r |= ((i >> b) & 1) << (bits - 1 - b);
  return r;
}

// Loads a vector of D whose 128-bit block k comes from p + k * block_stride.
template <class D>
HWY_INLINE hn::Vec<D> LoadBlocks(D d, const std::byte* p, ptrdiff_t block_stride) {
  using Lane = hn::TFromD<D>;
  constexpr size_t kBytes = hn::MaxLanes(D()) * sizeof(Lane);
  if constexpr (kBytes <= 16) {
    return hn::LoadU(d, reinterpret_cast<const Lane*>(p));
  } else {
    const hn::Half<D> dh;
    constexpr ptrdiff_t kHalfBlocks = static_cast<ptrdiff_t>(kBytes / 32);
    return hn::Combine(d, LoadBlocks(dh, p + kHalfBlocks * block_stride, block_stride),
                       LoadBlocks(dh, p, block_stride));
  }
}

// An L x (L * N) piece of the tile, N = the 128-bit blocks of D: vector i holds input rows i,
// i + L, ..., i + (N - 1) L (row stride in_stride), L lanes of each, one per block, so each block
// is an L x L block, transposed in place in the registers (the interleaves work within blocks).
// Transposed vector i is then L * N consecutive elements of output row BitReverse(i): Op applied
// and stored whole.
template <class Op, class D>
HWY_INLINE void TransposeToRows(D d, const std::byte* in, ptrdiff_t in_stride, std::byte* out,
                                ptrdiff_t out_pitch) {
  using Lane = hn::TFromD<D>;
  constexpr size_t L = 16 / sizeof(Lane);
  constexpr size_t kBits = L == 16 ? 4 : L == 8 ? 3 : L == 4 ? 2 : 1;
  const ptrdiff_t block_stride = static_cast<ptrdiff_t>(L) * in_stride;
  hn::Vec<D> rows[L];
  for (size_t i = 0; i < L; ++i) {
    rows[i] = LoadBlocks(d, in + static_cast<ptrdiff_t>(i) * in_stride, block_stride);
  }
  if constexpr (sizeof(Lane) == 1) InterleaveRound<1>(d, rows);
  if constexpr (sizeof(Lane) <= 2) InterleaveRound<2>(d, rows);
  if constexpr (sizeof(Lane) <= 4) InterleaveRound<4>(d, rows);
  InterleaveRound<8>(d, rows);
  for (size_t i = 0; i < L; ++i) {
    const ptrdiff_t row = static_cast<ptrdiff_t>(BitReverse(i, kBits));
    hn::StoreU(Op::Apply(d, rows[i]), d, reinterpret_cast<Lane*>(out + row * out_pitch));
  }
}

// Prefetches `bytes` <= 64 from each of `rows` rows (one or two cache lines each).
HWY_INLINE void PrefetchRows(const std::byte* p, ptrdiff_t stride, size_t rows, size_t bytes) {
  for (size_t r = 0; r < rows; ++r) {
    const std::byte* row = p + static_cast<ptrdiff_t>(r) * stride;  // never past the last row
    hwy::Prefetch(row);
    if ((reinterpret_cast<uintptr_t>(row) & 63) + bytes > 64) hwy::Prefetch(row + bytes - 1);
  }
}

// The `width` >= L output rows from one position along a (a group: one input cache line's worth
// of elements), a vector of D (L * N elements) at a time along b (the last one shifted back to
// end at b_count >= L * N). Each band of L * N input rows is transposed for the whole group, L
// columns at a time (the last step shifted back to end at `width`), while its lines are in L1.
template <class Op, class D>
HWY_INLINE void TransposeGroup(D d, const std::byte* in, ptrdiff_t in_stride, std::byte* out,
                               ptrdiff_t out_pitch, size_t width, size_t b_count,
                               const std::byte* next_group) {
  using Lane = hn::TFromD<D>;
  constexpr size_t L = 16 / sizeof(Lane);
  const size_t band = hn::MaxLanes(d);  // input rows per vector of D: L per block
  const size_t row_bytes = width * sizeof(Lane);
  const bool prefetch = (in_stride < 0 ? -in_stride : in_stride) >= 4096;
  for (size_t b = 0;; b += band) {
    b = std::min(b, b_count - band);
    const std::byte* rows = in + static_cast<ptrdiff_t>(b) * in_stride;
    // The next band's lines (or the next group's first band's) are requested now when input rows
    // are a page or more apart, which defeats the hardware prefetchers (closer rows are left to
    // them: the requests cost ~10 % in cache).
    if (prefetch && b + band < b_count) {
      const size_t next = std::min(b + band, b_count - band);
      PrefetchRows(in + static_cast<ptrdiff_t>(next) * in_stride, in_stride, band, row_bytes);
    } else if (prefetch && next_group != nullptr) {
      PrefetchRows(next_group, in_stride, band, row_bytes);
    }
    for (size_t a = 0;; a += L) {
      a = std::min(a, width - L);
      TransposeToRows<Op>(d, rows + a * sizeof(Lane), in_stride,
                          out + static_cast<ptrdiff_t>(a) * out_pitch + b * sizeof(Lane),
                          out_pitch);
      if (a + L == width) break;
    }
    if (b + band == b_count) break;
  }
}

// TransposeGroup with the widest vectors (of at most D's blocks) that b_count fills.
template <class Op, class D>
HWY_INLINE void TransposeGroupWidest(D d, const std::byte* in, ptrdiff_t in_stride, std::byte* out,
                                     ptrdiff_t out_pitch, size_t width, size_t b_count,
                                     const std::byte* next_group) {
  using Lane = hn::TFromD<D>;
  constexpr size_t kBytes = hn::MaxLanes(D()) * sizeof(Lane);
  if constexpr (kBytes > 16) {
    if (b_count < hn::MaxLanes(d)) {
      return TransposeGroupWidest<Op>(hn::Half<D>(), in, in_stride, out, out_pitch, width, b_count,
                                      next_group);
    }
  }
  TransposeGroup<Op>(d, in, in_stride, out, out_pitch, width, b_count, next_group);
}

// Stores the 128-bit blocks of v: block k at p + k * block_pitch.
template <class D>
HWY_INLINE void StoreBlocks(D d, hn::Vec<D> v, std::byte* p, ptrdiff_t block_pitch) {
  using Lane = hn::TFromD<D>;
  constexpr size_t kBytes = hn::MaxLanes(D()) * sizeof(Lane);
  if constexpr (kBytes <= 16) {
    hn::StoreU(v, d, reinterpret_cast<Lane*>(p));
  } else {
    const hn::Half<D> dh;
    constexpr ptrdiff_t kHalfBlocks = static_cast<ptrdiff_t>(kBytes / 32);
    StoreBlocks(dh, hn::LowerHalf(dh, v), p, block_pitch);
    StoreBlocks(dh, hn::UpperHalf(dh, v), p + kHalfBlocks * block_pitch, block_pitch);
  }
}

// L rows of the input (row stride in_stride), each a vector of D: every 128-bit block of them is
// an L x L block, transposed in place in the registers (the interleaves work within blocks).
// Block k of transposed vector i is output row k * L + BitReverse(i): Op applied on the whole
// vector, then stored a block at a time.
template <class Op, class D>
HWY_INLINE void TransposeInBlocks(D d, const std::byte* in, ptrdiff_t in_stride, std::byte* out,
                                  ptrdiff_t out_pitch) {
  using Lane = hn::TFromD<D>;
  constexpr size_t L = 16 / sizeof(Lane);
  constexpr size_t kBits = L == 16 ? 4 : L == 8 ? 3 : L == 4 ? 2 : 1;
  hn::Vec<D> rows[L];
  for (size_t i = 0; i < L; ++i) {
    rows[i] =
        hn::LoadU(d, reinterpret_cast<const Lane*>(in + static_cast<ptrdiff_t>(i) * in_stride));
  }
  if constexpr (sizeof(Lane) == 1) InterleaveRound<1>(d, rows);
  if constexpr (sizeof(Lane) <= 2) InterleaveRound<2>(d, rows);
  if constexpr (sizeof(Lane) <= 4) InterleaveRound<4>(d, rows);
  InterleaveRound<8>(d, rows);
  for (size_t i = 0; i < L; ++i) {
    const ptrdiff_t row = static_cast<ptrdiff_t>(BitReverse(i, kBits));
    StoreBlocks(d, Op::Apply(d, rows[i]), out + row * out_pitch,
                static_cast<ptrdiff_t>(L) * out_pitch);
  }
}

// Bands of L input rows (the last shifted back to end at b_count) at one position along a: the
// output rows of this position are completed a line at a time before moving on (output rows
// with power-of-two pitches share few L1 sets, so revisiting them later would miss).
template <class Op, class D>
HWY_INLINE void TransposeColumnInBlocks(D d, const std::byte* in, ptrdiff_t in_stride,
                                        std::byte* out, ptrdiff_t out_pitch, size_t b_count) {
  using Lane = hn::TFromD<D>;
  constexpr size_t L = 16 / sizeof(Lane);
  for (size_t b = 0;; b += L) {
    b = std::min(b, b_count - L);
    const std::byte* band = in + static_cast<ptrdiff_t>(b) * in_stride;
    TransposeInBlocks<Op>(d, band, in_stride, out + b * sizeof(Lane), out_pitch);
    if (b + L == b_count) break;
  }
}

// Copies `bytes` >= 16 bytes with whole vectors (the last one shifted back to end at `bytes`).
HWY_INLINE void CopyRowBytes(const std::byte* from, std::byte* to, size_t bytes) {
  const hn::ScalableTag<uint8_t> d;
  const hn::Full128<uint8_t> d128;
  const auto copy = [&](auto dv) {
    const size_t lanes = hn::Lanes(dv);
    for (size_t i = 0;; i += lanes) {
      i = std::min(i, bytes - lanes);
      hn::StoreU(hn::LoadU(dv, reinterpret_cast<const uint8_t*>(from) + i), dv,
                 reinterpret_cast<uint8_t*>(to) + i);
      if (i + lanes == bytes) break;
    }
  };
  if (bytes >= hn::Lanes(d)) {
    copy(d);
  } else {
    copy(d128);
  }
}

// Output rows of one step along a are written a vector at a time, each row revisited once per
// band of input rows. When the vectors are narrower than a cache line and the output pitch maps
// the step's rows to few 4 KiB page offsets (so the same few L1 sets: a power-of-two pitch maps
// them all to one), the partly written lines evict each other between bands; the step's rows are
// then transposed into a small buffer with a padded pitch and copied out a whole row at a time.
constexpr size_t kStageRowBytes = 256;  // the widest staged output row
constexpr size_t kStagePad = 64;        // breaks the buffer's own power-of-two pitch

HWY_INLINE bool OutputRowsAlias(ptrdiff_t out_pitch, size_t rows, size_t row_bytes) {
  if (row_bytes > kStageRowBytes) return false;
  const size_t pitch = static_cast<size_t>(out_pitch < 0 ? -out_pitch : out_pitch);
  const size_t offsets = 4096 / std::gcd(pitch, size_t{4096});  // distinct page offsets
  return rows > 4 * offsets;
}

// Whether `rows` input rows a stride apart fall on fewer than rows / 8 page offsets (so into
// fewer L1 sets than an 8-way L1 needs to hold one line of each).
HWY_INLINE bool InputRowsAlias(ptrdiff_t in_stride, size_t rows) {
  const size_t stride = static_cast<size_t>(in_stride < 0 ? -in_stride : in_stride);
  return rows > 8 * (4096 / std::gcd(stride, size_t{4096}));
}

// Groups of kGroup columns along a (the last shifted back to end at a_count; one narrower group
// when a_count < kGroup).
template <class Op, class T>
HWY_INLINE void TransposeRangeToRows(const std::byte* in, ptrdiff_t in_stride, std::byte* out,
                                     ptrdiff_t out_pitch, size_t a_count, size_t b_count) {
  constexpr size_t L = 16 / sizeof(T);
  constexpr size_t kGroup = 64 / sizeof(T);  // one cache line of an input row
  const FullTag<Op> d;  // 256-bit vectors on AVX-512 measured slower (transposed_kernel/AVX3)
  const size_t width = std::min(kGroup, a_count);
  const size_t row_bytes = b_count * sizeof(T);
  size_t blocks = hn::MaxLanes(d) * sizeof(T) / 16;  // of the vectors TransposeGroupWidest takes
  while (blocks > 1 && b_count < blocks * L) blocks /= 2;
  const bool stage = 16 * blocks < 64 && OutputRowsAlias(out_pitch, width, row_bytes);
  HWY_ALIGN std::byte buffer[kGroup * (kStageRowBytes + kStagePad)];
  const ptrdiff_t stage_pitch = static_cast<ptrdiff_t>((row_bytes + 63) / 64 * 64 + kStagePad);
  for (size_t a = 0;; a += width) {
    a = std::min(a, a_count - width);
    const std::byte* column = in + a * sizeof(T);
    std::byte* rows = out + static_cast<ptrdiff_t>(a) * out_pitch;
    std::byte* target = stage ? buffer : rows;
    const ptrdiff_t pitch = stage ? stage_pitch : out_pitch;
    const size_t next = std::min(a + width, a_count - width);
    TransposeGroupWidest<Op>(d, column, in_stride, target, pitch, width, b_count,
                             a + width < a_count ? in + next * sizeof(T) : nullptr);
    if (stage) {
      for (size_t r = 0; r < width; ++r) {
        CopyRowBytes(buffer + static_cast<ptrdiff_t>(r) * stage_pitch,
                     rows + static_cast<ptrdiff_t>(r) * out_pitch, row_bytes);
      }
    }
    if (a + width == a_count) break;
  }
}

// Steps along a of the widest vectors that fit a_count (several 128-bit blocks per vector), else
// 128-bit vectors; the last step shifted back to end at a_count.
template <class Op, class T>
HWY_INLINE void TransposeRangeInBlocks(const std::byte* in, ptrdiff_t in_stride, std::byte* out,
                                       ptrdiff_t out_pitch, size_t a_count, size_t b_count) {
  using Lane = typename Op::Lane;
  constexpr size_t L = 16 / sizeof(T);
  const FullTag<Op> d;
  const hn::Full128<Lane> d128;
  const size_t step = a_count >= hn::MaxLanes(d) ? hn::MaxLanes(d) : L;
  const size_t row_bytes = b_count * sizeof(T);
  const bool stage = OutputRowsAlias(out_pitch, step, row_bytes);
  constexpr size_t kMaxStep = hn::MaxLanes(d) > L ? hn::MaxLanes(d) : L;
  HWY_ALIGN std::byte buffer[kMaxStep * (kStageRowBytes + kStagePad)];
  const ptrdiff_t stage_pitch = static_cast<ptrdiff_t>((row_bytes + 63) / 64 * 64 + kStagePad);
  for (size_t a = 0;; a += step) {
    a = std::min(a, a_count - step);
    const std::byte* column = in + a * sizeof(T);
    std::byte* rows = out + static_cast<ptrdiff_t>(a) * out_pitch;
    std::byte* target = stage ? buffer : rows;
    const ptrdiff_t pitch = stage ? stage_pitch : out_pitch;
    if (step == L) {
      TransposeColumnInBlocks<Op>(d128, column, in_stride, target, pitch, b_count);
    } else {
      TransposeColumnInBlocks<Op>(d, column, in_stride, target, pitch, b_count);
    }
    if (stage) {
      for (size_t r = 0; r < step; ++r) {
        CopyRowBytes(buffer + static_cast<ptrdiff_t>(r) * stage_pitch,
                     rows + static_cast<ptrdiff_t>(r) * out_pitch, row_bytes);
      }
    }
    if (a + step == a_count) break;
  }
}

template <class Op, class Functor, class T>
void TransposedVector(const std::byte* in, ptrdiff_t in_stride, std::byte* out, ptrdiff_t out_pitch,
                      size_t a_count, size_t b_count) {
  static_assert(sizeof(typename Op::Lane) == sizeof(T));
  constexpr size_t L = 16 / sizeof(T);
  if (a_count < L || b_count < L) {
    return ScalarTransposed<Functor, T>(in, in_stride, out, out_pitch, a_count, b_count);
  }
  // Measured (transposed_kernel/AVX3, eltwise bench): whole-row stores win for int8 (4 rounds
  // of interleaves, where three block extracts per vector weigh most) unless the band's input
  // rows alias in L1 (the group's L-column steps would re-read evicted lines), and for 2- and
  // 4-byte elements when input rows are a page or more apart (with their prefetches); 128-bit
  // block stores win for these in cache and for 8-byte elements.
  const bool far_rows = (in_stride < 0 ? -in_stride : in_stride) >= 4096;
  if constexpr (sizeof(T) == 1) {
    if (!InputRowsAlias(in_stride, hn::MaxLanes(FullTag<Op>()))) {
      return TransposeRangeToRows<Op, T>(in, in_stride, out, out_pitch, a_count, b_count);
    }
  } else if constexpr (sizeof(T) <= 4) {
    if (far_rows) {
      return TransposeRangeToRows<Op, T>(in, in_stride, out, out_pitch, a_count, b_count);
    }
  }
  TransposeRangeInBlocks<Op, T>(in, in_stride, out, out_pitch, a_count, b_count);
}

#endif  // ELTWISE_HWY_TRANSPOSE

// ---------------------------------------------------------------------------------------------
// Gathered input (KernelTable::gathered): out[i] = f(in[k * i]) for k = 2, 3, 4. Each vector of
// output lanes comes from k vectors of input de-interleaved in registers (LoadInterleaved2/3/4:
// ConcatEven of two vectors for k = 2 on x86, vld2/3/4 on NEON, ld2/3/4 on SVE, shuffles of 128-bit
// blocks otherwise), of which only the first is kept; the op is applied to it and it is stored
// packed. The vector at i reads in[k * i, k * (i + lanes)), up to k - 1 elements past its last
// kept one, so vectors stop at element n - 1 (the last one shifted back to end there: it
// recomputes a few outputs from the same inputs, which is exact as input and output do not
// overlap) and the last element goes through the functor: nothing past in[k * (n - 1)] is read.
// Highway 1.0.3 has LoadInterleaved2/3/4 for every lane size on every target (SCALAR, EMU128 and
// SVE included), so every target gets these kernels; ops without a vector form on a target keep
// the reference loop, as the contiguous kernels do.

template <size_t kStride, class D>
HWY_INLINE hn::Vec<D> LoadEveryKth(D d, const hn::TFromD<D>* src) {
  static_assert(kStride >= kMinGatherStride && kStride <= kMaxGatherStride);
  if constexpr (kStride == 2) {
    hn::Vec<D> v0, v1;
    hn::LoadInterleaved2(d, src, v0, v1);
    return v0;
  } else if constexpr (kStride == 3) {
    hn::Vec<D> v0, v1, v2;
    hn::LoadInterleaved3(d, src, v0, v1, v2);
    return v0;
  } else {
    hn::Vec<D> v0, v1, v2, v3;
    hn::LoadInterleaved4(d, src, v0, v1, v2, v3);
    return v0;
  }
}

template <class Op, size_t kStride, class D>
HWY_INLINE void GatherStep(D d, const std::byte* in, std::byte* out, size_t i) {
  using Lane = hn::TFromD<D>;
  const auto v = LoadEveryKth<kStride>(d, reinterpret_cast<const Lane*>(in) + kStride * i);
  hn::StoreU(Op::Apply(d, v), d, reinterpret_cast<Lane*>(out) + i);
}

template <class Functor, class T, size_t kStride>
HWY_INLINE void ScalarGather(const std::byte* in, std::byte* out, size_t n) {
  for (size_t i = 0; i < n; ++i) {
    T x;
    std::memcpy(&x, in + kStride * i * sizeof(T), sizeof(T));
    const T y = Functor{}(x);
    std::memcpy(out + i * sizeof(T), &y, sizeof(T));
  }
}

// n > Lanes(d): vectors over [0, n - 1), then the last element.
template <class Op, class Functor, class T, size_t kStride, class D>
HWY_INLINE void GatherRun(D d, const std::byte* in, std::byte* out, size_t n) {
  const size_t lanes = hn::Lanes(d);
  const size_t body = n - 1;
  size_t i = 0;
  for (; i + 2 * lanes <= body; i += 2 * lanes) {
    GatherStep<Op, kStride>(d, in, out, i);
    GatherStep<Op, kStride>(d, in, out, i + lanes);
  }
  if (i + lanes <= body) {
    GatherStep<Op, kStride>(d, in, out, i);
    i += lanes;
  }
  if (i < body) GatherStep<Op, kStride>(d, in, out, body - lanes);
  ScalarGather<Functor, T, kStride>(in + kStride * body * sizeof(T), out + body * sizeof(T), 1);
}

template <class Op, class Functor, class T, size_t kStride>
void GatheredVector(const std::byte* in, std::byte* out, size_t n) {
  static_assert(sizeof(typename Op::Lane) == sizeof(T));
  const FullTag<Op> d;
  if (n > hn::Lanes(d)) return GatherRun<Op, Functor, T, kStride>(d, in, out, n);
  const ShortTag<Op> d128;
  if (hn::Lanes(d128) > 1 && n > hn::Lanes(d128)) {
    return GatherRun<Op, Functor, T, kStride>(d128, in, out, n);
  }
  ScalarGather<Functor, T, kStride>(in, out, n);
}

template <class Op, class Functor, class T>
void FillGathered(KernelTable& table, size_t f, size_t t) {
  static_assert(kMinGatherStride == 2 && kMaxGatherStride == 4);
  table.gathered[f][t] = {&GatheredVector<Op, Functor, T, 2>, &GatheredVector<Op, Functor, T, 3>,
                          &GatheredVector<Op, Functor, T, 4>};
}

// Copy (Round on integers is the identity). In place it is nothing. Disjoint runs below
// kMemmoveCopyBytes take a loop of whole vectors (the last one overlapping): glibc's memmove
// starts `rep movsb` from 2 KiB, whose startup cost a small call pays in full; from 32 KiB on,
// memmove is the faster. Measured with eltwise bench (Round uint8, contiguous, 1 thread, EPYC
// Zen 4; ratio to the bench's best copy), memmove / this loop: 4 KiB 0.45 / 0.83, 16 KiB
// 0.62 / 0.92, 24 KiB 0.66 / 0.91, 32 KiB 0.99 / 0.57, 64 KiB 0.96-1.13 / 0.72-0.74. Larger or
// overlapping runs take memmove, which is exact for any overlap.
constexpr size_t kMemmoveCopyBytes = size_t{32} << 10;
void CopyKernel(const std::byte* in, std::byte* out, size_t n, size_t element_size) {
  const size_t bytes = n * element_size;
  if (in == out || bytes == 0) return;
  const hn::ScalableTag<uint8_t> d;
  const size_t lanes = hn::Lanes(d);
  const auto in_at = reinterpret_cast<uintptr_t>(in);
  const auto out_at = reinterpret_cast<uintptr_t>(out);
  const bool disjoint = in_at + bytes <= out_at || out_at + bytes <= in_at;
  if (!disjoint || bytes >= kMemmoveCopyBytes || bytes < lanes) {
    std::memmove(out, in, bytes);
    return;
  }
  // The vector loop of every kernel, on bytes (IdentityOp: the copy).
  VectorKernel<IdentityOp<uint8_t>, CopyFunctor, uint8_t>(in, out, bytes);
}
template <class T>
void CopyKernelT(const std::byte* in, std::byte* out, size_t n) {
  CopyKernel(in, out, n, sizeof(T));
}

// ---------------------------------------------------------------------------------------------
// Which implementation each (functor, type) gets on this target.

template <class Functor, class T>
struct OpFor {
  using type = void;  // reference loop
};
template <NanPolicy kNan, class T>
struct OpFor<SignFunctor<kNan>, T> {
  using type = std::conditional_t<kIsFloat<T>, SignFloatOp<T, kNan>, SignIntOp<T>>;
};
#if ELTWISE_HWY_EXPLICIT_ROUND
template <RoundingMode kMode>
struct OpFor<RoundFunctor<kMode>, float> {
  using type = RoundFloatOp<float, kMode>;
};
template <RoundingMode kMode>
struct OpFor<RoundFunctor<kMode>, double> {
  using type = RoundFloatOp<double, kMode>;
};
template <RoundingMode kMode>
struct OpFor<RoundFunctor<kMode>, bfloat16_t> {
  using type = RoundBF16Op<kMode>;
};
#endif
// f16 Round: F16C conversions where the target has them, except ties-away on AVX-512, which is
// faster in the integer domain; the integer domain on targets without F16C (SSSE3 excepted: its
// 16-bit variable shift in Highway 1.0.3 needs SSE4.1, so it keeps the reference loop).
// Measured, kernel/<target>/Round*/float16/64KiB, GB/s (F16C / integer): AVX3 ties-even 103 / 55,
// ties-away 55 / 78, toward zero 100 / 107, floor and ceil 104 / 56-63; AVX2 58 / 21-29;
// SSE4 reference 2.0-3.5 / integer 8.9-13.
template <RoundingMode kMode>
struct OpFor<RoundFunctor<kMode>, float16_t> {
#if ELTWISE_HWY_EXPLICIT_ROUND && ELTWISE_HWY_NATIVE_F16
  static constexpr bool kInteger = HWY_TARGET <= HWY_AVX3 && kMode == RoundingMode::kTowardInfinity;
  using type = std::conditional_t<kInteger, RoundF16IntOp<kMode>, RoundF16Op<kMode>>;
#elif HWY_TARGET != HWY_SSSE3
  using type = RoundF16IntOp<kMode>;
#else
  using type = void;  // reference loop
#endif
};

template <class Functor, class T>
inline constexpr bool kIsCopy = std::is_same_v<Functor, CopyFunctor> ||
                                (!kIsFloat<T> &&
                                 !std::is_same_v<Functor, SignFunctor<NanPolicy::kZero>> &&
                                 !std::is_same_v<Functor, SignFunctor<NanPolicy::kPropagate>>);

template <class Functor, class T>
void Fill(KernelTable& table, const KernelTable& reference, size_t f, size_t t) {
  table.strided[f][t] = reference.strided[f][t];
  table.transposed[f][t] = reference.transposed[f][t];
  table.gathered[f][t] = reference.gathered[f][t];
  if constexpr (kIsCopy<Functor, T>) {
    table.contiguous[f][t] = &CopyKernelT<T>;
    FillGathered<IdentityOp<T>, Functor, T>(table, f, t);
#if ELTWISE_HWY_TRANSPOSE
    table.transposed[f][t] = &TransposedVector<IdentityOp<T>, Functor, T>;
#endif
  } else if constexpr (std::is_void_v<typename OpFor<Functor, T>::type>) {
    table.contiguous[f][t] = reference.contiguous[f][t];
  } else {
    using Op = typename OpFor<Functor, T>::type;
    table.contiguous[f][t] = &VectorKernel<Op, Functor, T>;
    table.contiguous_stream[f][t] = &VectorKernelStream<Op, Functor, T>;
    FillGathered<Op, Functor, T>(table, f, t);
#if ELTWISE_HWY_TRANSPOSE
    table.transposed[f][t] = &TransposedVector<Op, Functor, T>;
#endif
  }
}

KernelTable MakeTable() {
  KernelTable table;
  const KernelTable& reference = ReferenceKernels();
  table.pattern_fill = &PatternFill;
#define ELTWISE_SIMD_TYPE(e, T, name) \
  Fill<F, T>(table, reference, f, static_cast<size_t>(DataType::e));
#define ELTWISE_SIMD_FUNCTION(fe, Functor, ...)         \
  {                                                     \
    using F = Functor;                                  \
    const size_t f = static_cast<size_t>(Function::fe); \
    ELTWISE_FOR_EACH_DATA_TYPE(ELTWISE_SIMD_TYPE)       \
  }
  ELTWISE_FOR_EACH_FUNCTION(ELTWISE_SIMD_FUNCTION)
#undef ELTWISE_SIMD_FUNCTION
#undef ELTWISE_SIMD_TYPE
  return table;
}

const KernelTable* GetTable() {
  static const KernelTable table = MakeTable();
  return &table;
}

#undef ELTWISE_HWY_EXPLICIT_ROUND
#undef ELTWISE_HWY_NATIVE_F16
#undef ELTWISE_HWY_TRANSPOSE

}  // namespace HWY_NAMESPACE
}  // namespace eltwise
HWY_AFTER_NAMESPACE();

// This target's table, for AvailableKernelTables; registered outside the target's code region so
// that the static initializer uses no instruction of the target.
namespace eltwise::HWY_NAMESPACE {
[[maybe_unused]] const bool kTableRegistered = RegisterTargetTable(HWY_TARGET, &GetTable);
}  // namespace eltwise::HWY_NAMESPACE

#if HWY_ONCE
#include <vector>

namespace eltwise {

HWY_EXPORT(GetTable);

const KernelTable& BestKernelTable() {
  static const KernelTable* table = HWY_DYNAMIC_DISPATCH(GetTable)();
  return *table;
}

std::vector<NamedKernelTable> AvailableKernelTables() {
  std::vector<NamedKernelTable> tables = {{"reference", &ReferenceKernels()}};
  std::vector<TargetTable> targets;
  const int64_t supported = hwy::SupportedTargets();
  for (const TargetTable& t : TargetTables()) {
    if ((t.target & supported) != 0) targets.push_back(t);
  }
  // Highway's lower target bits are the better targets; list them worst to best.
  std::sort(targets.begin(), targets.end(),
            [](const TargetTable& a, const TargetTable& b) { return a.target > b.target; });
  for (const TargetTable& t : targets) tables.push_back({hwy::TargetName(t.target), t.get()});
  return tables;
}

}  // namespace eltwise
#endif  // HWY_ONCE
