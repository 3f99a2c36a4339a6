// Builds without Highway: the reference table is the only (and best) table.
#include "cpu/kernel_dispatch.h"
#include "cpu/reference_kernels.h"

namespace eltwise {

const KernelTable& BestKernelTable() { return ReferenceKernels(); }

std::vector<NamedKernelTable> AvailableKernelTables() {
  return {{"reference", &ReferenceKernels()}};
}

}  // namespace eltwise
