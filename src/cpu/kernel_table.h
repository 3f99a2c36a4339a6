// Host kernel tables: one kernel per (function, data type) for each loop shape the CPU backend
// runs. The reference table (src/cpu/reference_kernels.h) is complete and the CPU backend's SIMD
// tables (src/cpu/simd) replace entries where they are faster. Kernels trust their arguments;
// pointers may have any alignment; `in` may equal `out`.
#pragma once

#include <array>
#include <cstddef>
#include <string_view>
#include <vector>

#include "core/function.h"
#include "eltwise/types.h"

namespace eltwise {

// n packed elements from in to out.
using ContiguousKernel = void (*)(const std::byte* in, std::byte* out, size_t n);
// n elements, strides in bytes (may be negative or zero for the input).
using StridedKernel = void (*)(const std::byte* in, ptrdiff_t in_stride, std::byte* out,
                               ptrdiff_t out_stride, size_t n);
// One tile of a transposed layout: the input is packed along `a`, the output along `b`:
//   out[a * out_pitch + b * esize] = f(in[b * in_stride + a * esize]),  a < a_count, b < b_count
// (strides in bytes; in_stride may be negative). Input and output do not overlap.
using TransposedKernel = void (*)(const std::byte* in, ptrdiff_t in_stride, std::byte* out,
                                  ptrdiff_t out_pitch, size_t a_count, size_t b_count);
// Rows at least this many bytes apart (a page) are "far": each lies on a page of its own, which
// the hardware prefetchers follow poorly across rows. For far input rows the transposed walker
// takes tiles along the input rows and the kernels request the next rows' lines themselves, and
// for far output rows too it streams from smaller sizes, in the ways each measured best
// (strided_walkers.cc, which treats 1-byte rows from 2 KiB alike; simd/simd_transposed.cc).
inline constexpr ptrdiff_t kFarRowBytes = 4096;
// Whether rows `stride` bytes apart (either sign) are at least `bytes` apart, and far.
inline constexpr bool AtLeastApart(ptrdiff_t stride, ptrdiff_t bytes) {
  return stride >= bytes || stride <= -bytes;
}
inline constexpr bool FarRows(ptrdiff_t stride) { return AtLeastApart(stride, kFarRowBytes); }
// A strided input into a packed output: out[i] = f(in[i * k]) for i < n, with k (elements) the
// stride the entry is for (kMinGatherStride..kMaxGatherStride). Reads nothing past in[k * (n - 1)]
// and writes nothing outside out[0, n). Input and output do not overlap.
using GatheredKernel = void (*)(const std::byte* in, std::byte* out, size_t n);
inline constexpr size_t kMinGatherStride = 2;
inline constexpr size_t kMaxGatherStride = 4;
// Fills `bytes` bytes at `out` (any alignment) with out[i] = pattern[i % 8]. `pattern` holds
// kFillPatternBytes bytes repeating with a period that divides 8 (one element of at most 8 bytes),
// so that pattern + r for r < 8 is the same pattern seen from a byte r further on.
inline constexpr size_t kFillPatternBytes = 128;
using PatternFillKernel = void (*)(std::byte* out, size_t bytes, const std::byte* pattern);

struct KernelTable {
  std::array<std::array<ContiguousKernel, kDataTypeCount>, kFunctionCount> contiguous{};
  std::array<std::array<StridedKernel, kDataTypeCount>, kFunctionCount> strided{};
  std::array<std::array<TransposedKernel, kDataTypeCount>, kFunctionCount> transposed{};
  // Optional: like `contiguous` but with non-temporal stores for the aligned body (for outputs
  // larger than the last-level cache). Ends with a store fence. nullptr: use `contiguous`.
  std::array<std::array<ContiguousKernel, kDataTypeCount>, kFunctionCount> contiguous_stream{};
  // By stride - kMinGatherStride: the gathered layout's input with a small inner stride.
  std::array<std::array<std::array<GatheredKernel, kMaxGatherStride - kMinGatherStride + 1>,
                        kDataTypeCount>,
             kFunctionCount>
      gathered{};
  // Broadcast output: the computed value's pattern stored over a run.
  PatternFillKernel pattern_fill = nullptr;

  ContiguousKernel Contiguous(Function f, DataType t) const {
    return contiguous[static_cast<size_t>(f)][static_cast<size_t>(t)];
  }
  StridedKernel Strided(Function f, DataType t) const {
    return strided[static_cast<size_t>(f)][static_cast<size_t>(t)];
  }
  TransposedKernel Transposed(Function f, DataType t) const {
    return transposed[static_cast<size_t>(f)][static_cast<size_t>(t)];
  }
  // nullptr for a stride (in elements) outside [kMinGatherStride, kMaxGatherStride].
  GatheredKernel Gathered(Function f, DataType t, size_t stride) const {
    if (stride < kMinGatherStride || stride > kMaxGatherStride) return nullptr;
    return gathered[static_cast<size_t>(f)][static_cast<size_t>(t)][stride - kMinGatherStride];
  }
  ContiguousKernel ContiguousStream(Function f, DataType t) const {
    const ContiguousKernel k = contiguous_stream[static_cast<size_t>(f)][static_cast<size_t>(t)];
    return k != nullptr ? k : Contiguous(f, t);
  }
};

}  // namespace eltwise
