// Partial overlap on the CPU: runs a plan whose input and output share bytes other than element for
// element, with the result as if the whole input were read before any output is written, in
// memory bounded by a constant except in the rare cases the Note names (partial_overlap.cc, Note
// [partial overlap on the CPU]). The one entry of src/cpu/overlap/: scheme.h says which scheme a
// plan takes, internal.h what the schemes share, one file each.
#pragma once

#include <cstddef>

#include "core/plan.h"
#include "cpu/kernel_table.h"
#include "eltwise/status.h"

namespace eltwise::cpu {

// Runs `plan` (not kBroadcast: a broadcast input needs nothing of this) by its OverlapScheme on up
// to `threads` threads. `input` and `output` point at the bound buffers (the plan's offsets not
// yet added). Fails only when the temporary memory cannot be allocated; records its size for
// LastOverlapStagingBytes (cpu_backend.h).
Status RunPartialOverlap(const KernelTable& table, const Plan& plan, const std::byte* input,
                         std::byte* output, int threads);

}  // namespace eltwise::cpu
