// The reference kernel table: complete (every function and type), the CPU backend's fallback and
// the baseline every other table is tested against.
#pragma once

#include "cpu/kernel_table.h"

namespace eltwise {

// The scalar reference loops over the functors of src/ref/functors.h.
const KernelTable& ReferenceKernels();

}  // namespace eltwise
