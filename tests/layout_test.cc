// Layouts through the public API: strides (negative, zero, padded, transposed), rank 0 and 8, empty
// tensors, in-place and partial overlap, thread counts. Expected values come from the oracle
// applied at addresses computed here from the descriptions (not from the plan); output bytes that
// no element addresses must keep their fill pattern.
#include <gtest/gtest.h>

#include <cstring>
#include <numeric>
#include <random>
#include <vector>

#include "oracle.h"
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
    std::memcpy(in_base + in_offsets[i], values.data() + (i % value_count) * esize, esize);
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
  }
}

}  // namespace
}  // namespace eltwise::testing
