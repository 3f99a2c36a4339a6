// Partial overlap of input and output on the CPU (partial_overlap.h): the plan's overlap.staging
// picks the scheme, Note [partial overlap on the CPU] says why each is exact.
#include "cpu/partial_overlap.h"

#include <algorithm>
#include <array>
#include <atomic>
#include <cstring>
#include <memory>
#include <new>
#include <string>
#include <utility>
#include <vector>

#include "cpu/cpu_backend.h"
#include "cpu/layout_walkers.h"
#include "cpu/piece_staging.h"
#include "cpu/row_walker.h"
#include "cpu/thread_pool.h"

namespace eltwise::cpu {
namespace {

// Note [partial overlap on the CPU]. When input and output share bytes other than element for
// element, the result must be as if the whole input were read before any output is written. The
// plan's overlap.staging (plan.h) picks one of three schemes:
//
// Rising walks (kChunked): both walks rise with the linear index, so for elements e < f,
// in(f) >= in(e) + esize and out(f) >= out(e) + esize (byte addresses of the first bytes). Split
// the elements into P = {e : out(e) <= in(e)} and Q = {e : out(e) > in(e)}. Writing e overwrites
// the input of f exactly when |out(e) - in(f)| < esize. Then:
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
// Mirror tiles (kSwapTiles, with the input's first element the plan's swap_distance above the
// output's): out(x) overlaps exactly in(s(x)) for the mirror map s (plan.h). The elements are
// split into tiles that s takes onto tiles (per dim: swapped dims share one partition; a reversed
// dim is cut from both ends towards its middle, with the middle element of an odd size alone;
// other dims anywhere), and each pair {T, s(T)} is read whole into two small buffers before either
// is written. Writing T overwrites only the inputs of s(T) and writing s(T) only those of T, both
// read already, so pairs run in any order, on any number of threads.
//
// Anything else (kWholeInput, or kSwapTiles at another distance), in bounded memory, the first
// scheme that applies:
//  * an input span of at most kSmallInputCopyBytes is copied whole, then the plan runs from the
//    copy (the fastest way, and bounded);
//  * a zero input stride in some dims, not all (RunThroughBroadcastSlice): output elements that
//    differ only in those dims are f of the same input bits, so the slice with those dims at 0
//    runs first (exactly, by these schemes: no stride is 0 in it), then is copied as bits onto the
//    rest of the output, which no longer needs any input;
//  * a packed vector reversed onto itself at another distance than the mirror one
//    (ShiftedReversal): element i's output is the input of P - i and the reverse, so pairs of
//    tiles {T, P - T} are read, then written, in any order; elements whose partner lies outside
//    the vector touch no other element's input;
//  * both walks packed over the same bytes in different dim orders (PackedPermutation): at most
//    rank - 1 in-place transposes of adjacent dim groups, bits moved by all but the last, which
//    applies f. Each is a batch of R x C matrices of cells (InPlaceTranspose). Elements: either
//    blocks of c rows (c | R) transposed through a buffer, then the R/c x C matrix of c-element
//    chunks transposed, or the R x C/c matrix of c-element chunks transposed first, then blocks
//    of c columns (c | C), now contiguous R x c matrices, each through the buffer. Cells (an
//    inner dim packed in both walks): one chunk transpose. A chunk transpose follows the cycles
//    of its permutation, each from its lowest position, one chunk held at a time;
//  * a packed output and an input that rises in its own dim order, at any distance
//    (RunThroughOutputSpan): the input copied as bits into the output's bytes, packed in its own
//    dim order (rising walks, exact as above, writing only output bytes), then permuted there;
//  * both walks invertible (plan.h) and a whole number of elements apart (ElementChains): every
//    output element overlaps at most one input element exactly, and next(x), the element whose
//    input x's output overwrites, is found by dividing by the input strides. Both walks are
//    injective, so next is injective: the elements form disjoint chains (a head whose input no
//    output overwrites, then next, next of next, ... up to an element whose output is no input)
//    and cycles. Following a chain or cycle reads next's input before writing over it, so it
//    holds one raw value at a time (a batch of kChainBatch, for the kernel's sake). A chain runs
//    from its head (prev, found by dividing by the output strides, is none), a cycle from its
//    lowest element. Chains and cycles share no byte, so threads take ranges of heads and leaders;
//  * anything else (an input that reads some element twice without a zero stride, such as rows
//    that share elements, or a fraction of an element apart into an output that is not packed): a
//    copy of the whole input span, then the plan from it.

// Partial overlap of rising walks is processed in chunks of at most this many bytes (one stays in
// L1), a window of at most kOverlapWindowBytes of them at a time with threads.
constexpr size_t kOverlapChunkBytes = size_t{16} << 10;
constexpr size_t kOverlapWindowBytes = size_t{512} << 10;
// A packed piece whose output lies at least this far from its input runs without the temporary,
// in sub-pieces of that distance (the Note). 2048 measured slower (eltwise bench overlap,
// overlap_cross, 256 KiB, 1 thread: f32 0.40-0.52x a copy against 0.64-0.68x, u8 0.19-0.26x
// against 0.32x).
constexpr size_t kOverlapDirectBytes = 256;
// One mirror tile; a task holds two.
constexpr size_t kSwapTileBytes = size_t{16} << 10;
// Walks that no chunk order makes exact: an input span of at most this many bytes is copied whole;
// an in-place transpose stages blocks through at most this many bytes over all threads (both
// changed by tests through SetPartialOverlapLimits).
constexpr uint64_t kSmallInputCopyBytes = uint64_t{1} << 20;
constexpr uint64_t kTransposeStagingBytes = uint64_t{1} << 20;
// A chunk transpose first groups chunks smaller than this (InPlaceTranspose::PackedChunks).
constexpr uint64_t kGroupedChunkBytes = 512;
// Of which each thread's bitmap of decided cycle positions takes at most this much.
constexpr uint64_t kMaxMarkBytes = uint64_t{64} << 10;
std::atomic<uint64_t> small_input_copy_bytes{kSmallInputCopyBytes};
std::atomic<uint64_t> transpose_staging_bytes{kTransposeStagingBytes};
// Elements of a chain that the element-map follower computes with one kernel call.
constexpr size_t kChainBatch = 256;

// Temporary memory of the calling thread's last partially overlapping Run (see cpu_backend.h).
thread_local uint64_t last_overlap_staging_bytes = 0;

Status StagingFailed(uint64_t bytes) {
  return Status(StatusCode::kOutOfMemory, "input and output overlap partially and a " +
                                              std::to_string(bytes) +
                                              "-byte temporary failed to allocate");
}

struct Range {
  uint64_t first, last;
};

// Elements at or below their input (P) in a row whose first output byte lies `row_distance` bytes
// above its first input byte (negative: below) and whose output-minus-input distance grows by
// `delta` bytes per element: [first, last) of the row's n elements.
Range AtOrBelowInput(int64_t row_distance, int64_t delta, uint64_t n) {
  if (delta == 0) return row_distance <= 0 ? Range{0, n} : Range{0, 0};
  if (delta > 0) {  // a prefix: k <= -row_distance / delta
    if (row_distance > 0) return {0, 0};
    const uint64_t last = static_cast<uint64_t>(-row_distance) / static_cast<uint64_t>(delta) + 1;
    return {0, std::min(n, last)};
  }
  // delta < 0: a suffix, k >= ceil(row_distance / -delta)
  if (row_distance <= 0) return {0, n};
  const auto step = static_cast<uint64_t>(-delta);
  const uint64_t first = (static_cast<uint64_t>(row_distance) + step - 1) / step;
  return {std::min(n, first), n};
}

// Which elements a pass of the chunked overlap runs.
enum class OverlapPart : uint8_t {
  kAll,        // every element (the plan's gap says one direction is exact for all)
  kAtOrBelow,  // P of the Note, in rising order
  kAbove,      // Q, in falling order
};

// A kChunked plan's partial overlap (the Note's rising walks) through at most kOverlapWindowBytes
// of temporary memory. Chunks are groups of whole rows when rows are short, segments of a row when
// they are long; chunk k's position in a pass is k rising, chunks - 1 - k falling.
class ChunkedOverlap {
 public:
  ChunkedOverlap(const KernelTable& table, const Plan& plan, const std::byte* input,
                 std::byte* output, int threads)
      : plan_(plan), input_(input), output_(output), staging_(table, plan) {
    const size_t esize = plan.element_size;
    inner_ = std::max(plan.rank - 1, 0);
    n_ = plan.rank > 0 ? plan.sizes[inner_] : 1;
    rows_ = OuterCount(plan, inner_);
    const size_t capacity = std::max<size_t>(1, kOverlapChunkBytes / esize);  // elements
    rows_per_chunk_ = std::max<uint64_t>(1, capacity / n_);
    segment_ = std::min<uint64_t>(n_, capacity);
    per_row_ = rows_per_chunk_ > 1 ? 1 : (n_ + segment_ - 1) / segment_;
    chunks_ =
        rows_per_chunk_ > 1 ? (rows_ + rows_per_chunk_ - 1) / rows_per_chunk_ : rows_ * per_row_;
    threads_ = ThreadsFor(threads, 2 * plan.element_count * esize);
    // One chunk at a time on one thread (it stays in L1); windows of chunks with threads.
    window_ =
        threads_ == 1 ? 1 : std::min<uint64_t>(chunks_, kOverlapWindowBytes / kOverlapChunkBytes);
    slot_ = std::min<uint64_t>(rows_per_chunk_ * n_, capacity) * esize;
  }

