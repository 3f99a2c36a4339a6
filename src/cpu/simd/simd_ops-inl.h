// Vector forms of the element functions for the Highway kernels (src/cpu/simd/simd_*.cc): the
// ops, which (function, type) gets which op on a target (OpFor), and the walk over the table's
// entries that every kernel family fills from. Included once per target by each family's
// translation unit (foreach_target.h), hence the toggling guard. Every op is bit-identical to the
// scalar functors of src/ref/functors.h on every target and under any floating-point environment
// (rounding mode, FTZ/DAZ):
//
//  * Sign works on bit patterns with integer compares (never float compares, which DAZ would bend).
//  * Round on f32/f64 uses explicit-rounding instructions (x86 ROUNDPS/VRNDSCALE immediates, Arm
//    FRINT*), which ignore the MXCSR/FPCR rounding mode. DAZ/FZ make them read a subnormal as ±0,
//    which only matters for floor/ceil (floor(-tiny) is -1): those lanes are put back from the
//    bit pattern. Ties-away is trunc(x) ± 1 where |x - trunc(x)| >= 0.5 (the subtraction is exact).
//  * Round on bf16 rounds both halves of each 32-bit pair as f32 (a mask and a shift, both exact)
//    and recombines them; f16 widens and narrows with F16C (exact for integer results, Inf
//    kept; f16 subnormals are normal in f32 and VCVTPH2PS ignores DAZ).
//  * Round returns a NaN unchanged, bit for bit (payload and signaling bit), like the functors:
//    the rounding and conversion instructions would quiet it, so NaN lanes are put back.
//    Without F16C (SSE4, SCALAR, Arm), and for ties-away on AVX-512, f16 rounds in the 16-bit
//    integer domain instead (RoundF16IntOp; Highway's emulated f16 DemoteTo would break Inf/NaN).
//  * Targets without explicit rounding (SSSE3, whose Round drops -0; EMU128/SCALAR) use the
//    reference loop for f32/f64/bf16 Round; SSSE3 also for f16.
//
// Copies (Round on integers, kCopy) run IdentityOp on unsigned lanes of the element's size, so
// each kernel family instantiates them once per element size, not once per (function, type).

// Per-target include guard (Highway's -inl.h convention).
#if defined(ELTWISE_CPU_SIMD_SIMD_OPS_INL_H_) == defined(HWY_TARGET_TOGGLE)
#ifdef ELTWISE_CPU_SIMD_SIMD_OPS_INL_H_
#undef ELTWISE_CPU_SIMD_SIMD_OPS_INL_H_
#else
#define ELTWISE_CPU_SIMD_SIMD_OPS_INL_H_
#endif

#include <hwy/highway.h>

#include <cstddef>
#include <type_traits>

#include "core/function.h"
#include "cpu/kernel_table.h"
#include "ref/functors.h"

