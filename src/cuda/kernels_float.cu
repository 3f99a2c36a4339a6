// float32 and float64 Sign and Round kernels.
#include "cuda/kernels.cuh"

namespace eltwise::cuda {

void FillFloatKernels(LaunchTable& table) { FillKernels<Unit::kFloat>(table); }

}  // namespace eltwise::cuda
