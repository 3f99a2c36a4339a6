// A zero input stride in some dims, not all: the slice with those dims at 0 runs first, then is
// copied as bits onto the rest of the output (Note [partial overlap on the CPU] in
// partial_overlap.cc).
#include <utility>
#include <vector>

#include "cpu/layout_walkers.h"
#include "cpu/overlap/internal.h"
#include "cpu/overlap/partial_overlap.h"

namespace eltwise::cpu::overlap {

// A zero input stride in some dims, not all (the Note's broadcast slice): output elements that
// differ only in those dims hold f of the same input bits. The slice with those dims at 0 runs
// first, exactly, as an overlap with no zero stride left; then each such dim in turn, the part
// written so far (index 0 in that dim) is copied as bits onto indices 1 to n - 1. The copies read
// only output, so they may overwrite any input; the output's elements share no byte (validated),
// so each copy's source and destination are disjoint. False (nothing done) when no stride is 0.
bool RunThroughBroadcastSlice(const KernelTable& table, const Plan& plan, const std::byte* input,
                              std::byte* output, int threads, Status& status) {
  const int rank = plan.rank;
  const auto desc = [&](std::vector<uint64_t> sizes, std::vector<int64_t> strides) {
    return SpannedDesc(plan.type, std::move(sizes), std::move(strides));
  };
  const std::vector<int64_t> out_strides(plan.output_strides.begin(),
                                         plan.output_strides.begin() + rank);
  std::vector<uint64_t> sizes, written(plan.sizes.begin(), plan.sizes.begin() + rank);
  std::vector<int64_t> in, out;
  for (int d = 0; d < rank; ++d) {
    if (plan.input_strides[d] == 0) {
      written[static_cast<size_t>(d)] = 1;
      continue;
    }
    sizes.push_back(plan.sizes[d]);
    in.push_back(plan.input_strides[d]);
    out.push_back(plan.output_strides[d]);
  }
  if (sizes.size() == static_cast<size_t>(rank)) return false;
  // The plan's first elements are the slice's too: output strides are positive, and the input
  // keeps its strides, so its first element lies slice.input_offset above its lowest byte.
  const Plan slice = MakePlan(plan.function, desc(sizes, in), desc(sizes, out), 1, 1);
  // Every copy's plan is made before anything is written (making one allocates).
  std::vector<std::pair<Plan, int64_t>> copies;  // each with its destination's first element
  for (int d = 0; d < rank; ++d) {
    if (plan.input_strides[d] != 0) continue;
    std::vector<uint64_t> rest = written;
    rest[static_cast<size_t>(d)] = plan.sizes[d] - 1;
    std::vector<int64_t> from = out_strides;
    from[static_cast<size_t>(d)] = 0;
    copies.emplace_back(MakePlan(Function::kCopy, desc(rest, from), desc(rest, out_strides), 1, 1),
                        out_strides[static_cast<size_t>(d)] * plan.element_size);
    written[static_cast<size_t>(d)] = plan.sizes[d];
  }
  const std::byte* const slice_input = input - slice.input_offset;
  std::byte* const slice_output = output - slice.output_offset;
  last_overlap_temporary_bytes = 0;
  if (Classify(slice, slice_input, slice_output) == Aliasing::kPartial) {
    status = RunPartialOverlap(table, slice, slice_input, slice_output, threads);
    if (!status.ok()) return true;
  } else {
    RunPlan(table, slice, slice_input, slice_output, threads);
  }
  for (const auto& [copy, destination] : copies) {
    RunPlan(table, copy, output - copy.input_offset, output + destination - copy.output_offset,
            threads);
  }
  status = Status::Ok();
  return true;
}

}  // namespace eltwise::cpu::overlap
