// Tensor descriptions, mirroring DML_BUFFER_TENSOR_DESC.
#pragma once

#include <cstdint>
#include <optional>
#include <vector>

#include "eltwise/export.h"
#include "eltwise/types.h"

namespace eltwise {

inline constexpr int kMaxRank = 8;

// Layout contract (all levels):
//  * sizes[i] elements along dimension i (row-major order of dimensions, like DirectML);
//  * strides[i] in elements; absent = packed row-major. Negative strides (extended level only) walk
//    backwards: the bound buffer then starts at the lowest-addressed element, so element (0,...,0)
//    sits at byte offset element_size * sum over negative strides of (sizes[i]-1)*(-strides[i]);
//  * total_tensor_size_in_bytes: the size the caller promises the bound buffer has; it must cover
//    every addressed element (see MinimumTotalTensorSizeInBytes);
//  * guaranteed_base_offset_alignment: 0, or a power of two >= element size that every bound
//    buffer address is promised to be aligned to.
struct ELTWISE_API TensorDesc {
  DataType type = DataType::kFloat32;
  std::vector<uint64_t> sizes;
  std::optional<std::vector<int64_t>> strides;
  uint64_t total_tensor_size_in_bytes = 0;
  uint32_t guaranteed_base_offset_alignment = 0;

  // A packed row-major tensor whose total size is DirectML's DMLCalcBufferTensorSize (rounded
  // up to 4 bytes), so it is accepted at every feature level that accepts its type and rank.
  static TensorDesc Packed(DataType type, std::vector<uint64_t> sizes);
  // Same sizes with explicit strides; total size set to the minimum the level requires.
  static TensorDesc Strided(DataType type, std::vector<uint64_t> sizes,
                            std::vector<int64_t> strides);

  int rank() const { return static_cast<int>(sizes.size()); }
};

// |stride| as an unsigned number; exact for every int64_t, INT64_MIN included.
constexpr uint64_t StrideMagnitude(int64_t stride) {
  return stride < 0 ? uint64_t{0} - static_cast<uint64_t>(stride) : static_cast<uint64_t>(stride);
}

// Packed row-major strides for sizes.
ELTWISE_API std::vector<int64_t> PackedStrides(const std::vector<uint64_t>& sizes);

// DirectML's DMLCalcBufferTensorSize: roundup4((sum (size_i-1)*stride_i + 1) * element_size), in
// 64-bit arithmetic; 0 for a tensor with a zero-sized dimension; |stride| is used for negative
// strides. Returns nullopt when the value does not fit in 64 bits.
ELTWISE_API std::optional<uint64_t> CalcBufferTensorSize(
    DataType type, const std::vector<uint64_t>& sizes,
    const std::optional<std::vector<int64_t>>& strides);

// Exact byte span of the addressed elements (no rounding up); what the extended level requires.
ELTWISE_API std::optional<uint64_t> SpanInBytes(DataType type, const std::vector<uint64_t>& sizes,
                                                const std::optional<std::vector<int64_t>>& strides);

// A buffer bound at execution time: its first byte and its size in bytes.
struct ConstBinding {
  const void* data = nullptr;
  uint64_t size_in_bytes = 0;
};
struct Binding {
  void* data = nullptr;
  uint64_t size_in_bytes = 0;
};

}  // namespace eltwise
