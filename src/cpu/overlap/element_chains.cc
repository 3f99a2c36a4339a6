// The element map (both walks invertible, a whole number of elements apart): the chains and cycles
// of next(x), each followed holding one raw value at a time (Note [partial overlap on the CPU] in
// partial_overlap.cc).
#include <algorithm>
#include <array>
#include <cstring>

#include "cpu/layout_walkers.h"
#include "cpu/overlap/internal.h"
#include "cpu/thread_pool.h"

namespace eltwise::cpu::overlap {
namespace {

// Elements of a chain that the element-map follower computes with one kernel call.
constexpr size_t kChainBatch = 256;

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
  static bool Applies(const Plan& plan, const OverlapAnalysis& overlap, const std::byte* input,
                      const std::byte* output) {
    const uintptr_t apart =
        reinterpret_cast<uintptr_t>(output) - reinterpret_cast<uintptr_t>(input);
    const uintptr_t magnitude = apart > UINTPTR_MAX / 2 ? uintptr_t{0} - apart : apart;
    return overlap.invertible && plan.rank > 0 && magnitude % plan.element_size == 0;
  }

  Status Run() const {
    const auto tasks = static_cast<size_t>(
        threads_ == 1 ? 1 : std::min<uint64_t>(count_, static_cast<uint64_t>(threads_) * 8));
    last_overlap_temporary_bytes = sizeof(Batch) * static_cast<uint64_t>(threads_);
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

}  // namespace

bool ElementChainsApply(const Plan& plan, const OverlapAnalysis& overlap, const std::byte* input,
                        const std::byte* output) {
  return ElementChains::Applies(plan, overlap, input, output);
}

Status RunElementChains(const KernelTable& table, const Plan& plan, const std::byte* input,
                        std::byte* output, int threads) {
  return ElementChains(table, plan, input, output, threads).Run();
}

}  // namespace eltwise::cpu::overlap