  // `direction` is OverlapDirection's: +1 or -1 run every element in one pass, 0 runs P then Q.
  Status Run(int direction) {
    const uint64_t bytes = window_ * slot_;
    buffer_.reset(new (std::nothrow) std::byte[bytes]);
    if (!buffer_) return StagingFailed(bytes);
    last_overlap_staging_bytes = bytes;
    if (direction > 0) {
      Pass(OverlapPart::kAll, true);
    } else if (direction < 0) {
      Pass(OverlapPart::kAll, false);
    } else {
      Pass(OverlapPart::kAtOrBelow, true);
      Pass(OverlapPart::kAbove, false);
    }
    return Status::Ok();
  }

 private:
  // The pieces a round whose outputs end at `limit` (its highest output byte + 1 rising, its lowest
  // output byte falling) runs straight through the kernel instead of staging them (the Note).
  struct BeyondRound {
    bool packed, rising;
    uintptr_t limit;
    size_t esize;
    bool Takes(const std::byte* in, const std::byte*, uint64_t count) const {
      if (!packed) return false;
      const auto lo = reinterpret_cast<uintptr_t>(in);
      return rising ? lo >= limit : lo + count * esize <= limit;
    }
    bool TryRun(ContiguousKernel kernel, const std::byte* in, std::byte* out,
                uint64_t count) const {
      if (!Takes(in, out, count)) return false;
      kernel(in, out, count);
      return true;
    }
  };
  // The pieces one chunk on one thread runs straight through the kernel, in sub-pieces, instead of
  // staging them: their output lies at least kOverlapDirectBytes beyond their input (the Note).
  struct FarFromInput {
    bool packed, rising;
    size_t esize;
    // Elements per sub-piece; 0 when the piece is staged.
    uint64_t Length(const std::byte* in, const std::byte* out) const {
      if (!packed) return 0;
      const auto a = reinterpret_cast<uintptr_t>(in), b = reinterpret_cast<uintptr_t>(out);
      const uintptr_t distance = rising ? (a >= b ? a - b : 0) : (b >= a ? b - a : 0);
      return distance >= kOverlapDirectBytes ? distance / esize : 0;
    }
    bool Takes(const std::byte* in, const std::byte* out, uint64_t) const {
      return Length(in, out) != 0;
    }
    bool TryRun(ContiguousKernel kernel, const std::byte* in, std::byte* out,
                uint64_t count) const {
      const uint64_t length = Length(in, out);
      if (length == 0) return false;
      for (uint64_t done = 0; done < count;) {
        const uint64_t step = std::min(length, count - done);
        const uint64_t at = rising ? done : count - done - step;
        kernel(in + at * esize, out + at * esize, step);
        done += step;
      }
      return true;
    }
  };

  // Calls f(in, out, count) for each row piece of chunk `k` that belongs to `part`, rows in rising
  // or falling order.
  template <class F>
  void ForEachPiece(uint64_t k, OverlapPart part, bool rising, F f) const {
    uint64_t first_row = k, row_count = 1, begin = 0, count = n_;
    if (rows_per_chunk_ > 1) {
      first_row = k * rows_per_chunk_;
      row_count = std::min(rows_per_chunk_, rows_ - first_row);
    } else {
      first_row = k / per_row_;
      begin = (k % per_row_) * segment_;
      count = std::min(segment_, n_ - begin);
    }
    const int64_t delta = staging_.out_step - staging_.in_step;
    RowWalker walk(plan_, inner_, input_, output_, rising ? first_row : first_row + row_count - 1);
    for (uint64_t r = 0; r < row_count; ++r) {
      uint64_t lo = begin, hi = begin + count;
      if (part != OverlapPart::kAll) {
        const int64_t distance = static_cast<int64_t>(reinterpret_cast<uintptr_t>(walk.out) -
                                                      reinterpret_cast<uintptr_t>(walk.in));
        const Range p = AtOrBelowInput(distance, delta, n_);
        Range mine = p;  // Q is the rest of the row: one prefix or suffix
        if (part == OverlapPart::kAbove) {
          mine = p.first == 0 ? Range{p.last, n_} : Range{0, p.first};
        }
        lo = std::max(lo, mine.first);
        hi = std::min(hi, mine.last);
      }
      if (lo < hi) {
        f(walk.in + static_cast<ptrdiff_t>(lo) * staging_.in_step,
          walk.out + static_cast<ptrdiff_t>(lo) * staging_.out_step, hi - lo);
      }
      if (r + 1 < row_count) rising ? walk.Next() : walk.Previous();
    }
  }

  // Reads the pieces of chunk k that `direct` does not take into `p`, in the walk's order.
  template <class Direct>
  void Stage(uint64_t k, OverlapPart part, bool rising_walk, std::byte* p,
             const Direct& direct) const {
    ForEachPiece(k, part, rising_walk, [&](const std::byte* in, std::byte* out, uint64_t count) {
      if (!direct.Takes(in, out, count)) p = staging_.Read(in, p, count);
    });
  }
  // Writes the pieces of chunk k: those `direct` takes straight from the input, the others from
  // `p`, as Stage left them.
  template <class Direct>
  void Write(uint64_t k, OverlapPart part, bool rising_walk, std::byte* p,
             const Direct& direct) const {
    ForEachPiece(k, part, rising_walk, [&](const std::byte* in, std::byte* out, uint64_t count) {
      if (!direct.TryRun(staging_.kernel, in, out, count)) p = staging_.Write(p, out, count);
    });
  }

