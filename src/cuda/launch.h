// How a plan runs on a CUDA GPU: which kernel, its parameters and its grid. Plain C++ (no CUDA
// headers) so host tests can check the selection and, with kernel_bodies.h, the exact indexing the
// kernels perform.
//
// Kernels (all process element by element with the scalar functors of src/ref/functors.h):
//  * kContiguous / kContiguousUnalignedInput: n packed elements. A head of up to 15 bytes brings
//    the output to a 16-byte boundary, then 16-byte vectors (kVectorsPerThread per thread), then
//    a tail. The input is read with 16-byte loads when it has the same phase modulo 16 as the
//    output, element by element otherwise. Indices are 64-bit (the cost is per vector, not per
//    element).
//  * kStrided32 / kStrided64: any plan; each thread maps kElementsPerThread linear indices to
//    coordinates with FastDivmod (innermost dimension first). 32-bit arithmetic when every index
//    and offset fits in 31 bits, 64-bit otherwise. Broadcast inputs (all input strides 0) use it.
//  * kTiled: a Layout::kTransposed plan (the planner's rule, src/core/plan.cc): 32x32 tiles of
//    dims (rank-2, rank-1) go through shared memory so both the reads and the writes are
//    coalesced.
//  * kStridedUnaligned: an element not aligned to its size (the extended level allows any
//    address): kStrided64 with byte-wise loads and stores.
#pragma once

#include <cstdint>

#include "core/plan.h"
#include "cuda/fast_divmod.h"
#include "eltwise/status.h"

namespace eltwise::cuda {

inline constexpr unsigned kBlockThreads = 256;
inline constexpr unsigned kVectorBytes = 16;
inline constexpr unsigned kVectorsPerThread = 4;
inline constexpr unsigned kElementsPerThread = 4;
inline constexpr unsigned kTile = 32;     // tile edge (elements); a block is kTile x kTileRows
inline constexpr unsigned kTileRows = 8;  // threads; each thread moves kTile / kTileRows elements
inline constexpr uint64_t kMaxGridBlocks = 0x7FFFFFFF;  // gridDim.x limit; kernels grid-stride

enum class KernelKind : uint8_t {
  kContiguous,
  kContiguousUnalignedInput,
  kStrided32,
  kStrided64,
  kStridedUnaligned,
  kTiled,
};

struct ContiguousParams {
  uint64_t head = 0;     // elements before the first 16-byte aligned output address
  uint64_t vectors = 0;  // 16-byte vectors after the head
  uint64_t tail = 0;     // elements after the vectors
};

// Dimensions are stored innermost first (dims[0] varies fastest). Offsets are in elements from the
// first element of each tensor; input strides may be negative or zero, output strides positive.
template <class Index>
struct StridedParams {
  using Signed = std::make_signed_t<Index>;
  int rank = 0;
  Index count = 0;
  FastDivmod<Index> sizes[kMaxRank];
  Signed input_strides[kMaxRank] = {};
  Index output_strides[kMaxRank] = {};
};

// A transpose: dimension `a` is the input's fastest, dimension `o` the output's. Each block takes
// a kTile x kTile tile of (a, o) at one index of the remaining ("outer") dimensions.
struct TiledParams {
  uint64_t size_a = 0, size_o = 0;
  int64_t input_stride_a = 0, input_stride_o = 0;
  int64_t output_stride_a = 0, output_stride_o = 0;
  FastDivmod<uint64_t> tiles_o, tiles_a;  // tiles along o and a
  int outer_rank = 0;                     // innermost first
  FastDivmod<uint64_t> outer_sizes[kMaxRank];
  int64_t outer_input_strides[kMaxRank] = {};
  int64_t outer_output_strides[kMaxRank] = {};
};

struct Launch {
  KernelKind kind = KernelKind::kContiguous;
  uint64_t blocks = 0;  // logical blocks; the grid is min(blocks, kMaxGridBlocks)
  unsigned grid = 0;
  ContiguousParams contiguous;
  StridedParams<uint32_t> strided32;
  StridedParams<uint64_t> strided64;  // also kStridedUnaligned
  TiledParams tiled;
};

// Restrictions on the choice, so tests can run every layout through every applicable kernel.
struct LaunchOptions {
  bool allow_32bit_indexing = true;
  bool allow_tiled = true;
};

// Chooses the kernel for `plan` (layout not kEmpty) when its first input element lies at address
// `input` and its first output element at `output` (bound buffers plus plan offsets).
// kUnsupported only for more than 2^63 elements or offsets beyond 2^63.
Expected<Launch> PlanLaunch(const Plan& plan, uintptr_t input, uintptr_t output,
                            LaunchOptions options = {});

}  // namespace eltwise::cuda
