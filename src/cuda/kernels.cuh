// The __global__ kernels (thin wrappers over kernel_bodies.h) and their launchers, instantiated by
// the kernels_*.cu translation units.
#pragma once

#include <type_traits>
#include <utility>

#include "core/function.h"
#include "cuda/kernel_bodies.h"
#include "cuda/kernel_types.h"
#include "cuda/launch_table.h"

namespace eltwise::cuda {

template <class F, class T, bool kAlignedInput>
__global__ void __launch_bounds__(kBlockThreads)
    ContiguousKernel(ContiguousParams p, uint64_t blocks, const std::byte* in, std::byte* out) {
  for (uint64_t b = blockIdx.x; b < blocks; b += gridDim.x) {
    ContiguousThread<F, T, kAlignedInput>(p, b, threadIdx.x, in, out);
  }
}

template <class F, class T, class Index, bool kAligned>
__global__ void __launch_bounds__(kBlockThreads)
    StridedKernel(StridedParams<Index> p, uint64_t blocks, const std::byte* in, std::byte* out) {
  for (uint64_t b = blockIdx.x; b < blocks; b += gridDim.x) {
    StridedThread<F, T, Index, kAligned>(p, static_cast<Index>(b), threadIdx.x, in, out);
  }
}

template <class F, class T>
__global__ void __launch_bounds__(kTile* kTileRows)
    TiledKernel(TiledParams p, uint64_t blocks, const std::byte* in, std::byte* out) {
  __shared__ T tile[kTile][kTile + 1];
  for (uint64_t b = blockIdx.x; b < blocks; b += gridDim.x) {
    const TileOrigin origin = TiledOrigin(p, b);
    TiledLoad<F, T>(p, origin, threadIdx.x, threadIdx.y, in, tile);
    __syncthreads();
    TiledStore<T>(p, origin, threadIdx.x, threadIdx.y, tile, out);
    __syncthreads();  // the next tile reuses the shared memory
  }
}

// cudaLaunchKernel returns this launch's error (a <<<>>> launch would need cudaGetLastError,
// which also reports errors left over from unrelated calls).
template <class... Params>
cudaError_t LaunchKernel(void (*kernel)(Params...), dim3 grid, dim3 block, cudaStream_t stream,
                         std::type_identity_t<Params>... args) {
  void* pointers[] = {&args...};
  return cudaLaunchKernel(reinterpret_cast<const void*>(kernel), grid, block, pointers, 0, stream);
}

template <class F, class T>
cudaError_t LaunchKernels(const Launch& l, const std::byte* in, std::byte* out,
                          cudaStream_t stream) {
  const dim3 grid(l.grid);
  const dim3 block(kBlockThreads);
  switch (l.kind) {
    case KernelKind::kContiguous:
      return LaunchKernel(ContiguousKernel<F, T, true>, grid, block, stream, l.contiguous, l.blocks,
                          in, out);
    case KernelKind::kContiguousUnalignedInput:
      return LaunchKernel(ContiguousKernel<F, T, false>, grid, block, stream, l.contiguous,
                          l.blocks, in, out);
    case KernelKind::kStrided32:
      return LaunchKernel(StridedKernel<F, T, uint32_t, true>, grid, block, stream, l.strided32,
                          l.blocks, in, out);
    case KernelKind::kStrided64:
      return LaunchKernel(StridedKernel<F, T, uint64_t, true>, grid, block, stream, l.strided64,
                          l.blocks, in, out);
    case KernelKind::kStridedUnaligned:
      return LaunchKernel(StridedKernel<F, T, uint64_t, false>, grid, block, stream, l.strided64,
                          l.blocks, in, out);
    case KernelKind::kTiled:
      return LaunchKernel(TiledKernel<F, T>, grid, dim3(kTile, kTileRows), stream, l.tiled,
                          l.blocks, in, out);
  }
  return cudaErrorInvalidValue;
}

template <Unit kUnit, size_t kIndex>
void FillEntry(LaunchTable& table) {
  constexpr size_t f = kIndex / kDataTypeCount;
  constexpr size_t t = kIndex % kDataTypeCount;
  using F = typename FunctorOf<static_cast<Function>(f)>::type;
  using T = typename StorageOf<static_cast<DataType>(t)>::type;
  using C = Canonical<F, T>;
  if constexpr (UnitOf<F, T>() == kUnit) {
    table.entries[f][t] = &LaunchKernels<typename C::Functor, typename C::Type>;
  }
}

template <Unit kUnit>
void FillKernels(LaunchTable& table) {
  [&]<size_t... kIndex>(std::index_sequence<kIndex...>) { (FillEntry<kUnit, kIndex>(table), ...); }
  (std::make_index_sequence<size_t{kFunctionCount} * kDataTypeCount>{});
}

}  // namespace eltwise::cuda