  // The lowest input (out: output) address of chunk k (a rising walk).
  uintptr_t FirstElement(uint64_t k, bool out) const {
    const uint64_t row = rows_per_chunk_ > 1 ? k * rows_per_chunk_ : k / per_row_;
    const uint64_t begin = rows_per_chunk_ > 1 ? 0 : (k % per_row_) * segment_;
    const RowWalker walk(plan_, inner_, input_, output_, row);
    return reinterpret_cast<uintptr_t>(
        out ? walk.out + static_cast<ptrdiff_t>(begin) * staging_.out_step
            : walk.in + static_cast<ptrdiff_t>(begin) * staging_.in_step);
  }
  // The highest input (out: output) address of chunk k, + esize.
  uintptr_t LastElement(uint64_t k, bool out) const {
    uint64_t row, end;
    if (rows_per_chunk_ > 1) {
      row = std::min(rows_, (k + 1) * rows_per_chunk_) - 1;
      end = n_;
    } else {
      row = k / per_row_;
      end = std::min(n_, (k % per_row_ + 1) * segment_);
    }
    const RowWalker walk(plan_, inner_, input_, output_, row);
    const std::byte* p = out ? walk.out + static_cast<ptrdiff_t>(end - 1) * staging_.out_step
                             : walk.in + static_cast<ptrdiff_t>(end - 1) * staging_.in_step;
    return reinterpret_cast<uintptr_t>(p) + staging_.esize;
  }
  // Chunks [lo, hi) (indices) lie apart: all outputs below all inputs (rising) or above (falling).
  bool Apart(uint64_t lo, uint64_t hi, bool rising) const {
    return rising ? LastElement(hi - 1, true) <= FirstElement(lo, false)
                  : FirstElement(lo, true) >= LastElement(hi - 1, false);
  }
  // The chunk indices of pass positions [i, j).
  Range Indices(uint64_t i, uint64_t j, bool rising) const {
    return rising ? Range{i, j} : Range{chunks_ - j, chunks_ - i};
  }
  // The end of the longest span of positions from i whose chunks lie apart (i when none): a binary
  // search, since a span only stops lying apart as it extends (the outputs rise and the inputs
  // fall away from it).
  uint64_t ApartSpanEnd(uint64_t i, bool rising) const {
    uint64_t good = i, bad = chunks_ + 1;
    if (!staging_.Packed()) return good;
    while (bad - good > 1) {
      const uint64_t mid = good + (bad - good) / 2;
      const Range r = Indices(i, mid, rising);
      (Apart(r.first, r.last, rising) ? good : bad) = mid;
    }
    return good;
  }

  // Chunks that lie apart, straight through the kernel on every thread.
  void RunApart(Range r, OverlapPart part) const {
    ThreadPool::Global().ParallelFor(r.last - r.first, threads_, [&](size_t j) {
      ForEachPiece(r.first + j, part, true,
                   [&](const std::byte* in, std::byte* out, uint64_t count) {
                     staging_.kernel(in, out, count);
                   });
    });
  }
  // One chunk on the calling thread, walked in the pass's order.
  void RunOne(uint64_t k, OverlapPart part, bool rising) const {
    const FarFromInput direct{staging_.Packed(), rising, staging_.esize};
    Stage(k, part, rising, buffer_.get(), direct);
    Write(k, part, rising, buffer_.get(), direct);
  }
  // A round of chunks on several threads: every chunk's pieces are read into its slot, then
  // written.
  void RunRound(Range r, OverlapPart part, bool rising) const {
    const uint64_t count = r.last - r.first;
    const uintptr_t limit = rising ? LastElement(r.last - 1, true) : FirstElement(r.first, true);
    const BeyondRound direct{staging_.Packed(), rising, limit, staging_.esize};
    const auto slot_of = [&](uint64_t k) { return buffer_.get() + (k - r.first) * slot_; };
    // One task per thread, each the same run of chunks in both phases (its slots stay in its own
    // cache when the pool keeps the task on the same thread).
    const auto tasks = static_cast<size_t>(std::min<uint64_t>(count, threads_));
    auto each = [&](size_t t, auto f) {
      for (uint64_t k = r.first + count * t / tasks; k < r.first + count * (t + 1) / tasks; ++k) {
        f(k);
      }
    };
    ThreadPool::Global().ParallelFor(tasks, threads_, [&](size_t t) {
      each(t, [&](uint64_t k) { Stage(k, part, true, slot_of(k), direct); });
    });
    ThreadPool::Global().ParallelFor(tasks, threads_, [&](size_t t) {
      each(t, [&](uint64_t k) { Write(k, part, true, slot_of(k), direct); });
    });
  }
  // Every chunk of `part` in the pass's order: spans that lie apart (on threads, only spans of at
  // least a window: each is one parallel loop), the others one chunk or one round at a time.
  void Pass(OverlapPart part, bool rising) const {
    for (uint64_t i = 0; i < chunks_;) {
      const uint64_t apart_end = ApartSpanEnd(i, rising);
      if (apart_end > i && (window_ == 1 || apart_end - i >= window_)) {
        RunApart(Indices(i, apart_end, rising), part);
        i = apart_end;
        continue;
      }
      const uint64_t count = std::min(window_, chunks_ - i);
      const Range r = Indices(i, i + count, rising);
      if (count == 1) {
        RunOne(r.first, part, rising);
      } else {
        RunRound(r, part, rising);
      }
      i += count;
    }
  }

  const Plan& plan_;
  const std::byte* input_;
  std::byte* output_;
  PieceStaging staging_;
  int inner_;
  uint64_t n_;     // elements per row
  uint64_t rows_;  // rows (the outer dims' count)
  uint64_t rows_per_chunk_, segment_, per_row_, chunks_;
  int threads_;
  uint64_t window_;  // chunks per round
  uint64_t slot_;    // staging bytes per chunk
  std::unique_ptr<std::byte[]> buffer_;
};

// A kSwapTiles plan at its mirror distance (the Note's mirror tiles): each task reads a tile and
// its mirror into two buffers of kSwapTileBytes, then writes both.
class SwappedTiles {
 public:
  SwappedTiles(const KernelTable& table, const Plan& plan, const std::byte* input,
               std::byte* output, int threads)
      : plan_(plan),
        input_(input),
        output_(output),
        staging_(table, plan),
        rank_(plan.rank),
        a_(plan.overlap.swap_a),
        b_(plan.overlap.swap_b),
        transpose_(table.Transposed(plan.function, plan.type)),
        threads_(ThreadsFor(threads, 2 * plan.element_count * plan.element_size)) {
    // Tile extents: the swapped pair first (square tiles), then the other dims innermost first.
    uint64_t room = std::max<uint64_t>(1, kSwapTileBytes / plan.element_size);  // elements
    if (a_ >= 0) {  // a power of two (whole vectors for the transposed-tile kernel)
      uint64_t t = 1;
      while (4 * t * t <= room && t < plan.sizes[a_]) t *= 2;
      edge_[a_] = edge_[b_] = t;
      room /= t * t;
    }
    for (int d = rank_ - 1; d >= 0; --d) {
      if (d == a_ || d == b_) continue;
      edge_[d] = std::max<uint64_t>(1, std::min(plan.sizes[d], room));
      room = std::max<uint64_t>(1, room / edge_[d]);
    }
    for (int d = 0; d < rank_; ++d) {
      count_[d] = Reversed(d) ? 2 * HalfTiles(d) + plan.sizes[d] % 2
                              : (plan.sizes[d] + edge_[d] - 1) / edge_[d];
      total_ *= count_[d];
    }
    // A square transpose whose input is packed along dim rank-2 and output along rank-1 (the
    // usual one): each 2-d tile is read through the table's transposed-tile kernel, which applies
    // the function on the way, and written back as rows.
    transposed_ = a_ == rank_ - 2 && b_ == rank_ - 1 && plan.input_strides[a_] == 1 &&
                  plan.output_strides[b_] == 1;
  }

