// The CUDA launch table: one launcher per (function, data type), generated from
// ELTWISE_FOR_EACH_FUNCTION x ELTWISE_FOR_EACH_DATA_TYPE in the kernels_*.cu translation units
// (split so they compile in parallel).
#pragma once

#include <cuda_runtime_api.h>

#include <cstddef>

#include "core/function.h"
#include "cuda/launch.h"

namespace eltwise::cuda {

// Enqueues `launch` on `stream`; `in` and `out` point at the first elements. Returns the launch
// error, if any (never waits for the kernel).
using LaunchFunction = cudaError_t (*)(const Launch& launch, const std::byte* in, std::byte* out,
                                       cudaStream_t stream);

struct LaunchTable {
  LaunchFunction entries[kFunctionCount][kDataTypeCount] = {};

  LaunchFunction Get(Function f, DataType t) const {
    return entries[static_cast<size_t>(f)][static_cast<size_t>(t)];
  }
};

// Each translation unit fills the entries whose kernels it compiles.
void FillFloatKernels(LaunchTable& table);    // float32, float64: Sign, Round
void FillHalfKernels(LaunchTable& table);     // float16, bfloat16: Sign, Round
void FillIntegerKernels(LaunchTable& table);  // integer Sign; copies (kCopy, integer Round)

// cudaSuccess when this build holds a kernel image the current GPU can run.
cudaError_t CheckKernelImage();

}  // namespace eltwise::cuda
