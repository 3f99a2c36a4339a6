#include "bench/buffers.h"

#include <algorithm>
#include <new>

#include "bench/failure.h"

namespace eltwise::bench {

constexpr std::align_val_t kAlignment{64};

AlignedBuffer::AlignedBuffer(size_t bytes)
    : data_(static_cast<std::byte*>(::operator new(std::max<size_t>(bytes, 64), kAlignment))),
      size_(bytes) {}

AlignedBuffer::~AlignedBuffer() { ::operator delete(data_, kAlignment); }

std::byte* OutputBeside(const AlignedBuffer& out, const std::byte* in) {
  const uintptr_t start = reinterpret_cast<uintptr_t>(out.data());
  return out.data() + ((reinterpret_cast<uintptr_t>(in) + 2048 - start) & (kOutputSlack - 1));
}

DeviceBuffer::DeviceBuffer(const Device& device, uint64_t bytes) : device_(device) {
  Expected<void*> memory = Allocate(device_, std::max<uint64_t>(bytes, 16));
  if (!memory.ok()) throw Failure(memory.status(), "bench buffer");
  data_ = *memory;
}

DeviceBuffer::~DeviceBuffer() { Free(device_, data_); }

}  // namespace eltwise::bench
