// Layouts through the public API: strides (negative, zero, padded, transposed), rank 0 and 8, empty
// tensors, in-place and partial overlap, thread counts. Expected values come from the oracle
// applied at addresses computed here from the descriptions (not from the plan); output bytes that
// no element addresses must keep their fill pattern.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <numeric>
#include <random>
#include <string>
#include <utility>
#include <vector>

#include "cpu/cpu_backend.h"
#include "oracle.h"
#include "overlap_limits.h"
#include "test_values.h"

namespace eltwise::testing {
namespace {

constexpr std::byte kFill{0xCD};

// Byte offset of each element (row-major multi-index order) from the lowest addressed byte.
std::vector<uint64_t> ElementOffsets(const TensorDesc& t) {
  const std::vector<int64_t> strides = t.strides.value_or(PackedStrides(t.sizes));
  const uint64_t count =
      std::accumulate(t.sizes.begin(), t.sizes.end(), uint64_t{1}, std::multiplies<>());
  int64_t base = 0;  // element (0,...,0) relative to the lowest address, in elements
  for (size_t d = 0; d < t.sizes.size(); ++d) {
    if (strides[d] < 0) base += static_cast<int64_t>(t.sizes[d] - 1) * -strides[d];
  }
  std::vector<uint64_t> offsets;
  offsets.reserve(count);
  std::vector<uint64_t> index(t.sizes.size(), 0);
  for (uint64_t i = 0; i < count; ++i) {
    int64_t e = base;
    for (size_t d = 0; d < index.size(); ++d) e += static_cast<int64_t>(index[d]) * strides[d];
    offsets.push_back(static_cast<uint64_t>(e) * ElementSize(t.type));
    for (size_t d = index.size(); d-- > 0;) {
      if (++index[d] < t.sizes[d]) break;
      index[d] = 0;
    }
  }
  return offsets;
}

const TensorDesc& In(const OperatorDesc& d) {
  return std::visit([](const auto& x) -> const TensorDesc& { return x.input; }, d);
}
const TensorDesc& Out(const OperatorDesc& d) {
  return std::visit([](const auto& x) -> const TensorDesc& { return x.output; }, d);
}

// Runs `desc` with input at buffer+in_at and output at buffer+out_at of one shared buffer (so
// in-place and overlap can be expressed), or in separate buffers when `shared` is false.
void RunAndCheck(const OperatorDesc& desc, bool shared = false, uint64_t in_at = 0,
                 uint64_t out_at = 0, int threads = 1) {
  const TensorDesc& in_desc = In(desc);
  const TensorDesc& out_desc = Out(desc);
  const DataType type = in_desc.type;
  const size_t esize = ElementSize(type);
  const std::vector<std::byte> values = TestInputs(type, 512);
  const size_t value_count = values.size() / esize;

  const uint64_t in_bytes = in_desc.total_tensor_size_in_bytes;
  const uint64_t out_bytes = out_desc.total_tensor_size_in_bytes;
  std::vector<std::byte> input_buffer(shared ? 0 : in_bytes);
  std::vector<std::byte> output_buffer(
      shared ? std::max(in_at + in_bytes, out_at + out_bytes) : out_bytes, kFill);
  std::byte* in_base = shared ? output_buffer.data() + in_at : input_buffer.data();
  std::byte* out_base = shared ? output_buffer.data() + out_at : output_buffer.data();

  const std::vector<uint64_t> in_offsets = ElementOffsets(in_desc);
  const std::vector<uint64_t> out_offsets = ElementOffsets(out_desc);
  for (size_t i = 0; i < in_offsets.size(); ++i) {
    // Values scattered over the elements (not periodic), so a misplaced element shows.
    const uint64_t pick = (i * 0x9E3779B97F4A7C15ull) >> 40;
    std::memcpy(in_base + in_offsets[i], values.data() + (pick % value_count) * esize, esize);
  }
  const std::vector<std::byte> before = output_buffer;
  const std::vector<std::byte> input_snapshot(in_base, in_base + in_bytes);

  const Device device = *Device::Cpu({FeatureLevel::kExtended, threads});
  Expected<CompiledOperator> op = Compile(device, desc);
  ASSERT_TRUE(op.ok()) << op.status().ToString();
  const Status status = op->Execute({in_base, in_bytes}, {out_base, out_bytes});
  ASSERT_TRUE(status.ok()) << status.ToString();

  std::vector<bool> written(output_buffer.size(), false);
  int failures = 0;
  for (size_t i = 0; i < out_offsets.size() && failures < 5; ++i) {
    const Decoded x = Decode(type, input_snapshot.data() + in_offsets[i]);
    const Decoded want = OracleFor(desc, type, x);
    const std::byte* at = out_base + out_offsets[i];
    const Decoded got = Decode(type, at);
    if (!SameValue(want, got)) {
      ADD_FAILURE() << "element " << i << " x=" << ToString(type, x) << " want "
                    << ToString(type, want) << " got " << ToString(type, got);
      ++failures;
    }
    for (size_t b = 0; b < esize; ++b) written[at - output_buffer.data() + b] = true;
  }
  for (size_t b = 0; b < output_buffer.size(); ++b) {
    const bool is_input = shared && b >= in_at && b < in_at + in_bytes;
    if (!written[b] && !is_input) {
      ASSERT_EQ(output_buffer[b], before[b]) << "byte " << b << " is padding but was written";
    }
  }
}

TensorDesc Strided(DataType type, std::vector<uint64_t> sizes, std::vector<int64_t> strides) {
  TensorDesc t = TensorDesc::Strided(type, std::move(sizes), std::move(strides));
  t.total_tensor_size_in_bytes = *SpanInBytes(t.type, t.sizes, t.strides);
  return t;
}

constexpr DataType kAllTypes[] = {DataType::kFloat32, DataType::kFloat16, DataType::kBFloat16,
                                  DataType::kFloat64, DataType::kInt8,    DataType::kInt16,
                                  DataType::kInt32,   DataType::kInt64,   DataType::kUInt8,
                                  DataType::kUInt16,  DataType::kUInt32,  DataType::kUInt64};

TEST(Layout, RankZeroScalar) {
  for (DataType type : kAllTypes) {
    RunAndCheck(SignDesc{TensorDesc::Packed(type, {}), TensorDesc::Packed(type, {}),
                         NanPolicy::kPropagate});
    RunAndCheck(RoundDesc{TensorDesc::Packed(type, {}), TensorDesc::Packed(type, {}),
                          RoundingMode::kTowardInfinity});
  }
}

TEST(Layout, RankEightPackedAndPermuted) {
  const std::vector<uint64_t> sizes = {2, 3, 2, 2, 3, 2, 2, 3};
  // Strides of a tensor stored with its dimensions reversed (fully transposed).
  std::vector<int64_t> reversed(8);
  int64_t s = 1;
  for (size_t d = 0; d < 8; ++d) {
    reversed[d] = s;
    s *= static_cast<int64_t>(sizes[d]);
  }
  for (DataType type : kAllTypes) {
    TensorDesc p = TensorDesc::Packed(type, sizes);
    RunAndCheck(RoundDesc{Strided(type, sizes, reversed), p, RoundingMode::kDown});
    RunAndCheck(SignDesc{p, Strided(type, sizes, reversed)});
  }
}

TEST(Layout, TransposedInput) {
  for (DataType type : kAllTypes) {
    for (uint64_t n : {1u, 7u, 64u, 130u}) {
      const uint64_t m = n + 3;
      RunAndCheck(RoundDesc{Strided(type, {n, m}, {1, static_cast<int64_t>(n)}),
                            TensorDesc::Packed(type, {n, m}), RoundingMode::kHalvesToNearestEven});
    }
  }
}

TEST(Layout, BroadcastInput) {
  for (DataType type : kAllTypes) {
    RunAndCheck(SignDesc{Strided(type, {5, 1, 7}, {0, 0, 0}), TensorDesc::Packed(type, {5, 1, 7})});
    RunAndCheck(SignDesc{Strided(type, {5, 4, 7}, {0, 1, 0}), TensorDesc::Packed(type, {5, 4, 7})});
    RunAndCheck(RoundDesc{Strided(type, {6, 9}, {0, 0}), Strided(type, {6, 9}, {12, 1}),
                          RoundingMode::kUp});
  }
}

TEST(Layout, PaddedRowsLeavePaddingUntouched) {
  for (DataType type : kAllTypes) {
    RunAndCheck(RoundDesc{Strided(type, {4, 5}, {8, 1}), Strided(type, {4, 5}, {7, 1}),
                          RoundingMode::kTowardZero});
    RunAndCheck(SignDesc{TensorDesc::Packed(type, {3, 33}), Strided(type, {3, 33}, {40, 1})});
    RunAndCheck(SignDesc{TensorDesc::Packed(type, {50}), Strided(type, {50}, {3})});
  }
}

TEST(Layout, NegativeStrides) {
  for (DataType type : kAllTypes) {
    RunAndCheck(
        SignDesc{Strided(type, {17}, {-1}), TensorDesc::Packed(type, {17}), NanPolicy::kPropagate});
    RunAndCheck(RoundDesc{Strided(type, {4, 6}, {6, -1}), Strided(type, {4, 6}, {-6, 1}),
                          RoundingMode::kTowardInfinity});
    RunAndCheck(RoundDesc{Strided(type, {3, 5}, {-2, 7}), Strided(type, {3, 5}, {-1, -3}),
                          RoundingMode::kHalvesToNearestEven});
  }
}

TEST(Layout, EmptyTensorsWriteNothing) {
  for (DataType type : kAllTypes) {
    const TensorDesc t = TensorDesc::Packed(type, {3, 0, 2});
    std::vector<std::byte> out(16, kFill);
    const Status s = Execute(*Device::Cpu(), SignDesc{t, t}, {nullptr, 0}, {out.data(), 16});
    ASSERT_TRUE(s.ok()) << s.ToString();
    for (std::byte b : out) ASSERT_EQ(b, kFill);
  }
}

TEST(Layout, InPlace) {
  for (DataType type : kAllTypes) {
    const TensorDesc t = TensorDesc::Packed(type, {1000});
    RunAndCheck(SignDesc{t, t}, /*shared=*/true, 0, 0);
    const TensorDesc padded = Strided(type, {9, 11}, {13, 1});
    RunAndCheck(RoundDesc{padded, padded, RoundingMode::kUp}, true, 0, 0);
  }
}

TEST(Layout, PartialOverlapReadsInputFirst) {
  for (DataType type : kAllTypes) {
    const size_t esize = ElementSize(type);
    const TensorDesc t = TensorDesc::Packed(type, {300});
    // Output shifted forwards and backwards by a few elements over its own input.
    for (uint64_t shift : {1u, 5u, 299u}) {
      RunAndCheck(SignDesc{t, t, NanPolicy::kPropagate}, true, 0, shift * esize);
      RunAndCheck(RoundDesc{t, t, RoundingMode::kTowardInfinity}, true, shift * esize, 0);
    }
    // Reversal in place: input walks backwards over the output's bytes.
    RunAndCheck(RoundDesc{Strided(type, {64}, {-1}), Strided(type, {64}, {1}), RoundingMode::kDown},
                true, 0, 0);
    // Transpose in place (square).
    RunAndCheck(SignDesc{Strided(type, {8, 8}, {1, 8}), TensorDesc::Packed(type, {8, 8})}, true, 0,
                0);
  }
}

TEST(Layout, ThreadCountsGiveIdenticalResults) {
  for (int threads : {1, 2, 3, 8}) {
    for (uint64_t n : {1ull, 1000ull, 1ull << 20, (1ull << 20) + 17}) {
      RunAndCheck(SignDesc{TensorDesc::Packed(DataType::kFloat32, {n}),
                           TensorDesc::Packed(DataType::kFloat32, {n})},
                  false, 0, 0, threads);
      RunAndCheck(RoundDesc{TensorDesc::Packed(DataType::kFloat16, {n}),
                            TensorDesc::Packed(DataType::kFloat16, {n}),
                            RoundingMode::kHalvesToNearestEven},
                  true, 0, 0, threads);
    }
    RunAndCheck(
        RoundDesc{Strided(DataType::kFloat32, {300, 301}, {1, 300}),
                  TensorDesc::Packed(DataType::kFloat32, {300, 301}), RoundingMode::kTowardZero},
        false, 0, 0, threads);
    // Three transposes whose input rows lie 4,400 bytes apart: tiles taken along the input rows,
    // in runs that cross from one matrix to the next.
    RunAndCheck(
        SignDesc{Strided(DataType::kFloat32, {3, 1100, 601}, {1100 * 601, 1, 1100}),
                 TensorDesc::Packed(DataType::kFloat32, {3, 1100, 601}), NanPolicy::kPropagate},
        false, 0, 0, threads);
  }
}

// Strides (elements) of a tensor of `sizes` stored with its dims in `order` (outermost first),
// each dim padded by `pad` elements, and the dims in `negative` (bit d) walked backwards.
std::vector<int64_t> StoredStrides(const std::vector<uint64_t>& sizes,
                                   const std::vector<size_t>& order, int64_t pad,
                                   unsigned negative) {
  std::vector<int64_t> strides(sizes.size());
  int64_t step = 1;
  for (size_t i = order.size(); i-- > 0;) {
    const size_t d = order[i];
    strides[d] = (negative >> d & 1u) ? -step : step;
    step *= static_cast<int64_t>(sizes[d]) + pad;
  }
  return strides;
}

OperatorDesc OverlapDesc(int op, DataType type, const std::vector<uint64_t>& sizes,
                         const std::vector<int64_t>& in, const std::vector<int64_t>& out) {
  if (op == 0)
    return SignDesc{Strided(type, sizes, in), Strided(type, sizes, out), NanPolicy::kPropagate};
  return RoundDesc{Strided(type, sizes, in), Strided(type, sizes, out),
                   RoundingMode::kHalvesToNearestEven};
}

// Input and output in one buffer, the output's lowest byte `shift` bytes from the input's.
void RunShifted(const OperatorDesc& desc, int64_t shift, int threads = 1) {
  const auto margin = static_cast<uint64_t>(shift < 0 ? -shift : 0);
  RunAndCheck(desc, true, margin, static_cast<uint64_t>(static_cast<int64_t>(margin) + shift),
              threads);
}

// A transposed input into output rows of stride 2 (the strided walker's transposed tiles), the
// rows one element longer than a whole number of 128-column tiles: the last tile, one column
// wide, must still be written (on 1 and 2 threads).
TEST(Layout, GatheredTilesCoverTheLastColumn) {
  const DataType t = DataType::kFloat32;
  for (int op : {0, 1}) {
    RunAndCheck(OverlapDesc(op, t, {16, 129}, {1, 16}, {258, 2}), false, 0, 0, 1);
    RunAndCheck(OverlapDesc(op, t, {130, 257}, {1, 130}, {514, 2}), false, 0, 0, 2);
  }
}

// Partial overlaps of many geometries against the oracle: small shapes, every permutation and
// stride sign of input and output (packed or padded), element sizes 1/2/4/8, both ops, the output
// a few elements (or a byte) below or above the input. Covers the bounded classes (rising walks at
// every distance, transposes and reversals onto themselves: shift 0) and the whole-input copy.
TEST(Layout, PartialOverlapGeometries) {
  const std::vector<std::vector<uint64_t>> shapes = {{9}, {5, 6}, {6, 6}, {3, 4, 5}, {4, 4, 3}};
  const DataType types[] = {DataType::kUInt8, DataType::kFloat16, DataType::kFloat32,
                            DataType::kFloat64};
  std::mt19937_64 rng(16);
  auto pick = [&](size_t n) { return static_cast<size_t>(rng() % n); };
  for (int trial = 0; trial < 2500; ++trial) {
    const std::vector<uint64_t>& sizes = shapes[pick(shapes.size())];
    const DataType type = types[pick(4)];
    const auto e = static_cast<int64_t>(ElementSize(type));
    std::vector<size_t> in_order(sizes.size()), out_order(sizes.size());
    std::iota(in_order.begin(), in_order.end(), size_t{0});
    std::iota(out_order.begin(), out_order.end(), size_t{0});
    std::shuffle(in_order.begin(), in_order.end(), rng);
    std::shuffle(out_order.begin(), out_order.end(), rng);
    const unsigned all = (1u << sizes.size()) - 1;
    const auto in_negative = static_cast<unsigned>(rng() & all);
    // Half the time the output mirrors the input (the same order and signs flipped, or two dims
    // swapped), the shapes whose overlap at shift 0 is a reversal or transpose onto itself.
    unsigned out_negative = static_cast<unsigned>(rng() & all);
    if (trial % 2 == 0) {
      out_order = in_order;
      out_negative = in_negative ^ static_cast<unsigned>(rng() & all);
      if (sizes.size() >= 2 && rng() % 2 == 0) std::swap(out_order[0], out_order[1]);
    }
    const int64_t pad = static_cast<int64_t>(rng() % 2);
    const std::vector<int64_t> in = StoredStrides(sizes, in_order, pad, in_negative);
    const std::vector<int64_t> out = StoredStrides(sizes, out_order, 0, out_negative);
    const int64_t shifts[] = {0, 0, e, -e, 3 * e, -3 * e, 1, -1};
    int64_t shift = shifts[pick(8)];
    if (e == 1 && (shift == 1 || shift == -1)) shift = 2 * shift;
    SCOPED_TRACE("trial " + std::to_string(trial) + " " + std::string(Name(type)) + " shift " +
                 std::to_string(shift));
    RunShifted(OverlapDesc(trial % 3 == 0 ? 1 : 0, type, sizes, in, out), shift);
    if (HasFailure()) return;
  }
}

// Rising walks over many chunks whose output crosses its input midway (elements on one side run
// front to back, the others back to front, in two passes), packed and strided rows, 1 and 2
// threads (f64 is large enough for the threaded rounds).
TEST(Layout, PartialOverlapRisingWalksThatCross) {
  const std::vector<uint64_t> sizes = {300, 200};
  for (DataType type : {DataType::kUInt8, DataType::kFloat32, DataType::kFloat64}) {
    const auto e = static_cast<int64_t>(ElementSize(type));
    for (int threads : {1, 2}) {
      for (int64_t crossing_row : {int64_t{5}, int64_t{100}, int64_t{290}}) {
        SCOPED_TRACE(std::string(Name(type)) + " threads " + std::to_string(threads) +
                     " crossing at row " + std::to_string(crossing_row));
        // Rows of 200 in a pitch of 210 compacted: out - in = shift - 10 e r.
        const int64_t shift = crossing_row * 10 * e;
        RunShifted(OverlapDesc(0, type, sizes, {210, 1}, {200, 1}), shift, threads);
        RunShifted(OverlapDesc(1, type, sizes, {210, 1}, {200, 1}), shift + 1, threads);
        // Packed rows spread to the pitch: out - in = shift + 10 e r.
        RunShifted(OverlapDesc(1, type, sizes, {200, 1}, {210, 1}), -shift, threads);
        // Every second element gathered into packed rows.
        RunShifted(OverlapDesc(0, type, sizes, {420, 2}, {200, 1}), 22 * crossing_row * e, threads);
        // Packed rows spread to every second element: out - in = shift + 220 e r + e c, crossing
        // zero mid-row, between two elements when a byte is added.
        const int64_t spread = -(220 * crossing_row + 100) * e;
        RunShifted(OverlapDesc(1, type, sizes, {200, 1}, {420, 2}), spread, threads);
        if (e > 1) RunShifted(OverlapDesc(0, type, sizes, {200, 1}, {420, 2}), spread + 1, threads);
      }
    }
  }
}

// A rank-8 tensor reversed onto itself in every second dim (no two dims merge): mirror tiles
// over the most dims a plan has.
TEST(Layout, PartialOverlapMirrorOfRankEight) {
  const std::vector<uint64_t> sizes = {2, 3, 2, 3, 2, 3, 2, 3};
  const std::vector<size_t> order = {0, 1, 2, 3, 4, 5, 6, 7};
  for (const DataType type :
       {DataType::kUInt8, DataType::kFloat16, DataType::kFloat32, DataType::kFloat64}) {
    SCOPED_TRACE(Name(type));
    const std::vector<int64_t> in = StoredStrides(sizes, order, 0, 0);
    const std::vector<int64_t> out = StoredStrides(sizes, order, 0, 0x55u);
    RunShifted(OverlapDesc(0, type, sizes, in, out), 0);
    RunShifted(OverlapDesc(1, type, sizes, in, out), 0, 2);
  }
}

// Packed rows spread to every second element, each output row starting one element after the
// previous row's last (rows of n in a pitch of 2n - 1): out - in = shift + (n - 1) e r + e c.
// The shift puts a row's last element a byte below its input, so the next row's first output
// covers part of that input: the last element must run in the rising pass, before the next
// row's first. Rows of 16 KiB or more, so that the two lie in different chunks.
TEST(Layout, PartialOverlapOfRowsThatMeetAtTheirEnds) {
  for (const DataType type : {DataType::kFloat16, DataType::kFloat32, DataType::kFloat64}) {
    const auto e = static_cast<int64_t>(ElementSize(type));
    for (const int64_t n : {int64_t{50}, int64_t{10000}}) {
      const auto un = static_cast<uint64_t>(n);
      for (const int64_t row : {int64_t{0}, int64_t{1}}) {
        SCOPED_TRACE(std::string(Name(type)) + " n " + std::to_string(n) + " row " +
                     std::to_string(row));
        const int64_t shift = -(row + 1) * (n - 1) * e;
        RunShifted(OverlapDesc(0, type, {3, un}, {n, 1}, {2 * n - 1, 2}), shift - 1);
        RunShifted(OverlapDesc(1, type, {3, un}, {n, 1}, {2 * n - 1, 2}), shift + 1);
      }
    }
  }
}

// Rising walks whose output-minus-input distance falls along each row (input elements 3 apart,
// packed output): in each row the elements at or below their input are a suffix, which starts at
// the first element whose distance is at most 0, rounded up, not down. Rounding down would put
// the last element of a row above its input into the rising pass, where it overwrites the input
// of the next row's first element before that is read.
TEST(Layout, PartialOverlapOfRowsSplitMidRow) {
  const DataType t = DataType::kFloat32;
  for (int op : {0, 1}) {
    RunShifted(OverlapDesc(op, t, {600, 8}, {22, 3}, {8, 1}), 28676);
  }
}

// Input rows of 8 in a pitch of 7 (each row's last element is the next row's first) into packed
// rows, the input 2,390 bytes above the output: the input walk reads an element twice, so it does
// not rise with the linear index and no chunk order is exact (the stride must exceed the inner
// extent, not merely equal it); the result must still be as if the input were read first.
TEST(Layout, PartialOverlapOfRowsThatShareAnElement) {
  const DataType t = DataType::kFloat32;
  for (int op : {0, 1}) {
    RunShifted(OverlapDesc(op, t, {600, 8}, {7, 1}, {8, 1}), -2390);
  }
}

// Every square transpose and reversal onto itself of a small matrix, with the rows padded.
TEST(Layout, PartialOverlapMirrorsOntoThemselves) {
  for (DataType type :
       {DataType::kUInt8, DataType::kUInt16, DataType::kFloat32, DataType::kFloat64}) {
    for (uint64_t n : {uint64_t{1}, uint64_t{2}, uint64_t{7}, uint64_t{33}}) {
      const std::vector<uint64_t> sizes = {n, n};
      const int64_t pitch = static_cast<int64_t>(n) + 2;
      for (unsigned negative = 0; negative < 4; ++negative) {
        const std::vector<int64_t> rows = StoredStrides(sizes, {0, 1}, 2, negative);
        const std::vector<int64_t> columns = StoredStrides(sizes, {1, 0}, 2, negative);
        const std::vector<int64_t> flipped = StoredStrides(sizes, {0, 1}, 2, negative ^ 3u);
        SCOPED_TRACE(std::string(Name(type)) + " n=" + std::to_string(n) + " pitch " +
                     std::to_string(pitch) + " negative " + std::to_string(negative));
        RunShifted(OverlapDesc(0, type, sizes, rows, columns), 0);  // transpose
        RunShifted(OverlapDesc(1, type, sizes, rows, flipped), 0);  // reversal
        RunShifted(OverlapDesc(0, type, sizes, columns, flipped), 0);
      }
    }
  }
}

// The bounded classes use at most 1 MiB of temporary memory however large the tensors (checked
// through the CPU backend's hook on 2.1 MiB tensors; the bound does not grow with them), and stay
// exact; a class that still copies the input reports its whole span.
TEST(Layout, PartialOverlapStagingIsBounded) {
  constexpr uint64_t kBound = uint64_t{1} << 20;
  const DataType t = DataType::kUInt8;
  const std::vector<uint64_t> square = {1500, 1500};
  const std::vector<int64_t> rows = {1500, 1}, columns = {1, 1500}, reversed = {-1500, -1};
  auto staged = [](const OperatorDesc& desc, int64_t shift, int threads) {
    RunShifted(desc, shift, threads);
    return LastOverlapStagingBytes();
  };
  for (int threads : {1, 2}) {
    SCOPED_TRACE("threads " + std::to_string(threads));
    // Rising walks: rows compacted (one pass) and rows spread so that neither direction holds
    // for every element (two passes).
    const std::vector<uint64_t> padded = {1500, 1500};
    const std::vector<int64_t> pitch = {1600, 1}, packed = {1500, 1};
    EXPECT_LE(staged(OverlapDesc(0, t, padded, pitch, packed), 0, threads), kBound);
    EXPECT_LE(staged(OverlapDesc(1, t, padded, packed, pitch), 1000 * 100, threads), kBound);
    EXPECT_LE(staged(OverlapDesc(0, t, padded, pitch, packed), 1000 * 100, threads), kBound);
    // A square transpose and a reversal onto themselves.
    EXPECT_LE(staged(OverlapDesc(0, t, square, rows, columns), 0, threads), kBound);
    EXPECT_LE(staged(OverlapDesc(1, t, square, reversed, rows), 0, threads), kBound);
    // No chunk order: a transpose one element away from itself, a non-square transpose onto
    // itself, a reversal shifted by some elements (the element map followed; blocks and chunks).
    EXPECT_LE(staged(OverlapDesc(0, t, square, rows, columns), 1, threads), kBound);
    EXPECT_LE(staged(OverlapDesc(1, t, {1000, 1700}, {1, 1000}, {1700, 1}), 0, threads), kBound);
    EXPECT_LE(staged(OverlapDesc(0, t, {2500000}, {-1}, {1}), 7, threads), kBound);
    EXPECT_LE(staged(OverlapDesc(1, t, {2500000}, {-1}, {1}), -300001, threads), kBound);
    // A fraction of an element away from itself: moved into the output's bytes, then permuted.
    const DataType u16 = DataType::kUInt16;
    EXPECT_LE(staged(OverlapDesc(0, u16, square, rows, columns), 1, threads), kBound);
    // A row broadcast to every row (a zero stride), and a column to every column transposed,
    // anywhere over the output: the slice of the broadcast dims at 0 first, then copied on.
    EXPECT_LE(staged(OverlapDesc(0, t, {3, 1500, 1500}, {0, 1500, 1}, {2250000, 1500, 1}),
                     700 * 1500, threads),
              kBound);
    EXPECT_LE(
        staged(OverlapDesc(1, u16, {2, 1500, 1500}, {0, 1, 1500}, {2250000, 1500, 1}), 3, threads),
        kBound);
    // Still copied: a fraction of an element away and into a padded output, and rows that share
    // elements.
    EXPECT_EQ(staged(OverlapDesc(0, u16, square, columns, pitch), 1, threads), 2u * 1500 * 1500);
    EXPECT_EQ(staged(OverlapDesc(0, t, square, {700, 1}, rows), 0, threads), 1499u * 700 + 1500);
  }
}

constexpr DataType kOneOfEachSize[] = {DataType::kUInt8, DataType::kFloat16, DataType::kFloat32,
                                       DataType::kFloat64};

// Packed R x C matrices (and batches of them) transposed onto themselves, small limits making
// small ones take the large ones' paths: blocks of rows then chunks, chunks then blocks of
// columns, or (a limit below a row and a column) the element map. Shapes: 1 x N, N x 1, primes,
// tall, wide, sizes with many and with few divisors.
TEST(Layout, PartialOverlapNonSquareTransposes) {
  const std::vector<std::pair<uint64_t, uint64_t>> shapes = {
      {1, 17},  {17, 1},    {2, 3},    {3, 2},    {7, 13},   {13, 7},  {64, 96},
      {96, 64}, {101, 103}, {128, 36}, {37, 250}, {250, 37}, {60, 84}, {1, 1}};
  for (const uint64_t limit : {uint64_t{1}, uint64_t{256}, uint64_t{4096}}) {
    const OverlapLimits limits(0, limit);
    for (int threads : {1, 2, 5}) {
      for (const DataType type : kOneOfEachSize) {
        for (const auto& [r, c] : shapes) {
          SCOPED_TRACE(std::string(Name(type)) + " " + std::to_string(r) + "x" + std::to_string(c) +
                       " limit " + std::to_string(limit) + " threads " + std::to_string(threads));
          const auto rr = static_cast<int64_t>(r), cc = static_cast<int64_t>(c);
          const int op = static_cast<int>((r + c + static_cast<uint64_t>(threads)) % 2);
          RunShifted(OverlapDesc(op, type, {c, r}, {1, cc}, {rr, 1}), 0, threads);
          RunShifted(OverlapDesc(1 - op, type, {3, c, r}, {rr * cc, 1, cc}, {rr * cc, rr, 1}), 0,
                     threads);
          // Cells of k elements: the two outer dims of (C, R, k) swapped, alone and in a batch.
          const int64_t k = op == 0 ? 3 : 5;
          RunShifted(OverlapDesc(op, type, {c, r, 7}, {7, 7 * cc, 1}, {7 * rr, 7, 1}), 0, threads);
          RunShifted(OverlapDesc(1 - op, type, {2, c, r, static_cast<uint64_t>(k)},
                                 {k * rr * cc, k, k * cc, 1}, {k * rr * cc, k * rr, k, 1}),
                     0, threads);
          if (HasFailure()) return;
        }
      }
    }
  }
}

// Walks that no chunk order makes exact, followed through the element map (the copy limit at 0):
// transposes shifted and padded, reversals shifted by some elements, 3-d and 4-d permutations
// with reversed dims, at shifts of whole elements; 1, 2 and many threads.
TEST(Layout, PartialOverlapFollowsTheElementMap) {
  const OverlapLimits limits(0, 0);
  std::mt19937_64 rng(61);
  const std::vector<std::vector<uint64_t>> shapes = {
      {257}, {1000}, {7, 13}, {20, 30}, {3, 4, 5}, {6, 5, 7}, {2, 3, 4, 5}, {4, 1, 6, 3}};
  for (int trial = 0; trial < 1200; ++trial) {
    const std::vector<uint64_t>& sizes = shapes[rng() % shapes.size()];
    const DataType type = kOneOfEachSize[rng() % 4];
    const auto e = static_cast<int64_t>(ElementSize(type));
    std::vector<size_t> in_order(sizes.size()), out_order(sizes.size());
    std::iota(in_order.begin(), in_order.end(), size_t{0});
    std::iota(out_order.begin(), out_order.end(), size_t{0});
    std::shuffle(in_order.begin(), in_order.end(), rng);
    std::shuffle(out_order.begin(), out_order.end(), rng);
    const unsigned all = (1u << sizes.size()) - 1;
    const auto in_negative = static_cast<unsigned>(rng() & all);
    const auto out_negative = static_cast<unsigned>(rng() & all);
    const int64_t pad = static_cast<int64_t>(rng() % 3);
    const std::vector<int64_t> in = StoredStrides(sizes, in_order, pad, in_negative);
    const std::vector<int64_t> out = StoredStrides(sizes, out_order, 0, out_negative);
    uint64_t count = 1;
    for (uint64_t s : sizes) count *= s;
    const auto reach = static_cast<int64_t>(count) + 2;
    const int64_t shift = (static_cast<int64_t>(rng() % static_cast<uint64_t>(2 * reach)) - reach) *
                          (trial % 4 == 0 ? 0 : e);
    const int threads = trial % 3 == 0 ? 1 : trial % 3 == 1 ? 2 : 7;
    SCOPED_TRACE("trial " + std::to_string(trial) + " " + std::string(Name(type)) + " shift " +
                 std::to_string(shift) + " threads " + std::to_string(threads));
    RunShifted(OverlapDesc(trial % 2, type, sizes, in, out), shift, threads);
    if (HasFailure()) return;
  }
}

// The element map on several threads, each task starting at its own element: tensors above the
// size that takes threads (640 KB moved), with no transpose fitting a slot. A non-square transpose
// onto itself and one shifted by 5 elements, a 3-d permutation shifted back by 7 (it merges into a
// 2-d transpose), and rows regrouped into padded rows shifted back by 7 (3-d, the output not
// packed). None copies the input: the 3-d walks are found nested only when their strides are
// sorted by magnitude.
TEST(Layout, PartialOverlapFollowsTheElementMapOnThreads) {
  const OverlapLimits limits(0, 0);
  constexpr uint64_t kInputBytes = 320000;
  for (const DataType type : kOneOfEachSize) {
    const auto e = static_cast<int64_t>(ElementSize(type));
    const uint64_t c = 800 / ElementSize(type);  // 400 rows of c: 320,000 bytes
    const auto cc = static_cast<int64_t>(c);
    for (const int threads : {2, 7}) {
      SCOPED_TRACE(std::string(Name(type)) + " threads " + std::to_string(threads));
      RunShifted(OverlapDesc(1, type, {400, c}, {1, 400}, {cc, 1}), 0, threads);
      EXPECT_LT(LastOverlapStagingBytes(), kInputBytes);
      RunShifted(OverlapDesc(0, type, {400, c}, {1, 400}, {cc, 1}), 5 * e, threads);
      EXPECT_LT(LastOverlapStagingBytes(), kInputBytes);
      RunShifted(OverlapDesc(1, type, {8, 50, c}, {50, 1, 400}, {50 * cc, cc, 1}), -7 * e, threads);
      EXPECT_LT(LastOverlapStagingBytes(), kInputBytes);
      RunShifted(OverlapDesc(0, type, {8, 50, c}, {cc, 8 * cc, 1}, {50 * (cc + 1), cc + 1, 1}),
                 -7 * e, threads);
      EXPECT_LT(LastOverlapStagingBytes(), kInputBytes);
      if (HasFailure()) return;
    }
  }
}

// Tensors of the largest rank whose dims mostly cannot merge (each padded by one element): random
// dim orders and signs, half the time mirrored or the same walk, at shifts of whole elements and
// 0 (where a mirror lands on itself), through the
// schemes the planner picks and through the element map (the copy limit at 0); 1 and 2 threads.
// Every per-dim loop of the schemes runs to the last slot of its arrays.
TEST(Layout, PartialOverlapAtTheLargestRank) {
  const std::vector<uint64_t> sizes = {2, 3, 2, 2, 3, 2, 2, 2};
  std::mt19937_64 rng(8);
  for (int trial = 0; trial < 240; ++trial) {
    const DataType type = kOneOfEachSize[rng() % 4];
    const auto e = static_cast<int64_t>(ElementSize(type));
    std::vector<size_t> in_order(sizes.size()), out_order(sizes.size());
    std::iota(in_order.begin(), in_order.end(), size_t{0});
    std::shuffle(in_order.begin(), in_order.end(), rng);
    out_order = in_order;
    const auto in_negative = static_cast<unsigned>(rng() & 255u);
    unsigned out_negative = in_negative ^ static_cast<unsigned>(rng() & 255u);
    if (trial % 2 == 0) {
      std::shuffle(out_order.begin(), out_order.end(), rng);
      out_negative = static_cast<unsigned>(rng() & 255u);
    } else if (trial % 4 == 1) {
      std::swap(out_order[2], out_order[5]);
    } else if (trial % 8 == 7) {
      out_negative = in_negative;  // the same walk, shifted: rising once the signs are flipped
    }
    const int64_t pad = trial % 4 < 2 ? 1 : trial % 8 / 4;
    const std::vector<int64_t> in = StoredStrides(sizes, in_order, pad, in_negative);
    const std::vector<int64_t> out = StoredStrides(sizes, out_order, pad, out_negative);
    const int64_t shifts[] = {0, e, -e, 5 * e};
    const int64_t shift = trial % 8 == 7 ? 5 * e : shifts[trial / 2 % 4];
    const int threads = trial % 3 == 0 ? 2 : 1;
    SCOPED_TRACE("trial " + std::to_string(trial) + " " + std::string(Name(type)) + " shift " +
                 std::to_string(shift));
    RunShifted(OverlapDesc(trial % 2, type, sizes, in, out), shift, threads);
    {
      const OverlapLimits limits(0, 0);
      RunShifted(OverlapDesc(1 - trial % 2, type, sizes, in, out), shift, threads);
    }
    if (HasFailure()) return;
  }
}

// Reversals onto themselves of padded rows (the dims do not merge) whose outer dim is cut into
// tiles that divide its half exactly (rows of a whole tile, or of a quarter): no tile may lie
// past the middle, where it would write a row already written by its neighbour.
TEST(Layout, PartialOverlapReversalsOfRowsInWholeTiles) {
  struct Case {
    DataType type;
    uint64_t rows, columns;
  };
  const Case cases[] = {{DataType::kUInt8, 4, 16384},
                        {DataType::kFloat16, 6, 8192},
                        {DataType::kFloat32, 10, 4096},
                        {DataType::kUInt8, 8, 4096},
                        {DataType::kFloat64, 16, 512}};
  for (const Case& c : cases) {
    const std::vector<uint64_t> sizes = {c.rows, c.columns};
    for (const unsigned negative : {1u, 3u}) {
      const std::vector<int64_t> in = StoredStrides(sizes, {0, 1}, 2, negative);
      const std::vector<int64_t> out = StoredStrides(sizes, {0, 1}, 2, 0);
      for (const int threads : {1, 2}) {
        SCOPED_TRACE(std::string(Name(c.type)) + " " + std::to_string(c.rows) + "x" +
                     std::to_string(c.columns) + " negative " + std::to_string(negative) +
                     " threads " + std::to_string(threads));
        RunShifted(
            OverlapDesc(static_cast<int>(negative & 1u) ^ (threads - 1), c.type, sizes, in, out), 0,
            threads);
      }
    }
  }
}

// The temporaries the schemes report through the CPU backend's hook are the ones their contracts
// name: rising walks on one thread take one chunk of at most 16 KiB, on threads a window of at
// most 512 KiB; a reversal shifted by whole elements (either way) takes two 16 KiB tiles per
// thread and nothing else.
TEST(Layout, PartialOverlapTemporariesOfTheirSchemes) {
  const DataType u8 = DataType::kUInt8, f32 = DataType::kFloat32;
  auto staged = [](const OperatorDesc& desc, int64_t shift, int threads) {
    RunShifted(desc, shift, threads);
    return LastOverlapStagingBytes();
  };
  const std::vector<uint64_t> padded = {1500, 1500};
  const std::vector<int64_t> pitch = {1600, 1}, packed = {1500, 1};
  EXPECT_LE(staged(OverlapDesc(0, u8, padded, pitch, packed), 0, 1), uint64_t{16} << 10);
  EXPECT_LE(staged(OverlapDesc(1, u8, padded, packed, pitch), 1000 * 100, 1), uint64_t{16} << 10);
  EXPECT_LE(staged(OverlapDesc(0, u8, padded, pitch, packed), 0, 2), uint64_t{512} << 10);
  for (const int threads : {1, 2}) {
    SCOPED_TRACE("threads " + std::to_string(threads));
    for (const int64_t shift : {int64_t{4} * 300001, int64_t{-4} * 300001, int64_t{4} * 7}) {
      EXPECT_EQ(staged(OverlapDesc(1, f32, {600000}, {-1}, {1}), shift, threads),
                uint64_t{2} * (uint64_t{16} << 10) * static_cast<uint64_t>(threads));
    }
  }
}

// Packed 3-d and 4-d tensors permuted onto themselves (every dim order of the input against the
// packed output): a sequence of in-place transposes of dim groups, small limits making the small
// tensors take the large ones' paths (a limit below some step's rows and columns: the element
// map). Shifted or padded inputs: moved into the output's bytes, then permuted.
TEST(Layout, PartialOverlapPackedPermutations) {
  const std::vector<std::vector<uint64_t>> shapes = {
      {3, 4, 5}, {6, 5, 7}, {16, 9, 10}, {2, 3, 4, 5}, {5, 2, 7, 3}};
  for (const uint64_t limit : {uint64_t{64}, uint64_t{1024}, uint64_t{16384}}) {
    const OverlapLimits limits(0, limit);
    for (const std::vector<uint64_t>& sizes : shapes) {
      std::vector<size_t> order(sizes.size());
      std::iota(order.begin(), order.end(), size_t{0});
      std::vector<size_t> packed = order;
      int n = 0;
      do {
        const DataType type = kOneOfEachSize[n % 4];
        const int threads = n % 3 == 0 ? 2 : 1;
        SCOPED_TRACE(std::string(Name(type)) + " permutation " + std::to_string(n) + " limit " +
                     std::to_string(limit));
        const std::vector<int64_t> in = StoredStrides(sizes, order, 0, 0);
        const std::vector<int64_t> out = StoredStrides(sizes, packed, 0, 0);
        RunShifted(OverlapDesc(n % 2, type, sizes, in, out), 0, threads);
        // Elsewhere, or from a padded input: moved into the output's bytes first (at any
        // distance, a fraction of an element included), then permuted there.
        const auto e = static_cast<int64_t>(ElementSize(type));
        for (const int64_t shift : {3 * e, -7 * e, e + 1, int64_t{-1}}) {
          RunShifted(OverlapDesc(n % 2, type, sizes, in, out), shift, threads);
        }
        const std::vector<int64_t> padded = StoredStrides(sizes, order, 1, 0);
        RunShifted(OverlapDesc(1 - n % 2, type, sizes, padded, out), 0, threads);
        RunShifted(OverlapDesc(1 - n % 2, type, sizes, padded, out), 5 * e, threads);
        if (HasFailure()) return;
        ++n;
      } while (std::next_permutation(order.begin(), order.end()));
    }
  }
}

// A vector reversed onto itself at every distance in whole elements (pairs of tiles, the elements
// without a partner alone), and a fraction of an element away (copied), with the copy limit at 0.
TEST(Layout, PartialOverlapShiftedReversals) {
  const OverlapLimits limits(0, 0);
  for (const DataType type : kOneOfEachSize) {
    const auto e = static_cast<int64_t>(ElementSize(type));
    for (const int64_t n : {int64_t{1}, int64_t{2}, int64_t{7}, int64_t{100}, int64_t{20001}}) {
      const auto un = static_cast<uint64_t>(n);
      const int64_t step = n > 100 ? 997 : 1;
      for (int64_t shift = -n - 2; shift <= n + 2; shift += step) {
        SCOPED_TRACE(std::string(Name(type)) + " n=" + std::to_string(n) + " shift " +
                     std::to_string(shift));
        const int threads = shift % 3 == 0 ? 2 : 1;
        RunShifted(OverlapDesc(static_cast<int>(shift & 1), type, {un}, {-1}, {1}), shift * e,
                   threads);
        if (n == 100 && e > 1) RunShifted(OverlapDesc(0, type, {un}, {-1}, {1}), shift * e + 1);
        if (HasFailure()) return;
      }
    }
  }
}

// Inputs whose walk does not nest: a row read again for every row (stride 0), rows that share
// elements (pitch below the row, or one below it: each row's last is the next row's first), and a
// transpose whose rows share elements. With the limits lowered they take the large-input paths:
// the stride 0 its broadcast slice; the others, which every faster move must hand on untouched
// (each needs a nested input), the copy of the whole input.
TEST(Layout, PartialOverlapOfInputsThatReadElementsTwice) {
  const OverlapLimits limits(0, 0);
  for (int threads : {1, 2}) {
    for (const DataType type : kOneOfEachSize) {
      const auto e = static_cast<int64_t>(ElementSize(type));
      SCOPED_TRACE(std::string(Name(type)) + " threads " + std::to_string(threads));
      for (const int64_t shift : {int64_t{0}, 3 * e, -40 * e}) {
        RunShifted(OverlapDesc(0, type, {40, 48}, {0, 1}, {48, 1}), shift, threads);
        RunShifted(OverlapDesc(1, type, {40, 48}, {17, 1}, {48, 1}), shift, threads);
        RunShifted(OverlapDesc(0, type, {40, 48}, {47, 1}, {48, 1}), shift, threads);
        RunShifted(OverlapDesc(0, type, {40, 48}, {1, 17}, {48, 1}), shift, threads);
      }
      if (HasFailure()) return;
    }
  }
}

// Inputs broadcast along some dims (a zero stride) over their own output: one dim or several,
// outer, middle or inner, with the other dims transposed or reversed, into packed and padded
// outputs, at whole and fractional distances. With the limits lowered they take the broadcast
// slice: the slice of the broadcast dims at 0 runs first, then is copied on.
TEST(Layout, PartialOverlapOfBroadcastInputs) {
  const OverlapLimits limits(0, 0);
  const std::vector<uint64_t> sizes = {6, 7, 9};
  struct Walks {
    std::vector<int64_t> in, out;
  };
  const Walks walks[] = {
      {{0, 9, 1}, {63, 9, 1}},   {{9, 0, 1}, {63, 9, 1}},   {{7, 1, 0}, {63, 9, 1}},
      {{0, 0, 1}, {63, 9, 1}},   {{0, 1, 0}, {63, 9, 1}},   {{0, 1, 7}, {63, 9, 1}},
      {{0, -9, -1}, {63, 9, 1}}, {{1, 0, -6}, {63, 9, 1}},  {{0, 9, 1}, {80, 10, 1}},
      {{0, 1, 7}, {1, 60, 6}},   {{-1, 0, 0}, {70, 10, 1}}, {{0, 12, 1}, {-63, -9, 1}},
  };
  for (int threads : {1, 2}) {
    for (const DataType type : kOneOfEachSize) {
      const auto e = static_cast<int64_t>(ElementSize(type));
      for (size_t w = 0; w < std::size(walks); ++w) {
        for (const int64_t shift : {int64_t{0}, e, -5 * e, 20 * e, e / 2, -3 * e - e / 2}) {
          if (shift % e != 0 && e == 1) continue;
          SCOPED_TRACE(std::string(Name(type)) + " walks " + std::to_string(w) + " shift " +
                       std::to_string(shift) + " threads " + std::to_string(threads));
          RunShifted(OverlapDesc(static_cast<int>(w % 2), type, sizes, walks[w].in, walks[w].out),
                     shift, threads);
        }
        if (HasFailure()) return;
      }
    }
  }
}

// Vectors read with a stride other than 1 or -1 onto a packed output, and vectors read backwards
// onto an output of stride 2 or 3: none is a shifted reversal (input stride -1, output stride 1),
// whatever the distance between the two.
TEST(Layout, PartialOverlapOfStridedVectors) {
  const OverlapLimits limits(0, 0);
  for (const DataType type : kOneOfEachSize) {
    const auto e = static_cast<int64_t>(ElementSize(type));
    const std::pair<int64_t, int64_t> strides[] = {{-3, 1}, {-2, 1}, {2, 1}, {-1, 2}, {-1, 3}};
    for (const auto& [in_stride, out_stride] : strides) {
      for (const int64_t shift : {-1999, -1000, -501, -1, 0, 1, 500, 999, 1998}) {
        SCOPED_TRACE(std::string(Name(type)) + " strides " + std::to_string(in_stride) + ", " +
                     std::to_string(out_stride) + " shift " + std::to_string(shift));
        RunShifted(OverlapDesc(1, type, {1000}, {in_stride}, {out_stride}), shift * e, 2);
      }
      if (HasFailure()) return;
    }
  }
}

// A vector reversed onto itself half an element away, both at addresses that are not multiples of
// the element size (any address is allowed): no whole number of elements apart, so not a shifted
// reversal, whichever lies higher.
TEST(Layout, PartialOverlapOfReversalsHalfAnElementApart) {
  const OverlapLimits limits(0, 0);
  for (const DataType type : {DataType::kFloat32, DataType::kFloat64}) {
    const uint64_t e = ElementSize(type);
    for (const uint64_t whole : {uint64_t{0}, uint64_t{3}, uint64_t{60}}) {
      const uint64_t low = e / 2 - 1, high = low + whole * e + e / 2;
      SCOPED_TRACE(std::string(Name(type)) + " input at " + std::to_string(low) + " and " +
                   std::to_string(high));
      const OperatorDesc desc = OverlapDesc(0, type, {100}, {-1}, {1});
      RunAndCheck(desc, true, high, low);
      RunAndCheck(desc, true, low, high);
    }
  }
}

// A single element overlapping itself by a fraction: no dims are left (rank 0), and the one
// element still runs as a walk of one chunk.
TEST(Layout, PartialOverlapOfASingleElement) {
  for (const DataType type : {DataType::kFloat16, DataType::kFloat32, DataType::kFloat64}) {
    const auto e = static_cast<int64_t>(ElementSize(type));
    for (const std::vector<uint64_t>& sizes : {std::vector<uint64_t>{1}, {1, 1, 1}}) {
      const std::vector<int64_t> strides(sizes.size(), 1);
      for (int64_t shift = 1 - e; shift < e; ++shift) {
        SCOPED_TRACE(std::string(Name(type)) + " rank " + std::to_string(sizes.size()) + " shift " +
                     std::to_string(shift));
        RunShifted(OverlapDesc(static_cast<int>(shift & 1), type, sizes, strides, strides), shift);
      }
    }
  }
}

// Batches of square transposes onto themselves (the two innermost dims swapped): a mirror tile
// holds several small matrices, each read transposed into its own plane of the tile.
TEST(Layout, PartialOverlapBatchesOfSquareTransposes) {
  for (const DataType type : kOneOfEachSize) {
    for (const uint64_t n : {uint64_t{2}, uint64_t{8}, uint64_t{64}}) {
      const auto nn = static_cast<int64_t>(n);
      for (const uint64_t batch : {uint64_t{3}, uint64_t{5}}) {
        SCOPED_TRACE(std::string(Name(type)) + " " + std::to_string(batch) + " of " +
                     std::to_string(n) + "x" + std::to_string(n));
        const std::vector<uint64_t> sizes = {batch, n, n};
        RunShifted(OverlapDesc(0, type, sizes, {nn * nn, 1, nn}, {nn * nn, nn, 1}), 0);
        RunShifted(OverlapDesc(1, type, sizes, {nn * nn, 1, nn}, {nn * nn, nn, 1}), 0, 2);
      }
    }
  }
}

// Tensors larger than every limit, at the default limits: a non-square transpose of each element
// size, a batch of them, a shifted transpose, shifted reversals and a 3-d permutation.
TEST(Layout, PartialOverlapLargerThanTheLimits) {
  for (int threads : {1, 2}) {
    for (const DataType type : kOneOfEachSize) {
      const auto e = static_cast<int64_t>(ElementSize(type));
      const uint64_t n = (uint64_t{5} << 18) / ElementSize(type);  // 1.25 MiB
      SCOPED_TRACE(std::string(Name(type)) + " threads " + std::to_string(threads));
      const uint64_t r = 1031, c = n / r;  // a prime number of rows
      const auto rr = static_cast<int64_t>(r), cc = static_cast<int64_t>(c);
      RunShifted(OverlapDesc(0, type, {c, r}, {1, cc}, {rr, 1}), 0, threads);
      RunShifted(OverlapDesc(1, type, {r / 2, 2 * c}, {1, rr / 2}, {2 * cc, 1}), 0, threads);
      RunShifted(
          OverlapDesc(1, type, {2, c / 2, r}, {rr * (cc / 2), 1, cc / 2}, {rr * (cc / 2), rr, 1}),
          0, threads);
      RunShifted(OverlapDesc(0, type, {n}, {-1}, {1}), 1001 * e, threads);
      RunShifted(OverlapDesc(1, type, {n}, {-1}, {1}), -static_cast<int64_t>(n / 3) * e, threads);
      if (type == DataType::kUInt8 || type == DataType::kFloat64) {
        RunShifted(OverlapDesc(0, type, {c, r}, {1, cc}, {rr, 1}), 5 * e, threads);
        // Two outer dims swapped, cells of 64 elements.
        const uint64_t b = static_cast<uint64_t>(std::sqrt(static_cast<double>(n) / 128));
        const auto bb = static_cast<int64_t>(b);
        RunShifted(OverlapDesc(0, type, {2 * b, b, 64}, {64, 128 * bb, 1}, {64 * bb, 64, 1}), 0,
                   threads);
        const uint64_t s = 96;
        const auto ss = static_cast<int64_t>(s);
        const uint64_t m = n / (s * s);
        const OperatorDesc permuted = OverlapDesc(
            1, type, {m, s, s}, {1, ss * static_cast<int64_t>(m), static_cast<int64_t>(m)},
            {ss * ss, ss, 1});
        RunShifted(permuted, -3 * e, threads);
        RunShifted(permuted, 0, threads);  // packed: transposes of dim groups
      }
      if (HasFailure()) return;
    }
  }
}

}  // namespace
}  // namespace eltwise::testing
