// Transposed tiles (KernelTable::transposed): L x L blocks, L = 16 / sizeof(T), one per 128-bit
// block of vectors that hold L input rows, transposed in registers by log2(L) rounds of
// InterleaveLower/InterleaveUpper at doubling lane widths; the op is applied to each transposed
// vector, stored whole along one output row (TransposeRangeToRows: the blocks come from input
// rows L apart) or a block at a time along L output rows (TransposeRangeInBlocks: the blocks are
// one input row's consecutive elements); TransposedVector picks one. Vectors at the far edges are
// shifted back to end exactly at the tile's edge (they recompute a few elements; input and output
// do not overlap, so this is exact). Tiles narrower than L fall back to the scalar functor. Not on
// the scalar target (one lane) nor SVE (whose 128-bit interleaves this code does not use).
//
// This target's transposed entries (FillTransposedKernels); its own translation unit so that the
// kernel families compile in parallel.
#include <algorithm>
#include <cstring>
#include <numeric>
#include <type_traits>

#include "cpu/kernel_table.h"

#ifndef HWY_COMPILE_ALL_ATTAINABLE  // every attainable target, the same set in each unit
#define HWY_COMPILE_ALL_ATTAINABLE
#endif
#undef HWY_TARGET_INCLUDE
#define HWY_TARGET_INCLUDE "cpu/simd/simd_transposed.cc"
#include <hwy/foreach_target.h>  // IWYU pragma: keep
// Must come after foreach_target.h.
#include <hwy/cache_control.h>
#include <hwy/highway.h>

#include "cpu/simd/simd_ops-inl.h"