  Status Run() const {
    uint64_t tile_elements = 1;
    for (int d = 0; d < rank_; ++d) tile_elements *= std::min(plan_.sizes[d], edge_[d]);
    last_overlap_staging_bytes =
        2 * tile_elements * plan_.element_size * static_cast<uint64_t>(threads_);
    ThreadPool::Global().ParallelFor(total_, threads_, [&](size_t task) {
      const Index j = TileOf(task);
      const Index mirror = MirrorOf(j);
      if (mirror < j) return;  // the pair runs from its lower tile
      alignas(64) std::byte tiles[2][kSwapTileBytes];
      Read(j, tiles[0]);
      if (mirror != j) Read(mirror, tiles[1]);
      Write(j, tiles[0]);
      if (mirror != j) Write(mirror, tiles[1]);
    });
    return Status::Ok();
  }

 private:
  using Index = std::array<uint64_t, kMaxRank>;  // a tile's index per dim

  bool Reversed(int d) const { return (plan_.overlap.reversed_dims >> d & 1u) != 0; }
  // Tiles of a reversed dim d from each end: ceil(half / edge).
  uint64_t HalfTiles(int d) const { return (plan_.sizes[d] / 2 + edge_[d] - 1) / edge_[d]; }
  // The elements [first, last) of dim d that tile j covers.
  Range TileRange(int d, uint64_t j) const {
    const uint64_t size = plan_.sizes[d];
    if (!Reversed(d)) return {j * edge_[d], std::min(size, (j + 1) * edge_[d])};
    const uint64_t half = size / 2, front = HalfTiles(d);
    if (j < front) return {j * edge_[d], std::min(half, (j + 1) * edge_[d])};
    if (size % 2 == 1 && j == front) return {half, half + 1};
    const uint64_t m = count_[d] - 1 - j;  // the mirror of front tile m
    return {size - std::min(half, (m + 1) * edge_[d]), size - m * edge_[d]};
  }
  Index TileOf(uint64_t task) const {
    Index j{};
    for (int d = rank_ - 1; d >= 0; --d) {
      j[d] = task % count_[d];
      task /= count_[d];
    }
    return j;
  }
  Index MirrorOf(const Index& j) const {
    Index mirror = j;
    for (int d = 0; d < rank_; ++d) {
      if (Reversed(d)) mirror[d] = count_[d] - 1 - j[d];
    }
    if (a_ >= 0) std::swap(mirror[a_], mirror[b_]);
    return mirror;
  }

  // Calls f(in, out, range) for each block of tile j that spans the tile's `whole` innermost dims
  // (in, out: the block's first element; range: the tile's range per dim).
  template <class F>
  void ForEachBlock(const Index& j, int whole, F f) const {
    const auto e = static_cast<ptrdiff_t>(plan_.element_size);
    std::array<Range, kMaxRank> range{};
    for (int d = 0; d < rank_; ++d) range[d] = TileRange(d, j[d]);
    Index x{};
    for (int d = 0; d < rank_; ++d) x[d] = range[d].first;
    while (true) {
      ptrdiff_t in_offset = 0, out_offset = 0;
      for (int d = 0; d < rank_; ++d) {
        in_offset += static_cast<ptrdiff_t>(x[d]) * plan_.input_strides[d] * e;
        out_offset += static_cast<ptrdiff_t>(x[d]) * plan_.output_strides[d] * e;
      }
      f(input_ + in_offset, output_ + out_offset, range);
      int d = rank_ - 1 - whole;
      for (; d >= 0; --d) {
        if (++x[d] < range[d].last) break;
        x[d] = range[d].first;
      }
      if (d < 0) return;
    }
  }
  // Calls f(in, out, count) for each row (innermost-dim run) of tile j.
  template <class F>
  void ForEachRow(const Index& j, F f) const {
    ForEachBlock(j, 1, [&](const std::byte* in, std::byte* out, const auto& range) {
      f(in, out, range[rank_ - 1].last - range[rank_ - 1].first);
    });
  }
  // Calls f(in, out, a_range, b_range) for each 2-d (a, b) plane of tile j.
  template <class F>
  void ForEachPlane(const Index& j, F f) const {
    ForEachBlock(j, 2, [&](const std::byte* in, std::byte* out, const auto& range) {
      f(in, out, range[a_], range[b_]);
    });
  }

  // Reads tile j's input into p (transposed planes, f applied, when transposed_).
  void Read(const Index& j, std::byte* p) const {
    const size_t esize = plan_.element_size;
    if (transposed_) {
      ForEachPlane(j, [&](const std::byte* in, std::byte*, Range ra, Range rb) {
        const uint64_t rows = ra.last - ra.first, columns = rb.last - rb.first;
        transpose_(in, plan_.input_strides[b_] * static_cast<ptrdiff_t>(esize), p,
                   static_cast<ptrdiff_t>(columns * esize), rows, columns);
        p += rows * columns * esize;
      });
      return;
    }
    ForEachRow(j,
               [&](const std::byte* in, std::byte*, uint64_t n) { p = staging_.Read(in, p, n); });
  }
  // Writes tile j's output from p, as Read left it.
  void Write(const Index& j, std::byte* p) const {
    const size_t esize = plan_.element_size;
    if (transposed_) {
      ForEachPlane(j, [&](const std::byte*, std::byte* out, Range ra, Range rb) {
        const uint64_t rows = ra.last - ra.first, columns = rb.last - rb.first;
        for (uint64_t r = 0; r < rows; ++r, p += columns * esize) {
          std::memcpy(out + static_cast<ptrdiff_t>(r) * plan_.output_strides[a_] *
                                static_cast<ptrdiff_t>(esize),
                      p, columns * esize);
        }
      });
      return;
    }
    ForEachRow(
        j, [&](const std::byte*, std::byte* out, uint64_t n) { p = staging_.Write(p, out, n); });
  }

  const Plan& plan_;
  const std::byte* input_;
  std::byte* output_;
  PieceStaging staging_;
  int rank_;
  int a_, b_;  // the swapped dims, -1 when none
  TransposedKernel transpose_;
  int threads_;
  bool transposed_ = false;
  Index edge_{};   // tile extent per dim
  Index count_{};  // tiles per dim
  uint64_t total_ = 1;
};

// Walks that are both invertible, a whole number of elements apart (the Note's element map):
// follows the chains and cycles of next(x), the element whose input x's output overwrites.
class ElementChains {
 public:
  ElementChains(const KernelTable& table, const Plan& plan, const std::byte* input,
                std::byte* output, int threads)
      : kernel_(table.Contiguous(plan.function, plan.type)),
        esize_(plan.element_size),
        rank_(plan.rank),
        count_(plan.element_count),
        input_(input),
        output_(output),
        threads_(ThreadsFor(threads, 2 * plan.element_count * plan.element_size)) {
    uint64_t weight = 1;
    for (int d = rank_ - 1; d >= 0; --d) {
      size_[d] = plan.sizes[d];
      in_[d] = plan.input_strides[d];
      out_[d] = plan.output_strides[d];
      weight_[d] = weight;
      weight *= size_[d];
      if (in_[d] < 0) in_low_ += static_cast<int64_t>(size_[d] - 1) * in_[d];
      in_order_[d] = out_order_[d] = d;
    }
    const auto by = [](const std::array<int64_t, kMaxRank>& s) {
      return [&s](int a, int b) { return StrideMagnitude(s[a]) > StrideMagnitude(s[b]); };
    };
    std::sort(in_order_.begin(), in_order_.begin() + rank_, by(in_));
    std::sort(out_order_.begin(), out_order_.begin() + rank_, by(out_));
    // A whole number of elements (RunPartialOverlap checks); both lie in one buffer.
    distance_ = static_cast<int64_t>(reinterpret_cast<uintptr_t>(output) -
                                     reinterpret_cast<uintptr_t>(input)) /
                static_cast<int64_t>(esize_);
  }

