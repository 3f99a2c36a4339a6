// Kernel selection for the CUDA backend (see launch.h).
#include "cuda/launch.h"

#include <algorithm>
#include <limits>

namespace eltwise::cuda {
namespace {

constexpr __int128 kMax31 = std::numeric_limits<int32_t>::max();
constexpr __int128 kMax63 = std::numeric_limits<int64_t>::max();

uint64_t CeilDiv(uint64_t a, uint64_t b) { return a / b + (a % b != 0); }

void SetGrid(Launch& launch, uint64_t blocks) {
  launch.blocks = std::max<uint64_t>(blocks, 1);
  launch.grid = static_cast<unsigned>(std::min(launch.blocks, kMaxGridBlocks));
}

// Range of element offsets a tensor's elements take relative to its first element.
struct OffsetRange {
  __int128 low = 0;
  __int128 high = 0;
};

OffsetRange Range(const Plan& plan, const std::array<int64_t, kMaxRank>& strides) {
  OffsetRange r;
  for (int d = 0; d < plan.rank; ++d) {
    const __int128 extent = static_cast<__int128>(plan.sizes[d] - 1) * strides[d];
    (extent < 0 ? r.low : r.high) += extent;
  }
  return r;
}

template <class Index>
StridedParams<Index> MakeStrided(const Plan& plan) {
  StridedParams<Index> p;
  p.rank = plan.rank;
  p.count = static_cast<Index>(plan.element_count);
  for (int k = 0; k < plan.rank; ++k) {
    const int d = plan.rank - 1 - k;  // innermost first
    p.sizes[k] = FastDivmod<Index>(static_cast<Index>(plan.sizes[d]));
    p.input_strides[k] = static_cast<typename StridedParams<Index>::Signed>(plan.input_strides[d]);
    p.output_strides[k] = static_cast<Index>(plan.output_strides[d]);
  }
  return p;
}

// A kTransposed plan: dim rank-2 (`a`) is the input's fastest, rank-1 (`o`) the output's.
TiledParams MakeTiled(const Plan& plan) {
  const int a = plan.rank - 2;
  const int o = plan.rank - 1;
  TiledParams p;
  p.size_a = plan.sizes[a];
  p.size_o = plan.sizes[o];
  p.input_stride_a = plan.input_strides[a];
  p.input_stride_o = plan.input_strides[o];
  p.output_stride_a = plan.output_strides[a];
  p.output_stride_o = plan.output_strides[o];
  p.tiles_o = FastDivmod<uint64_t>(CeilDiv(p.size_o, kTile));
  p.tiles_a = FastDivmod<uint64_t>(CeilDiv(p.size_a, kTile));
  for (int d = plan.rank - 1; d >= 0; --d) {  // innermost first
    if (d == a || d == o) continue;
    p.outer_sizes[p.outer_rank] = FastDivmod<uint64_t>(plan.sizes[d]);
    p.outer_input_strides[p.outer_rank] = plan.input_strides[d];
    p.outer_output_strides[p.outer_rank] = plan.output_strides[d];
    ++p.outer_rank;
  }
  return p;
}

}  // namespace

Expected<Launch> PlanLaunch(const Plan& plan, uintptr_t input, uintptr_t output,
                            LaunchOptions options) {
  Launch launch;
  const uint64_t esize = plan.element_size;
  const uint64_t n = plan.element_count;
  const bool element_aligned = input % esize == 0 && output % esize == 0;

  if (plan.layout == Layout::kContiguous && element_aligned) {
    ContiguousParams& c = launch.contiguous;
    c.head = std::min<uint64_t>((kVectorBytes - output % kVectorBytes) % kVectorBytes / esize, n);
    const uint64_t per_vector = kVectorBytes / esize;
    c.vectors = (n - c.head) / per_vector;
    c.tail = n - c.head - c.vectors * per_vector;
    launch.kind = input % kVectorBytes == output % kVectorBytes
                      ? KernelKind::kContiguous
                      : KernelKind::kContiguousUnalignedInput;
    SetGrid(launch, CeilDiv(c.vectors, uint64_t{kBlockThreads} * kVectorsPerThread));
    return launch;
  }

  // Every other kernel works on offsets relative to the first elements.
  const OffsetRange in = Range(plan, plan.input_strides);
  const OffsetRange out = Range(plan, plan.output_strides);
  if (static_cast<__int128>(n) > kMax63 || in.low < -kMax63 || in.high > kMax63 ||
      out.low < -kMax63 || out.high > kMax63) {
    return Unsupported("the CUDA backend indexes with 63-bit offsets; this tensor has " +
                       std::to_string(n) + " elements and spans more");
  }
  const uint64_t strided_blocks = CeilDiv(n, uint64_t{kBlockThreads} * kElementsPerThread);
  if (!element_aligned) {
    launch.kind = KernelKind::kStridedUnaligned;
    launch.strided64 = MakeStrided<uint64_t>(plan);
    SetGrid(launch, strided_blocks);
    return launch;
  }
  if (plan.layout == Layout::kTransposed && options.allow_tiled) {
    launch.kind = KernelKind::kTiled;
    launch.tiled = MakeTiled(plan);
    const uint64_t tiles = launch.tiled.tiles_o.divisor * launch.tiled.tiles_a.divisor;
    SetGrid(launch, tiles * (n / (plan.sizes[plan.rank - 2] * plan.sizes[plan.rank - 1])));
    return launch;
  }
  const bool fits32 = options.allow_32bit_indexing && static_cast<__int128>(n) <= kMax31 &&
                      in.low >= -kMax31 && in.high <= kMax31 && out.high <= kMax31;
  if (fits32) {
    launch.kind = KernelKind::kStrided32;
    launch.strided32 = MakeStrided<uint32_t>(plan);
  } else {
    launch.kind = KernelKind::kStrided64;
    launch.strided64 = MakeStrided<uint64_t>(plan);
  }
  SetGrid(launch, strided_blocks);
  return launch;
}

}  // namespace eltwise::cuda
