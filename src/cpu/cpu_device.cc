// The CPU backend's registry entry: Device::Cpu's backend options and the CPU part of
// GetSystemInfo.
#include <algorithm>
#include <string>
#include <thread>

#include "cpu/cpu_backend.h"
#include "cpu/cpu_caches.h"
#include "cpu/kernel_dispatch.h"

namespace eltwise {
namespace {

int HardwareThreads() {
  return static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
}

Expected<std::shared_ptr<const Backend>> OpenCpu(const DeviceOptions& device_options) {
  const CpuOptions& options = std::get<CpuOptions>(device_options);
  if (options.threads < 0) {
    return InvalidArgument("threads is " + std::to_string(options.threads) +
                           "; it must be 0 (all hardware threads) or positive");
  }
  return MakeCpuBackend(options.threads != 0 ? options.threads : HardwareThreads());
}

void DescribeCpu(SystemInfo& info) {
  const std::vector<NamedKernelTable> tables = AvailableKernelTables();
  for (auto it = tables.rbegin(); it != tables.rend(); ++it) {
    if (it->variant) continue;  // a route of a target listed already
    info.cpu_targets.emplace_back(it->name);
    // Highway's SCALAR and EMU128 targets are portable C++ without vector instructions.
    if (it->name != "reference" && it->name != "SCALAR" && it->name != "EMU128")
      info.simd_targets.emplace_back(it->name);
  }
  info.hardware_threads = HardwareThreads();
  const cpu::CpuCaches& caches = cpu::MachineCaches();
  info.cpu_model = caches.model;
  info.l1d_cache_bytes = caches.l1d_bytes;
  info.l2_cache_bytes = caches.l2_bytes;
  info.l3_cache_bytes = caches.l3_bytes;
}

}  // namespace

BackendEntry CpuBackendEntry() { return {DeviceKind::kCpu, &OpenCpu, &DescribeCpu}; }

}  // namespace eltwise
