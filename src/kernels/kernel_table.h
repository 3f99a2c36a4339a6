// The shared kernel layer: host kernel tables. A table holds one kernel per (function, data type);
// the reference table (src/ref) is complete and the CPU backend's SIMD tables (src/cpu/simd)
// replace entries where they are faster. Kernels trust their arguments; pointers may have any
// alignment; `in` may equal `out`.
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
// Fills `bytes` bytes at `out` (any alignment) with out[i] = pattern[i % 8]. `pattern` holds
// kFillPatternBytes bytes repeating with a period that divides 8 (one element of at most 8 bytes),
// so that pattern + r for r < 8 is the same pattern seen from a byte r further on.
inline constexpr size_t kFillPatternBytes = 128;
using PatternFillKernel = void (*)(std::byte* out, size_t bytes, const std::byte* pattern);

struct KernelTable {
  std::array<std::array<ContiguousKernel, kDataTypeCount>, kFunctionCount> contiguous{};
  std::array<std::array<StridedKernel, kDataTypeCount>, kFunctionCount> strided{};
  // Optional: like `contiguous` but with non-temporal stores for the aligned body (for outputs
  // larger than the last-level cache). Ends with a store fence. nullptr: use `contiguous`.
  std::array<std::array<ContiguousKernel, kDataTypeCount>, kFunctionCount> contiguous_stream{};
  // Broadcast output: the computed value's pattern stored over a run.
  PatternFillKernel pattern_fill = nullptr;

  ContiguousKernel Contiguous(Function f, DataType t) const {
    return contiguous[static_cast<size_t>(f)][static_cast<size_t>(t)];
  }
  StridedKernel Strided(Function f, DataType t) const {
    return strided[static_cast<size_t>(f)][static_cast<size_t>(t)];
  }
  ContiguousKernel ContiguousStream(Function f, DataType t) const {
    const ContiguousKernel k = contiguous_stream[static_cast<size_t>(f)][static_cast<size_t>(t)];
    return k != nullptr ? k : Contiguous(f, t);
  }
};

// The scalar reference loops over the functors of src/ref/functors.h.
const KernelTable& ReferenceKernels();

}  // namespace eltwise