HWY_BEFORE_NAMESPACE();
namespace eltwise {
namespace HWY_NAMESPACE {
namespace hn = hwy::HWY_NAMESPACE;

#undef ELTWISE_HWY_EXPLICIT_ROUND
#undef ELTWISE_HWY_NATIVE_F16
#undef ELTWISE_HWY_TRANSPOSE
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
// Targets with two f16 Round routes whose order depends on the microarchitecture: AVX2, where
// F16C's conversions are fast on some CPUs and slow on others (OpFor<RoundFunctor, float16_t>).
#undef ELTWISE_HWY_F16_ROUND_ROUTES
#if HWY_TARGET == HWY_AVX2
#define ELTWISE_HWY_F16_ROUND_ROUTES 1
#else
#define ELTWISE_HWY_F16_ROUND_ROUTES 0
#endif

// ---------------------------------------------------------------------------------------------
// Vector operations. Each has `Lane` (the lane type it works on, same size as the storage type)
// and Apply(d, v) on a vector of Lane.

// Lanes of `bits` (a float format's bit patterns, on signed lanes) that are NaNs: |bits| above
// infinity's pattern, an integer compare.
template <class T, class DI>
HWY_INLINE hn::Mask<DI> IsNaNBits(DI di, hn::Vec<DI> bits) {
  using C = FloatConstants<T>;
  using Signed = hn::TFromD<DI>;
  const auto magnitude = hn::And(bits, hn::Set(di, static_cast<Signed>(C::kAbsMask)));
  return hn::Gt(magnitude, hn::Set(di, static_cast<Signed>(C::kInfBits)));
}

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
      return hn::IfThenElse(nonzero_number, one, hn::IfThenElseZero(IsNaNBits<T>(d, b), b));
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

// 0x3FF >> (e - 15), e = a >> 10, for the lanes with e in [15, 24] (other lanes: any value; the
// caller replaces them). On x86 without AVX-512 a 16-bit variable shift is emulated (Highway
// 1.0.3: through f32 conversions and a multiply, about a dozen instructions), so there the mask
// is looked up instead, a byte at a time: two byte shuffles of 16-entry tables.
template <class DU>
HWY_INLINE hn::Vec<DU> F16FractionMask(DU du, hn::Vec<DU> a) {
#if HWY_TARGET == HWY_AVX2 || HWY_TARGET == HWY_SSE4
  alignas(16) static constexpr uint8_t kLow[16] = {0xFF, 0xFF, 0xFF, 0x7F, 0x3F, 0x1F, 0x0F, 0x07,
                                                   0x03, 0x01, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00};
  alignas(16) static constexpr uint8_t kHigh[16] = {0x03, 0x01};
  const hn::Repartition<uint8_t, DU> d8;
  // The table in every 128-bit block of the index's vector (byte shuffles work within blocks;
  // Highway zero-extends a 128-bit table to 256 bits), whole for vectors of 128 bits or less.
  const auto table = [&](const uint8_t* bytes) {
    if constexpr (hn::MaxLanes(d8) > 16) {
      return hn::LoadDup128(d8, bytes);
    } else {
      return hn::Load(hn::Full128<uint8_t>(), bytes);
    }
  };
  // e - 15 in each lane's low byte (the high byte is 0, or 0xFF where e < 15); x86's byte shuffle
  // reads an index's low 4 bits, or gives 0 when its top bit is set.
  const auto index = hn::Sub(hn::ShiftRight<10>(a), hn::Set(du, 15));
  const auto low = hn::BitCast(du, hn::TableLookupBytes(table(kLow), hn::BitCast(d8, index)));
  const auto high =
      hn::BitCast(du, hn::TableLookupBytes(table(kHigh), hn::BitCast(d8, hn::ShiftLeft<8>(index))));
  return hn::Or(hn::And(low, hn::Set(du, 0x00FF)), hn::And(high, hn::Set(du, 0xFF00)));
#else
  // Clamped so that no lane shifts by its width or more (an oversized shift is undefined on the
  // scalar target); e < 15 wraps to a large count and is clamped too.
  const auto count = hn::Min(hn::Sub(hn::ShiftRight<10>(a), hn::Set(du, 15)), hn::Set(du, 15));
  return hn::Shr(hn::Set(du, 0x3FF), count);
#endif
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
    const auto frac = F16FractionMask(du, a);
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
// floor/ceil of subnormals, which DAZ would bend. A NaN comes out as some NaN (the instructions
// quiet a signaling one): callers put NaN lanes back, RoundFloatVec in f32/f64, the 16-bit ops
// once in 16 bits after narrowing (a second check in f32 would be redundant).
template <RoundingMode kMode, bool kFixSmall, class DF>
HWY_INLINE hn::Vec<DF> RoundFloatAnyNaN(DF df, hn::Vec<DF> v) {
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

// As RoundFloatAnyNaN, and a NaN comes out as it went in, bit for bit, as from the functors (and
// the GPU).
template <RoundingMode kMode, bool kFixSmall, class DF>
HWY_INLINE hn::Vec<DF> RoundFloatVec(DF df, hn::Vec<DF> v) {
  using F = hn::TFromD<DF>;
  const hn::RebindToSigned<DF> di;
  const auto r = RoundFloatAnyNaN<kMode, kFixSmall>(df, v);
  return hn::IfThenElse(hn::RebindMask(df, IsNaNBits<F>(di, hn::BitCast(di, v))), v, r);
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
    const auto r_upper = hn::BitCast(du, RoundFloatAnyNaN<kMode, false>(df, upper));
    const auto r_lower = hn::BitCast(du, RoundFloatAnyNaN<kMode, false>(df, lower));
    auto r = hn::BitCast(d, hn::Or(r_upper, hn::ShiftRight<16>(r_lower)));
    if constexpr (kMode == RoundingMode::kDown || kMode == RoundingMode::kUp) {
      r = FixSubnormal<bfloat16_t, kMode>(d, v, r);
    }
    // A quieted NaN keeps its low half zero (the quieting bit is in the upper half): NaN lanes
    // are put back as they came, once, in 16 bits.
    return hn::IfThenElse(IsNaNBits<bfloat16_t>(d, v), v, r);
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
    const auto r = RoundFloatAnyNaN<kMode, false>(df, hn::PromoteTo(df, hn::BitCast(df16, v)));
    // F16C quiets a signaling NaN on the way: NaN lanes are put back as they came.
    return hn::IfThenElse(IsNaNBits<float16_t>(d, v), v, hn::BitCast(d, hn::DemoteTo(df16, r)));
  }
};

// RoundF16Op as the contiguous kernels run it on AVX2 (ContiguousOp): ApplyAt reads its vector of
// 16 lanes itself, each half widened straight from memory and the NaN lanes found in a whole
// load of their own, so that no register feeds both the conversions and the 16-bit ops. On Zen 3
// the one-register form ran at about two thirds of this one's speed: VCVTPH2PS from a register
// that the 16-bit ops also read (docs/performance.md, "float16 Round: F16C or the integer
// domain"). The kernels call ApplyAt for every vector they take, the 128-bit ones of short runs
// too (halves of 4 lanes), so the op has no Apply.
template <RoundingMode kMode>
struct RoundF16FromMemoryOp {
  using Lane = int16_t;
  using Wide = int16_t;
  template <class D>
  static HWY_INLINE hn::Vec<D> ApplyAt(D d, const int16_t* p) {
    const hn::Half<D> dh;
    const hn::Rebind<float, decltype(dh)> df;
    const hn::Rebind<hwy::float16_t, decltype(dh)> dh16;
    const auto rounded_half = [&](const int16_t* q) {
      const auto wide = hn::PromoteTo(df, hn::BitCast(dh16, hn::LoadU(dh, q)));
      return hn::BitCast(dh, hn::DemoteTo(dh16, RoundFloatAnyNaN<kMode, false>(df, wide)));
    };
    const auto lower = rounded_half(p);
    const auto upper = rounded_half(p + hn::Lanes(dh));
    const auto v = hn::LoadU(d, p);
    return hn::IfThenElse(IsNaNBits<float16_t>(d, v), v, hn::Combine(d, upper, lower));
  }
};
#endif
#endif  // ELTWISE_HWY_EXPLICIT_ROUND

// The op the contiguous kernels run for Op: Op itself, or a form that reads its operands from
// memory (ApplyAt), where that measured faster. On AVX2, f16 Round through F16C takes
// RoundF16FromMemoryOp; so does toward zero where the table routes it to the integer domain
// (RoutedOp, for the other kernel families), which the F16C form from memory outran on Zen 3
// (1.25-1.3x). Ties away stays in the integer domain there, still 1.3-1.6x faster
// (docs/data/epyc-zen3-2026-11-30/f16_round_from_memory*.jsonl).
template <class Op>
struct ContiguousOp {
  using type = Op;
};
#if ELTWISE_HWY_EXPLICIT_ROUND && ELTWISE_HWY_NATIVE_F16 && HWY_TARGET == HWY_AVX2
template <RoundingMode kMode>
struct ContiguousOp<RoundF16Op<kMode>> {
  using type = RoundF16FromMemoryOp<kMode>;
};
template <>
struct ContiguousOp<RoundF16IntOp<RoundingMode::kTowardZero>> {
  using type = RoundF16FromMemoryOp<RoundingMode::kTowardZero>;
};
#endif
// Whether Op reads its operands itself (Op::ApplyAt(d, pointer)) rather than taking a vector.
template <class Op, class D>
inline constexpr bool kAppliesAt = requires(D d, const typename Op::Lane* p) {
  Op::ApplyAt(d, p);
};

// The identity on unsigned lanes of sizeof(T) (copies).
template <class T>
struct IdentityOp {
  using Lane = hwy::UnsignedFromSize<sizeof(T)>;
  using Wide = Lane;
  template <class D>
  static HWY_INLINE hn::Vec<D> Apply(D /*d*/, hn::Vec<D> v) {
    return v;
  }
};

// The vector tags of an op: lanes of Op::Lane, as many as a vector of Op::Wide holds (Short: at
// most 128 bits).
template <class Op>
using FullTag = hn::Rebind<typename Op::Lane, hn::ScalableTag<typename Op::Wide>>;
template <class Op>
using ShortTag =
    hn::Rebind<typename Op::Lane, hn::CappedTag<typename Op::Wide, 16 / sizeof(typename Op::Wide)>>;

// Transposed tiles use 128-bit interleaves: not on the scalar target (one lane) nor SVE.
#if HWY_TARGET != HWY_SCALAR && HWY_TARGET != HWY_SVE && HWY_TARGET != HWY_SVE2 && \
    HWY_TARGET != HWY_SVE_256 && HWY_TARGET != HWY_SVE2_128
#define ELTWISE_HWY_TRANSPOSE 1
#else
#define ELTWISE_HWY_TRANSPOSE 0
#endif

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
// Chosen by measurement of the kernels (eltwise_benchmark, kernel/<target>/Round*/float16) on
// x86-64; see docs/performance.md. On AVX2 a table of its own takes the integer domain for the
// modes where that is faster on CPUs with slow F16C conversions (RoutedOp,
// ForEachVectorEntry<true>), run where CacheTuning::f16_round_in_integers says so.
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

// Whether (Functor, T) is a copy: kCopy, or Round on integers (the identity). Named, not inferred
// from "not Sign": any other op on integers runs its own functor.
template <class Functor>
inline constexpr bool kIsRoundFunctor = false;
template <RoundingMode kMode>
inline constexpr bool kIsRoundFunctor<RoundFunctor<kMode>> = true;
template <class Functor, class T>
inline constexpr bool kIsCopy = std::is_same_v<Functor, CopyFunctor> ||
                                (!kIsFloat<T> && kIsRoundFunctor<Functor>);

// What the kernel templates of every family are instantiated with for (Functor, T): Op (void:
// the reference loop stays), the functor for scalar tails, and the storage type. A copy is
// IdentityOp on unsigned lanes of T's size with CopyFunctor tails (bit-exact for any type).
template <class Functor, class T, bool = kIsCopy<Functor, T>>
struct VectorImpl {
  using Op = typename OpFor<Functor, T>::type;
  using Tail = Functor;
  using Storage = T;
};
// Sign of integers does not depend on the NaN policy: one instantiation serves both.
template <NanPolicy kNan, class T>
struct VectorImpl<SignFunctor<kNan>, T, false> {
  using Op = typename OpFor<SignFunctor<kNan>, T>::type;
  using Tail = std::conditional_t<kIsFloat<T>, SignFunctor<kNan>, SignFunctor<NanPolicy::kZero>>;
  using Storage = T;
};
template <class Functor, class T>
struct VectorImpl<Functor, T, true> {
  using Storage = hwy::UnsignedFromSize<sizeof(T)>;
  using Op = IdentityOp<Storage>;
  using Tail = CopyFunctor;
};

// VectorImpl's op, or with kF16RoundInIntegers on a target with both f16 Round routes, the
// integer domain's for f16 Round toward zero and ties away. Those two modes are the ones the
// integer domain runs faster on AMD family 25 (Zen 3), where this table runs; ties-even and ceil
// run faster there through F16C once its NaN lanes are checked only once, and floor about as fast
// (it goes with ceil; docs/performance.md, "float16 Round: F16C or the integer domain"). The
// contiguous kernels take F16C from memory toward zero all the same (ContiguousOp).
template <bool kF16RoundInIntegers, class Functor, class T, class Op>
struct RoutedOp {
  using type = Op;
};
#if ELTWISE_HWY_F16_ROUND_ROUTES
template <RoundingMode kMode, class Op>
struct RoutedOp<true, RoundFunctor<kMode>, float16_t, Op> {
  static constexpr bool kInteger =
      kMode == RoundingMode::kTowardZero || kMode == RoundingMode::kTowardInfinity;
  using type = std::conditional_t<kInteger, RoundF16IntOp<kMode>, Op>;
};
#endif

// Calls fill.template operator()<Op, Tail, Storage>(f, t) for every (function, type) index pair
// whose VectorImpl has an op on this target (f16 Round in the integer domain with
// kF16RoundInIntegers, where the target has both routes).
template <bool kF16RoundInIntegers = false, class Fill>
HWY_INLINE void ForEachVectorEntry(Fill&& fill) {
#define ELTWISE_SIMD_TYPE(e, T, name)                                                 \
  {                                                                                   \
    using Impl = VectorImpl<F, T>;                                                    \
    using Op = typename RoutedOp<kF16RoundInIntegers, F, T, typename Impl::Op>::type; \
    if constexpr (!std::is_void_v<Op>) {                                              \
      fill.template operator()<Op, typename Impl::Tail, typename Impl::Storage>(      \
          f, static_cast<size_t>(DataType::e));                                       \
    }                                                                                 \
  }
#define ELTWISE_SIMD_FUNCTION(fe, Functor, ...)         \
  {                                                     \
    using F = Functor;                                  \
    const size_t f = static_cast<size_t>(Function::fe); \
    ELTWISE_FOR_EACH_DATA_TYPE(ELTWISE_SIMD_TYPE)       \
  }
  ELTWISE_FOR_EACH_FUNCTION(ELTWISE_SIMD_FUNCTION)
#undef ELTWISE_SIMD_FUNCTION
#undef ELTWISE_SIMD_TYPE
}

// Each kernel family's translation unit fills its entries of this target's table (with the f16
// Round route of ForEachVectorEntry<kF16RoundInIntegers>).
template <bool kF16RoundInIntegers>
void FillTransposedKernels(KernelTable& table);      // simd_transposed.cc
template <size_t kStride, bool kF16RoundInIntegers>  // simd_gathered<kStride>.cc
void FillGatheredKernels(KernelTable& table);

}  // namespace HWY_NAMESPACE
}  // namespace eltwise
HWY_AFTER_NAMESPACE();

#endif  // include guard
