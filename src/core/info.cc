#include "eltwise/info.h"

#include <thread>

#include "cpu/kernels.h"
#include "cuda/cuda_backend.h"
#include "eltwise/device.h"

namespace eltwise {

SystemInfo GetSystemInfo() {
  SystemInfo info;
  info.version = std::string(Version());
  const std::vector<NamedKernelTable> tables = AvailableKernelTables();
  for (auto it = tables.rbegin(); it != tables.rend(); ++it) {
    info.cpu_targets.emplace_back(it->name);
    // Highway's SCALAR and EMU128 targets are portable C++ without vector instructions.
    if (it->name != "reference" && it->name != "SCALAR" && it->name != "EMU128")
      info.simd_targets.emplace_back(it->name);
  }
  info.hardware_threads = static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
  info.cuda_backend_built = CudaBackendBuilt();
  info.cuda_devices = CudaDeviceNames();
  return info;
}

}  // namespace eltwise
