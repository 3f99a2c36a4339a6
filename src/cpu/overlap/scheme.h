// Which scheme makes a plan's partial overlap of input and output exact on the CPU, read from the
// plan's simplified walks (partial_overlap.cc, Note [partial overlap on the CPU]). Computed per
// partially overlapping call: the analysis is O(rank^2) and such calls are rare.
#pragma once

#include <cstddef>
#include <cstdint>

#include "core/plan.h"

namespace eltwise::cpu {

// How a partial overlap of input and output is made exact (as if the whole input were read before
// any output is written).
enum class OverlapScheme : uint8_t {
  kNone,        // broadcast: the one input element is read before anything is written
  kChunked,     // both walks rise with the linear index: bounded chunks, exact at any distance
                // between the tensors (elements whose output lies at or below their input front
                // to back, the others back to front); OverlapAnalysis's gaps say when one pass
                // suffices
  kSwapTiles,   // the output is the input with some dims reversed and/or two equal-sized dims
                // swapped (a square transpose or a reversal onto itself): when the input's first
                // element lies OverlapAnalysis's swap_distance bytes above the output's, out(x)
                // overlaps exactly the input of the mirror element s(x) (s(s(x)) = x), so mirror
                // pairs of tiles, both read before either is written, are exact in any order; at
                // any other distance, as kWholeInput
  kWholeInput,  // any other walk: no order of bounded chunks is exact. An input span of at most
                // 1 MiB is copied whole; beyond, bounded schemes by shape (a broadcast input's
                // slice first, shifted reversals, permutations of packed dims, a move through a
                // packed output's bytes, the element map of invertible walks), and a copy of the
                // span only when none applies
};

// A plan's partial-overlap scheme and what the scheme needs to know about the walks.
struct OverlapAnalysis {
  OverlapScheme scheme = OverlapScheme::kWholeInput;
  // kChunked: front to back is exact when the input's first element lies at least forward_gap
  // bytes after the output's (every output element then lies below its own input element and
  // below all later input), back to front when the output's first element lies at least
  // backward_gap bytes after the input's.
  uint64_t forward_gap = 0;
  uint64_t backward_gap = 0;
  // kSwapTiles: the swapped dims (swap_a < swap_b; -1 when none), the reversed dims (bit d for
  // dim d), and the input's first element's distance above the output's at which the mirror
  // pairing holds: sum over reversed dims of (size - 1) * output stride * element size.
  int8_t swap_a = -1;
  int8_t swap_b = -1;
  uint8_t reversed_dims = 0;
  uint64_t swap_distance = 0;
  // kWholeInput and kSwapTiles: both walks are nested (no stride 0; sorted by magnitude, each
  // stride exceeds the extent of the smaller ones), so an address maps back to at most one element
  // by dividing by the strides from the largest down.
  bool invertible = false;
};

// The scheme of `plan` (any layout but kEmpty; kNone for kBroadcast).
OverlapAnalysis AnalyzeOverlap(const Plan& plan);

// For a partial overlap of a kChunked plan: +1 front to back, -1 back to front, 0 neither (P then
// Q, the Note's two passes). `input` and `output` point at the first elements (offsets added).
inline int OverlapDirection(const OverlapAnalysis& overlap, const std::byte* input,
                            const std::byte* output) {
  const auto in = reinterpret_cast<uintptr_t>(input);
  const auto out = reinterpret_cast<uintptr_t>(output);
  if (in >= out && in - out >= overlap.forward_gap) return 1;
  if (out >= in && out - in >= overlap.backward_gap) return -1;
  return 0;
}

}  // namespace eltwise::cpu
