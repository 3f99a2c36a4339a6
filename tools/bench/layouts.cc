#include "bench/layouts.h"

#include <algorithm>
#include <cmath>
#include <utility>

namespace eltwise::bench {
namespace {

constexpr std::pair<std::string_view, Layout> kLayoutNames[] = {
    {"contiguous", Layout::kContiguous},
    {"inplace", Layout::kInPlace},
    {"transposed", Layout::kTransposed},
    {"broadcast", Layout::kBroadcast},
    {"rows", Layout::kRows},
    {"gathered", Layout::kGathered2},
    {"gathered3", Layout::kGathered3},
    {"gathered4", Layout::kGathered4},
    {"overlap", Layout::kOverlap},
    {"overlap_cross", Layout::kOverlapCross},
    {"overlap_transpose", Layout::kOverlapTranspose},
    {"overlap_reverse", Layout::kOverlapReverse},
    {"overlap_transpose_wide", Layout::kOverlapTransposeWide},
    {"overlap_reverse_shifted", Layout::kOverlapReverseShifted},
    {"overlap_permute", Layout::kOverlapPermute},
    {"overlap_transpose_shifted", Layout::kOverlapTransposeShifted},
    {"overlap_broadcast", Layout::kOverlapBroadcast},
    {"nchw_to_nhwc", Layout::kNchwToNhwc},
    {"nhwc_to_nchw", Layout::kNhwcToNchw},
    {"batched_transpose", Layout::kBatchedTranspose},
};

// Padded rows: kRowElements elements in a pitch of kRowPitch, padding on both sides never written.
constexpr uint64_t kRowElements = 1000, kRowPitch = 1024;
// Activations: kChannels channels of a square H x W image (ResNet's first stages have 64).
constexpr uint64_t kChannels = 64;
// Batched transposes: each matrix kBatchRows x kBatchColumns in the output (attention's heads of
// 64 features over 256 positions).
constexpr uint64_t kBatchRows = 64, kBatchColumns = 256;

int64_t Signed(uint64_t v) { return static_cast<int64_t>(v); }

}  // namespace

std::optional<Layout> ParseLayout(std::string_view name) {
  for (const auto& [layout_name, layout] : kLayoutNames) {
    if (layout_name == name) return layout;
  }
  return std::nullopt;
}

Shapes MakeShapes(Layout layout, DataType type, uint64_t bytes) {
  const uint64_t esize = ElementSize(type);
  uint64_t n = std::max<uint64_t>(bytes / esize, 1);
  // n rounded down to whole padded rows (at least one).
  const auto padded_rows = [&] {
    const uint64_t rows = std::max<uint64_t>(1, n / kRowElements);
    n = rows * kRowElements;
    return TensorDesc::Strided(type, {rows, kRowElements}, {static_cast<int64_t>(kRowPitch), 1});
  };
  // n rounded down to a square matrix, read column-wise (input strides [1, side]).
  const auto column_major_square = [&] {
    const uint64_t side =
        std::max<uint64_t>(1, static_cast<uint64_t>(std::sqrt(static_cast<double>(n))));
    n = side * side;
    return TensorDesc::Strided(type, {side, side}, {1, static_cast<int64_t>(side)});
  };
  Shapes s;
  switch (layout) {
    case Layout::kContiguous:
    case Layout::kInPlace:
      s.input = s.output = TensorDesc::Packed(type, {n});
      break;
    case Layout::kTransposed:
    case Layout::kOverlapTranspose:  // onto itself: mirror pairs of tiles
      s.input = column_major_square();
      s.output = TensorDesc::Packed(type, s.input.sizes);
      break;
    case Layout::kBroadcast:
      s.input = TensorDesc::Strided(type, {n}, {0});
      s.output = TensorDesc::Packed(type, {n});
      break;
    case Layout::kRows:
      s.input = s.output = padded_rows();
      break;
    case Layout::kGathered2:
    case Layout::kGathered3:
    case Layout::kGathered4: {
      const int64_t stride = layout == Layout::kGathered2   ? 2
                             : layout == Layout::kGathered3 ? 3
                                                            : 4;
      s.input = TensorDesc::Strided(type, {n}, {stride});
      s.output = TensorDesc::Packed(type, {n});
      break;
    }
    case Layout::kOverlap:
      // A partial overlap whose walks both rise: processed in bounded chunks.
      s.input = padded_rows();
      s.output = TensorDesc::Packed(type, s.input.sizes);
      break;
    case Layout::kOverlapCross:
      // The output starts where it meets its input at the middle row: rows above it run front to
      // back, the others back to front (two passes of bounded chunks).
      s.input = padded_rows();
      s.output = TensorDesc::Packed(type, s.input.sizes);
      s.output_shift = s.input.sizes[0] / 2 * (kRowPitch - kRowElements) * esize;
      break;
    case Layout::kOverlapReverse:  // mirror pairs of tiles
      s.input = TensorDesc::Strided(type, {n}, {-1});
      s.output = TensorDesc::Packed(type, {n});
      break;
    case Layout::kNchwToNhwc:
    case Layout::kNhwcToNchw: {
      // n rounded down to kChannels square images (at least 1 x 1).
      const uint64_t side = std::max<uint64_t>(
          1, static_cast<uint64_t>(std::sqrt(static_cast<double>(n / kChannels))));
      const uint64_t c = kChannels, h = side, w = side;
      n = c * h * w;
      if (layout == Layout::kNchwToNhwc) {  // output [1, H, W, C]; input NCHW in memory
        s.output = TensorDesc::Packed(type, {1, h, w, c});
        s.input = TensorDesc::Strided(type, {1, h, w, c}, {Signed(n), Signed(w), 1, Signed(h * w)});
      } else {  // output [1, C, H, W]; input NHWC in memory
        s.output = TensorDesc::Packed(type, {1, c, h, w});
        s.input = TensorDesc::Strided(type, {1, c, h, w}, {Signed(n), 1, Signed(w * c), Signed(c)});
      }
      break;
    }
    case Layout::kBatchedTranspose: {
      // n rounded down to whole matrices (at least one); input matrix b stored kBatchColumns x
      // kBatchRows, read column-wise.
      const uint64_t r = kBatchRows, c = kBatchColumns, batch = std::max<uint64_t>(1, n / (r * c));
      n = batch * r * c;
      s.output = TensorDesc::Packed(type, {batch, r, c});
      s.input = TensorDesc::Strided(type, {batch, r, c}, {Signed(r * c), 1, Signed(r)});
      break;
    }
    case Layout::kOverlapTransposeWide:
    case Layout::kOverlapTransposeShifted: {
      // A packed side x 2 side matrix transposed onto itself: blocks and chunks; one element
      // further on, the element map.
      const uint64_t side =
          std::max<uint64_t>(1, static_cast<uint64_t>(std::sqrt(static_cast<double>(n) / 2)));
      n = 2 * side * side;
      s.input = TensorDesc::Strided(type, {2 * side, side}, {1, static_cast<int64_t>(2 * side)});
      s.output = TensorDesc::Packed(type, s.input.sizes);
      if (layout == Layout::kOverlapTransposeShifted) s.output_shift = esize;
      break;
    }
    case Layout::kOverlapReverseShifted:
      // Reversed, the output n / 4 elements further on: not the mirror, so the element map.
      s.input = TensorDesc::Strided(type, {n}, {-1});
      s.output = TensorDesc::Packed(type, {n});
      s.output_shift = n / 4 * esize;
      break;
    case Layout::kOverlapBroadcast: {
      // A vector of n / 4 elements broadcast to 4 packed rows (input stride 0 across them), the
      // output half a row further on: row 0 first (rising walks), then copied onto the others.
      const uint64_t m = std::max<uint64_t>(1, n / 4);
      n = 4 * m;
      s.input = TensorDesc::Strided(type, {4, m}, {0, 1});
      s.output = TensorDesc::Packed(type, s.input.sizes);
      s.output_shift = m / 2 * esize;
      break;
    }
    case Layout::kOverlapPermute: {
      // (a, b, 64) stored as (b, a, 64) with a = 2 b, onto itself: chunks of 64 elements.
      const uint64_t b =
          std::max<uint64_t>(1, static_cast<uint64_t>(std::sqrt(static_cast<double>(n) / 128)));
      n = 2 * b * b * 64;
      s.input =
          TensorDesc::Strided(type, {2 * b, b, 64}, {64, static_cast<int64_t>(2 * b * 64), 1});
      s.output = TensorDesc::Packed(type, s.input.sizes);
      break;
    }
  }
  s.elements = n;
  s.input_bytes = s.input.total_tensor_size_in_bytes;
  s.output_bytes = s.output.total_tensor_size_in_bytes;
  s.shares_buffer = layout == Layout::kInPlace || layout == Layout::kOverlap ||
                    layout == Layout::kOverlapCross || layout == Layout::kOverlapTranspose ||
                    layout == Layout::kOverlapReverse || layout == Layout::kOverlapTransposeWide ||
                    layout == Layout::kOverlapReverseShifted || layout == Layout::kOverlapPermute ||
                    layout == Layout::kOverlapTransposeShifted ||
                    layout == Layout::kOverlapBroadcast;
  return s;
}

}  // namespace eltwise::bench
