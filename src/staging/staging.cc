// The staging path of staging.h.
#include "staging/staging.h"

#include <algorithm>
#include <cstring>
#include <memory>
#include <new>

#include "core/op_registry.h"
#include "core/out_of_memory.h"
#include "staging/operator_cache.h"

namespace eltwise::staging {
namespace {

// DirectML binds buffers at DML_MINIMUM_BUFFER_TENSOR_ALIGNMENT.
constexpr uintptr_t kDirectMLAlignment = 16;

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

void CopyDims(const std::byte* src, const int64_t* src_strides, std::byte* dst,
              const int64_t* dst_strides, const uint64_t* sizes, size_t rank, size_t esize) {
  if (rank == 0) {
    std::memcpy(dst, src, esize);
    return;
  }
  const auto e = static_cast<ptrdiff_t>(esize);
  for (uint64_t i = 0; i < sizes[0]; ++i) {
    CopyDims(src + static_cast<ptrdiff_t>(i) * src_strides[0] * e, src_strides + 1,
             dst + static_cast<ptrdiff_t>(i) * dst_strides[0] * e, dst_strides + 1, sizes + 1,
             rank - 1, esize);
  }
}

bool HasNoElements(const std::vector<uint64_t>& sizes) {
  return std::find(sizes.begin(), sizes.end(), uint64_t{0}) != sizes.end();
}

OperatorDesc DescribeCall(const Device& device, const StridedCall& call, const Geometry& g) {
  const FeatureLevel level = device.feature_level();
  return WithTensors(call.op, Describe(call.type, g.sizes, g.in_strides, level),
                     Describe(call.type, g.sizes, g.out_strides, level));
}

// Operands in the device's own memory.
Status RunDirect(const Device& device, const StridedCall& call) {
  const Geometry g = DescribedGeometry(device, call);
  Expected<CompiledOperator> op = Compile(device, DescribeCall(device, call, g));
  if (!op.ok()) return op.status();
  const Region in = RegionOf(call.input, call.type, g.sizes, g.in_strides);
  const Region out = RegionOf(call.output, call.type, g.sizes, g.out_strides);
  // The output's region, writable (`call.output` is).
  std::byte* const out_lowest = call.output - (call.output - out.lowest);
  const bool host = DeviceMemoryIsHost(device);
  if (BindsPackedHostArrays(device) || !host) {
    Status s = op->Execute(ConstBinding{in.lowest, in.span}, Binding{out_lowest, out.span});
    if (s.ok() && !host) s = Synchronize(device);
    return s;
  }
  // A DirectML level on the host: stage what DirectML's binding rules would refuse.
  const uint64_t in_total = InputOf(op->desc()).total_tensor_size_in_bytes;
  const uint64_t out_total = OutputOf(op->desc()).total_tensor_size_in_bytes;
  const bool stage_in =
      reinterpret_cast<uintptr_t>(in.lowest) % kDirectMLAlignment != 0 || in.span < in_total;
  const bool stage_out =
      reinterpret_cast<uintptr_t>(out.lowest) % kDirectMLAlignment != 0 || out.span < out_total;
  AlignedBuffer in_buffer, out_buffer;
  ConstBinding in_binding{in.lowest, in.span};
  Binding out_binding{out_lowest, out.span};
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
    const std::byte* staged_origin = out_buffer.get() + (call.output - out_lowest);
    CopyElements(staged_origin, g.out_strides, call.output, g.out_strides, g.sizes,
                 ElementSize(call.type));
  }
  return Status::Ok();
}

// Host operands on a device with its own memory: gather packed, run on packed device buffers,
// scatter back. Only a CUDA device has its own memory, so coverage (taken without a GPU) leaves
// this out; tests/cuda/run_gpu_checks.sh runs it on a GPU.
// GCOVR_EXCL_START
Status RunThroughDevice(const Device& device, const StridedCall& call) {
  const Geometry described = DescribedGeometry(device, call);
  Expected<CompiledOperator> op = Compile(device, DescribeCall(device, call, described));
  if (!op.ok()) return op.status();
  const Geometry& host = call.geometry;
  const size_t esize = ElementSize(call.type);
  const uint64_t count = ElementCount(host.sizes);
  if (count == 0) return op->Execute(ConstBinding{}, Binding{});
  const uint64_t bytes = count * esize;
  AlignedBuffer staging = AllocateAligned(bytes);
  if (!staging) return OutOfMemory(bytes);
  const std::vector<int64_t> packed = PackedStrides(host.sizes);
  CopyElements(call.input, host.in_strides, staging.get(), packed, host.sizes, esize);
  const uint64_t in_total = std::max(InputOf(op->desc()).total_tensor_size_in_bytes, bytes);
  const uint64_t out_total = std::max(OutputOf(op->desc()).total_tensor_size_in_bytes, bytes);
  Status s;
  {
    DeviceBuffers buffers(device);
    Expected<void*> in = buffers.Allocate(in_total);
    if (!in.ok()) return in.status();
    Expected<void*> out = buffers.Allocate(out_total);
    if (!out.ok()) return out.status();
    s = CopyToDevice(device, *in, staging.get(), bytes);
    if (s.ok()) s = op->Execute(ConstBinding{*in, in_total}, Binding{*out, out_total});
    if (s.ok()) s = CopyToHost(device, staging.get(), *out, bytes);
    if (s.ok()) s = Synchronize(device);
  }
  if (!s.ok()) return s;
  CopyElements(staging.get(), packed, call.output, host.out_strides, host.sizes, esize);
  return Status::Ok();
}
// GCOVR_EXCL_STOP

}  // namespace