  // Whether the walks of `plan` at these first elements can be followed.
  static bool Applies(const Plan& plan, const std::byte* input, const std::byte* output) {
    const uintptr_t apart =
        reinterpret_cast<uintptr_t>(output) - reinterpret_cast<uintptr_t>(input);
    const uintptr_t magnitude = apart > UINTPTR_MAX / 2 ? uintptr_t{0} - apart : apart;
    return plan.overlap.invertible && plan.rank > 0 && magnitude % plan.element_size == 0;
  }

  Status Run() const {
    const auto tasks = static_cast<size_t>(
        threads_ == 1 ? 1 : std::min<uint64_t>(count_, static_cast<uint64_t>(threads_) * 8));
    last_overlap_staging_bytes = sizeof(Batch) * static_cast<uint64_t>(threads_);
    ThreadPool::Global().ParallelFor(tasks, threads_, [&](size_t t) {
      Batch batch;
      const uint64_t first = count_ * t / tasks, last = count_ * (t + 1) / tasks;
      Coords x = CoordsOf(first), y;
      for (uint64_t e = first; e < last; ++e, Increment(x)) {
        if (!Previous(x, y)) {  // a chain's head
          Follow(x, e, false, batch);
          continue;
        }
        if (LeadsCycle(x, e)) Follow(x, e, true, batch);
      }
    });
    return Status::Ok();
  }

 private:
  using Coords = std::array<uint64_t, kMaxRank>;
  struct Batch {
    alignas(64) std::byte raw[(kChainBatch + 1) * 8];
    alignas(64) std::byte value[kChainBatch * 8];
    std::byte* out[kChainBatch];
  };

  int64_t InputOffset(const Coords& x) const {  // elements from the first input element
    int64_t o = 0;
    for (int d = 0; d < rank_; ++d) o += static_cast<int64_t>(x[d]) * in_[d];
    return o;
  }
  int64_t OutputOffset(const Coords& x) const {
    int64_t o = 0;
    for (int d = 0; d < rank_; ++d) o += static_cast<int64_t>(x[d]) * out_[d];
    return o;
  }
  uint64_t Index(const Coords& x) const {
    uint64_t e = 0;
    for (int d = 0; d < rank_; ++d) e += x[d] * weight_[d];
    return e;
  }
  Coords CoordsOf(uint64_t e) const {
    Coords x{};
    for (int d = rank_ - 1; d >= 0; --d) {
      x[d] = e % size_[d];
      e /= size_[d];
    }
    return x;
  }
  void Increment(Coords& x) const {
    for (int d = rank_ - 1; d >= 0; --d) {
      if (++x[d] < size_[d]) return;
      x[d] = 0;
    }
  }
  // The element whose output (input unless `output`) starts `offset` elements from the first
  // output (input) element, if any: the walk is nested, so the strides from the largest down
  // divide the offset from the walk's lowest element uniquely.
  bool Find(int64_t offset, bool output, Coords& x) const {
    const std::array<int64_t, kMaxRank>& stride = output ? out_ : in_;
    const std::array<int, kMaxRank>& order = output ? out_order_ : in_order_;
    const int64_t low = output ? 0 : in_low_;  // output strides are positive (MakePlan)
    if (offset < low) return false;
    uint64_t u = static_cast<uint64_t>(offset - low);
    for (int k = 0; k < rank_; ++k) {
      const int d = order[k];
      const uint64_t magnitude = StrideMagnitude(stride[d]);
      const uint64_t q = u / magnitude;
      if (q >= size_[d]) return false;
      u -= q * magnitude;
      x[d] = stride[d] > 0 ? q : size_[d] - 1 - q;
    }
    return u == 0;
  }
  bool Next(const Coords& x, Coords& y) const {
    return Find(OutputOffset(x) + distance_, false, y);
  }
  // The element whose output overwrites x's input.
  bool Previous(const Coords& x, Coords& y) const {
    return Find(InputOffset(x) - distance_, true, y);
  }
  // Whether x (index e, not a chain's head) is the lowest element of a cycle. Walks next and
  // previous in turn until one meets a lower element or a chain's end (then no) or comes back to
  // e (yes): along a chain or cycle the indices often rise one way and fall the other (a shifted
  // transpose's chains run along diagonals), so one direction alone could walk a whole chain
  // for each of its elements.
  bool LeadsCycle(const Coords& x, uint64_t e) const {
    Coords forward = x, backward = x, y;
    while (true) {
      if (!Next(forward, y)) return false;
      uint64_t f = Index(y);
      if (f <= e) return f == e;
      forward = y;
      if (!Previous(backward, y)) return false;
      f = Index(y);
      if (f <= e) return f == e;
      backward = y;
    }
  }

  // Runs the chain from `head` (index e), or the cycle it leads, kChainBatch elements per kernel
  // call: each element's output is written only after the input it overwrites (next's) is read.
  void Follow(const Coords& head, uint64_t e, bool cycle, Batch& b) const {
    const auto esize = static_cast<ptrdiff_t>(esize_);
    std::memcpy(b.raw, input_ + InputOffset(head) * esize, esize_);
    Coords x = head, y;
    for (bool done = false; !done;) {
      size_t k = 0;
      while (k < kChainBatch) {
        b.out[k++] = output_ + OutputOffset(x) * esize;
        // A cycle ends at the element whose output is the leader's input, read first.
        if (!Next(x, y) || (cycle && Index(y) == e)) {
          done = true;
          break;
        }
        std::memcpy(b.raw + k * esize_, input_ + InputOffset(y) * esize, esize_);
        x = y;
      }
      kernel_(b.raw, b.value, k);
      for (size_t i = 0; i < k; ++i) std::memcpy(b.out[i], b.value + i * esize_, esize_);
      if (!done) std::memcpy(b.raw, b.raw + k * esize_, esize_);  // x's input, read already
    }
  }

  ContiguousKernel kernel_;
  size_t esize_;
  int rank_;
  uint64_t count_;
  const std::byte* input_;
  std::byte* output_;
  int threads_;
  std::array<uint64_t, kMaxRank> size_{}, weight_{};
  std::array<int64_t, kMaxRank> in_{}, out_{};
  std::array<int, kMaxRank> in_order_{}, out_order_{};  // dims by stride magnitude, largest first
  int64_t in_low_ = 0;                                  // the lowest input element's offset
  int64_t distance_ = 0;                                // first output - first input, elements
};

// A packed vector reversed onto itself at another distance than the mirror one (the Note's
// shifted reversal): element i's output overwrites the input of P - i, whose output overwrites
// i's input, so pairs of tiles {T, P - T} are read whole before either is written, in any order;
// elements whose partner lies outside the vector touch no other element's input.
class ShiftedReversal {
 public:
  // Whether `plan` at these first elements is one: rank 1, input stride -1, output stride 1, the
  // input's first (highest) element a whole number of elements from the output's first.
  static bool Applies(const Plan& plan, const std::byte* input, const std::byte* output) {
    if (plan.rank != 1 || plan.input_strides[0] != -1 || plan.output_strides[0] != 1) return false;
    const uintptr_t apart =
        reinterpret_cast<uintptr_t>(input) - reinterpret_cast<uintptr_t>(output);
    const uintptr_t magnitude = apart > UINTPTR_MAX / 2 ? uintptr_t{0} - apart : apart;
    return magnitude % plan.element_size == 0;
  }

