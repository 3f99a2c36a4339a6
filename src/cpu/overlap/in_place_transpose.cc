// In-place transposes of batches of packed matrices, the steps of a packed permutation: blocks
// moved through a bounded buffer, then the chunk permutation's cycles followed one chunk at a time
// (Note [partial overlap on the CPU] in partial_overlap.cc, block moves).
#include <algorithm>
#include <cstring>
#include <memory>
#include <new>

#include "cpu/layout_walkers.h"
#include "cpu/overlap/internal.h"
#include "cpu/thread_pool.h"

namespace eltwise::cpu::overlap {
namespace {

// A chunk transpose first groups chunks smaller than this (InPlaceTranspose::PackedChunks).
constexpr uint64_t kGroupedChunkBytes = 512;
// Of a thread's share of transpose_buffer_bytes, its bitmap of decided cycle positions takes at
// most this much.
constexpr uint64_t kMaxMarkBytes = uint64_t{64} << 10;

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

// A batch of matrices (MatrixShape) transposed onto themselves through a bounded buffer.
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
        transpose_buffer_bytes.load(std::memory_order_relaxed) / static_cast<uint64_t>(threads_);
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
  uint64_t BufferBytes() const { return area_ * static_cast<uint64_t>(threads_); }

  // Runs in `buffer` (BufferBytes, 8-byte aligned).
  void Run(uint64_t* buffer) {
    buffer_ = buffer;
    last_overlap_temporary_bytes = BufferBytes();
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

}  // namespace

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

// The buffer the steps' transposes share; null, with `status` set, when it cannot be had. Taken
// before anything is written, so that a failure leaves the output as it was.
std::unique_ptr<uint64_t[]> PackedStepsBuffer(const KernelTable& table, const Plan& plan,
                                              const MatrixShape& first, std::byte* base,
                                              int threads, Status& status) {
  const uint64_t bytes =
      InPlaceTranspose(table, plan, Function::kCopy, first, base, threads).BufferBytes();
  std::unique_ptr<uint64_t[]> buffer(new (std::nothrow) uint64_t[bytes / 8]);
  if (!buffer) status = TemporaryFailed(bytes);
  return buffer;
}

// Runs the transposes of PackedPermutation's steps over the packed bytes at `base` in `buffer`
// (PackedStepsBuffer), f applied by the last.
void RunPackedStepsIn(const KernelTable& table, const Plan& plan,
                      const std::array<MatrixShape, kMaxRank>& steps, int count, std::byte* base,
                      int threads, uint64_t* buffer) {
  for (int i = 0; i < count; ++i) {
    const Function f = i + 1 == count ? plan.function : Function::kCopy;
    InPlaceTranspose(table, plan, f, steps[i], base, threads).Run(buffer);
  }
}

}  // namespace eltwise::cpu::overlap
