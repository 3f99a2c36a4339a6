#include "staging.h"

#include <algorithm>
#include <cstring>
#include <memory>
#include <new>
#include <utility>
#include <variant>

#include "runner.h"

namespace eltwise::python {
namespace {

// The bytes an operand's elements occupy: from its lowest-addressed element, `span` bytes.
struct Region {
  std::byte* lowest = nullptr;
  uint64_t span = 0;
};

Region RegionOf(std::byte* origin, DataType type, const std::vector<uint64_t>& sizes,
                const std::vector<int64_t>& strides) {
  for (uint64_t s : sizes) {
    if (s == 0) return {origin, 0};
  }
  int64_t back = 0;  // elements from the lowest-addressed element to element (0, ..., 0)
  for (size_t i = 0; i < sizes.size(); ++i) {
    if (strides[i] < 0) back += static_cast<int64_t>(sizes[i] - 1) * -strides[i];
  }
  const auto esize = static_cast<int64_t>(ElementSize(type));
  return {origin - back * esize, SpanInBytes(type, sizes, strides).value_or(0)};
}

// Copies every element of a `sizes` array from src (strides src_strides) to dst (dst_strides);
// strides in elements, rank <= 8 here or any rank (recursive).
void CopyElements(const std::byte* src, const int64_t* src_strides, std::byte* dst,
                  const int64_t* dst_strides, const uint64_t* sizes, size_t rank, size_t esize) {
  if (rank == 0) {
    std::memcpy(dst, src, esize);
    return;
  }
  const auto e = static_cast<ptrdiff_t>(esize);
  for (uint64_t i = 0; i < sizes[0]; ++i) {
    CopyElements(src + static_cast<ptrdiff_t>(i) * src_strides[0] * e, src_strides + 1,
                 dst + static_cast<ptrdiff_t>(i) * dst_strides[0] * e, dst_strides + 1, sizes + 1,
                 rank - 1, esize);
  }
}

struct AlignedDelete {
  void operator()(std::byte* p) const { ::operator delete[](p, std::align_val_t{64}); }
};
using AlignedBuffer = std::unique_ptr<std::byte[], AlignedDelete>;

AlignedBuffer AllocateAligned(uint64_t bytes) {
  auto* p = static_cast<std::byte*>(
      ::operator new[](std::max<uint64_t>(bytes, 1), std::align_val_t{64}, std::nothrow));
  return AlignedBuffer(p);
}

Status OutOfMemory(uint64_t bytes) {
  return Status(StatusCode::kOutOfMemory,
                "allocating a " + std::to_string(bytes) + "-byte staging buffer failed");
}

}  // namespace

Geometry Merge(const Geometry& g) {
  struct Dim {
    uint64_t size;
    int64_t in, out;
  };
  std::vector<Dim> dims;
  for (size_t i = 0; i < g.sizes.size(); ++i) {
    if (g.sizes[i] == 0) return Geometry{{0}, {1}, {1}};
    if (g.sizes[i] != 1) dims.push_back({g.sizes[i], g.in_strides[i], g.out_strides[i]});
  }
  std::stable_sort(dims.begin(), dims.end(), [](const Dim& a, const Dim& b) {
    if (StrideMagnitude(a.out) != StrideMagnitude(b.out))
      return StrideMagnitude(a.out) > StrideMagnitude(b.out);
    return StrideMagnitude(a.in) > StrideMagnitude(b.in);
  });
  std::vector<Dim> merged;
  for (const Dim& d : dims) {
    if (!merged.empty()) {
      Dim& outer = merged.back();
      int64_t in_span, out_span;
      uint64_t size;
      const auto n = static_cast<int64_t>(d.size);
      if (!__builtin_mul_overflow(d.in, n, &in_span) && in_span == outer.in &&
          !__builtin_mul_overflow(d.out, n, &out_span) && out_span == outer.out &&
          !__builtin_mul_overflow(outer.size, d.size, &size)) {
        outer = {size, d.in, d.out};
        continue;
      }
    }
    merged.push_back(d);
  }
  Geometry out;
  for (const Dim& d : merged) {
    out.sizes.push_back(d.size);
    out.in_strides.push_back(d.in);
    out.out_strides.push_back(d.out);
  }
  return out;
}

TensorDesc Describe(DataType type, const std::vector<uint64_t>& sizes,
                    const std::vector<int64_t>& strides, FeatureLevel level) {
  TensorDesc t;
  t.type = type;
  t.sizes = sizes;
  t.strides = strides;
  // An overflowing size is left 0 so the validator reports the overflow with its message.
  t.total_tensor_size_in_bytes =
      (level == FeatureLevel::kExtended ? SpanInBytes(type, sizes, t.strides)
                                        : CalcBufferTensorSize(type, sizes, t.strides))
          .value_or(0);
  return t;
}

// Runs a call whose operands are in the device's own memory (host memory for the CPU).
Status RunDirect(const Call& call) {
  Expected<CompiledOperator> op = CompileCached(*call.device, call.desc);
  if (!op.ok()) return op.status();
  const Geometry& g = call.geometry;
  const Region in = RegionOf(call.in_origin, call.type, g.sizes, g.in_strides);
  const Region out = RegionOf(call.out_origin, call.type, g.sizes, g.out_strides);
  const FeatureLevel level = call.device->feature_level();
  const bool host = call.device->kind() == DeviceKind::kCpu;
  if (level == FeatureLevel::kExtended || !host) {
    Status s = op->Execute(ConstBinding{in.lowest, in.span}, Binding{out.lowest, out.span});
    if (s.ok() && !host) s = Synchronize(*call.device);
    return s;
  }
  // DirectML level on the host: stage what DirectML's binding rules would refuse (Note above).
  const auto& tensors = std::visit(
      [](const auto& d) {
        return std::pair<const TensorDesc*, const TensorDesc*>(&d.input, &d.output);
      },
      call.desc);
  const uint64_t in_total = tensors.first->total_tensor_size_in_bytes;
  const uint64_t out_total = tensors.second->total_tensor_size_in_bytes;
  constexpr uintptr_t kAlignment = 16;  // DML_MINIMUM_BUFFER_TENSOR_ALIGNMENT
  const bool stage_in =
      reinterpret_cast<uintptr_t>(in.lowest) % kAlignment != 0 || in.span < in_total;
  const bool stage_out =
      reinterpret_cast<uintptr_t>(out.lowest) % kAlignment != 0 || out.span < out_total;
  AlignedBuffer in_buffer, out_buffer;
  ConstBinding in_binding{in.lowest, in.span};
  Binding out_binding{out.lowest, out.span};
  if (stage_in) {
    in_buffer = AllocateAligned(in_total);
    if (!in_buffer) return OutOfMemory(in_total);
    std::memcpy(in_buffer.get(), in.lowest, in.span);
    in_binding = {in_buffer.get(), in_total};
  }
  if (stage_out) {
    out_buffer = AllocateAligned(out_total);
    if (!out_buffer) return OutOfMemory(out_total);
    out_binding = {out_buffer.get(), out_total};
  }
  if (Status s = op->Execute(in_binding, out_binding); !s.ok()) return s;
  if (stage_out) {
    const std::byte* staged_origin = out_buffer.get() + (call.out_origin - out.lowest);
    CopyElements(staged_origin, g.out_strides.data(), call.out_origin, g.out_strides.data(),
                 g.sizes.data(), g.sizes.size(), ElementSize(call.type));
  }
  return Status::Ok();
}

// Host operands on a CUDA device: gather x into a packed host buffer, copy it to the device, run
// on packed device buffers, copy back and scatter into out. `packed` holds the packed strides the
// descriptors use; `host` the operands' own.
Status RunThroughDevice(const Call& call, const Geometry& host) {
  const Device& device = *call.device;
  Expected<CompiledOperator> op = CompileCached(device, call.desc);
  if (!op.ok()) return op.status();
  const auto& tensors = std::visit(
      [](const auto& d) {
        return std::pair<const TensorDesc*, const TensorDesc*>(&d.input, &d.output);
      },
      call.desc);
  const size_t esize = ElementSize(call.type);
  uint64_t count = 1;
  for (uint64_t s : host.sizes) count *= s;
  const uint64_t bytes = count * esize;
  if (count == 0) return op->Execute(ConstBinding{}, Binding{});
  AlignedBuffer staging = AllocateAligned(bytes);
  if (!staging) return OutOfMemory(bytes);
  const std::vector<int64_t> packed = PackedStrides(host.sizes);
  CopyElements(call.in_origin, host.in_strides.data(), staging.get(), packed.data(),
               host.sizes.data(), host.sizes.size(), esize);
  const uint64_t in_total = std::max(tensors.first->total_tensor_size_in_bytes, bytes);
  const uint64_t out_total = std::max(tensors.second->total_tensor_size_in_bytes, bytes);
  Expected<void*> in = Allocate(device, in_total);
  if (!in.ok()) return in.status();
  Expected<void*> out = Allocate(device, out_total);
  if (!out.ok()) {
    Free(device, *in);
    return out.status();
  }
  Status s = CopyToDevice(device, *in, staging.get(), bytes);
  if (s.ok()) s = op->Execute(ConstBinding{*in, in_total}, Binding{*out, out_total});
  if (s.ok()) s = CopyToHost(device, staging.get(), *out, bytes);
  if (s.ok()) s = Synchronize(device);
  Free(device, *in);
  Free(device, *out);
  if (!s.ok()) return s;
  CopyElements(staging.get(), packed.data(), call.out_origin, host.out_strides.data(),
               host.sizes.data(), host.sizes.size(), esize);
  return Status::Ok();
}

}  // namespace eltwise::python
