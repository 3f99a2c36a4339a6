// Integer Sign kernels and the copy kernels (kCopy of every type, Round on integers).
#include "cuda/kernels.cuh"

namespace eltwise::cuda {

void FillIntegerKernels(LaunchTable& table) { FillKernels<Unit::kInteger>(table); }

cudaError_t CheckKernelImage() {
  cudaFuncAttributes attributes;
  return cudaFuncGetAttributes(&attributes, ContiguousKernel<CopyFunctor, uint8_t, true>);
}

}  // namespace eltwise::cuda
