// The CUDA backend's entry point. In a build without CUDA it reports kUnsupported.
#pragma once

#include <string>
#include <vector>

#include "core/backend.h"
#include "eltwise/status.h"

namespace eltwise {

// The backend for GPU `ordinal`, or why there is none; fills `description` with the GPU's name.
Expected<const Backend*> CudaBackend(int ordinal, std::string* description);

}  // namespace eltwise

namespace eltwise {

// Whether this build contains the CUDA backend, and the GPUs it sees (empty if none).
bool CudaBackendBuilt();
std::vector<std::string> CudaDeviceNames();

}  // namespace eltwise
