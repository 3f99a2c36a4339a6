// The composition root of the backends: the only file that names them. Adding a backend: its
// folder under src/ with a BackendEntry (see core/backend_registry.h), its CMake file included by
// the top-level CMakeLists.txt, a DeviceKind and Device factory in include/eltwise/device.h, and
// one line here.
#include "core/backend_registry.h"
#include "cpu/cpu_backend.h"
#include "cuda/cuda_backend.h"

namespace eltwise {

std::span<const BackendEntry> RegisteredBackends() {
  static const BackendEntry kBackends[] = {CpuBackendEntry(), CudaBackendEntry()};
  return kBackends;
}

}  // namespace eltwise
