// float16 and bfloat16 Sign and Round kernels (computed exactly in the 16-bit integer domain).
#include "cuda/kernels.cuh"

namespace eltwise::cuda {

void FillHalfKernels(LaunchTable& table) { FillKernels<Unit::kHalf>(table); }

}  // namespace eltwise::cuda
