// Permutations of packed dims onto the same bytes (in-place transposes), and a packed output from
// an input that rises in its own dim order, moved through the output's bytes first
// (Note [partial overlap on the CPU] in partial_overlap.cc).
#include <algorithm>
#include <array>
#include <memory>
#include <vector>

#include "cpu/layout_walkers.h"
#include "cpu/overlap/internal.h"
#include "cpu/overlap/partial_overlap.h"

namespace eltwise::cpu::overlap {
namespace {

// Both walks packed over the same bytes in different dim orders, onto themselves: the input's dim
// order becomes the output's in at most rank - 1 in-place transposes, each of two adjacent groups
// of dims ([before][G1][G2][after] -> [before][G2][G1][after]: a batch of |G1| x |G2| matrices of
// cells of |after| elements), f applied by the last one.
class PackedPermutation {
 public:
  // The steps for `plan` at these first elements; 0 when it is not such a permutation.
  static int Steps(const Plan& plan, const std::byte* input, const std::byte* output,
                   std::array<MatrixShape, kMaxRank>& steps) {
    const int rank = plan.rank;
    if (input != output || rank < 2) return 0;
    // Each walk's dims, outermost first, must step through them packed.
    std::array<int, kMaxRank> from{}, to{};
    for (int d = 0; d < rank; ++d) from[d] = to[d] = d;
    const auto packed = [&](std::array<int, kMaxRank>& order, const auto& strides) {
      std::sort(order.begin(), order.begin() + rank,
                [&](int a, int b) { return strides[a] > strides[b]; });
      int64_t step = 1;
      for (int k = rank - 1; k >= 0; --k) {
        if (strides[order[k]] != step) return false;
        step *= static_cast<int64_t>(plan.sizes[order[k]]);
      }
      return true;
    };
    if (!packed(from, plan.input_strides) || !packed(to, plan.output_strides)) return 0;
    int count = 0;
    for (int p = 0; p < rank; ++p) {
      int q = p;
      while (from[q] != to[p]) ++q;
      if (q == p) continue;
      MatrixShape& m = steps[count++];
      for (int k = 0; k < rank; ++k) {
        const uint64_t size = plan.sizes[from[k]];
        if (k < p) m.batch *= size;
        if (k >= p && k < q) m.rows *= size;
        if (k == q) m.columns = size;
        if (k > q) m.cell *= size;
      }
      std::rotate(from.begin() + p, from.begin() + q, from.begin() + q + 1);
    }
    return count;
  }
};

// Runs the transposes of PackedPermutation's steps over the packed bytes at `base`, f applied by
// the last; false (nothing done) when some step fits no thread's slot.
bool RunPackedSteps(const KernelTable& table, const Plan& plan,
                    const std::array<MatrixShape, kMaxRank>& steps, int count, std::byte* base,
                    int threads, Status& status) {
  if (!PackedStepsFit(table, plan, steps, count, base, threads)) return false;
  const std::unique_ptr<uint64_t[]> buffer =
      PackedStepsBuffer(table, plan, steps[0], base, threads, status);
  if (!buffer) return true;
  RunPackedStepsIn(table, plan, steps, count, base, threads, buffer.get());
  status = Status::Ok();
  return true;
}

}  // namespace

bool RunPackedPermutation(const KernelTable& table, const Plan& plan, const std::byte* input,
                          std::byte* output, int threads, Status& status) {
  std::array<MatrixShape, kMaxRank> steps;
  const int count = PackedPermutation::Steps(plan, input, output, steps);
  return count > 0 && RunPackedSteps(table, plan, steps, count, output, threads, status);
}

// A packed output in some dim order and an input whose walk rises in its own dim order (the
// Note's move through the output's bytes): the input is first copied, as bits, into the output's
// bytes packed in the input's dim order (both walks rise: kChunked, exact at any distance, and it
// writes only output bytes), then permuted there onto itself (PackedPermutation). False (nothing
// done) when the shapes do not qualify or some transpose fits no slot.
bool RunThroughOutputSpan(const KernelTable& table, const Plan& plan, const std::byte* input,
                          std::byte* output, int threads, Status& status) {
  const int rank = plan.rank;
  if (rank < 2 || plan.output_span != plan.element_count * plan.element_size) return false;
  std::array<int, kMaxRank> order{};  // the input's dims, largest stride first
  for (int d = 0; d < rank; ++d) {
    if (plan.input_strides[d] <= 0) return false;
    order[d] = d;
  }
  std::sort(order.begin(), order.begin() + rank,
            [&](int a, int b) { return plan.input_strides[a] > plan.input_strides[b]; });
  unsigned __int128 extent = 0;  // the input rises: each stride beyond the smaller ones' extent
  for (int k = rank - 1; k >= 0; --k) {
    const auto stride = static_cast<uint64_t>(plan.input_strides[order[k]]);
    if (stride <= extent) return false;
    extent += static_cast<unsigned __int128>(stride) * (plan.sizes[order[k]] - 1);
  }
  const std::vector<uint64_t> sizes(plan.sizes.begin(), plan.sizes.begin() + rank);
  std::vector<int64_t> staged(static_cast<size_t>(rank));  // packed in the input's order
  int64_t step = 1;
  for (int k = rank - 1; k >= 0; --k) {
    staged[static_cast<size_t>(order[k])] = step;
    step *= static_cast<int64_t>(plan.sizes[order[k]]);
  }
  const auto desc = [&](std::vector<int64_t> strides) {
    return SpannedDesc(plan.type, sizes, std::move(strides));
  };
  const TensorDesc in = desc({plan.input_strides.begin(), plan.input_strides.begin() + rank});
  const TensorDesc middle = desc(staged);
  const TensorDesc out = desc({plan.output_strides.begin(), plan.output_strides.begin() + rank});
  const Plan move = MakePlan(Function::kCopy, in, middle, 1, 1);
  const Plan permute = MakePlan(plan.function, middle, out, 1, 1);
  std::array<MatrixShape, kMaxRank> steps;
  const int count = PackedPermutation::Steps(permute, output, output, steps);
  if (count == 0 || AnalyzeOverlap(move).scheme != OverlapScheme::kChunked) return false;
  // Every step must fit, and the permutation's buffer be had, before anything is written.
  if (!PackedStepsFit(table, permute, steps, count, output, threads)) return false;
  const std::unique_ptr<uint64_t[]> buffer =
      PackedStepsBuffer(table, permute, steps[0], output, threads, status);
  if (!buffer) return true;
  // Strides are positive, so both first elements are the lowest bytes.
  switch (Classify(move, input, output)) {
    case Aliasing::kInPlace:
      break;
    case Aliasing::kDisjoint:
      RunPlan(table, move, input, output, threads);
      break;
    case Aliasing::kPartial:
      status = RunPartialOverlap(table, move, input, output, threads);
      if (!status.ok()) return true;
      break;
  }
  const uint64_t moved = last_overlap_temporary_bytes;
  RunPackedStepsIn(table, permute, steps, count, output, threads, buffer.get());
  status = Status::Ok();
  last_overlap_temporary_bytes = std::max(moved, last_overlap_temporary_bytes);
  return true;
}

}  // namespace eltwise::cpu::overlap
