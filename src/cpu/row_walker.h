// Walks the rows of a plan: the outer dims [0, outer) in row-major order, one pointer pair per
// row. Shared by the layout walkers and the partial-overlap runs.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>

#include "core/plan.h"

namespace eltwise::cpu {

// Pointers of the first element of row `row` (row-major over dims [0, outer)).
struct RowWalker {
  const Plan& plan;
  int outer;  // number of outer dims
  std::array<uint64_t, kMaxRank> index{};
  const std::byte* in;
  std::byte* out;

  RowWalker(const Plan& p, int outer_dims, const std::byte* input, std::byte* output, uint64_t row)
      : plan(p), outer(outer_dims), in(input), out(output) {
    const ptrdiff_t esize = plan.element_size;
    for (int d = outer - 1; d >= 0; --d) {
      index[d] = row % plan.sizes[d];
      row /= plan.sizes[d];
      in += static_cast<ptrdiff_t>(index[d]) * plan.input_strides[d] * esize;
      out += static_cast<ptrdiff_t>(index[d]) * plan.output_strides[d] * esize;
    }
  }
  void Next() {
    const ptrdiff_t esize = plan.element_size;
    for (int d = outer - 1; d >= 0; --d) {
      in += plan.input_strides[d] * esize;
      out += plan.output_strides[d] * esize;
      if (++index[d] < plan.sizes[d]) return;
      in -= static_cast<ptrdiff_t>(plan.sizes[d]) * plan.input_strides[d] * esize;
      out -= static_cast<ptrdiff_t>(plan.sizes[d]) * plan.output_strides[d] * esize;
      index[d] = 0;
    }
  }
  void Previous() {
    const ptrdiff_t esize = plan.element_size;
    for (int d = outer - 1; d >= 0; --d) {
      if (index[d]-- > 0) {
        in -= plan.input_strides[d] * esize;
        out -= plan.output_strides[d] * esize;
        return;
      }
      index[d] = plan.sizes[d] - 1;
      in += static_cast<ptrdiff_t>(index[d]) * plan.input_strides[d] * esize;
      out += static_cast<ptrdiff_t>(index[d]) * plan.output_strides[d] * esize;
    }
  }
};

// The number of rows of the outer dims [0, outer).
inline uint64_t OuterCount(const Plan& plan, int outer) {
  uint64_t count = 1;
  for (int d = 0; d < outer; ++d) count *= plan.sizes[d];
  return count;
}

}  // namespace eltwise::cpu
