// Row pieces (runs along a plan's innermost dim) moved through a buffer: read from the input
// first, then computed into the output. The partial-overlap schemes of this folder move them so.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>

#include "core/plan.h"
#include "cpu/element_copy.h"
#include "cpu/kernel_table.h"

namespace eltwise::cpu::overlap {

// The moves of one plan's row pieces between the tensors and a buffer.
struct PieceBuffer {
  ContiguousKernel kernel;
  GatherFn gather;
  ScatterFn scatter;
  ReverseFn reverse;
  size_t esize;
  ptrdiff_t in_step, out_step;  // bytes between consecutive elements of a piece

  PieceBuffer(const KernelTable& table, const Plan& plan)
      : kernel(table.Contiguous(plan.function, plan.type)),
        gather(GatherFor(plan.element_size)),
        scatter(ScatterFor(plan.element_size)),
        reverse(ReverseFor(plan.element_size)),
        esize(plan.element_size),
        in_step((plan.rank > 0 ? plan.input_strides[plan.rank - 1] : 1) * ptrdiff_t(esize)),
        out_step((plan.rank > 0 ? plan.output_strides[plan.rank - 1] : 1) * ptrdiff_t(esize)) {}

  bool Packed() const { return in_step == ptrdiff_t(esize) && out_step == ptrdiff_t(esize); }
  // Copies the `count` input elements of the piece at `in` to `p`; returns the end of the copy.
  std::byte* Read(const std::byte* in, std::byte* p, uint64_t count) const {
    if (in_step == -ptrdiff_t(esize)) {
      reverse(in, p, count);
    } else if (in_step == ptrdiff_t(esize)) {
      std::memcpy(p, in, count * esize);
    } else {
      gather(in, in_step, p, count);
    }
    return p + count * esize;
  }
  // Writes f of the `count` elements read into `p` to the piece at `out` (computed in place at `p`
  // first when the output is strided); returns the end of those elements.
  std::byte* Write(std::byte* p, std::byte* out, uint64_t count) const {
    if (out_step == ptrdiff_t(esize)) {
      kernel(p, out, count);
    } else {
      kernel(p, p, count);
      scatter(p, out, out_step, count);
    }
    return p + count * esize;
  }
};

}  // namespace eltwise::cpu::overlap