uint64_t ElementCount(const std::vector<uint64_t>& sizes) {
  uint64_t count = 1;
  for (uint64_t s : sizes) count *= s;
  return count;
}

Geometry MergeDims(const Geometry& g) {
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
  t.total_tensor_size_in_bytes =
      (level == FeatureLevel::kExtended ? SpanInBytes(type, sizes, t.strides)
                                        : CalcBufferTensorSize(type, sizes, t.strides))
          .value_or(0);
  return t;
}

Region RegionOf(const std::byte* origin, DataType type, const std::vector<uint64_t>& sizes,
                const std::vector<int64_t>& strides) {
  if (HasNoElements(sizes)) return {origin, 0};
  int64_t back = 0;  // elements from the lowest-addressed element to element (0, ..., 0)
  for (size_t i = 0; i < sizes.size(); ++i) {
    if (strides[i] < 0) back += static_cast<int64_t>(sizes[i] - 1) * -strides[i];
  }
  const auto esize = static_cast<int64_t>(ElementSize(type));
  return {origin - back * esize, SpanInBytes(type, sizes, strides).value_or(0)};
}

void CopyElements(const std::byte* src, const std::vector<int64_t>& src_strides, std::byte* dst,
                  const std::vector<int64_t>& dst_strides, const std::vector<uint64_t>& sizes,
                  size_t element_size) {
  CopyDims(src, src_strides.data(), dst, dst_strides.data(), sizes.data(), sizes.size(),
           element_size);
}

bool DeviceMemoryIsHost(const Device& device) { return device.kind() == DeviceKind::kCpu; }

bool BindsPackedHostArrays(const Device& device) {
  return DeviceMemoryIsHost(device) && device.feature_level() == FeatureLevel::kExtended;
}

uint64_t PackedBufferBytes(DataType type, const std::vector<uint64_t>& shape) {
  const uint64_t packed = ElementCount(shape) * ElementSize(type);
  return std::max(CalcBufferTensorSize(type, shape, std::nullopt).value_or(0), packed);
}

DeviceBuffers::~DeviceBuffers() {
  // Let queued work finish before its memory is released (a no-op on the CPU).
  if (!buffers_.empty()) (void)Synchronize(device_);
  for (void* p : buffers_) Free(device_, p);
}

Expected<void*> DeviceBuffers::Allocate(uint64_t bytes) {
  buffers_.reserve(buffers_.size() + 1);  // may throw, before the device memory exists
  Expected<void*> p = eltwise::Allocate(device_, bytes);
  if (p.ok()) buffers_.push_back(*p);
  return p;
}

