// The library's staging path (src/staging): strided host operands at DirectML levels (unaligned or
// short bindings staged), ranks above kMaxRank merged, packed in-place runs with DirectML padding,
// and zero-padded uploads. Expected values come from the oracle at addresses computed here from
// sizes and strides, not from the code under test; bytes no output element addresses must keep
// their fill pattern.
#include "staging/staging.h"

#include <gtest/gtest.h>

#include <cstring>
#include <vector>

#include "oracle.h"
#include "test_values.h"

namespace eltwise::testing {
namespace {

constexpr std::byte kFill{0xA5};

// Byte offset of every element (row-major index order) from element (0, ..., 0).
std::vector<int64_t> Offsets(const std::vector<uint64_t>& sizes,
                             const std::vector<int64_t>& strides, size_t esize) {
  uint64_t count = 1;
  for (uint64_t s : sizes) count *= s;
  std::vector<int64_t> offsets;
  std::vector<uint64_t> index(sizes.size(), 0);
  for (uint64_t i = 0; i < count; ++i) {
    int64_t e = 0;
    for (size_t d = 0; d < sizes.size(); ++d) e += static_cast<int64_t>(index[d]) * strides[d];
    offsets.push_back(e * static_cast<int64_t>(esize));
    for (size_t d = sizes.size(); d-- > 0;) {
      if (++index[d] < sizes[d]) break;
      index[d] = 0;
    }
  }
  return offsets;
}

// Runs `op` through staging::RunStrided on host arrays of `sizes` with the given strides (>= 0),
// each placed `misalign` bytes past an aligned address, and checks every element and every byte
// around them.
void CheckStrided(const Device& device, const OperatorDesc& op, DataType type,
                  const std::vector<uint64_t>& sizes, const std::vector<int64_t>& in_strides,
                  const std::vector<int64_t>& out_strides, size_t misalign) {
  const size_t esize = ElementSize(type);
  const std::vector<int64_t> in_offsets = Offsets(sizes, in_strides, esize);
  const std::vector<int64_t> out_offsets = Offsets(sizes, out_strides, esize);
  int64_t in_span = 0, out_span = 0;
  for (int64_t o : in_offsets) in_span = std::max<int64_t>(in_span, o + esize);
  for (int64_t o : out_offsets) out_span = std::max<int64_t>(out_span, o + esize);
  // 64-byte aligned vectors plus room for the misalignment.
  std::vector<std::byte> in_buffer(in_span + 64 + misalign),
      out_buffer(out_span + 64 + misalign, kFill);
  auto aligned = [](std::byte* p) { return p + (64 - reinterpret_cast<uintptr_t>(p) % 64) % 64; };
  std::byte* in = aligned(in_buffer.data()) + misalign;
  std::byte* out = aligned(out_buffer.data()) + misalign;
  const std::vector<std::byte> values = TestInputs(type, 256);
  const size_t value_count = values.size() / esize;
  for (size_t i = 0; i < in_offsets.size(); ++i) {
    std::memcpy(in + in_offsets[i], values.data() + (i % value_count) * esize, esize);
  }
  const std::vector<std::byte> before = out_buffer;

  staging::StridedCall call;
  call.op = op;
  call.type = type;
  call.geometry = {sizes, in_strides, out_strides};
  call.input = in;
  call.output = out;
  ASSERT_TRUE(staging::RunStrided(device, call).ok());

  std::vector<bool> addressed(out_buffer.size(), false);
  for (size_t i = 0; i < out_offsets.size(); ++i) {
    const Decoded x = Decode(type, in + in_offsets[i]);
    const Decoded want = OracleFor(op, type, x);
    const Decoded got = Decode(type, out + out_offsets[i]);
    ASSERT_TRUE(SameValue(got, want))
        << "element " << i << ": " << ToString(type, x) << " gave " << ToString(type, got)
        << ", expected " << ToString(type, want);
    for (size_t b = 0; b < esize; ++b)
      addressed[out - out_buffer.data() + out_offsets[i] + b] = true;
  }
  for (size_t b = 0; b < out_buffer.size(); ++b) {
    if (!addressed[b]) ASSERT_EQ(out_buffer[b], before[b]) << "byte " << b << " was written";
  }
}

TEST(Staging, DirectMLLevelStagesUnalignedAndShortBindings) {
  const Expected<Device> device =
      Device::Cpu(CpuOptions{.feature_level = FeatureLevel::k6_4, .threads = 1});
  ASSERT_TRUE(device.ok());
  const TensorDesc none;
  // 3 x 5 float16: 30 bytes, which DMLCalcBufferTensorSize rounds up to 32; addresses 2 bytes off
  // the 16-byte alignment DirectML requires.
  const std::vector<uint64_t> sizes = {3, 5};
  CheckStrided(*device, SignDesc{none, none, NanPolicy::kZero}, DataType::kFloat16, sizes, {5, 1},
               {5, 1}, 2);
  CheckStrided(*device, RoundDesc{none, none, RoundingMode::kTowardInfinity}, DataType::kFloat32,
               sizes, {1, 3}, {5, 1}, 4);
  // Packed and aligned: no staging needed.
  CheckStrided(*device, SignDesc{none, none, NanPolicy::kPropagate}, DataType::kInt8, {4, 8},
               {8, 1}, {8, 1}, 0);
}

TEST(Staging, RanksAboveEightAreMergedAtTheExtendedLevel) {
  const Expected<Device> device = Device::Cpu(CpuOptions{.threads = 1});
  ASSERT_TRUE(device.ok());
  const TensorDesc none;
  // Rank 10 with size-1 dimensions and a padded row: merges to rank <= 8.
  const std::vector<uint64_t> sizes = {2, 1, 3, 1, 2, 1, 1, 2, 1, 5};
  const std::vector<int64_t> packed = PackedStrides(sizes);
  std::vector<int64_t> padded = packed;
  for (size_t d = 0; d + 1 < sizes.size(); ++d) padded[d] *= 2;  // every row twice as long
  CheckStrided(*device, RoundDesc{none, none, RoundingMode::kDown}, DataType::kBFloat16, sizes,
               padded, packed, 0);
  staging::StridedCall call;
  call.op = SignDesc{};
  call.type = DataType::kFloat32;
  call.geometry = {sizes, padded, packed};
  EXPECT_LE(staging::DescribedGeometry(*device, call).sizes.size(), static_cast<size_t>(kMaxRank));
}

TEST(Staging, RanksAboveEightAreRejectedAtDirectMLLevels) {
  const Expected<Device> device = Device::Cpu(CpuOptions{.feature_level = FeatureLevel::k6_4});
  ASSERT_TRUE(device.ok());
  const std::vector<uint64_t> sizes(9, 2);
  std::vector<std::byte> in(512 * 4), out(512 * 4);
  staging::StridedCall call;
  call.op = SignDesc{};
  call.type = DataType::kFloat32;
  call.geometry = {sizes, PackedStrides(sizes), PackedStrides(sizes)};
  call.input = in.data();
  call.output = out.data();
  const Status status = staging::RunStrided(*device, call);
  ASSERT_FALSE(status.ok());
  EXPECT_NE(status.message().find("input.sizes has 9 dimensions"), std::string::npos)
      << status.message();
}

TEST(Staging, MergeDimsKeepsTheElementCorrespondence) {
  const staging::Geometry merged =
      staging::MergeDims({{2, 1, 3, 4}, {12, 12, 4, 1}, {12, 99, 4, 1}});
  EXPECT_EQ(merged.sizes, (std::vector<uint64_t>{24}));
  EXPECT_EQ(merged.in_strides, (std::vector<int64_t>{1}));
  EXPECT_EQ(merged.out_strides, (std::vector<int64_t>{1}));
  const staging::Geometry transposed = staging::MergeDims({{3, 4}, {1, 3}, {4, 1}});
  EXPECT_EQ(transposed.sizes, (std::vector<uint64_t>{3, 4}));
  EXPECT_EQ(staging::MergeDims({{3, 0, 4}, {4, 4, 1}, {4, 4, 1}}).sizes,
            (std::vector<uint64_t>{0}));
}

TEST(Staging, RunInPlacePadsToTheDirectMLSize) {
  const Expected<Device> device = Device::Cpu(CpuOptions{.feature_level = FeatureLevel::k6_4});
  ASSERT_TRUE(device.ok());
  const DataType type = DataType::kFloat16;
  const std::vector<std::byte> values = TestInputs(type, 0);
  const uint64_t count = 7;  // 14 bytes; DirectML's size is 16
  std::vector<std::byte> data(values.begin() + 2 * 1000, values.begin() + 2 * (1000 + count));
  const std::vector<std::byte> original = data;
  const TensorDesc t = TensorDesc::Packed(type, {count});
  ASSERT_EQ(t.total_tensor_size_in_bytes, 16u);
  ASSERT_TRUE(staging::RunInPlace(*device, RoundDesc{t, t, RoundingMode::kTowardZero}, data).ok());
  for (uint64_t i = 0; i < count; ++i) {
    const Decoded x = Decode(type, original.data() + 2 * i);
    const Decoded got = Decode(type, data.data() + 2 * i);
    EXPECT_TRUE(SameValue(got, OracleRound(type, x, RoundingMode::kTowardZero))) << "element " << i;
  }
}

TEST(Staging, UploadZeroesThePadding) {
  const Expected<Device> device = Device::Cpu();
  ASSERT_TRUE(device.ok());
  staging::DeviceBuffers buffers(*device);
  const std::vector<std::byte> host = {std::byte{1}, std::byte{2}, std::byte{3}};
  const Expected<void*> p = buffers.Upload(host, 8);
  ASSERT_TRUE(p.ok());
  std::vector<std::byte> back(8, kFill);
  ASSERT_TRUE(CopyToHost(*device, back.data(), *p, 8).ok());
  EXPECT_EQ(back, (std::vector<std::byte>{std::byte{1}, std::byte{2}, std::byte{3}, std::byte{0},
                                          std::byte{0}, std::byte{0}, std::byte{0}, std::byte{0}}));
  EXPECT_EQ(staging::PackedBufferBytes(DataType::kFloat16, {7}), 16u);
  EXPECT_EQ(staging::PackedBufferBytes(DataType::kFloat32, {0}), 0u);
}

}  // namespace
}  // namespace eltwise::testing
