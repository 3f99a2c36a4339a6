// This target's gathered kernels for input stride 2 (simd_gathered-inl.h).
#ifndef HWY_COMPILE_ALL_ATTAINABLE  // every attainable target, the same set in each unit
#define HWY_COMPILE_ALL_ATTAINABLE
#endif
#undef HWY_TARGET_INCLUDE
#define HWY_TARGET_INCLUDE "cpu/simd/simd_gathered2.cc"
#include <hwy/foreach_target.h>  // IWYU pragma: keep
// Must come after foreach_target.h.
#include <hwy/highway.h>

#include "cpu/simd/simd_gathered-inl.h"

HWY_BEFORE_NAMESPACE();
namespace eltwise::HWY_NAMESPACE {
template void FillGatheredKernels<2, false>(KernelTable& table);
template void FillGatheredKernels<2, true>(KernelTable& table);
}  // namespace eltwise::HWY_NAMESPACE
HWY_AFTER_NAMESPACE();