Expected<void*> DeviceBuffers::Upload(std::span<const std::byte> host, uint64_t buffer_bytes) {
  buffer_bytes = std::max<uint64_t>(buffer_bytes, host.size());
  Expected<void*> p = Allocate(buffer_bytes);
  if (!p.ok()) return p;
  auto* data = static_cast<std::byte*>(*p);
  if (Status s = CopyToDevice(device_, data, host.data(), host.size()); !s.ok()) return s;
  if (buffer_bytes > host.size()) {
    const std::vector<std::byte> zeros(buffer_bytes - host.size());
    if (Status s = CopyToDevice(device_, data + host.size(), zeros.data(), zeros.size()); !s.ok())
      return s;
    if (Status s = Synchronize(device_); !s.ok()) return s;  // `zeros` must outlive the copy
  }
  return p;
}

Status InPlaceRunner::Run(const OperatorDesc& desc, std::span<std::byte> data, uint64_t capacity) {
  const Device& device = buffers_.device();
  Expected<CompiledOperator> op = CompileCached(device, desc);
  if (!op.ok()) return op.status();
  if (BindsPackedHostArrays(device) && capacity >= InputOf(desc).total_tensor_size_in_bytes) {
    return op->Execute(ConstBinding{data.data(), capacity}, Binding{data.data(), capacity});
  }
  const uint64_t bytes = std::max(capacity, InputOf(desc).total_tensor_size_in_bytes);
  if (staged_ == nullptr) {
    Expected<void*> buffer = buffers_.Allocate(bytes);
    if (!buffer.ok()) return buffer.status();
    staged_ = *buffer;
    staged_capacity_ = capacity;
    staged_bytes_ = bytes;
    if (bytes > capacity) {  // padding no element addresses; zeroed so no byte is undefined
      const std::vector<std::byte> zeros(bytes - capacity);
      auto* padding = static_cast<std::byte*>(staged_) + capacity;
      if (Status s = CopyToDevice(device, padding, zeros.data(), zeros.size()); !s.ok()) return s;
      if (Status s = Synchronize(device); !s.ok()) return s;  // `zeros` must outlive the copy
    }
  }
  if (capacity != staged_capacity_ || bytes > staged_bytes_) {
    return InvalidArgument("a chunk's capacity changed within one stream");
  }
  if (Status s = CopyToDevice(device, staged_, data.data(), data.size()); !s.ok()) return s;
  if (Status s = op->Execute(ConstBinding{staged_, staged_bytes_}, Binding{staged_, staged_bytes_});
      !s.ok()) {
    return s;
  }
  if (Status s = CopyToHost(device, data.data(), staged_, data.size()); !s.ok()) return s;
  return Synchronize(device);
}

Status RunInPlace(const Device& device, const OperatorDesc& desc, std::span<std::byte> data) {
  return GuardAllocation("staging::RunInPlace", [&]() -> Status {
    InPlaceRunner runner(device);
    return runner.Run(desc, data, data.size());
  });
}

Geometry DescribedGeometry(const Device& device, const StridedCall& call) {
  const std::vector<uint64_t>& sizes = call.geometry.sizes;
  Geometry g = call.geometry;
  // Host operands through a device's memory are described packed; so is a call without elements
  // (strides address nothing; NumPy gives zero strides to some empty arrays, which the output
  // self-overlap rule would otherwise see before the zero size).
  if ((call.memory == Memory::kHost && !DeviceMemoryIsHost(device)) || HasNoElements(sizes)) {
    g.in_strides = g.out_strides = PackedStrides(sizes);
  }
  if (device.feature_level() == FeatureLevel::kExtended && sizes.size() > kMaxRank) {
    g = MergeDims(g);
  }
  return g;
}

Status RunStrided(const Device& device, const StridedCall& call) {
  return GuardAllocation("staging::RunStrided", [&] {
    if (call.memory == Memory::kHost && !DeviceMemoryIsHost(device)) {
      return RunThroughDevice(device, call);  // GCOVR_EXCL_LINE: a CUDA device (above)
    }
    return RunDirect(device, call);
  });
}

}  // namespace eltwise::staging