HWY_BEFORE_NAMESPACE();
namespace eltwise {
namespace HWY_NAMESPACE {

template <class Functor, class T>
void ScalarTransposed(const std::byte* in, ptrdiff_t in_stride, std::byte* out, ptrdiff_t out_pitch,
                      size_t a_count, size_t b_count) {
  for (size_t a = 0; a < a_count; ++a) {
    for (size_t b = 0; b < b_count; ++b) {
      T x;
      std::memcpy(&x, in + static_cast<ptrdiff_t>(b) * in_stride + a * sizeof(T), sizeof(T));
      const T y = Functor{}(x);
      std::memcpy(out + static_cast<ptrdiff_t>(a) * out_pitch + b * sizeof(T), &y, sizeof(T));
    }
  }
}

#if ELTWISE_HWY_TRANSPOSE
// One round: vector k of the result interleaves rows 2k and 2k+1 (lower halves of their
// kLaneBytes lanes), vector k + L/2 their upper halves. After log2(L) rounds vector i holds
// column BitReverse(i) (checked by the tests against the reference on every target).
template <size_t kLaneBytes, class D, size_t L>
HWY_INLINE void InterleaveRound(D d, hn::Vec<D> (&rows)[L]) {
  const hn::Repartition<hwy::UnsignedFromSize<kLaneBytes>, D> dw;
  hn::Vec<D> next[L];
  for (size_t k = 0; k < L / 2; ++k) {
    const auto lo = hn::BitCast(dw, rows[2 * k]);
    const auto hi = hn::BitCast(dw, rows[2 * k + 1]);
    next[k] = hn::BitCast(d, hn::InterleaveLower(dw, lo, hi));
    next[k + L / 2] = hn::BitCast(d, hn::InterleaveUpper(dw, lo, hi));
  }
  for (size_t k = 0; k < L; ++k) rows[k] = next[k];
}

constexpr size_t BitReverse(size_t i, size_t bits) {
  size_t r = 0;
  for (size_t b = 0; b < bits; ++b) r |= ((i >> b) & 1) << (bits - 1 - b);
  return r;
}

// Transposes each 128-bit block of `rows` (an L x L block, L = 16 / lane size) in place: log2(L)
// rounds, after which vector i holds the block's column BitReverse(i).
template <class D, size_t L>
HWY_INLINE void TransposeBlocksInRegisters(D d, hn::Vec<D> (&rows)[L]) {
  using Lane = hn::TFromD<D>;
  static_assert(L == 16 / sizeof(Lane));
  if constexpr (sizeof(Lane) == 1) InterleaveRound<1>(d, rows);
  if constexpr (sizeof(Lane) <= 2) InterleaveRound<2>(d, rows);
  if constexpr (sizeof(Lane) <= 4) InterleaveRound<4>(d, rows);
  InterleaveRound<8>(d, rows);
}

// Loads a vector of D whose 128-bit block k comes from p + k * block_stride.
template <class D>
HWY_INLINE hn::Vec<D> LoadBlocks(D d, const std::byte* p, ptrdiff_t block_stride) {
  using Lane = hn::TFromD<D>;
  constexpr size_t kBytes = hn::MaxLanes(D()) * sizeof(Lane);
  if constexpr (kBytes <= 16) {
    return hn::LoadU(d, reinterpret_cast<const Lane*>(p));
  } else {
    const hn::Half<D> dh;
    constexpr ptrdiff_t kHalfBlocks = static_cast<ptrdiff_t>(kBytes / 32);
    return hn::Combine(d, LoadBlocks(dh, p + kHalfBlocks * block_stride, block_stride),
                       LoadBlocks(dh, p, block_stride));
  }
}

// An L x (L * N) piece of the tile, N = the 128-bit blocks of D: vector i holds input rows i,
// i + L, ..., i + (N - 1) L (row stride in_stride), L lanes of each, one per block, so each block
// is an L x L block, transposed in place in the registers (the interleaves work within blocks).
// Transposed vector i is then L * N consecutive elements of output row BitReverse(i): Op applied
// and stored whole.
template <class Op, class D>
HWY_INLINE void TransposeToRows(D d, const std::byte* in, ptrdiff_t in_stride, std::byte* out,
                                ptrdiff_t out_pitch) {
  using Lane = hn::TFromD<D>;
  constexpr size_t L = 16 / sizeof(Lane);
  constexpr size_t kBits = L == 16 ? 4 : L == 8 ? 3 : L == 4 ? 2 : 1;
  const ptrdiff_t block_stride = static_cast<ptrdiff_t>(L) * in_stride;
  hn::Vec<D> rows[L];
  for (size_t i = 0; i < L; ++i) {
    rows[i] = LoadBlocks(d, in + static_cast<ptrdiff_t>(i) * in_stride, block_stride);
  }
  TransposeBlocksInRegisters(d, rows);
  for (size_t i = 0; i < L; ++i) {
    const ptrdiff_t row = static_cast<ptrdiff_t>(BitReverse(i, kBits));
    hn::StoreU(Op::Apply(d, rows[i]), d, reinterpret_cast<Lane*>(out + row * out_pitch));
  }
}

// Prefetches `bytes` <= 64 from each of `rows` rows (one or two cache lines each).
HWY_INLINE void PrefetchRows(const std::byte* p, ptrdiff_t stride, size_t rows, size_t bytes) {
  for (size_t r = 0; r < rows; ++r) {
    const std::byte* row = p + static_cast<ptrdiff_t>(r) * stride;  // never past the last row
    hwy::Prefetch(row);
    if ((reinterpret_cast<uintptr_t>(row) & 63) + bytes > 64) hwy::Prefetch(row + bytes - 1);
  }
}

// Copies `bytes` >= 16 bytes with whole vectors (the last one shifted back to end at `bytes`).
HWY_INLINE void CopyRowBytes(const std::byte* from, std::byte* to, size_t bytes) {
  const hn::ScalableTag<uint8_t> d;
  const hn::Full128<uint8_t> d128;
  const auto copy = [&](auto dv) {
    const size_t lanes = hn::Lanes(dv);
    for (size_t i = 0;; i += lanes) {
      i = std::min(i, bytes - lanes);
      hn::StoreU(hn::LoadU(dv, reinterpret_cast<const uint8_t*>(from) + i), dv,
                 reinterpret_cast<uint8_t*>(to) + i);
      if (i + lanes == bytes) break;
    }
  };
  if (bytes >= hn::Lanes(d)) {
    copy(d);
  } else {
    copy(d128);
  }
}

// The `width` >= L output rows from one position along a (a group: one input cache line's worth
// of elements), a vector of D (L * N elements) at a time along b (the last one shifted back to
// end at b_count >= L * N). Each band of L * N input rows is transposed for the whole group, L
// columns at a time (the last step shifted back to end at `width`), while its lines are in L1.
// With kStaged, the band's row pieces are first copied into a buffer of 64-byte rows: rows whose
// lines share a few L1 sets (a power-of-two stride) would evict each other between the L-column
// steps; staged, each line is read once. For int8 on Zen 3 (2 threads) this gained 1.4-1.8x for
// NCHW -> NHWC and 1.15-1.27x for 2048- and 4096-byte square transposes over the 128-bit block
// stores those tiles took before (docs/performance.md, "staged bands").
template <class Op, bool kStaged, class D>
HWY_INLINE void TransposeGroup(D d, const std::byte* in, ptrdiff_t in_stride, std::byte* out,
                               ptrdiff_t out_pitch, size_t width, size_t b_count,
                               const std::byte* next_group) {
  using Lane = hn::TFromD<D>;
  constexpr size_t L = 16 / sizeof(Lane);
  constexpr size_t kBand = hn::MaxLanes(D());  // input rows per vector of D: L per block
  const size_t row_bytes = width * sizeof(Lane);
  const bool prefetch = FarRows(in_stride);
  HWY_ALIGN std::byte stage[kStaged ? kBand * 64 : 1];
  const ptrdiff_t rows_stride = kStaged ? 64 : in_stride;
  for (size_t b = 0;; b += kBand) {
    b = std::min(b, b_count - kBand);
    const std::byte* rows = in + static_cast<ptrdiff_t>(b) * in_stride;
    if constexpr (kStaged) {
      for (size_t r = 0; r < kBand; ++r) {
        CopyRowBytes(rows + static_cast<ptrdiff_t>(r) * in_stride, stage + r * 64, row_bytes);
      }
      rows = stage;
    }
    // The next band's lines (or the next group's first band's) are requested now when input rows
    // are far apart, which defeats the hardware prefetchers (closer rows are left to them on this
    // path: the requests measured slower in cache; docs/performance.md).
    if (prefetch && b + kBand < b_count) {
      const size_t next = std::min(b + kBand, b_count - kBand);
      PrefetchRows(in + static_cast<ptrdiff_t>(next) * in_stride, in_stride, kBand, row_bytes);
    } else if (prefetch && next_group != nullptr) {
      PrefetchRows(next_group, in_stride, kBand, row_bytes);
    }
    for (size_t a = 0;; a += L) {
      a = std::min(a, width - L);
      TransposeToRows<Op>(d, rows + a * sizeof(Lane), rows_stride,
                          out + static_cast<ptrdiff_t>(a) * out_pitch + b * sizeof(Lane),
                          out_pitch);
      if (a + L == width) break;
    }
    if (b + kBand == b_count) break;
  }
}

// TransposeGroup with the widest vectors (of at most D's blocks) that b_count fills.
template <class Op, bool kStaged, class D>
HWY_INLINE void TransposeGroupWidest(D d, const std::byte* in, ptrdiff_t in_stride, std::byte* out,
                                     ptrdiff_t out_pitch, size_t width, size_t b_count,
                                     const std::byte* next_group) {
  using Lane = hn::TFromD<D>;
  constexpr size_t kBytes = hn::MaxLanes(D()) * sizeof(Lane);
  if constexpr (kBytes > 16) {
    if (b_count < hn::MaxLanes(d)) {
      return TransposeGroupWidest<Op, kStaged>(hn::Half<D>(), in, in_stride, out, out_pitch, width,
                                               b_count, next_group);
    }
  }
  TransposeGroup<Op, kStaged>(d, in, in_stride, out, out_pitch, width, b_count, next_group);
}

// Stores the 128-bit blocks of v: block k at p + k * block_pitch.
template <class D>
HWY_INLINE void StoreBlocks(D d, hn::Vec<D> v, std::byte* p, ptrdiff_t block_pitch) {
  using Lane = hn::TFromD<D>;
  constexpr size_t kBytes = hn::MaxLanes(D()) * sizeof(Lane);
  if constexpr (kBytes <= 16) {
    hn::StoreU(v, d, reinterpret_cast<Lane*>(p));
  } else {
    const hn::Half<D> dh;
    constexpr ptrdiff_t kHalfBlocks = static_cast<ptrdiff_t>(kBytes / 32);
    StoreBlocks(dh, hn::LowerHalf(dh, v), p, block_pitch);
    StoreBlocks(dh, hn::UpperHalf(dh, v), p + kHalfBlocks * block_pitch, block_pitch);
  }
}

// L rows of the input (row stride in_stride), each a vector of D: every 128-bit block of them is
// an L x L block, transposed in place in the registers (the interleaves work within blocks).
// Block k of transposed vector i is output row k * L + BitReverse(i): Op applied on the whole
// vector, then stored a block at a time.
template <class Op, class D>
HWY_INLINE void TransposeInBlocks(D d, const std::byte* in, ptrdiff_t in_stride, std::byte* out,
                                  ptrdiff_t out_pitch) {
  using Lane = hn::TFromD<D>;
  constexpr size_t L = 16 / sizeof(Lane);
  constexpr size_t kBits = L == 16 ? 4 : L == 8 ? 3 : L == 4 ? 2 : 1;
  hn::Vec<D> rows[L];
  for (size_t i = 0; i < L; ++i) {
    rows[i] =
        hn::LoadU(d, reinterpret_cast<const Lane*>(in + static_cast<ptrdiff_t>(i) * in_stride));
  }
  TransposeBlocksInRegisters(d, rows);
  for (size_t i = 0; i < L; ++i) {
    const ptrdiff_t row = static_cast<ptrdiff_t>(BitReverse(i, kBits));
    StoreBlocks(d, Op::Apply(d, rows[i]), out + row * out_pitch,
                static_cast<ptrdiff_t>(L) * out_pitch);
  }
}

constexpr ptrdiff_t kPrefetchMinRowBytes = 256;

// Bands of L input rows (the last shifted back to end at b_count) at one position along a: the
// output rows of this position are completed a line at a time before moving on (output rows
// with power-of-two pitches share few L1 sets, so revisiting them later would miss). For 2-byte
// elements (bands of 8 rows) whose input rows lie kPrefetchMinRowBytes up to kFarRowBytes apart,
// each band requests the next band's lines (one vector of each row) before it is transposed: past
// the cache this gained for 1- and 2-byte elements (1-byte tiles take whole-row stores now) and
// cost nothing in cache; bands of 4-byte elements (4 rows) gained nothing and lost in cache; for
// far rows, which the walker takes along the input rows, the same requests cost time
// (eltwise_transpose_peers on x86-64; the figures are in docs/performance.md). Rows closer than
// kPrefetchMinRowBytes are consecutive lines, which the prefetchers stream.
template <class Op, class D>
HWY_INLINE void TransposeColumnInBlocks(D d, const std::byte* in, ptrdiff_t in_stride,
                                        std::byte* out, ptrdiff_t out_pitch, size_t b_count) {
  using Lane = hn::TFromD<D>;
  constexpr size_t L = 16 / sizeof(Lane);
  const bool prefetch =
      sizeof(Lane) == 2 && AtLeastApart(in_stride, kPrefetchMinRowBytes) && !FarRows(in_stride);
  for (size_t b = 0;; b += L) {
    b = std::min(b, b_count - L);
    const std::byte* band = in + static_cast<ptrdiff_t>(b) * in_stride;
    if (prefetch && b + 2 * L <= b_count) {
      PrefetchRows(band + static_cast<ptrdiff_t>(L) * in_stride, in_stride, L,
                   hn::MaxLanes(d) * sizeof(Lane));
    }
    TransposeInBlocks<Op>(d, band, in_stride, out + b * sizeof(Lane), out_pitch);
    if (b + L == b_count) break;
  }
}

// Output rows of one step along a are written a vector at a time, each row revisited once per
// band of input rows. When the vectors are narrower than a cache line and the output pitch maps
// the step's rows to few 4 KiB page offsets (so the same few L1 sets: a power-of-two pitch maps
// them all to one), the partly written lines evict each other between bands; the step's rows are
// then transposed into a small row buffer with a padded pitch and copied out a whole row at a time.
constexpr size_t kRowBufferRowBytes = 256;  // the widest output row the row buffer takes
constexpr size_t kRowBufferPad = 64;        // breaks the row buffer's own power-of-two pitch

HWY_INLINE bool OutputRowsAlias(ptrdiff_t out_pitch, size_t rows, size_t row_bytes) {
  if (row_bytes > kRowBufferRowBytes) return false;
  const size_t pitch = static_cast<size_t>(out_pitch < 0 ? -out_pitch : out_pitch);
  const size_t offsets = 4096 / std::gcd(pitch, size_t{4096});  // distinct page offsets
  return rows > 4 * offsets;
}

// Whether `rows` input rows a stride apart start in fewer than rows / 8 of a page's 64 cache-line
// slots (so in fewer L1 sets than an 8-way L1 with 64 sets, as of 32 and 48 KiB, needs to hold
// one line of each). Counted row by row, so that strides just off a power of two (2049 bytes)
// count as the power of two they nearly are.
HWY_INLINE bool InputRowsAlias(ptrdiff_t in_stride, size_t rows) {
  const size_t stride = static_cast<size_t>(in_stride < 0 ? -in_stride : in_stride);
  uint64_t slots = 0;
  for (size_t r = 0; r < rows; ++r) slots |= uint64_t{1} << ((r * stride >> 6) & 63);
  return rows > 8 * static_cast<size_t>(__builtin_popcountll(slots));
}

// Steps of `step` columns along a (the last shifted back to end at a_count); write(a, rows, pitch)
// writes the step's `step` output rows (row_bytes each) at `rows`, `pitch` apart: straight into the
// output, or when `buffered`, into a row buffer of at most kMaxRows rows with a padded pitch, then
// copied out a whole row at a time.
template <size_t kMaxRows, class Write>
HWY_INLINE void ForEachStep(std::byte* out, ptrdiff_t out_pitch, size_t a_count, size_t step,
                            size_t row_bytes, bool buffered, const Write& write) {
  HWY_ALIGN std::byte buffer[kMaxRows * (kRowBufferRowBytes + kRowBufferPad)];
  const ptrdiff_t buffer_pitch = static_cast<ptrdiff_t>((row_bytes + 63) / 64 * 64 + kRowBufferPad);
  for (size_t a = 0;; a += step) {
    a = std::min(a, a_count - step);
    std::byte* rows = out + static_cast<ptrdiff_t>(a) * out_pitch;
    if (buffered) {
      write(a, buffer, buffer_pitch);
      for (size_t r = 0; r < step; ++r) {
        CopyRowBytes(buffer + static_cast<ptrdiff_t>(r) * buffer_pitch,
                     rows + static_cast<ptrdiff_t>(r) * out_pitch, row_bytes);
      }
    } else {
      write(a, rows, out_pitch);
    }
    if (a + step == a_count) break;
  }
}

// Groups of kGroup columns along a (the last shifted back to end at a_count; one narrower group
// when a_count < kGroup).
template <class Op, class T>
HWY_INLINE void TransposeRangeToRows(const std::byte* in, ptrdiff_t in_stride, std::byte* out,
                                     ptrdiff_t out_pitch, size_t a_count, size_t b_count) {
  constexpr size_t L = 16 / sizeof(T);
  constexpr size_t kGroup = 64 / sizeof(T);  // one cache line of an input row
  const FullTag<Op> d;  // 256-bit vectors on AVX-512 measured slower (transposed_kernel/AVX3)
  const size_t width = std::min(kGroup, a_count);
  const size_t row_bytes = b_count * sizeof(T);
  size_t blocks = hn::MaxLanes(d) * sizeof(T) / 16;  // of the vectors TransposeGroupWidest takes
  while (blocks > 1 && b_count < blocks * L) blocks /= 2;
  const bool buffered = 16 * blocks < 64 && OutputRowsAlias(out_pitch, width, row_bytes);
  const auto steps = [&](auto staged) {
    ForEachStep<kGroup>(out, out_pitch, a_count, width, row_bytes, buffered,
                        [&](size_t a, std::byte* rows, ptrdiff_t pitch) HWY_ATTR {
                          const size_t next = std::min(a + width, a_count - width);
                          TransposeGroupWidest<Op, decltype(staged)::value>(
                              d, in + a * sizeof(T), in_stride, rows, pitch, width, b_count,
                              a + width < a_count ? in + next * sizeof(T) : nullptr);
                        });
  };
  // 1-byte elements whose band's rows alias are staged a band at a time. 2- and 4-byte elements
  // (here for far rows only) measured no faster staged (docs/performance.md).
  if constexpr (sizeof(T) == 1) {
    if (InputRowsAlias(in_stride, blocks * L)) return steps(std::true_type());
  }
  steps(std::false_type());
}

// Steps along a of the widest vectors that fit a_count (several 128-bit blocks per vector), else
// 128-bit vectors; the last step shifted back to end at a_count.
template <class Op, class T>
HWY_INLINE void TransposeRangeInBlocks(const std::byte* in, ptrdiff_t in_stride, std::byte* out,
                                       ptrdiff_t out_pitch, size_t a_count, size_t b_count) {
  using Lane = typename Op::Lane;
  constexpr size_t L = 16 / sizeof(T);
  const FullTag<Op> d;
  const hn::Full128<Lane> d128;
  const size_t step = a_count >= hn::MaxLanes(d) ? hn::MaxLanes(d) : L;
  const size_t row_bytes = b_count * sizeof(T);
  constexpr size_t kMaxStep = hn::MaxLanes(d) > L ? hn::MaxLanes(d) : L;
  ForEachStep<kMaxStep>(
      out, out_pitch, a_count, step, row_bytes, OutputRowsAlias(out_pitch, step, row_bytes),
      [&](size_t a, std::byte* rows, ptrdiff_t pitch) HWY_ATTR {
        const std::byte* column = in + a * sizeof(T);
        if (step == L) {
          TransposeColumnInBlocks<Op>(d128, column, in_stride, rows, pitch, b_count);
        } else {
          TransposeColumnInBlocks<Op>(d, column, in_stride, rows, pitch, b_count);
        }
      });
}

// An 8 x 8 block of 8-byte elements on 512-bit vectors: four vectors each hold four elements of
// input rows i and i + 4 (one 256-bit half each), so two interleave rounds complete every column:
// lanes within 128-bit blocks, then blocks within 256-bit halves (a swap and a blend). Each
// result is a whole 64-byte output row piece, stored at once: a quarter of the stores of 128-bit
// block stores and half their shuffles on the one shuffle port.
template <class Op, class D>
HWY_INLINE void Transpose8x8(D d, const std::byte* in, ptrdiff_t in_stride, std::byte* out,
                             ptrdiff_t out_pitch) {
  using Lane = hn::TFromD<D>;
  static_assert(sizeof(Lane) == 8 && hn::MaxLanes(D()) == 8);
  const hn::Half<D> dh;
  const auto at = [&](size_t row, size_t column) {
    return reinterpret_cast<const Lane*>(in + static_cast<ptrdiff_t>(row) * in_stride +
                                         static_cast<ptrdiff_t>(column * sizeof(Lane)));
  };
  for (size_t c = 0; c < 8; c += 4) {
    hn::Vec<D> v[4];
    for (size_t i = 0; i < 4; ++i) {
      v[i] = hn::Combine(d, hn::LoadU(dh, at(i + 4, c)), hn::LoadU(dh, at(i, c)));
    }
    // Blocks of columns c and c + 2 (even) and c + 1 and c + 3 (odd) of rows (0 1), (4 5) and
    // (2 3), (6 7).
    const auto even01 = hn::InterleaveLower(d, v[0], v[1]);
    const auto odd01 = hn::InterleaveUpper(d, v[0], v[1]);
    const auto even23 = hn::InterleaveLower(d, v[2], v[3]);
    const auto odd23 = hn::InterleaveUpper(d, v[2], v[3]);
    const hn::Vec<D> columns[4] = {
        hn::OddEvenBlocks(hn::SwapAdjacentBlocks(even23), even01),
        hn::OddEvenBlocks(hn::SwapAdjacentBlocks(odd23), odd01),
        hn::OddEvenBlocks(even23, hn::SwapAdjacentBlocks(even01)),
        hn::OddEvenBlocks(odd23, hn::SwapAdjacentBlocks(odd01)),
    };
    for (size_t j = 0; j < 4; ++j) {
      hn::StoreU(Op::Apply(d, columns[j]), d,
                 reinterpret_cast<Lane*>(out + static_cast<ptrdiff_t>(c + j) * out_pitch));
    }
  }
}

// 8 x 8 blocks over the tile (a_count, b_count >= 8; the last step along each shifted back).
template <class Op, class D>
HWY_INLINE void TransposeRange8x8(D d, const std::byte* in, ptrdiff_t in_stride, std::byte* out,
                                  ptrdiff_t out_pitch, size_t a_count, size_t b_count) {
  constexpr size_t kLane = 8;
  for (size_t a = 0;; a += 8) {
    a = std::min(a, a_count - 8);
    for (size_t b = 0;; b += 8) {
      b = std::min(b, b_count - 8);
      Transpose8x8<Op>(d, in + static_cast<ptrdiff_t>(b) * in_stride + a * kLane, in_stride,
                       out + static_cast<ptrdiff_t>(a) * out_pitch + b * kLane, out_pitch);
      if (b + 8 == b_count) break;
    }
    if (a + 8 == a_count) break;
  }
}

template <class Op, class Functor, class T>
void TransposedVector(const std::byte* in, ptrdiff_t in_stride, std::byte* out, ptrdiff_t out_pitch,
                      size_t a_count, size_t b_count) {
  static_assert(sizeof(typename Op::Lane) == sizeof(T));
  constexpr size_t L = 16 / sizeof(T);
  if (a_count < L || b_count < L) {
    return ScalarTransposed<Functor, T>(in, in_stride, out, out_pitch, a_count, b_count);
  }
  // Measured (transposed_kernel/AVX3, eltwise bench): whole-row stores win for int8 (4 rounds
  // of interleaves, where three block extracts per vector weigh most; where the band's input
  // rows alias in L1 they are staged, TransposeRangeToRows), and for 2- and 4-byte elements
  // when input rows are a page or more apart (with their prefetches); 128-bit
  // block stores win for these in cache and for 8-byte elements on narrower vectors. 8-byte
  // elements on 512-bit vectors take whole 8 x 8 blocks (faster than block stores on one thread,
  // the same on two: eltwise_transpose_peers, f64; docs/performance.md).
  if constexpr (sizeof(T) == 1) {
    return TransposeRangeToRows<Op, T>(in, in_stride, out, out_pitch, a_count, b_count);
  } else {
    if constexpr (sizeof(T) <= 4) {
      if (FarRows(in_stride)) {
        return TransposeRangeToRows<Op, T>(in, in_stride, out, out_pitch, a_count, b_count);
      }
    } else if constexpr (hn::MaxLanes(FullTag<Op>()) == 8) {
      if (a_count >= 8 && b_count >= 8) {
        return TransposeRange8x8<Op>(FullTag<Op>(), in, in_stride, out, out_pitch, a_count,
                                     b_count);
      }
    }
    TransposeRangeInBlocks<Op, T>(in, in_stride, out, out_pitch, a_count, b_count);
  }
}

#endif  // ELTWISE_HWY_TRANSPOSE

template <bool kF16RoundInIntegers>
void FillTransposedKernels(KernelTable& table) {
#if ELTWISE_HWY_TRANSPOSE
  ForEachVectorEntry<kF16RoundInIntegers>([&]<class Op, class Tail, class T>(size_t f, size_t t) {
    table.transposed[f][t] = &TransposedVector<Op, Tail, T>;
  });
#else
  (void)table;  // the reference entries stay
#endif
}

template void FillTransposedKernels<false>(KernelTable& table);
template void FillTransposedKernels<true>(KernelTable& table);

}  // namespace HWY_NAMESPACE
}  // namespace eltwise
HWY_AFTER_NAMESPACE();
