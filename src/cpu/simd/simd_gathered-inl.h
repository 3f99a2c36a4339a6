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
//
// Included by simd_gathered2.cc, simd_gathered3.cc and simd_gathered4.cc, one translation unit per
// stride (each of every target), so that they compile in parallel: under sanitizers the
// de-interleaving shuffles of strides 3 and 4 are by far the costliest code to compile.

// Per-target include guard (Highway's -inl.h convention).
#if defined(ELTWISE_CPU_SIMD_SIMD_GATHERED_INL_H_) == defined(HWY_TARGET_TOGGLE)
#ifdef ELTWISE_CPU_SIMD_SIMD_GATHERED_INL_H_
#undef ELTWISE_CPU_SIMD_SIMD_GATHERED_INL_H_
#else
#define ELTWISE_CPU_SIMD_SIMD_GATHERED_INL_H_
#endif

#include <hwy/highway.h>

#include <cstring>

#include "cpu/kernel_table.h"
#include "cpu/simd/simd_ops-inl.h"

HWY_BEFORE_NAMESPACE();
namespace eltwise {
namespace HWY_NAMESPACE {

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

template <size_t kStride, bool kF16RoundInIntegers>
void FillGatheredKernels(KernelTable& table) {
  static_assert(kStride >= kMinGatherStride && kStride <= kMaxGatherStride);
  ForEachVectorEntry<kF16RoundInIntegers>([&]<class Op, class Tail, class T>(size_t f, size_t t) {
    table.gathered[f][t][kStride - kMinGatherStride] = &GatheredVector<Op, Tail, T, kStride>;
  });
}

}  // namespace HWY_NAMESPACE
}  // namespace eltwise
HWY_AFTER_NAMESPACE();

#endif  // include guard
