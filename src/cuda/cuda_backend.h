// The CUDA backend's entry point. In a build without CUDA it reports kUnsupported.
#pragma once

#include <string>

#include "core/backend.h"
#include "eltwise/status.h"

namespace eltwise {

// The backend for GPU `ordinal`, or why there is none; fills `description` with the GPU's name.
Expected<const Backend*> CudaBackend(int ordinal, std::string* description);

}  // namespace eltwise
