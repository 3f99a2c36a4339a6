#include "layout_cases.h"

#include <algorithm>
#include <cstring>

namespace eltwise::testing {
namespace {

using Sharing = LayoutCase::Sharing;

// Strides of a tensor stored with its dimensions in `order` (slowest first).
std::vector<int64_t> StridesForOrder(const std::vector<uint64_t>& sizes,
                                     const std::vector<int>& order) {
  std::vector<int64_t> strides(sizes.size());
  int64_t stride = 1;
  for (size_t k = order.size(); k-- > 0;) {
    strides[order[k]] = stride;
    stride *= static_cast<int64_t>(sizes[order[k]]);
  }
  return strides;
}

uint64_t RoundUp(uint64_t x, uint64_t m) { return (x + m - 1) / m * m; }

}  // namespace

std::vector<LayoutCase> LayoutCases(DataType type, uint64_t n) {
  const uint64_t e = ElementSize(type);
  const uint64_t m = std::min<uint64_t>(n, 20000);
  std::vector<LayoutCase> c;
  // Contiguous: the 16-byte vector kernel with every phase combination, and element-misaligned
  // addresses (the extended level allows any address).
  c.push_back({"contiguous", {n}, {}, {}, Sharing::kSeparate, 0, 0});
  c.push_back({"contiguous_same_phase", {n}, {}, {}, Sharing::kSeparate, e, e});
  c.push_back({"contiguous_output_phase", {n}, {}, {}, Sharing::kSeparate, 0, e});
  c.push_back({"contiguous_input_phase", {n}, {}, {}, Sharing::kSeparate, 3 * e, 0});
  c.push_back({"contiguous_misaligned_elements", {m}, {}, {}, Sharing::kSeparate, 1, 3});
  // Lengths around the vector, thread and block tiles (heads and tails).
  for (uint64_t k : {1, 2, 3, 5, 7, 8, 9, 15, 16, 17, 31, 33, 63, 64, 65, 1023, 1025, 4097}) {
    if (k > n) continue;
    c.push_back(
        {"length_" + std::to_string(k), {k}, {}, {}, Sharing::kSeparate, (k % 4) * e, (k % 3) * e});
  }
  // Strided (the fast-division kernel).
  c.push_back({"reversed_to_every_other", {m}, std::vector<int64_t>{-1}, std::vector<int64_t>{2}});
  c.push_back({"row_slices", {16, 70}, std::vector<int64_t>{100, 1}, std::vector<int64_t>{80, 1}});
  c.push_back({"permute_4d", {4, 6, 10, 12}, StridesForOrder({4, 6, 10, 12}, {2, 0, 3, 1}), {}});
  c.push_back({"rank8_reversed",
               {2, 3, 2, 3, 2, 3, 2, 3},
               StridesForOrder({2, 3, 2, 3, 2, 3, 2, 3}, {7, 6, 5, 4, 3, 2, 1, 0}),
               {}});
  c.push_back({"rank8_strided_output",
               {3, 2, 3, 2, 3, 2, 3, 2},
               {},
               std::vector<int64_t>{1000, 400, 130, 60, 20, 8, 3, 1}});
  c.push_back(
      {"misaligned_strided", {37, 11}, std::vector<int64_t>{1, 40}, {}, Sharing::kSeparate, 1, 2});
  // Transposes (the tiled kernel), odd sizes so tiles are partial.
  c.push_back({"transpose_37x45", {37, 45}, std::vector<int64_t>{1, 37}, {}});
  c.push_back({"transpose_300x257", {300, 257}, std::vector<int64_t>{1, 300}, {}});
  c.push_back({"transpose_negative", {40, 50}, std::vector<int64_t>{-1, 40}, {}});
  c.push_back({"transpose_padded_output",
               {33, 34},
               std::vector<int64_t>{1, 33},
               std::vector<int64_t>{40, 1}});
  c.push_back({"permute_3d_tiled", {9, 17, 33}, StridesForOrder({9, 17, 33}, {2, 0, 1}), {}});
  c.push_back({"batched_transpose", {4, 30, 40}, StridesForOrder({4, 30, 40}, {0, 2, 1}), {}});
  c.push_back({"batched_transpose_2_outer",
               {3, 2, 20, 24},
               StridesForOrder({3, 2, 20, 24}, {1, 0, 3, 2}),
               {}});
  // Broadcast inputs.
  c.push_back({"broadcast", {7, 9}, std::vector<int64_t>{0, 0}, {}});
  c.push_back({"broadcast_strided_output",
               {5, 6},
               std::vector<int64_t>{0, 0},
               std::vector<int64_t>{14, 2}});
  c.push_back({"broadcast_rows", {20, 33}, std::vector<int64_t>{0, 1}, {}});
  // Rank 0 and an empty tensor.
  c.push_back({"rank0", {}, {}, {}});
  c.push_back({"empty", {0, 5}, {}, {}});
  // In place and partial overlap.
  c.push_back({"in_place", {n}, {}, {}, Sharing::kInPlace, 0, 0});
  c.push_back({"in_place_misaligned", {m}, {}, {}, Sharing::kInPlace, 1, 1});
  c.push_back({"in_place_strided",
               {30, 40},
               std::vector<int64_t>{50, 1},
               std::vector<int64_t>{50, 1},
               Sharing::kInPlace,
               e,
               e});
  c.push_back({"overlap_output_ahead", {m}, {}, {}, Sharing::kOverlap, 0, 3 * e});
  c.push_back({"overlap_output_behind", {m}, {}, {}, Sharing::kOverlap, 5 * e, 0});
  c.push_back(
      {"overlap_reversed", {m}, std::vector<int64_t>{-1}, {}, Sharing::kOverlap, 0, (m / 2) * e});
  c.push_back({"overlap_transpose",
               {64, 64},
               std::vector<int64_t>{1, 64},
               {},
               Sharing::kOverlap,
               0,
               640 * e});
  return c;
}

Image MakeImage(const LayoutCase& layout, DataType type, const std::vector<std::byte>& values) {
  Image image;
  image.input = layout.input_strides
                    ? TensorDesc::Strided(type, layout.sizes, *layout.input_strides)
                    : TensorDesc::Packed(type, layout.sizes);
  image.output = layout.output_strides
                     ? TensorDesc::Strided(type, layout.sizes, *layout.output_strides)
                     : TensorDesc::Packed(type, layout.sizes);
  const uint64_t in_bytes = image.input.total_tensor_size_in_bytes;
  const uint64_t out_bytes = image.output.total_tensor_size_in_bytes;
  image.input_at = layout.input_byte_offset;
  switch (layout.sharing) {
    case Sharing::kSeparate:
      image.output_at =
          RoundUp(image.input_at + in_bytes + 64, kImageAlignment) + layout.output_byte_offset;
      break;
    case Sharing::kInPlace:
      image.output_at = image.input_at;
      break;
    case Sharing::kOverlap:
      image.output_at = layout.output_byte_offset;
      break;
  }
  const uint64_t end = std::max(image.input_at + in_bytes, image.output_at + out_bytes) + 64;
  image.bytes.assign(end, kSentinel);
  // Input elements (and the bytes between them) cycle through the test values.
  const uint64_t esize = ElementSize(type);
  const uint64_t count = values.size() / esize;
  for (uint64_t i = 0; i * esize < in_bytes && count > 0; ++i) {
    const uint64_t bytes = std::min(esize, in_bytes - i * esize);
    std::memcpy(image.bytes.data() + image.input_at + i * esize,
                values.data() + (i % count) * esize, bytes);
  }
  return image;
}

}  // namespace eltwise::testing
