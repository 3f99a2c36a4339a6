// Linked when the library is built without the CUDA backend.
#include "cuda/cuda_backend.h"

namespace eltwise {

Expected<const Backend*> CudaBackend(int /*ordinal*/, std::string* /*description*/) {
  return Unsupported("this eltwise build has no CUDA backend (nvcc was not found at build time)");
}

}  // namespace eltwise

namespace eltwise {

bool CudaBackendBuilt() { return false; }
std::vector<std::string> CudaDeviceNames() { return {}; }

}  // namespace eltwise
