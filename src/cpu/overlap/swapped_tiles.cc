// The mirror tiles (OverlapScheme::kSwapTiles at its swap distance): each pair of a tile and its
// mirror is read whole before either is written (Note [partial overlap on the CPU] in
// partial_overlap.cc, mirror tiles).
#include <algorithm>
#include <array>
#include <cstring>
#include <utility>

#include "cpu/layout_walkers.h"
#include "cpu/overlap/internal.h"
#include "cpu/overlap/piece_buffer.h"
#include "cpu/thread_pool.h"

namespace eltwise::cpu::overlap {
namespace {

// A kSwapTiles plan at its mirror distance (the Note's mirror tiles): each task reads a tile and
// its mirror into two buffers of kSwapTileBytes, then writes both.
class SwappedTiles {
 public:
  SwappedTiles(const KernelTable& table, const Plan& plan, const OverlapAnalysis& overlap,
               const std::byte* input, std::byte* output, int threads)
      : plan_(plan),
        input_(input),
        output_(output),
        pieces_(table, plan),
        rank_(plan.rank),
        a_(overlap.swap_a),
        b_(overlap.swap_b),
        reversed_dims_(overlap.reversed_dims),
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
    last_overlap_temporary_bytes =
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

  bool Reversed(int d) const { return (reversed_dims_ >> d & 1u) != 0; }
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
    ForEachRow(j, [&](const std::byte* in, std::byte*, uint64_t n) { p = pieces_.Read(in, p, n); });
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
    ForEachRow(j,
               [&](const std::byte*, std::byte* out, uint64_t n) { p = pieces_.Write(p, out, n); });
  }

  const Plan& plan_;
  const std::byte* input_;
  std::byte* output_;
  PieceBuffer pieces_;
  int rank_;
  int a_, b_;               // the swapped dims, -1 when none
  unsigned reversed_dims_;  // bit d: dim d reversed
  TransposedKernel transpose_;
  int threads_;
  bool transposed_ = false;
  Index edge_{};   // tile extent per dim
  Index count_{};  // tiles per dim
  uint64_t total_ = 1;
};

}  // namespace

Status RunSwappedTiles(const KernelTable& table, const Plan& plan, const OverlapAnalysis& overlap,
                       const std::byte* input, std::byte* output, int threads) {
  return SwappedTiles(table, plan, overlap, input, output, threads).Run();
}

}  // namespace eltwise::cpu::overlap
