// Exact tensor comparison: bit for bit, any NaN equal to any NaN.
#include <cstring>
#include <optional>
#include <string>
#include <vector>

#include "onnx/internal.h"
#include "ref/compare.h"

namespace eltwise::onnx_frontend {

namespace {

// The multi-index of row-major element `flat` of `shape`, as "[i,j,k]".
std::string IndexString(const std::vector<uint64_t>& shape, uint64_t flat) {
  std::vector<uint64_t> index(shape.size());
  for (size_t i = shape.size(); i-- > 0;) {
    index[i] = flat % shape[i];
    flat /= shape[i];
  }
  return ShapeString(index);
}

}  // namespace

std::optional<std::string> CompareTensors(const HostTensor& expected, const HostTensor& actual) {
  if (expected.type != actual.type) {
    return "type " + OnnxDataTypeName(OnnxDataType(actual.type)) + ", expected " +
           OnnxDataTypeName(OnnxDataType(expected.type));
  }
  if (expected.shape != actual.shape) {
    return "shape " + ShapeString(actual.shape) + ", expected " + ShapeString(expected.shape);
  }
  const size_t esize = ElementSize(expected.type);
  const uint64_t count = expected.element_count();
  if (expected.data.size() != count * esize || actual.data.size() != count * esize) {
    return std::string("data size does not match the shape");
  }
  uint64_t mismatches = 0;
  uint64_t first = 0;
  for (uint64_t i = 0; i < count; ++i) {
    const std::byte* e = expected.data.data() + i * esize;
    const std::byte* a = actual.data.data() + i * esize;
    if (std::memcmp(e, a, esize) == 0) continue;
    if (IsNanElement(expected.type, e) && IsNanElement(expected.type, a))
      continue;  // NaN payload is free
    if (mismatches++ == 0) first = i;
  }
  if (mismatches == 0) return std::nullopt;
  return std::to_string(mismatches) + " of " + std::to_string(count) +
         " elements differ; first at " + IndexString(expected.shape, first) + ": got " +
         internal::FormatElement(actual, first) + ", expected " +
         internal::FormatElement(expected, first);
}

}  // namespace eltwise::onnx_frontend
