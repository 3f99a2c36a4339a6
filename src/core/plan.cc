// Layout planning: simplify the iteration space once so backends see the fewest, longest loops.
#include "core/plan.h"

#include <algorithm>
#include <cstdlib>

namespace eltwise {
namespace {

struct Dim {
  uint64_t size;
  int64_t in;
  int64_t out;
};

int64_t Wrap(uint64_t v) { return static_cast<int64_t>(v); }

// Byte offset of element (0,...,0) from the lowest addressed byte (non-zero for negative strides).
uint64_t FirstElementOffset(const std::vector<uint64_t>& sizes, const std::vector<int64_t>& strides,
                            uint64_t element_size) {
  uint64_t offset = 0;
  for (size_t i = 0; i < sizes.size(); ++i) {
    if (strides[i] < 0) offset += (sizes[i] - 1) * StrideMagnitude(strides[i]);
  }
  return offset * element_size;
}

// Among the dims other than the innermost (the last), the one the input walks fastest (smallest
// non-zero stride magnitude; the outermost on ties), or dims.size() if every such stride is 0.
size_t FastestInputDim(const std::vector<Dim>& dims) {
  size_t best = dims.size();
  for (size_t d = 0; d + 1 < dims.size(); ++d) {
    if (dims[d].in == 0) continue;
    if (best == dims.size() || StrideMagnitude(dims[d].in) < StrideMagnitude(dims[best].in)) {
      best = d;
    }
  }
  return best;
}

// The layout of simplified dims (outermost first, innermost last), see Layout.
Layout ClassifyLayout(const std::vector<Dim>& dims) {
  if (dims.empty() || (dims.size() == 1 && dims[0].in == 1 && dims[0].out == 1)) {
    return Layout::kContiguous;
  }
  if (std::all_of(dims.begin(), dims.end(), [](const Dim& d) { return d.in == 0; })) {
    return Layout::kBroadcast;
  }
  const Dim& inner = dims.back();
  if (dims.size() >= 2 && inner.in == 1 && inner.out == 1) return Layout::kRows;
  const size_t a = FastestInputDim(dims);
  if (a < dims.size() && inner.in != 0 && StrideMagnitude(dims[a].in) < StrideMagnitude(inner.in) &&
      dims[a].size >= kMinTransposeExtent && inner.size >= kMinTransposeExtent) {
    return Layout::kTransposed;
  }
  return Layout::kGathered;
}

}  // namespace

Plan MakePlan(Function function, const TensorDesc& input, const TensorDesc& output,
              uint32_t input_alignment, uint32_t output_alignment) {
  Plan plan;
  plan.function = function;
  plan.type = input.type;
  plan.element_size = static_cast<uint32_t>(ElementSize(input.type));
  plan.input_required_bytes = input.total_tensor_size_in_bytes;
  plan.output_required_bytes = output.total_tensor_size_in_bytes;
  plan.input_alignment = input_alignment;
  plan.output_alignment = output_alignment;
  plan.element_count = 1;
  for (uint64_t s : input.sizes) plan.element_count *= s;
  if (plan.element_count == 0) {
    plan.layout = Layout::kEmpty;
    return plan;
  }
  const std::vector<int64_t> in_strides = input.strides.value_or(PackedStrides(input.sizes));
  const std::vector<int64_t> out_strides = output.strides.value_or(PackedStrides(output.sizes));
  const uint64_t esize = plan.element_size;
  plan.input_span = *SpanInBytes(input.type, input.sizes, in_strides);
  plan.output_span = *SpanInBytes(output.type, output.sizes, out_strides);
  int64_t in_offset = static_cast<int64_t>(FirstElementOffset(input.sizes, in_strides, esize));
  int64_t out_offset = static_cast<int64_t>(FirstElementOffset(output.sizes, out_strides, esize));

  // Drop size-1 dims; make output strides positive by walking negative-stride dims from their far
  // end (which moves the first element, not the set of addresses).
  std::vector<Dim> dims;
  for (size_t i = 0; i < input.sizes.size(); ++i) {
    if (input.sizes[i] == 1) continue;
    Dim d{input.sizes[i], in_strides[i], out_strides[i]};
    if (d.out < 0) {
      // Two's-complement (wrapping) arithmetic: strides may be as large as INT64_MIN when the span
      // fits in 64 bits, and the resulting offsets lie inside the span, so they are exact.
      const uint64_t last = d.size - 1;
      in_offset =
          Wrap(static_cast<uint64_t>(in_offset) + last * static_cast<uint64_t>(d.in) * esize);
      out_offset =
          Wrap(static_cast<uint64_t>(out_offset) + last * static_cast<uint64_t>(d.out) * esize);
      d.in = Wrap(uint64_t{0} - static_cast<uint64_t>(d.in));
      d.out = Wrap(uint64_t{0} - static_cast<uint64_t>(d.out));
    }
    dims.push_back(d);
  }
  // Innermost (smallest output stride) last; ties broken by input stride.
  std::stable_sort(dims.begin(), dims.end(), [](const Dim& a, const Dim& b) {
    if (a.out != b.out) return a.out > b.out;
    return StrideMagnitude(a.in) > StrideMagnitude(b.in);
  });
  // Merge an outer dim into the inner one when both tensors step through them contiguously.
  std::vector<Dim> result;
  for (size_t i = dims.size(); i-- > 0;) {  // innermost first
    const Dim& d = dims[i];
    if (!result.empty()) {
      Dim& inner = result.back();
      int64_t out_step, in_step;  // a step that overflows cannot equal a valid stride
      if (!__builtin_mul_overflow(inner.out, static_cast<int64_t>(inner.size), &out_step) &&
          !__builtin_mul_overflow(inner.in, static_cast<int64_t>(inner.size), &in_step) &&
          d.out == out_step && d.in == in_step) {
        inner.size *= d.size;
        continue;
      }
    }
    result.push_back(d);
  }
  std::reverse(result.begin(), result.end());  // outermost first

  const Layout layout = ClassifyLayout(result);
  if (layout == Layout::kTransposed) {
    // The input's fastest dim goes next to the innermost; the others keep their order.
    const auto fastest = FastestInputDim(result);
    const Dim moved = result[fastest];
    result.erase(result.begin() + static_cast<ptrdiff_t>(fastest));
    result.insert(result.end() - 1, moved);
  }
  plan.layout = layout;
  plan.rank = static_cast<int>(result.size());
  for (int i = 0; i < plan.rank; ++i) {
    plan.sizes[i] = result[i].size;
    plan.input_strides[i] = result[i].in;
    plan.output_strides[i] = result[i].out;
  }
  plan.input_offset = static_cast<uint64_t>(in_offset);
  plan.output_offset = static_cast<uint64_t>(out_offset);

  return plan;
}

}  // namespace eltwise
