// The partial-overlap scheme of a plan's simplified walks (scheme.h). MakePlan moves a transposed
// layout's input-fastest dim next to the innermost; neither walk of such a layout rises in either
// dim order (that dim's input stride is below the innermost's, whose extent it then cannot
// exceed), so reading the rising walks from the plan's final dims decides as before the move.
#include "cpu/overlap/scheme.h"

#include <algorithm>
#include <array>
#include <utility>

namespace eltwise::cpu {
namespace {

int64_t StrideOf(const Plan& plan, int d, bool input) {
  return input ? plan.input_strides[d] : plan.output_strides[d];
}

// Whether the walk of the input (else the output) visits strictly rising addresses in row-major
// order: every stride positive and larger than the extent of the dims inside it.
bool RisesWithLinearIndex(const Plan& plan, bool input) {
  unsigned __int128 inner_extent = 0;  // elements spanned by the dims inside
  for (int d = plan.rank; d-- > 0;) {
    const int64_t stride = StrideOf(plan, d, input);
    if (stride <= 0 || static_cast<unsigned __int128>(stride) <= inner_extent) return false;
    inner_extent += static_cast<unsigned __int128>(stride) * (plan.sizes[d] - 1);
  }
  return true;
}

// The chunked scheme's gaps, both walks rising. Output element e lies at out0 + o(e) and its input
// at in0 + i(e); front to back is exact when out0 + o(e) <= in0 + i(e) for every e (later inputs
// lie higher still), i.e. when in0 - out0 >= max over e of (o(e) - i(e)) = sum over dims of
// max(0, (out - in) * (size - 1)).
void PlanChunks(const Plan& plan, OverlapAnalysis& overlap) {
  unsigned __int128 forward = 0, backward = 0;
  for (int d = 0; d < plan.rank; ++d) {
    const __int128 difference =
        static_cast<__int128>(plan.output_strides[d]) - plan.input_strides[d];
    const unsigned __int128 extent =
        static_cast<unsigned __int128>(difference < 0 ? -difference : difference) *
        (plan.sizes[d] - 1);
    (difference > 0 ? forward : backward) += extent;
  }
  forward *= plan.element_size;
  backward *= plan.element_size;
  constexpr auto kMax = static_cast<unsigned __int128>(UINT64_MAX);
  overlap.scheme = OverlapScheme::kChunked;
  overlap.forward_gap = static_cast<uint64_t>(std::min(forward, kMax));
  overlap.backward_gap = static_cast<uint64_t>(std::min(backward, kMax));
}

// A partial overlap that no chunk order makes exact: whether the output is the input mirrored
// (see OverlapScheme::kSwapTiles). With output strides positive (MakePlan), every dim must be an
// identity (in == out) or reversed (in == -out), except at most one pair (a, b) of equal size with
// in_a == out_b and in_b == out_a. Then for s(x) = x with the reversed coordinates mirrored
// (size - 1 - x_d) and x_a, x_b exchanged, in_addr(s(x)) = out_addr(x) exactly when the input's
// first element lies `distance` bytes above the output's: the input's elements are the output's,
// permuted by s, and since the output does not overlap itself, out(x) overlaps only in(s(x)).
void PlanSwap(const Plan& plan, OverlapAnalysis& overlap) {
  const auto& in = plan.input_strides;
  const auto& out = plan.output_strides;
  const uint64_t esize = plan.element_size;
  int a = -1, b = -1;
  unsigned reversed = 0;
  unsigned __int128 distance = 0;
  for (int d = 0; d < plan.rank; ++d) {
    if (d == a || d == b || in[d] == out[d]) continue;
    if (in[d] == -out[d]) {  // output strides are positive: no overflow
      reversed |= 1u << d;
      distance +=
          static_cast<unsigned __int128>(plan.sizes[d] - 1) * static_cast<uint64_t>(out[d]) * esize;
      continue;
    }
    if (a >= 0) return;
    for (int e = d + 1; e < plan.rank && a < 0; ++e) {
      if (plan.sizes[e] == plan.sizes[d] && in[e] == out[d] && in[d] == out[e]) {
        a = d;
        b = e;
      }
    }
    if (a < 0) return;
  }
  if ((a < 0 && reversed == 0) || distance > UINT64_MAX) return;
  overlap.scheme = OverlapScheme::kSwapTiles;
  overlap.swap_a = static_cast<int8_t>(a);
  overlap.swap_b = static_cast<int8_t>(b);
  overlap.reversed_dims = static_cast<uint8_t>(reversed);
  overlap.swap_distance = static_cast<uint64_t>(distance);
}

// Whether the walk of the input (else the output) is nested (OverlapAnalysis::invertible).
bool IsNested(const Plan& plan, bool input) {
  const auto magnitude = [&](int d) { return StrideMagnitude(StrideOf(plan, d, input)); };
  std::array<int, kMaxRank> order{};
  for (int d = 0; d < plan.rank; ++d) order[d] = d;
  for (int k = 1; k < plan.rank; ++k) {  // by magnitude (an insertion sort: at most kMaxRank)
    for (int j = k; j > 0 && magnitude(order[j]) < magnitude(order[j - 1]); --j) {
      std::swap(order[j], order[j - 1]);
    }
  }
  unsigned __int128 extent = 0;  // elements spanned by the smaller strides
  for (int k = 0; k < plan.rank; ++k) {
    const int d = order[k];
    if (magnitude(d) == 0 || magnitude(d) <= extent) return false;
    extent += static_cast<unsigned __int128>(magnitude(d)) * (plan.sizes[d] - 1);
  }
  return true;
}

}  // namespace

OverlapAnalysis AnalyzeOverlap(const Plan& plan) {
  OverlapAnalysis overlap;
  if (plan.layout == Layout::kBroadcast) {
    overlap.scheme = OverlapScheme::kNone;
    return overlap;
  }
  if (RisesWithLinearIndex(plan, true) && RisesWithLinearIndex(plan, false)) {
    PlanChunks(plan, overlap);
    return overlap;
  }
  PlanSwap(plan, overlap);
  overlap.invertible = IsNested(plan, true) && IsNested(plan, false);
  return overlap;
}

}  // namespace eltwise::cpu
