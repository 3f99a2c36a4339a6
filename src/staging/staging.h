// The library's one staging path: how front ends (the CLI, the ONNX runner, the Python module) get
// host data through a device and through DirectML's binding rules. Nothing here is in the public
// API; it is built on it (Compile, Execute, Allocate, CopyToDevice, CopyToHost, Synchronize).
//
// Operator descriptions passed here are prototypes: only their options (e.g. SignDesc::nan,
// RoundDesc::mode) are read; the input and output tensor descriptions are derived from the
// operands (see op_registry.h, WithTensors).
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

#include "eltwise/device.h"
#include "eltwise/operators.h"
#include "eltwise/status.h"
#include "eltwise/tensor.h"

namespace eltwise::staging {

// ---------------------------------------------------------------------------------------------
// Geometry of an elementwise call on two strided arrays of the same sizes.

// Strides in elements, any sign, one per dimension; any rank (also above kMaxRank).
struct Geometry {
  std::vector<uint64_t> sizes;
  std::vector<int64_t> in_strides;
  std::vector<int64_t> out_strides;
};

// The same element-to-element correspondence in fewer dimensions: size-1 dimensions dropped,
// dimensions ordered by output stride (then input stride), neighbours contiguous in both operands
// merged. A geometry with a zero size becomes {0} with unit strides.
Geometry MergeDims(const Geometry& geometry);

// The description of one operand at `level`: explicit strides, and the total size the level
// requires (DMLCalcBufferTensorSize at DirectML levels, the exact span at the extended level; 0
// when it overflows, so that validation reports the overflow).
TensorDesc Describe(DataType type, const std::vector<uint64_t>& sizes,
                    const std::vector<int64_t>& strides, FeatureLevel level);

// The bytes a strided operand's elements occupy: from its lowest-addressed element, `span` bytes.
struct Region {
  const std::byte* lowest = nullptr;
  uint64_t span = 0;
};
// `origin` is the address of element (0, ..., 0).
Region RegionOf(const std::byte* origin, DataType type, const std::vector<uint64_t>& sizes,
                const std::vector<int64_t>& strides);

// Copies every element of a `sizes` array from src (strides src_strides, in elements) to dst
// (dst_strides); any rank. Host memory only.
void CopyElements(const std::byte* src, const std::vector<int64_t>& src_strides, std::byte* dst,
                  const std::vector<int64_t>& dst_strides, const std::vector<uint64_t>& sizes,
                  size_t element_size);

// ---------------------------------------------------------------------------------------------
// Device buffers.

// Whether the device's memory is host memory (a CPU device): host pointers can be bound as they
// are, subject to the feature level's binding rules.
bool DeviceMemoryIsHost(const Device& device);
// Whether any packed host array aligned to its element size can be bound as it is: host memory at
// the extended level (DirectML levels add 16-byte alignment and DMLCalcBufferTensorSize sizes).
bool BindsPackedHostArrays(const Device& device);

// The number of elements of a tensor of these sizes (their product; validated shapes fit).
uint64_t ElementCount(const std::vector<uint64_t>& sizes);

// The bytes of a device buffer that holds a packed tensor of `shape`: its packed size, rounded up
// to DirectML's DMLCalcBufferTensorSize, so one buffer is valid at every feature level.
uint64_t PackedBufferBytes(DataType type, const std::vector<uint64_t>& shape);

// Device buffers freed together (after the device's queued work finished) when this object ends,
// whatever the outcome.
class DeviceBuffers {
 public:
  explicit DeviceBuffers(const Device& device) : device_(device) {}
  DeviceBuffers(const DeviceBuffers&) = delete;
  DeviceBuffers& operator=(const DeviceBuffers&) = delete;
  ~DeviceBuffers();

  Expected<void*> Allocate(uint64_t bytes);
  // A new buffer of `buffer_bytes` (>= host.size()) holding `host`, the rest zero (padding no
  // element addresses; zeroed so no byte is undefined). The copy is ordered on the device's
  // queue; `host` need not outlive the call.
  Expected<void*> Upload(std::span<const std::byte> host, uint64_t buffer_bytes);
  const Device& device() const { return device_; }

 private:
  Device device_;
  std::vector<void*> buffers_;
};

// ---------------------------------------------------------------------------------------------
// Whole calls.

// Runs operators in place on host bytes, call after call (the CLI's chunks of a stream, the demo's
// one call): each operator comes from the one cache (CompileCached), and the device buffer a
// device with its own memory needs is allocated by the first call and reused by every later one.
// One runner per thread.
class InPlaceRunner {
 public:
  explicit InPlaceRunner(const Device& device) : buffers_(device) {}

  // Runs `desc` (input and output descriptions equal, describing the packed bytes `data`) in
  // place on `data`, whose host buffer extends to `capacity` >= data.size() bytes (room for
  // DirectML's size rounding; the bytes past data.size() may be bound, never written). Where the
  // device binds packed host arrays (a CPU device at the extended level) and `capacity` covers the
  // description's total size, `data`'s buffer is bound as it is; elsewhere `data` is copied into
  // the device buffer of max(capacity, total_tensor_size_in_bytes) bytes (bytes past `capacity`
  // zero), run, copied back and synchronised. Every call of one runner passes the same capacity. On
  // an error `data` may hold partial results.
  Status Run(const OperatorDesc& desc, std::span<std::byte> data, uint64_t capacity);

 private:
  DeviceBuffers buffers_;  // frees the buffer below once the device's work is done
  void* staged_ = nullptr;
  uint64_t staged_capacity_ = 0;
  uint64_t staged_bytes_ = 0;
};

// InPlaceRunner(device).Run(desc, data, data.size()). A failed allocation is kOutOfMemory (no
// std::bad_alloc escapes).
Status RunInPlace(const Device& device, const OperatorDesc& desc, std::span<std::byte> data);

// Where a strided call's operands are: host memory, or the device's own memory (host memory for
// a CPU device, device pointers for a CUDA device).
enum class Memory : uint8_t { kHost, kDevice };

// An elementwise call on two strided arrays of the same type and sizes.
struct StridedCall {
  OperatorDesc op;  // a prototype: its options are used, its tensors replaced
  DataType type = DataType::kFloat32;
  Geometry geometry;                 // the operands' own sizes and strides
  const std::byte* input = nullptr;  // element (0, ..., 0) of each operand
  std::byte* output = nullptr;
  Memory memory = Memory::kHost;
};

// The geometry the descriptors of `call` on `device` use: packed when host operands go through a
// device's memory, the operands' own otherwise; merged (MergeDims) at the extended level when the
// rank exceeds kMaxRank; unit strides for a call without elements.
Geometry DescribedGeometry(const Device& device, const StridedCall& call);

// Runs `call` on `device`, whatever the operands' memory and the device's feature level:
//  * operands in the device's memory: Execute (and Synchronize) directly;
//  * host operands on a CUDA device: gathered packed, copied to device buffers, run, copied back
//    and scattered into the output;
//  * host operands on a CPU device at a DirectML level: a binding DirectML would refuse (address
//    not 16-byte aligned, or smaller than DMLCalcBufferTensorSize) is staged through an aligned
//    host buffer of the required size.
// Validation messages are Compile's; a failed allocation is kOutOfMemory (no std::bad_alloc
// escapes). On an error the output may hold partial results.
Status RunStrided(const Device& device, const StridedCall& call);

}  // namespace eltwise::staging
