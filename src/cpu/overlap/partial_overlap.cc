// Partial overlap of input and output on the CPU (partial_overlap.h): the plan's OverlapScheme
// (scheme.h) picks the scheme, one file of this folder each; Note [partial overlap on the CPU]
// below says why each is exact.
#include "cpu/overlap/partial_overlap.h"

#include <array>
#include <atomic>
#include <cstring>
#include <memory>
#include <new>
#include <string>

#include "cpu/cpu_backend.h"
#include "cpu/layout_walkers.h"
#include "cpu/overlap/internal.h"
#include "cpu/overlap/scheme.h"

// Note [partial overlap on the CPU]. When input and output share bytes other than element for
// element, the result must be as if the whole input were read before any output is written
// (docs/semantics.md states the promise), in temporary memory bounded by a constant except in the
// last case below. The plan's OverlapScheme (AnalyzeOverlap, scheme.h) picks one of three schemes:
//
// Rising walks (kChunked, chunked.cc): both walks rise with the linear index, so for elements
// e < f, in(f) >= in(e) + esize and out(f) >= out(e) + esize (byte addresses of the first bytes).
// Split the elements into P = {e : out(e) <= in(e)} and Q = {e : out(e) > in(e)}. Writing e
// overwrites the input of f exactly when |out(e) - in(f)| < esize. Then:
//  * e in P overwrites only inputs of f <= e, and only of f in P: in(f) < out(e) + esize <=
//    in(e) + esize gives f <= e; were f in Q with f < e, out(f) > in(f) > out(e) - esize would
//    contradict out(f) <= out(e) - esize.
//  * e in Q overwrites only inputs of f >= e in Q: in(f) > out(e) - esize > in(e) - esize gives
//    f >= e; were f in P with f > e, out(f) <= in(f) < out(e) + esize would contradict
//    out(f) >= out(e) + esize.
// So running P in rising order and Q in falling order (the two independent of each other) is
// exact, and so are chunks of consecutive elements of one set, each read whole before it is
// written: a write only overwrites inputs of its own chunk or of chunks already done. Threads run
// rounds: every chunk of a window of consecutive chunks (in the pass's order) is read before any of
// them is written, so a write only overwrites inputs that were read in this round or before.
// Within a row, out - in = D + k * delta is linear in the inner index k, so each row's part of P is
// one prefix or suffix of it, and Q the rest: no element is ever tested alone. When the plan's
// gaps put every element in P (or every one in Q), one pass runs them all.
// Three cases run straight through the kernel, without the temporary, by the same argument:
//  * a span of chunks whose outputs all lie on the far side of all their inputs (below them in a
//    rising pass, above in a falling one), on every thread at once: its writes overwrite no input
//    of its own and none of chunks still to come;
//  * in a round, a packed piece whose inputs all lie beyond every output of the round (above the
//    round's highest output byte in a rising pass, below its lowest in a falling one) is not read
//    first but runs when written: no write of the round reaches its inputs, and its own writes,
//    which lie beyond none of its inputs, only reach inputs already read;
//  * on one thread, a packed piece whose output lies at least kOverlapDirectBytes beyond its input
//    (below it in a rising pass, above in a falling one), in sub-pieces no longer than that
//    distance in the pass's order: each sub-piece's outputs lie beyond all its own inputs, so its
//    writes only reach inputs already read.
//
// Mirror tiles (kSwapTiles, swapped_tiles.cc, with the input's first element the plan's
// swap_distance above the output's): out(x) overlaps exactly in(s(x)) for the mirror map s
// (scheme.h). The elements are split into tiles that s takes onto tiles (per dim: swapped dims
// share one partition; a reversed dim is cut from both ends towards its middle, with the middle
// element of an odd size alone; other dims anywhere), and each pair {T, s(T)} is read whole into
// two small buffers before either is written. Writing T overwrites only the inputs of s(T) and
// writing s(T) only those of T, both read already, so pairs run in any order, on any number of
// threads.
//
// Anything else (kWholeInput, or kSwapTiles at another distance), in bounded memory, the first
// scheme that applies:
//  * an input span of at most kSmallInputCopyBytes is copied whole, then the plan runs from the
//    copy (the fastest way, and bounded);
//  * a zero input stride in some dims, not all (broadcast_slice.cc): output elements that
//    differ only in those dims are f of the same input bits, so the slice with those dims at 0
//    runs first (exactly, by these schemes: no stride is 0 in it), then is copied as bits onto the
//    rest of the output, which no longer needs any input;
//  * a packed vector reversed onto itself at another distance than the mirror one
//    (shifted_reversal.cc): element i's output is the input of P - i and the reverse, so pairs of
//    tiles {T, P - T} are read, then written, in any order; elements whose partner lies outside
//    the vector touch no other element's input;
//  * both walks packed over the same bytes in different dim orders (packed_permutation.cc): at
//    most rank - 1 in-place transposes of adjacent dim groups, bits moved by all but the last,
//    which applies f. Each is a batch of R x C matrices of cells (in_place_transpose.cc). Elements:
//    either blocks of c rows (c | R) transposed through a buffer, then the R/c x C matrix of
//    c-element chunks transposed, or the R x C/c matrix of c-element chunks transposed first, then
//    blocks of c columns (c | C), now contiguous R x c matrices, each through the buffer. Cells (an
//    inner dim packed in both walks): one chunk transpose. A chunk transpose follows the cycles
//    of its permutation, each from its lowest position, one chunk held at a time;
//  * a packed output and an input that rises in its own dim order, at any distance
//    (RunThroughOutputSpan, packed_permutation.cc): the input copied as bits into the output's
//    bytes, packed in its own dim order (rising walks, exact as above, writing only output bytes),
//    then permuted there;
//  * both walks invertible (scheme.h) and a whole number of elements apart (element_chains.cc):
//    every output element overlaps at most one input element exactly, and next(x), the element
//    whose input x's output overwrites, is found by dividing by the input strides. Both walks are
//    injective, so next is injective: the elements form disjoint chains (a head whose input no
//    output overwrites, then next, next of next, ... up to an element whose output is no input)
//    and cycles. Following a chain or cycle reads next's input before writing over it, so it
//    holds one raw value at a time (a batch of kChainBatch, for the kernel's sake). A chain runs
//    from its head (prev, found by dividing by the output strides, is none), a cycle from its
//    lowest element. Chains and cycles share no byte, so threads take ranges of heads and leaders;
//  * anything else (an input that reads some element twice without a zero stride, such as rows
//    that share elements; a fraction of an element apart into an output that is not packed; walks
//    that neither rise nor nest and fit none of the above, such as an interleaved output): a copy
//    of the whole input span, then the plan from it.

