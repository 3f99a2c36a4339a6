// The CPU backend: runs plans with the best kernel table for this CPU.
#pragma once

#include "core/backend.h"
#include "cpu/kernels.h"

namespace eltwise {

const Backend& CpuBackend();

// Runs `plan` with `table` on the calling thread. Exposed for tests that pin a table.
void RunPlanWithTable(const KernelTable& table, const Plan& plan, const std::byte* input,
                      std::byte* output);
// The same on up to `threads` threads (the calling thread and the shared pool). The buffers must
// not overlap partially (that is Backend::Run's job).
void RunPlanWithTable(const KernelTable& table, const Plan& plan, const std::byte* input,
                      std::byte* output, int threads);

}  // namespace eltwise