  ShiftedReversal(const KernelTable& table, const Plan& plan, const std::byte* input,
                  std::byte* output, int threads)
      : staging_(table, plan),
        input_(input),
        output_(output),
        n_(static_cast<int64_t>(plan.sizes[0])),
        threads_(ThreadsFor(threads, 2 * plan.element_count * plan.element_size)) {
    // in(P - i) = input - (P - i) = output + i = out(i), in elements.
    partner_ = static_cast<int64_t>(reinterpret_cast<uintptr_t>(input) -
                                    reinterpret_cast<uintptr_t>(output)) /
               static_cast<int64_t>(plan.element_size);
    tile_ = static_cast<int64_t>(kSwapTileBytes / plan.element_size);
    // Paired elements: [lo, hi], both i and P - i in the vector; i < half pairs with one above.
    lo_ = std::max<int64_t>(0, partner_ - (n_ - 1));
    hi_ = std::min<int64_t>(n_ - 1, partner_);
    half_ = lo_ <= hi_ ? std::max(lo_, (partner_ + 1) / 2) : 0;
    if (lo_ > hi_) lo_ = hi_ = n_;  // none: every element is free
    free_low_ = Tiles(lo_);
    free_high_ = Tiles(hi_ >= n_ ? 0 : n_ - 1 - hi_);
    pairs_ = lo_ < half_ ? Tiles(half_ - lo_) : 0;
  }

  Status Run() const {
    last_overlap_staging_bytes =
        2 * static_cast<uint64_t>(tile_) * staging_.esize * static_cast<uint64_t>(threads_);
    const bool fixed = lo_ <= hi_ && hi_ < n_ && partner_ % 2 == 0;  // i = P / 2 onto itself
    const auto tasks = static_cast<size_t>(free_low_ + free_high_ + pairs_ + (fixed ? 1 : 0));
    ThreadPool::Global().ParallelFor(tasks, threads_, [&](size_t task) {
      alignas(64) std::byte tiles[2][kSwapTileBytes];
      auto t = static_cast<int64_t>(task);
      if (t < free_low_) return Stage(t * tile_, std::min(lo_, (t + 1) * tile_), tiles[0]);
      t -= free_low_;
      if (t < free_high_) {
        return Stage(hi_ + 1 + t * tile_, std::min(n_, hi_ + 1 + (t + 1) * tile_), tiles[0]);
      }
      t -= free_high_;
      if (t == pairs_) return Stage(partner_ / 2, partner_ / 2 + 1, tiles[0]);
      const int64_t a = lo_ + t * tile_, b = std::min(half_, a + tile_);
      Read(a, b, tiles[0]);
      Read(partner_ - b + 1, partner_ - a + 1, tiles[1]);
      Write(a, b, tiles[0]);
      Write(partner_ - b + 1, partner_ - a + 1, tiles[1]);
    });
    return Status::Ok();
  }

 private:
  int64_t Tiles(int64_t elements) const { return (elements + tile_ - 1) / tile_; }
  // Elements [a, b) through p: read, then written.
  void Read(int64_t a, int64_t b, std::byte* p) const {
    staging_.Read(input_ - a * static_cast<ptrdiff_t>(staging_.esize), p,
                  static_cast<uint64_t>(b - a));
  }
  void Write(int64_t a, int64_t b, std::byte* p) const {
    staging_.Write(p, output_ + a * static_cast<ptrdiff_t>(staging_.esize),
                   static_cast<uint64_t>(b - a));
  }
  void Stage(int64_t a, int64_t b, std::byte* p) const {
    Read(a, b, p);
    Write(a, b, p);
  }

  PieceStaging staging_;
  const std::byte* input_;
  std::byte* output_;
  int64_t n_;
  int threads_;
  int64_t partner_ = 0;  // P
  int64_t tile_ = 1;     // elements per tile
  int64_t lo_ = 0, hi_ = 0, half_ = 0;
  int64_t free_low_ = 0, free_high_ = 0, pairs_ = 0;  // tiles of each kind
};

// x / d for every x below a limit, by a multiplication when the limit and d fit in 32 bits
// (Lemire, Kaser and Kurz, "Faster remainder by direct computation", 2019: exact for all 32-bit x
// and d >= 2), else by a division.
class Divider {
 public:
  Divider(uint64_t d, uint64_t limit)
      : d_(d), m_(d >= 2 ? UINT64_MAX / d + 1 : 0), fast_(d >= 2 && limit <= (uint64_t{1} << 32)) {}
  uint64_t Quotient(uint64_t x) const {
    return fast_ ? static_cast<uint64_t>((static_cast<unsigned __int128>(m_) * x) >> 64) : x / d_;
  }

 private:
  uint64_t d_, m_;
  bool fast_;
};

// The largest divisor of n that is at most `cap` (0 when cap is 0).
uint64_t LargestDivisorAtMost(uint64_t n, uint64_t cap) {
  if (cap >= n) return n;
  uint64_t best = 0;
  for (uint64_t d = 1; d <= n / d; ++d) {
    if (n % d != 0) continue;
    if (d <= cap) best = std::max(best, d);
    if (n / d <= cap) best = std::max(best, n / d);
  }
  return best;
}

// A batch of packed R x C matrices of cells of k elements (k = 1: of elements), one after another,
// transposed onto themselves: the input's cell (i, j) at (i * C + j) * k, its output at
// (j * R + i) * k (the Note's block moves).
struct MatrixShape {
  uint64_t batch = 1, rows = 1, columns = 1, cell = 1;
};
class InPlaceTranspose {
 public:
  // Applies `function` (kCopy: moves bits only) on the way.
  InPlaceTranspose(const KernelTable& table, const Plan& plan, Function function,
                   const MatrixShape& shape, std::byte* base, int threads)
      : transpose_(table.Transposed(function, plan.type)),
        kernel_(function == Function::kCopy ? nullptr : table.Contiguous(function, plan.type)),
        esize_(plan.element_size),
        base_(base),
        shape_(shape),
        threads_(ThreadsFor(threads, 2 * plan.element_count * plan.element_size)) {
    // Each thread's area: a slot (blocks and chunks) and a bitmap marking the positions of a
    // window whose cycle is decided (up to a quarter of the area, at most kMaxMarkBytes).
    const uint64_t area =
        transpose_staging_bytes.load(std::memory_order_relaxed) / static_cast<uint64_t>(threads_);
    mark_words_ = std::max<uint64_t>(1, std::min(area / 4, kMaxMarkBytes) / 8);
    slot_ = std::max<uint64_t>(8, area - std::min(area, mark_words_ * 8)) / 8 * 8;
    area_ = slot_ + mark_words_ * 8;
    // Elements: blocks of c rows (c | R) or of c columns (c | C) that fit a thread's slot; the
    // larger chunk wins.
    if (shape_.cell == 1) {
      by_rows_ = LargestDivisorAtMost(shape_.rows, slot_ / (shape_.columns * esize_));
      by_columns_ = LargestDivisorAtMost(shape_.columns, slot_ / (shape_.rows * esize_));
    }
  }

