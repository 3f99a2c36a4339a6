// Benchmark buffers: aligned host memory, where an output goes beside its input, and device memory
// through the public API.
#pragma once

#include <cstddef>
#include <cstdint>

#include "eltwise/device.h"

namespace eltwise::bench {

// 64-byte aligned host memory of `bytes` (at least 64 are allocated), uninitialised.
class AlignedBuffer {
 public:
  explicit AlignedBuffer(size_t bytes);
  ~AlignedBuffer();
  AlignedBuffer(const AlignedBuffer&) = delete;
  AlignedBuffer& operator=(const AlignedBuffer&) = delete;

  std::byte* data() const { return data_; }
  size_t size() const { return size_; }

 private:
  std::byte* data_;
  size_t size_;
};

// Extra bytes an output buffer needs for OutputBeside.
inline constexpr size_t kOutputSlack = 4096;

// Where an output of out.size() - kOutputSlack bytes starts in `out`: half a page past the page
// offset of `in`. Buffers whose addresses are equal modulo 4 KiB make every load wait on an earlier
// store to the same page offset ("4K aliasing"), which would time the allocator, not the code.
std::byte* OutputBeside(const AlignedBuffer& out, const std::byte* in);

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
