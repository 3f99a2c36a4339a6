#include "bench/buffers.h"

#include <algorithm>

#include "bench/failure.h"

namespace eltwise::bench {

DeviceBuffer::DeviceBuffer(const Device& device, uint64_t bytes) : device_(device) {
  Expected<void*> memory = Allocate(device_, std::max<uint64_t>(bytes, 16));
  if (!memory.ok()) throw Failure(memory.status(), "bench buffer");
  data_ = *memory;
}

DeviceBuffer::~DeviceBuffer() { Free(device_, data_); }

}  // namespace eltwise::bench