  // Whether cells are moved, or a row or a column fits a thread's slot (else the element map is
  // followed instead).
  bool Feasible() const { return shape_.cell > 1 || by_rows_ > 0 || by_columns_ > 0; }

  // The temporary memory Run needs (the same for every shape on the same threads).
  uint64_t StagingBytes() const { return area_ * static_cast<uint64_t>(threads_); }

  // Runs in `buffer` (StagingBytes, 8-byte aligned).
  void Run(uint64_t* buffer) {
    buffer_ = buffer;
    last_overlap_staging_bytes = StagingBytes();
    const uint64_t rows = shape_.rows, columns = shape_.columns;
    const uint64_t cell = shape_.cell * esize_, matrix = rows * columns * cell;
    const auto copy = [](const std::byte* from, std::byte* to, size_t n) {
      if (from != to) std::memcpy(to, from, n);
    };
    for (uint64_t m = 0; m < shape_.batch; ++m) {
      std::byte* const base = base_ + m * matrix;
      if (shape_.cell > 1) {
        // Cells moved whole, f applied on the way; cells larger than a slot in slot-sized
        // pieces, each piece position permuted like the cells.
        const uint64_t piece = slot_ / esize_ * esize_;
        const auto compute = [this](const std::byte* from, std::byte* to, size_t n) {
          kernel_(from, to, n / esize_);
        };
        if (cell <= piece) {
          if (kernel_ == nullptr) {
            PackedChunks(base, rows, columns, cell, copy);
          } else {
            PackedChunks(base, rows, columns, cell, compute);
          }
          continue;
        }
        for (uint64_t at = 0; at < cell; at += piece) {
          if (kernel_ == nullptr) {
            Chunks(base + at, rows, columns, cell, std::min(piece, cell - at), copy);
          } else {
            Chunks(base + at, rows, columns, cell, std::min(piece, cell - at), compute);
          }
        }
      } else if (by_rows_ >= by_columns_) {
        const uint64_t c = by_rows_;
        Blocks(base, rows / c, c * columns, [&](std::byte* block, const std::byte* staged) {
          transpose_(staged, static_cast<ptrdiff_t>(columns * esize_), block,
                     static_cast<ptrdiff_t>(c * esize_), columns, c);
        });
        PackedChunks(base, rows / c, columns, c * esize_, copy);
      } else {
        const uint64_t c = by_columns_;
        PackedChunks(base, rows, columns / c, c * esize_, copy);
        Blocks(base, columns / c, rows * c, [&](std::byte* block, const std::byte* staged) {
          transpose_(staged, static_cast<ptrdiff_t>(c * esize_), block,
                     static_cast<ptrdiff_t>(rows * esize_), c, rows);
        });
      }
    }
  }

 private:
  // Each of `count` blocks of `elements` at `base`: copied to a thread's slot, then
  // write(block, staged) computes it back in place.
  template <class Write>
  void Blocks(std::byte* base, uint64_t count, uint64_t elements, const Write& write) const {
    const uint64_t bytes = elements * esize_;
    const auto tasks = static_cast<size_t>(std::min<uint64_t>(count, threads_));
    ThreadPool::Global().ParallelFor(tasks, threads_, [&](size_t t) {
      std::byte* const slot = Slot(t);
      for (uint64_t i = count * t / tasks; i < count * (t + 1) / tasks; ++i) {
        std::byte* const block = base + i * bytes;
        std::memcpy(slot, block, bytes);
        write(block, slot);
      }
    });
  }
  // The K x N matrix of packed `chunk`-byte chunks at `base` transposed in place as by Chunks,
  // small chunks grouped first: blocks of c rows of chunks (c | K) are transposed through a slot
  // (c x N -> N x c chunks, bits only), which leaves the (K/c) x N matrix of c-chunk groups to
  // transpose: chunk (i1 * c + i2, j) is then at ((i1 * N + j) * c + i2), and group (i1, j) goes
  // to j * K/c + i1, i.e. the chunk to j * K + i. Repeated while chunks stay below
  // kGroupedChunkBytes: a cycle moves whole groups, fewer and longer random accesses.
  template <class Move>
  void PackedChunks(std::byte* base, uint64_t k, uint64_t n, uint64_t chunk,
                    const Move& move) const {
    while (chunk < kGroupedChunkBytes) {
      const uint64_t c = LargestDivisorAtMost(k, slot_ / (n * chunk));
      if (c < 2) break;
      Blocks(base, k / c, c * n * chunk / esize_, [&](std::byte* block, const std::byte* staged) {
        std::byte* to = block;
        for (uint64_t j = 0; j < n; ++j) {
          for (uint64_t i = 0; i < c; ++i, to += chunk) {
            std::memcpy(to, staged + (i * n + j) * chunk, chunk);
          }
        }
      });
      k /= c;
      chunk *= c;
    }
    Chunks(base, k, n, chunk, chunk, move);
  }

  std::byte* Slot(size_t t) const { return reinterpret_cast<std::byte*>(buffer_) + t * area_; }
  uint64_t* Marks(size_t t) const { return buffer_ + (t * area_ + slot_) / 8; }

  // The K x N matrix of chunks at `base` (`stride` bytes apart, `chunk` bytes each, at most a
  // slot) transposed in place: the chunk at i * N + j moves to j * K + i, by move(from, to,
  // bytes) (distinct chunks or from the slot; fixed chunks onto themselves). Each cycle of the
  // permutation runs from its lowest position, holding one chunk in a thread's slot. Whether s
  // leads its cycle: walking the cycle from s meets no lower position before s again. Threads
  // take ranges of s, each range in windows of one bitmap: positions of the window that a walk
  // passes are marked and need no walk of their own (their cycle is decided, run by a lower
  // leader or by this one), which keeps the walks near one step per position.
  template <class Move>
  void Chunks(std::byte* base, uint64_t k, uint64_t n, uint64_t stride, uint64_t chunk,
              const Move& move) const {
    const uint64_t total = k * n;
    const Divider by_k(k, total);
    // The position whose chunk moves to x.
    const auto source = [&](uint64_t x) {
      const uint64_t q = by_k.Quotient(x);
      return (x - q * k) * n + q;
    };
    const auto prefetch = [&](uint64_t x) {
      const std::byte* p = base + x * stride;
      for (uint64_t b = 0; b < std::min<uint64_t>(chunk, 256); b += 64) __builtin_prefetch(p + b);
    };
    const uint64_t window = mark_words_ * 64;
    const auto tasks = static_cast<size_t>(std::min<uint64_t>(total, threads_));
    ThreadPool::Global().ParallelFor(tasks, threads_, [&](size_t t) {
      std::byte* const slot = Slot(t);
      uint64_t* const marks = Marks(t);
      const uint64_t last = total * (t + 1) / tasks;
      for (uint64_t w = total * t / tasks; w < last; w += window) {
        const uint64_t end = std::min(last, w + window);
        std::fill(marks, marks + mark_words_, uint64_t{0});
        for (uint64_t s = w; s < end; ++s) {
          if ((marks[(s - w) / 64] >> ((s - w) % 64) & 1u) != 0) continue;
          uint64_t y = source(s);
          if (y == s) {
            move(base + s * stride, base + s * stride, chunk);  // a no-op for a copy
            continue;
          }
          for (; y > s; y = source(y)) {
            if (y < end) marks[(y - w) / 64] |= uint64_t{1} << ((y - w) % 64);
          }
          if (y != s) continue;  // a lower position leads this cycle
          std::memcpy(slot, base + s * stride, chunk);
          // The moves' sources are known ahead: fetch a few of them early.
          constexpr int kAhead = 8;
          uint64_t x = s, ahead = source(s);
          for (int i = 0; i < kAhead && ahead != s; ++i, ahead = source(ahead)) prefetch(ahead);
          for (y = source(x); y != s; x = y, y = source(y)) {
            if (ahead != s) {
              prefetch(ahead);
              ahead = source(ahead);
            }
            move(base + y * stride, base + x * stride, chunk);
          }
          move(slot, base + x * stride, chunk);
        }
      }
    });
  }

