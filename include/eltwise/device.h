// Devices, compiled operators and execution.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "eltwise/export.h"
#include "eltwise/feature_level.h"
#include "eltwise/operators.h"
#include "eltwise/status.h"
#include "eltwise/tensor.h"

namespace eltwise {

enum class DeviceKind : uint8_t { kCpu, kCuda };

struct CpuOptions {
  FeatureLevel feature_level = FeatureLevel::kExtended;
  int threads = 0;  // 0: one per hardware thread; 1: the caller's thread only
};

struct CudaOptions {
  FeatureLevel feature_level = FeatureLevel::kExtended;
  int ordinal = 0;
  void* stream = nullptr;  // a cudaStream_t to launch on; nullptr = the legacy default stream
};

namespace internal {
struct DeviceState;
struct CompiledState;
}  // namespace internal

// A device is created for one feature level; it validates every operator compiled on it against
// that level. Copies share the same underlying device. Thread-safe.
class ELTWISE_API Device {
 public:
  static Expected<Device> Cpu(CpuOptions options = {});
  // kUnsupported if this build has no CUDA backend or no GPU is present.
  static Expected<Device> Cuda(CudaOptions options = {});

  DeviceKind kind() const;
  FeatureLevel feature_level() const;
  // Worker threads a CPU execution may use (1 for CUDA devices).
  int threads() const;
  std::string description() const;

  const internal::DeviceState& state() const { return *state_; }

 private:
  explicit Device(std::shared_ptr<const internal::DeviceState> state) : state_(std::move(state)) {}
  std::shared_ptr<const internal::DeviceState> state_;
  friend struct internal::DeviceState;
};

// A validated and planned operator. Immutable: Execute may be called from many threads at once on
// different buffers.
class ELTWISE_API CompiledOperator {
 public:
  // Runs the operator. `input` and `output` are the bound buffers (host pointers on a CPU device,
  // device pointers on a CUDA device). The output may alias the input exactly (in place) or overlap
  // it partially: the result is as if the whole input were read before any output was written.
  // Output bytes that no element addresses are never written. On any error nothing is written.
  // On a CUDA device the call is asynchronous on the device's stream.
  Status Execute(ConstBinding input, Binding output) const;

  const OperatorDesc& desc() const;
  const Device& device() const;
  const internal::CompiledState& state() const { return *state_; }

 private:
  explicit CompiledOperator(std::shared_ptr<const internal::CompiledState> state)
      : state_(std::move(state)) {}
  std::shared_ptr<const internal::CompiledState> state_;
  friend struct internal::CompiledState;
};

// Validates `desc` against the device's feature level and plans its execution once.
ELTWISE_API Expected<CompiledOperator> Compile(const Device& device, const OperatorDesc& desc);

// Only validates (what Compile would reject, with the same message).
ELTWISE_API Status Validate(FeatureLevel level, const OperatorDesc& desc);

// One-call helpers on the default CPU device (extended level, all cores), for `count` packed
// elements. `output` may equal `input`.
ELTWISE_API Status Sign(DataType type, uint64_t count, const void* input, void* output,
                        NanPolicy nan = NanPolicy::kZero);
ELTWISE_API Status Round(DataType type, uint64_t count, const void* input, void* output,
                         RoundingMode mode = RoundingMode::kHalvesToNearestEven);
// Compile + execute in one call.
ELTWISE_API Status Execute(const Device& device, const OperatorDesc& desc, ConstBinding input,
                           Binding output);

// Memory helpers, so front ends can stage data for any device without a device-specific API.
// On a CPU device these are plain host allocations and memcpy; on a CUDA device they are device
// allocations and copies ordered on the device's stream (call Synchronize before reading results
// on the host).
ELTWISE_API Expected<void*> Allocate(const Device& device, uint64_t bytes);
ELTWISE_API void Free(const Device& device, void* pointer);
ELTWISE_API Status CopyToDevice(const Device& device, void* device_dst, const void* host_src,
                                uint64_t bytes);
ELTWISE_API Status CopyToHost(const Device& device, void* host_dst, const void* device_src,
                              uint64_t bytes);
ELTWISE_API Status CopyOnDevice(const Device& device, void* device_dst, const void* device_src,
                                uint64_t bytes);
ELTWISE_API Status Synchronize(const Device& device);

// Library version "major.minor.patch".
ELTWISE_API std::string_view Version();

}  // namespace eltwise
