// What one CUDA thread does in each kernel of launch.h, written once for host and device: the
// __global__ kernels (kernels.cuh) call these, and host tests run them over every (block, thread)
// to check the indexing against the CPU backend without a GPU.
//
// Every thread reads all of its elements before it writes any, and every element is read and
// written by the same thread (kTiled: by the same block, with a barrier in between), so in-place
// execution (output == input element for element) is safe. Partial overlap is not: the backend
// copies the input first.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <type_traits>

#include "cuda/launch.h"
#include "ref/functors.h"

namespace eltwise::cuda {

// Round's mode, for the functor RoundFunctor<kMode>.
template <class F>
struct RoundModeOf {
  static constexpr bool kIsRound = false;
};
template <RoundingMode kMode>
struct RoundModeOf<RoundFunctor<kMode>> {
  static constexpr bool kIsRound = true;
  static constexpr RoundingMode kValue = kMode;
};

#if defined(__CUDA_ARCH__)
// One explicit-rounding instruction per mode (none reads a rounding mode or flushes subnormals:
// the kernels are built without fast-math or FTZ); ties away is trunc(x) +- 1 where
// |x - trunc(x)| >= 0.5 (the subtraction is exact).
template <RoundingMode kMode>
__device__ inline float RoundOnGpu(float x) {
  if constexpr (kMode == RoundingMode::kHalvesToNearestEven) {
    return rintf(x);
  } else if constexpr (kMode == RoundingMode::kTowardZero) {
    return truncf(x);
  } else if constexpr (kMode == RoundingMode::kDown) {
    return floorf(x);
  } else if constexpr (kMode == RoundingMode::kUp) {
    return ceilf(x);
  } else {
    const float t = truncf(x);
    return fabsf(x - t) >= 0.5f ? t + copysignf(1.0f, x) : t;
  }
}

// Round of a float16 or bfloat16 on the GPU: widened to float (exact), rounded there, narrowed
// (exact: the result is an integer of at most 11 significant bits, or an infinity); a NaN is
// returned as it came. The same bits as the functor's 16-bit integer arithmetic, which made these
// kernels compute-bound, slower than a copy (measured on a GPU; see docs/performance.md).
template <RoundingMode kMode, class T>
__device__ inline T RoundHalfOnGpu(T x) {
  using C = FloatConstants<T>;
  constexpr bool kF16 = std::is_same_v<T, float16_t>;
  const uint16_t b = x.bits;
  if ((b & C::kAbsMask) > C::kInfBits) return x;
  float wide;
  if constexpr (kF16) {
    asm("cvt.f32.f16 %0, %1;" : "=f"(wide) : "h"(b));
  } else {
    wide = __uint_as_float(static_cast<uint32_t>(b) << 16);
  }
  const float r = RoundOnGpu<kMode>(wide);
  uint16_t narrow;
  if constexpr (kF16) {
    asm("cvt.rn.f16.f32 %0, %1;" : "=h"(narrow) : "f"(r));
  } else {
    narrow = static_cast<uint16_t>(__float_as_uint(r) >> 16);
  }
  return T{narrow};
}
#endif

// What a thread computes for one element: f(x), except Round of float16 and bfloat16 on the GPU
// (RoundHalfOnGpu; host emulation runs the functor itself).
template <class F, class T>
ELTWISE_HOST_DEVICE inline T ApplyFunctor(const F& f, T x) {
#if defined(__CUDA_ARCH__)
  if constexpr (RoundModeOf<F>::kIsRound &&
                (std::is_same_v<T, float16_t> || std::is_same_v<T, bfloat16_t>)) {
    return RoundHalfOnGpu<RoundModeOf<F>::kValue>(x);
  }
#endif
  return f(x);
}

#if !defined(__CUDA_ARCH__)
// Host emulation only (tests): while set, every global-memory access of the bodies below is
// checked against the bytes the kernel may touch and the alignment the GPU needs.
struct AccessWindow {
  uintptr_t read_begin = 0, read_end = 0;
  uintptr_t write_begin = 0, write_end = 0;
  uint64_t out_of_bounds = 0;
  uint64_t misaligned = 0;
};
inline thread_local AccessWindow* host_access_window = nullptr;

inline void CheckHostAccess(const void* p, size_t bytes, size_t alignment, bool write) {
  AccessWindow* w = host_access_window;
  if (w == nullptr) return;
  const auto a = reinterpret_cast<uintptr_t>(p);
  const uintptr_t begin = write ? w->write_begin : w->read_begin;
  const uintptr_t end = write ? w->write_end : w->read_end;
  if (a < begin || a + bytes > end) ++w->out_of_bounds;
  if (a % alignment != 0) ++w->misaligned;
}
#endif

struct alignas(16) Vector16 {
  uint32_t words[4];
};

ELTWISE_HOST_DEVICE inline Vector16 Load16(const std::byte* p) {
#if defined(__CUDA_ARCH__)
  const uint4 v = *reinterpret_cast<const uint4*>(p);
  return Vector16{{v.x, v.y, v.z, v.w}};
#else
  CheckHostAccess(p, 16, 16, false);
  Vector16 v;
  std::memcpy(&v, p, sizeof v);
  return v;
#endif
}

ELTWISE_HOST_DEVICE inline void Store16(std::byte* p, const Vector16& v) {
#if defined(__CUDA_ARCH__)
  *reinterpret_cast<uint4*>(p) = make_uint4(v.words[0], v.words[1], v.words[2], v.words[3]);
#else
  CheckHostAccess(p, 16, 16, true);
  std::memcpy(p, &v, sizeof v);
#endif
}

// Element access; kAligned false allows any address (byte-wise on the GPU).
template <class T, bool kAligned>
ELTWISE_HOST_DEVICE inline T LoadElement(const std::byte* p) {
#if defined(__CUDA_ARCH__)
  if constexpr (kAligned) return *reinterpret_cast<const T*>(p);
#else
  CheckHostAccess(p, sizeof(T), kAligned ? sizeof(T) : 1, false);
#endif
  T v;
  memcpy(&v, p, sizeof(T));
  return v;
}

template <class T, bool kAligned>
ELTWISE_HOST_DEVICE inline void StoreElement(std::byte* p, T v) {
#if defined(__CUDA_ARCH__)
  if constexpr (kAligned) {
    *reinterpret_cast<T*>(p) = v;
    return;
  }
#else
  CheckHostAccess(p, sizeof(T), kAligned ? sizeof(T) : 1, true);
#endif
  memcpy(p, &v, sizeof(T));
}

// kContiguous (kAlignedInput) and kContiguousUnalignedInput: logical block `block` of
// kBlockThreads threads. `in` and `out` point at the first elements.
template <class F, class T, bool kAlignedInput>
ELTWISE_HOST_DEVICE inline void ContiguousThread(const ContiguousParams& p, uint64_t block,
                                                 unsigned thread, const std::byte* in,
                                                 std::byte* out) {
  constexpr unsigned kLanes = kVectorBytes / sizeof(T);
  constexpr uint64_t kSize = sizeof(T);
  const F f{};
  if (block == 0) {  // head and tail: fewer than kLanes elements each
    if (thread < p.head) {
      const uint64_t i = thread;
      StoreElement<T, true>(out + i * kSize, ApplyFunctor(f, LoadElement<T, true>(in + i * kSize)));
    }
    if (thread < p.tail) {
      const uint64_t i = p.head + p.vectors * kLanes + thread;
      StoreElement<T, true>(out + i * kSize, ApplyFunctor(f, LoadElement<T, true>(in + i * kSize)));
    }
  }
  const std::byte* vin = in + p.head * kSize;
  std::byte* vout = out + p.head * kSize;
  const uint64_t first = block * (kBlockThreads * kVectorsPerThread) + thread;
  Vector16 data[kVectorsPerThread] = {};  // (initialised only to quiet host compilers)
#if defined(__CUDA_ARCH__)
#pragma unroll
#endif
  for (unsigned j = 0; j < kVectorsPerThread; ++j) {
    const uint64_t v = first + j * kBlockThreads;
    if (v < p.vectors) {
      if constexpr (kAlignedInput) {
        data[j] = Load16(vin + v * kVectorBytes);
      } else {
        T lanes[kLanes];
#if defined(__CUDA_ARCH__)
#pragma unroll
#endif
        for (unsigned k = 0; k < kLanes; ++k) {
          lanes[k] = LoadElement<T, true>(vin + v * kVectorBytes + k * kSize);
        }
        memcpy(&data[j], lanes, kVectorBytes);
      }
    }
  }
#if defined(__CUDA_ARCH__)
#pragma unroll
#endif
  for (unsigned j = 0; j < kVectorsPerThread; ++j) {
    const uint64_t v = first + j * kBlockThreads;
    if (v < p.vectors) {
      T lanes[kLanes];
      memcpy(lanes, &data[j], kVectorBytes);
#if defined(__CUDA_ARCH__)
#pragma unroll
#endif
      for (unsigned k = 0; k < kLanes; ++k) lanes[k] = ApplyFunctor(f, lanes[k]);
      memcpy(&data[j], lanes, kVectorBytes);
      Store16(vout + v * kVectorBytes, data[j]);
    }
  }
}

// Element offsets (from the first elements) of linear index i < p.count.
template <class Index>
ELTWISE_HOST_DEVICE inline void StridedOffsets(const StridedParams<Index>& p, Index i,
                                               typename StridedParams<Index>::Signed* in_offset,
                                               Index* out_offset) {
  using Signed = typename StridedParams<Index>::Signed;
  Signed a = 0;
  Index b = 0;
#if defined(__CUDA_ARCH__)
#pragma unroll
#endif
  for (int d = 0; d < kMaxRank - 1; ++d) {
    if (d + 1 >= p.rank) break;
    Index c;
    i = p.sizes[d].Divmod(i, &c);
    a += static_cast<Signed>(c) * p.input_strides[d];
    b += c * p.output_strides[d];
  }
  if (p.rank > 0) {
    a += static_cast<Signed>(i) * p.input_strides[p.rank - 1];
    b += i * p.output_strides[p.rank - 1];
  }
  *in_offset = a;
  *out_offset = b;
}

// kStrided32, kStrided64 (kAligned) and kStridedUnaligned.
template <class F, class T, class Index, bool kAligned>
ELTWISE_HOST_DEVICE inline void StridedThread(const StridedParams<Index>& p, Index block,
                                              unsigned thread, const std::byte* in,
                                              std::byte* out) {
  using Signed = typename StridedParams<Index>::Signed;
  constexpr ptrdiff_t kSize = sizeof(T);  // byte offsets are 64-bit even when indices are not
  const F f{};
  const Index first = block * (kBlockThreads * kElementsPerThread) + thread;
  T values[kElementsPerThread] = {};
  Index out_offsets[kElementsPerThread] = {};
#if defined(__CUDA_ARCH__)
#pragma unroll
#endif
  for (unsigned j = 0; j < kElementsPerThread; ++j) {
    const Index i = first + j * kBlockThreads;
    if (i < p.count) {
      Signed in_offset;
      StridedOffsets(p, i, &in_offset, &out_offsets[j]);
      values[j] = LoadElement<T, kAligned>(in + static_cast<ptrdiff_t>(in_offset) * kSize);
    }
  }
#if defined(__CUDA_ARCH__)
#pragma unroll
#endif
  for (unsigned j = 0; j < kElementsPerThread; ++j) {
    const Index i = first + j * kBlockThreads;
    if (i < p.count) {
      StoreElement<T, kAligned>(out + static_cast<ptrdiff_t>(out_offsets[j]) * kSize,
                                ApplyFunctor(f, values[j]));
    }
  }
}

// kTiled: where tile `block` starts.
struct TileOrigin {
  uint64_t a0 = 0, o0 = 0;
  int64_t in_base = 0, out_base = 0;
};

ELTWISE_HOST_DEVICE inline TileOrigin TiledOrigin(const TiledParams& p, uint64_t block) {
  TileOrigin t;
  uint64_t r;
  block = p.tiles_o.Divmod(block, &r);
  t.o0 = r * kTile;
  block = p.tiles_a.Divmod(block, &r);
  t.a0 = r * kTile;
#if defined(__CUDA_ARCH__)
#pragma unroll
#endif
  for (int d = 0; d < kMaxRank; ++d) {
    if (d >= p.outer_rank) break;
    if (d + 1 < p.outer_rank) {
      block = p.outer_sizes[d].Divmod(block, &r);
    } else {
      r = block;
    }
    t.in_base += static_cast<int64_t>(r) * p.outer_input_strides[d];
    t.out_base += static_cast<int64_t>(r) * p.outer_output_strides[d];
  }
  return t;
}

// The tile is indexed [o - o0][a - a0] and padded to kTile + 1 columns (no bank conflicts).
// Load: consecutive threads (tx) read consecutive a (the input's fast dimension).
template <class F, class T>
ELTWISE_HOST_DEVICE inline void TiledLoad(const TiledParams& p, const TileOrigin& t, unsigned tx,
                                          unsigned ty, const std::byte* in, T (*tile)[kTile + 1]) {
  const F f{};
  const uint64_t a = t.a0 + tx;
#if defined(__CUDA_ARCH__)
#pragma unroll
#endif
  for (unsigned k = 0; k < kTile; k += kTileRows) {
    const uint64_t o = t.o0 + ty + k;
    if (a < p.size_a && o < p.size_o) {
      const int64_t offset = t.in_base + static_cast<int64_t>(a) * p.input_stride_a +
                             static_cast<int64_t>(o) * p.input_stride_o;
      tile[ty + k][tx] =
          ApplyFunctor(f, LoadElement<T, true>(in + offset * static_cast<int64_t>(sizeof(T))));
    }
  }
}

// Store: consecutive threads (tx) write consecutive o (the output's fast dimension).
template <class T>
ELTWISE_HOST_DEVICE inline void TiledStore(const TiledParams& p, const TileOrigin& t, unsigned tx,
                                           unsigned ty, const T (*tile)[kTile + 1],
                                           std::byte* out) {
  const uint64_t o = t.o0 + tx;
#if defined(__CUDA_ARCH__)
#pragma unroll
#endif
  for (unsigned k = 0; k < kTile; k += kTileRows) {
    const uint64_t a = t.a0 + ty + k;
    if (a < p.size_a && o < p.size_o) {
      const int64_t offset = t.out_base + static_cast<int64_t>(a) * p.output_stride_a +
                             static_cast<int64_t>(o) * p.output_stride_o;
      StoreElement<T, true>(out + offset * static_cast<int64_t>(sizeof(T)), tile[tx][ty + k]);
    }
  }
}

}  // namespace eltwise::cuda
