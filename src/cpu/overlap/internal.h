// What the partial-overlap schemes of this folder share: the limits they run under, the record of
// their temporary memory, and each scheme's entry for the dispatch in partial_overlap.cc, whose
// Note [partial overlap on the CPU] says why each is exact. Internal to src/cpu/overlap/.
#pragma once

#include <array>
#include <atomic>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "core/plan.h"
#include "cpu/kernel_table.h"
#include "cpu/overlap/scheme.h"
#include "eltwise/status.h"
#include "eltwise/tensor.h"

namespace eltwise::cpu::overlap {

// One mirror tile (swapped tiles, shifted reversals); a task holds two.
constexpr size_t kSwapTileBytes = size_t{16} << 10;
// Walks that no chunk order makes exact: an input span of at most kSmallInputCopyBytes is copied
// whole; an in-place transpose moves blocks through at most kTransposeBufferBytes over all
// threads (both changed by tests through SetPartialOverlapLimits).
constexpr uint64_t kSmallInputCopyBytes = uint64_t{1} << 20;
constexpr uint64_t kTransposeBufferBytes = uint64_t{1} << 20;
extern std::atomic<uint64_t> small_input_copy_bytes;
extern std::atomic<uint64_t> transpose_buffer_bytes;

// Temporary memory of the calling thread's last partially overlapping Run (see cpu_backend.h).
extern constinit thread_local uint64_t last_overlap_temporary_bytes;

inline Status TemporaryFailed(uint64_t bytes) {
  return Status(StatusCode::kOutOfMemory, "input and output overlap partially and a " +
                                              std::to_string(bytes) +
                                              "-byte temporary failed to allocate");
}

struct Range {
  uint64_t first, last;
};

// A batch of packed R x C matrices of cells of k elements (k = 1: of elements), one after another,
// transposed onto themselves: the input's cell (i, j) at (i * C + j) * k, its output at
// (j * R + i) * k (the Note's block moves; in_place_transpose.cc).
struct MatrixShape {
  uint64_t batch = 1, rows = 1, columns = 1, cell = 1;
};

// A tensor of `type` with these sizes and strides, its total size exactly the span its elements
// address: the descriptors of the sub-plans the schemes make.
inline TensorDesc SpannedDesc(DataType type, std::vector<uint64_t> sizes,
                              std::vector<int64_t> strides) {
  TensorDesc t = TensorDesc::Strided(type, std::move(sizes), std::move(strides));
  t.total_tensor_size_in_bytes = *SpanInBytes(t.type, t.sizes, t.strides);
  return t;
}

// Each scheme. `input` and `output` point at the first elements (offsets added). The Run... that
// return bool do nothing and return false when the plan is not theirs; otherwise they return true
// with `status` set (an allocation failure leaves the output as it was).

// chunked.cc: a kChunked plan, at any distance.
Status RunChunked(const KernelTable& table, const Plan& plan, const OverlapAnalysis& overlap,
                  const std::byte* input, std::byte* output, int threads);
// swapped_tiles.cc: a kSwapTiles plan at its swap_distance.
Status RunSwappedTiles(const KernelTable& table, const Plan& plan, const OverlapAnalysis& overlap,
                       const std::byte* input, std::byte* output, int threads);
// broadcast_slice.cc: a zero input stride in some dims, not all.
bool RunThroughBroadcastSlice(const KernelTable& table, const Plan& plan, const std::byte* input,
                              std::byte* output, int threads, Status& status);
// shifted_reversal.cc: a packed vector reversed onto itself at another distance.
bool ShiftedReversalApplies(const Plan& plan, const std::byte* input, const std::byte* output);
Status RunShiftedReversal(const KernelTable& table, const Plan& plan, const std::byte* input,
                          std::byte* output, int threads);
// packed_permutation.cc: both walks packed over the same bytes in different dim orders; and a
// packed output from an input that rises in its own dim order (moved through the output's bytes).
bool RunPackedPermutation(const KernelTable& table, const Plan& plan, const std::byte* input,
                          std::byte* output, int threads, Status& status);
bool RunThroughOutputSpan(const KernelTable& table, const Plan& plan, const std::byte* input,
                          std::byte* output, int threads, Status& status);
// element_chains.cc: both walks invertible, a whole number of elements apart.
bool ElementChainsApply(const Plan& plan, const OverlapAnalysis& overlap, const std::byte* input,
                        const std::byte* output);
Status RunElementChains(const KernelTable& table, const Plan& plan, const std::byte* input,
                        std::byte* output, int threads);

// in_place_transpose.cc: the in-place transposes of a permutation's steps (f applied by the
// last) over the packed bytes at `base`. Whether every step fits a thread's buffer; the buffer the
// steps share, taken before anything is written (null, with `status` set, when it cannot be had);
// the steps run in it.
bool PackedStepsFit(const KernelTable& table, const Plan& plan,
                    const std::array<MatrixShape, kMaxRank>& steps, int count, std::byte* base,
                    int threads);
std::unique_ptr<uint64_t[]> PackedStepsBuffer(const KernelTable& table, const Plan& plan,
                                              const MatrixShape& first, std::byte* base,
                                              int threads, Status& status);
void RunPackedStepsIn(const KernelTable& table, const Plan& plan,
                      const std::array<MatrixShape, kMaxRank>& steps, int count, std::byte* base,
                      int threads, uint64_t* buffer);

}  // namespace eltwise::cpu::overlap
