// Tensor size arithmetic, all in checked 64-bit integers.
#include "eltwise/tensor.h"

#include <optional>

namespace eltwise {

std::vector<int64_t> PackedStrides(const std::vector<uint64_t>& sizes) {
  std::vector<int64_t> strides(sizes.size());
  uint64_t stride = 1;
  for (size_t i = sizes.size(); i-- > 0;) {
    strides[i] = static_cast<int64_t>(stride);
    if (sizes[i] != 0 && __builtin_mul_overflow(stride, sizes[i], &stride)) stride = 0;
  }
  return strides;
}

std::optional<uint64_t> SpanInBytes(DataType type, const std::vector<uint64_t>& sizes,
                                    const std::optional<std::vector<int64_t>>& strides) {
  if (strides && strides->size() != sizes.size()) return std::nullopt;
  uint64_t last_element = 0;  // sum of (size_i - 1) * |stride_i|
  uint64_t packed_stride = 1;
  for (size_t i = sizes.size(); i-- > 0;) {
    if (sizes[i] == 0) return uint64_t{0};
  }
  for (size_t i = sizes.size(); i-- > 0;) {
    uint64_t stride_magnitude;
    if (strides) {
      stride_magnitude = StrideMagnitude((*strides)[i]);
    } else {
      stride_magnitude = packed_stride;
    }
    uint64_t term;
    if (__builtin_mul_overflow(sizes[i] - 1, stride_magnitude, &term) ||
        __builtin_add_overflow(last_element, term, &last_element)) {
      return std::nullopt;
    }
    if (!strides && __builtin_mul_overflow(packed_stride, sizes[i], &packed_stride)) {
      return std::nullopt;
    }
  }
  uint64_t bytes;
  if (__builtin_add_overflow(last_element, uint64_t{1}, &bytes) ||
      __builtin_mul_overflow(bytes, static_cast<uint64_t>(ElementSize(type)), &bytes)) {
    return std::nullopt;
  }
  return bytes;
}

std::optional<uint64_t> CalcBufferTensorSize(DataType type, const std::vector<uint64_t>& sizes,
                                             const std::optional<std::vector<int64_t>>& strides) {
  const std::optional<uint64_t> span = SpanInBytes(type, sizes, strides);
  if (!span) return std::nullopt;
  uint64_t rounded;
  if (__builtin_add_overflow(*span, uint64_t{3}, &rounded)) return std::nullopt;
  return rounded & ~uint64_t{3};
}

TensorDesc TensorDesc::Packed(DataType type, std::vector<uint64_t> sizes) {
  TensorDesc desc;
  desc.type = type;
  desc.total_tensor_size_in_bytes = CalcBufferTensorSize(type, sizes, std::nullopt).value_or(0);
  desc.sizes = std::move(sizes);
  return desc;
}

TensorDesc TensorDesc::Strided(DataType type, std::vector<uint64_t> sizes,
                               std::vector<int64_t> strides) {
  TensorDesc desc;
  desc.type = type;
  desc.total_tensor_size_in_bytes = CalcBufferTensorSize(type, sizes, strides).value_or(0);
  desc.sizes = std::move(sizes);
  desc.strides = std::move(strides);
  return desc;
}

}  // namespace eltwise
