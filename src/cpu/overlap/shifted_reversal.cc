// A packed vector reversed onto itself at another distance than the mirror one: pairs of tiles
// {T, P - T} read, then written, in any order (Note [partial overlap on the CPU] in
// partial_overlap.cc).
#include <algorithm>

#include "cpu/layout_walkers.h"
#include "cpu/overlap/internal.h"
#include "cpu/overlap/piece_buffer.h"
#include "cpu/thread_pool.h"

namespace eltwise::cpu::overlap {
namespace {

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
      : pieces_(table, plan),
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
    last_overlap_temporary_bytes =
        2 * static_cast<uint64_t>(tile_) * pieces_.esize * static_cast<uint64_t>(threads_);
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
    pieces_.Read(input_ - a * static_cast<ptrdiff_t>(pieces_.esize), p,
                 static_cast<uint64_t>(b - a));
  }
  void Write(int64_t a, int64_t b, std::byte* p) const {
    pieces_.Write(p, output_ + a * static_cast<ptrdiff_t>(pieces_.esize),
                  static_cast<uint64_t>(b - a));
  }
  void Stage(int64_t a, int64_t b, std::byte* p) const {
    Read(a, b, p);
    Write(a, b, p);
  }

  PieceBuffer pieces_;
  const std::byte* input_;
  std::byte* output_;
  int64_t n_;
  int threads_;
  int64_t partner_ = 0;  // P
  int64_t tile_ = 1;     // elements per tile
  int64_t lo_ = 0, hi_ = 0, half_ = 0;
  int64_t free_low_ = 0, free_high_ = 0, pairs_ = 0;  // tiles of each kind
};

}  // namespace

bool ShiftedReversalApplies(const Plan& plan, const std::byte* input, const std::byte* output) {
  return ShiftedReversal::Applies(plan, input, output);
}

Status RunShiftedReversal(const KernelTable& table, const Plan& plan, const std::byte* input,
                          std::byte* output, int threads) {
  return ShiftedReversal(table, plan, input, output, threads).Run();
}

}  // namespace eltwise::cpu::overlap
