// The CUDA backend's entry point. In a build without CUDA its entry reports kUnsupported.
#pragma once

#include <string>
#include <vector>

#include "core/backend_registry.h"

namespace eltwise {

// The CUDA backend's entry in the backend registry: Device::Cuda's options (ordinal, stream) and
// the GPU part of GetSystemInfo.
BackendEntry CudaBackendEntry();

// Whether this build contains the CUDA backend, and the GPUs it sees (empty if none).
bool CudaBackendBuilt();
std::vector<std::string> CudaDeviceNames();

}  // namespace eltwise
