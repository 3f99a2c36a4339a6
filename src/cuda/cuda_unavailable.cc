// Linked when the library is built without the CUDA backend.
#include "cuda/cuda_backend.h"

namespace eltwise {
namespace {

Expected<std::shared_ptr<const Backend>> OpenCuda(const DeviceOptions& /*options*/) {
  return Unsupported("this eltwise build has no CUDA backend (nvcc was not found at build time)");
}

void DescribeCuda(SystemInfo& info) {
  info.cuda_backend_built = false;
  info.cuda_devices = {};
}

}  // namespace

BackendEntry CudaBackendEntry() { return {DeviceKind::kCuda, &OpenCuda, &DescribeCuda}; }

bool CudaBackendBuilt() { return false; }
std::vector<std::string> CudaDeviceNames() { return {}; }

}  // namespace eltwise
