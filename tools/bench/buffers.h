// Benchmark buffers: device memory through the public API (host memory for a CPU device).
#pragma once

#include <cstddef>
#include <cstdint>

#include "eltwise/device.h"

namespace eltwise::bench {

// Memory of `device` (Allocate/Free), at least 16 bytes; throws Failure("bench buffer") when the
// device has none left.
class DeviceBuffer {
 public:
  DeviceBuffer(const Device& device, uint64_t bytes);
  ~DeviceBuffer();
  DeviceBuffer(const DeviceBuffer&) = delete;
  DeviceBuffer& operator=(const DeviceBuffer&) = delete;

  void* data() const { return data_; }
  std::byte* bytes() const { return static_cast<std::byte*>(data_); }

 private:
  Device device_;
  void* data_ = nullptr;
};

}  // namespace eltwise::bench