  TransposedKernel transpose_;
  ContiguousKernel kernel_;
  size_t esize_;
  std::byte* base_;
  MatrixShape shape_;
  int threads_;
  uint64_t area_, slot_;                   // bytes per thread, of them for blocks and chunks
  uint64_t mark_words_;                    // the rest: a bitmap of this many words
  uint64_t by_rows_ = 0, by_columns_ = 0;  // the block heights and widths that fit, 0 when none
  uint64_t* buffer_ = nullptr;             // the threads' areas, during Run
};

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

// Whether every one of PackedPermutation's steps fits a thread's slot.
bool PackedStepsFit(const KernelTable& table, const Plan& plan,
                    const std::array<MatrixShape, kMaxRank>& steps, int count, std::byte* base,
                    int threads) {
  for (int i = 0; i < count; ++i) {
    if (!InPlaceTranspose(table, plan, Function::kCopy, steps[i], base, threads).Feasible()) {
      return false;
    }
  }
  return true;
}

// The staging the steps' transposes share; null, with `status` set, when it cannot be had. Taken
// before anything is written, so that a failure leaves the output as it was.
std::unique_ptr<uint64_t[]> PackedStepsStaging(const KernelTable& table, const Plan& plan,
                                               const MatrixShape& first, std::byte* base,
                                               int threads, Status& status) {
  const uint64_t bytes =
      InPlaceTranspose(table, plan, Function::kCopy, first, base, threads).StagingBytes();
  std::unique_ptr<uint64_t[]> buffer(new (std::nothrow) uint64_t[bytes / 8]);
  if (!buffer) status = StagingFailed(bytes);
  return buffer;
}

// Runs the transposes of PackedPermutation's steps over the packed bytes at `base` in `staging`
// (PackedStepsStaging), f applied by the last.
void RunPackedStepsIn(const KernelTable& table, const Plan& plan,
                      const std::array<MatrixShape, kMaxRank>& steps, int count, std::byte* base,
                      int threads, uint64_t* staging) {
  for (int i = 0; i < count; ++i) {
    const Function f = i + 1 == count ? plan.function : Function::kCopy;
    InPlaceTranspose(table, plan, f, steps[i], base, threads).Run(staging);
  }
}

// Runs the transposes of PackedPermutation's steps over the packed bytes at `base`, f applied by
// the last; false (nothing done) when some step fits no thread's slot.
bool RunPackedSteps(const KernelTable& table, const Plan& plan,
                    const std::array<MatrixShape, kMaxRank>& steps, int count, std::byte* base,
                    int threads, Status& status) {
  if (!PackedStepsFit(table, plan, steps, count, base, threads)) return false;
  const std::unique_ptr<uint64_t[]> staging =
      PackedStepsStaging(table, plan, steps[0], base, threads, status);
  if (!staging) return true;
  RunPackedStepsIn(table, plan, steps, count, base, threads, staging.get());
  status = Status::Ok();
  return true;
}

// A tensor of `type` with these sizes and strides, its total size exactly the span its elements
// address: the descriptors of the sub-plans the schemes below make.
TensorDesc SpannedDesc(DataType type, std::vector<uint64_t> sizes, std::vector<int64_t> strides) {
  TensorDesc t = TensorDesc::Strided(type, std::move(sizes), std::move(strides));
  t.total_tensor_size_in_bytes = *SpanInBytes(t.type, t.sizes, t.strides);
  return t;
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
  if (count == 0 || move.overlap.staging != OverlapStaging::kChunked) return false;
  // Every step must fit, and the permutation's staging be had, before anything is written.
  if (!PackedStepsFit(table, permute, steps, count, output, threads)) return false;
  const std::unique_ptr<uint64_t[]> staging =
      PackedStepsStaging(table, permute, steps[0], output, threads, status);
  if (!staging) return true;
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
  const uint64_t moved = last_overlap_staging_bytes;
  RunPackedStepsIn(table, permute, steps, count, output, threads, staging.get());
  status = Status::Ok();
  last_overlap_staging_bytes = std::max(moved, last_overlap_staging_bytes);
  return true;
}

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
  last_overlap_staging_bytes = 0;
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

// The Note's last resort: the plan from a copy of the whole input span.
Status RunFromInputCopy(const KernelTable& table, const Plan& plan, const std::byte* input,
                        std::byte* output, int threads) {
  last_overlap_staging_bytes = plan.input_span;
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

// Out of line: it keeps Backend::Run's frame small for the calls that need none of this.
[[gnu::noinline]] Status RunPartialOverlap(const KernelTable& table, const Plan& plan,
                                           const std::byte* input, std::byte* output, int threads) {
  const std::byte* const first_in = input + plan.input_offset;
  std::byte* const first_out = output + plan.output_offset;
  if (plan.overlap.staging == OverlapStaging::kChunked) {
    return ChunkedOverlap(table, plan, first_in, first_out, threads)
        .Run(OverlapDirection(plan, first_in, first_out));
  }
  if (plan.overlap.staging == OverlapStaging::kSwapTiles &&
      reinterpret_cast<uintptr_t>(first_in) - reinterpret_cast<uintptr_t>(first_out) ==
          plan.overlap.swap_distance) {
    return SwappedTiles(table, plan, first_in, first_out, threads).Run();
  }
  if (plan.input_span > small_input_copy_bytes.load(std::memory_order_relaxed)) {
    Status status;
    if (RunThroughBroadcastSlice(table, plan, first_in, first_out, threads, status)) return status;
    if (ShiftedReversal::Applies(plan, first_in, first_out)) {
      return ShiftedReversal(table, plan, first_in, first_out, threads).Run();
    }
    std::array<MatrixShape, kMaxRank> steps;
    if (const int count = PackedPermutation::Steps(plan, first_in, first_out, steps);
        count > 0 && RunPackedSteps(table, plan, steps, count, first_out, threads, status)) {
      return status;
    }
    if (RunThroughOutputSpan(table, plan, first_in, first_out, threads, status)) return status;
    if (ElementChains::Applies(plan, first_in, first_out)) {
      return ElementChains(table, plan, first_in, first_out, threads).Run();
    }
  }
  return RunFromInputCopy(table, plan, input, output, threads);
}

}  // namespace eltwise::cpu

namespace eltwise {

uint64_t LastOverlapStagingBytes() { return cpu::last_overlap_staging_bytes; }

void SetPartialOverlapLimits(uint64_t copy_bytes, uint64_t transpose_bytes) {
  cpu::small_input_copy_bytes.store(copy_bytes, std::memory_order_relaxed);
  cpu::transpose_staging_bytes.store(transpose_bytes, std::memory_order_relaxed);
}

}  // namespace eltwise
