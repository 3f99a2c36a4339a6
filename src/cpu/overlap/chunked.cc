// The chunked scheme (OverlapScheme::kChunked): both walks rise with the linear index, so bounded
// chunks are exact at any distance (Note [partial overlap on the CPU] in partial_overlap.cc, rising
// walks).
#include <algorithm>
#include <cstring>
#include <memory>
#include <new>

#include "cpu/layout_walkers.h"
#include "cpu/overlap/internal.h"
#include "cpu/overlap/piece_buffer.h"
#include "cpu/row_walker.h"
#include "cpu/thread_pool.h"

namespace eltwise::cpu::overlap {
namespace {

// Partial overlap of rising walks is processed in chunks of at most this many bytes (one stays in
// L1), a window of at most kOverlapWindowBytes of them at a time with threads.
constexpr size_t kOverlapChunkBytes = size_t{16} << 10;
constexpr size_t kOverlapWindowBytes = size_t{512} << 10;
// A packed piece whose output lies at least this far from its input runs without the temporary,
// in sub-pieces of that distance (the Note). A larger distance (2048) measured slower on
// `eltwise bench overlap`.
constexpr size_t kOverlapDirectBytes = 256;

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
      : plan_(plan), input_(input), output_(output), pieces_(table, plan) {
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
    if (!buffer_) return TemporaryFailed(bytes);
    last_overlap_temporary_bytes = bytes;
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
    const int64_t delta = pieces_.out_step - pieces_.in_step;
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
        f(walk.in + static_cast<ptrdiff_t>(lo) * pieces_.in_step,
          walk.out + static_cast<ptrdiff_t>(lo) * pieces_.out_step, hi - lo);
      }
      if (r + 1 < row_count) rising ? walk.Next() : walk.Previous();
    }
  }

  // Reads the pieces of chunk k that `direct` does not take into `p`, in the walk's order.
  template <class Direct>
  void Stage(uint64_t k, OverlapPart part, bool rising_walk, std::byte* p,
             const Direct& direct) const {
    ForEachPiece(k, part, rising_walk, [&](const std::byte* in, std::byte* out, uint64_t count) {
      if (!direct.Takes(in, out, count)) p = pieces_.Read(in, p, count);
    });
  }
  // Writes the pieces of chunk k: those `direct` takes straight from the input, the others from
  // `p`, as Stage left them.
  template <class Direct>
  void Write(uint64_t k, OverlapPart part, bool rising_walk, std::byte* p,
             const Direct& direct) const {
    ForEachPiece(k, part, rising_walk, [&](const std::byte* in, std::byte* out, uint64_t count) {
      if (!direct.TryRun(pieces_.kernel, in, out, count)) p = pieces_.Write(p, out, count);
    });
  }

  // The lowest input (out: output) address of chunk k (a rising walk).
  uintptr_t FirstElement(uint64_t k, bool out) const {
    const uint64_t row = rows_per_chunk_ > 1 ? k * rows_per_chunk_ : k / per_row_;
    const uint64_t begin = rows_per_chunk_ > 1 ? 0 : (k % per_row_) * segment_;
    const RowWalker walk(plan_, inner_, input_, output_, row);
    return reinterpret_cast<uintptr_t>(
        out ? walk.out + static_cast<ptrdiff_t>(begin) * pieces_.out_step
            : walk.in + static_cast<ptrdiff_t>(begin) * pieces_.in_step);
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
    const std::byte* p = out ? walk.out + static_cast<ptrdiff_t>(end - 1) * pieces_.out_step
                             : walk.in + static_cast<ptrdiff_t>(end - 1) * pieces_.in_step;
    return reinterpret_cast<uintptr_t>(p) + pieces_.esize;
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
    if (!pieces_.Packed()) return good;
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
                     pieces_.kernel(in, out, count);
                   });
    });
  }
  // One chunk on the calling thread, walked in the pass's order.
  void RunOne(uint64_t k, OverlapPart part, bool rising) const {
    const FarFromInput direct{pieces_.Packed(), rising, pieces_.esize};
    Stage(k, part, rising, buffer_.get(), direct);
    Write(k, part, rising, buffer_.get(), direct);
  }
  // A round of chunks on several threads: every chunk's pieces are read into its slot, then
  // written.
  void RunRound(Range r, OverlapPart part, bool rising) const {
    const uint64_t count = r.last - r.first;
    const uintptr_t limit = rising ? LastElement(r.last - 1, true) : FirstElement(r.first, true);
    const BeyondRound direct{pieces_.Packed(), rising, limit, pieces_.esize};
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
  PieceBuffer pieces_;
  int inner_;
  uint64_t n_;     // elements per row
  uint64_t rows_;  // rows (the outer dims' count)
  uint64_t rows_per_chunk_, segment_, per_row_, chunks_;
  int threads_;
  uint64_t window_;  // chunks per round
  uint64_t slot_;    // buffer bytes per chunk
  std::unique_ptr<std::byte[]> buffer_;
};

}  // namespace

Status RunChunked(const KernelTable& table, const Plan& plan, const OverlapAnalysis& overlap,
                  const std::byte* input, std::byte* output, int threads) {
  return ChunkedOverlap(table, plan, input, output, threads)
      .Run(OverlapDirection(overlap, input, output));
}

}  // namespace eltwise::cpu::overlap