namespace eltwise::cpu {
namespace overlap {

std::atomic<uint64_t> small_input_copy_bytes{kSmallInputCopyBytes};
std::atomic<uint64_t> transpose_buffer_bytes{kTransposeBufferBytes};
constinit thread_local uint64_t last_overlap_temporary_bytes = 0;

namespace {

// The Note's last resort: the plan from a copy of the whole input span.
Status RunFromInputCopy(const KernelTable& table, const Plan& plan, const std::byte* input,
                        std::byte* output, int threads) {
  last_overlap_temporary_bytes = plan.input_span;
  std::unique_ptr<std::byte[]> copy(new (std::nothrow) std::byte[plan.input_span]);
  if (!copy) {
    return Status(StatusCode::kOutOfMemory, "input and output overlap partially and a " +
                                                std::to_string(plan.input_span) +
                                                "-byte copy of the input failed");
  }
  std::memcpy(copy.get(), input, plan.input_span);
  RunPlan(table, plan, copy.get(), output, threads);
  return Status::Ok();
}

}  // namespace
}  // namespace overlap

// Out of line: it keeps Backend::Run's frame small for the calls that need none of this.
[[gnu::noinline]] Status RunPartialOverlap(const KernelTable& table, const Plan& plan,
                                           const std::byte* input, std::byte* output, int threads) {
  const std::byte* const first_in = input + plan.input_offset;
  std::byte* const first_out = output + plan.output_offset;
  const OverlapAnalysis analysis = AnalyzeOverlap(plan);
  if (analysis.scheme == OverlapScheme::kChunked) {
    return overlap::RunChunked(table, plan, analysis, first_in, first_out, threads);
  }
  if (analysis.scheme == OverlapScheme::kSwapTiles &&
      reinterpret_cast<uintptr_t>(first_in) - reinterpret_cast<uintptr_t>(first_out) ==
          analysis.swap_distance) {
    return overlap::RunSwappedTiles(table, plan, analysis, first_in, first_out, threads);
  }
  if (plan.input_span > overlap::small_input_copy_bytes.load(std::memory_order_relaxed)) {
    Status status;
    if (overlap::RunThroughBroadcastSlice(table, plan, first_in, first_out, threads, status))
      return status;
    if (overlap::ShiftedReversalApplies(plan, first_in, first_out)) {
      return overlap::RunShiftedReversal(table, plan, first_in, first_out, threads);
    }
    if (overlap::RunPackedPermutation(table, plan, first_in, first_out, threads, status))
      return status;
    if (overlap::RunThroughOutputSpan(table, plan, first_in, first_out, threads, status))
      return status;
    if (overlap::ElementChainsApply(plan, analysis, first_in, first_out)) {
      return overlap::RunElementChains(table, plan, first_in, first_out, threads);
    }
  }
  return overlap::RunFromInputCopy(table, plan, input, output, threads);
}

}  // namespace eltwise::cpu

namespace eltwise {

uint64_t LastOverlapStagingBytes() { return cpu::overlap::last_overlap_temporary_bytes; }

void SetPartialOverlapLimits(uint64_t copy_bytes, uint64_t transpose_bytes) {
  cpu::overlap::small_input_copy_bytes.store(copy_bytes, std::memory_order_relaxed);
  cpu::overlap::transpose_buffer_bytes.store(transpose_bytes, std::memory_order_relaxed);
}

}  // namespace eltwise
