// The seam between the front of the library (validation, planning, binding checks) and the
// backends that run plans. Backends trust their inputs: everything has been validated.
#pragma once

#include <cstddef>

#include "core/plan.h"
#include "eltwise/status.h"

namespace eltwise {
namespace internal {
struct DeviceState;
}

class Backend {
 public:
  virtual ~Backend() = default;
  // Runs `plan` on bound buffers that have passed every check. Must honour `aliasing`: for
  // kPartial the result must be as if the whole input were read first.
  virtual Status Run(const internal::DeviceState& device, const Plan& plan, const std::byte* input,
                     std::byte* output, Aliasing aliasing) const = 0;

  // Device memory (see eltwise::Allocate and friends in device.h).
  virtual Expected<void*> Allocate(const internal::DeviceState& device, uint64_t bytes) const = 0;
  virtual void Free(const internal::DeviceState& device, void* pointer) const = 0;
  enum class CopyKind { kHostToDevice, kDeviceToHost, kDeviceToDevice };
  virtual Status Copy(const internal::DeviceState& device, void* dst, const void* src,
                      uint64_t bytes, CopyKind kind) const = 0;
  virtual Status Synchronize(const internal::DeviceState& device) const = 0;
};

}  // namespace eltwise
