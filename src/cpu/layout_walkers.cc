// RunPlan: the plan's layout picks its walker (layout_walkers.h).
#include "cpu/layout_walkers.h"

namespace eltwise::cpu {

void RunPlan(const KernelTable& table, const Plan& plan, const std::byte* input, std::byte* output,
             int threads) {
  input += plan.input_offset;
  output += plan.output_offset;
  switch (plan.layout) {
    case Layout::kEmpty:
      return;
    case Layout::kContiguous:
      RunContiguous(table, plan, input, output, threads);
      return;
    case Layout::kBroadcast:
      RunBroadcast(table, plan, input, output, threads);
      return;
    case Layout::kRows:
      RunRows(table, plan, input, output, threads);
      return;
    case Layout::kTransposed:
      if (plan.input_strides[plan.rank - 2] == 1 && plan.output_strides[plan.rank - 1] == 1) {
        RunTransposed(table, plan, input, output, threads);
      } else {
        RunGathered(table, plan, input, output, threads);
      }
      return;
    case Layout::kGathered:
      RunGathered(table, plan, input, output, threads);
      return;
  }
}

}  // namespace eltwise::cpu
