// The CPU backend: runs plans with the best kernel table for this CPU.
#pragma once

#include <cstdint>
#include <memory>

#include "core/backend.h"
#include "core/backend_registry.h"
#include "cpu/kernel_dispatch.h"

namespace eltwise {

// The CPU backend's entry in the backend registry (cpu_device.cc): Device::Cpu's options
// (threads) and the CPU part of GetSystemInfo.
BackendEntry CpuBackendEntry();

// A CPU device running plans on up to `threads` (>= 1) threads.
std::shared_ptr<const Backend> MakeCpuBackend(int threads);

// Runs `plan` with `table` on the calling thread. Exposed for tests that pin a table.
void RunPlanWithTable(const KernelTable& table, const Plan& plan, const std::byte* input,
                      std::byte* output);
// The same on up to `threads` threads (the calling thread and the shared pool). The buffers must
// not overlap partially (that is Backend::Run's job).
void RunPlanWithTable(const KernelTable& table, const Plan& plan, const std::byte* input,
                      std::byte* output, int threads);

// The bytes of temporary memory that the calling thread's last Execute on a CPU device whose input
// and output overlap partially staged through (the whole input span, or the bounded chunks or
// tiles; src/cpu/overlap/). For tests of the bound; calls without partial overlap leave it as it
// was.
uint64_t LastOverlapStagingBytes();

// For tests: the limits of the partial-overlap schemes for walks that no chunk order makes exact
// (src/cpu/overlap/): an input span of at most `copy_bytes` is copied whole, and an in-place
// transpose moves blocks through at most `transpose_bytes`. Defaults 1 MiB each; small limits
// make small tensors take the paths large ones take. Not for concurrent use with such calls.
void SetPartialOverlapLimits(uint64_t copy_bytes, uint64_t transpose_bytes);

}  // namespace eltwise
