// The tensor layouts the operator benchmarks time: one input and one output tensor per layout for a
// given output size.
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <string_view>

#include "eltwise/tensor.h"

namespace eltwise::bench {

enum class Layout {
  kContiguous,               // packed input and output
  kInPlace,                  // packed, the output is the input
  kTransposed,               // a square matrix read column-wise, written row-major
  kBroadcast,                // one input element to every output element (input stride 0)
  kRows,                     // rows of 1000 elements in a pitch of 1024, in and out
  kGathered2,                // every 2nd (3rd, 4th) input element into a packed output
  kGathered3,                //
  kGathered4,                //
  kOverlap,                  // rows compacted within their own buffer
  kOverlapCross,             // the same, the output meeting its input at the middle row
  kOverlapTranspose,         // a square matrix transposed onto itself
  kOverlapReverse,           // a vector reversed onto itself
  kOverlapTransposeWide,     // a side x 2 side matrix transposed onto itself
  kOverlapReverseShifted,    // a vector reversed, the output a quarter of it further on
  kOverlapPermute,           // (a, b, 64) with a and b swapped onto itself (a != b)
  kOverlapTransposeShifted,  // overlap_transpose_wide, the output one element further on
  kOverlapBroadcast,         // a vector broadcast to 4 rows, the output half a row further on
  kNchwToNhwc,               // a 4-D NCHW activation (1 x 64 x H x W) written as NHWC
  kNhwcToNchw,               // a 4-D NHWC activation (1 x H x W x 64) written as NCHW
  kBatchedTranspose,         // a 3-D batch of 64 x 256 matrices, each written transposed
};

// "contiguous", "inplace", "transposed", "broadcast", "rows", "gathered", "gathered3",
// "gathered4", "overlap", "overlap_cross", "overlap_transpose", "overlap_reverse",
// "overlap_transpose_wide", "overlap_reverse_shifted", "overlap_permute",
// "overlap_transpose_shifted", "overlap_broadcast", "nchw_to_nhwc", "nhwc_to_nchw",
// "batched_transpose".
std::optional<Layout> ParseLayout(std::string_view name);

// The layouts timed unless others are asked for.
inline constexpr std::array<std::string_view, 5> kDefaultLayouts = {
    "contiguous", "inplace", "transposed", "broadcast", "rows"};
// Every layout name with a few words on it, for a command's help.
inline constexpr std::string_view kLayoutsHelp =
    "Layouts: contiguous inplace transposed broadcast rows gathered (input stride 2) gathered3 "
    "gathered4 (input strides 3 and 4) overlap (rows compacted within their own buffer) "
    "overlap_cross (the same, output meeting its input at the middle row) overlap_transpose (a "
    "square matrix transposed onto itself) overlap_reverse (a vector reversed onto itself) "
    "overlap_transpose_wide (a side x 2 side matrix transposed onto itself) "
    "overlap_reverse_shifted (a vector reversed, the output a quarter of it further on) "
    "overlap_permute (dims a, b of (a, b, 64) swapped onto itself, a = 2 b) "
    "overlap_transpose_shifted (overlap_transpose_wide, the output one element further on) "
    "overlap_broadcast (a vector broadcast to 4 rows, the output half a row further on) "
    "nchw_to_nhwc (a 1x64xHxW activation written channels-last) nhwc_to_nchw (the reverse) "
    "batched_transpose (a batch of 64x256 matrices, each written transposed)";

// The tensors of one layout.
struct Shapes {
  TensorDesc input, output;
  uint64_t input_bytes = 0, output_bytes = 0;  // the tensors' total sizes
  uint64_t elements = 0;                       // output elements
  // Whether the output lies in the input's buffer (inplace, overlap*), output_shift bytes in.
  bool shares_buffer = false;
  uint64_t output_shift = 0;
};

// The tensors of `layout` with about `bytes` of output (at least one element; rows and squares
// rounded down to whole rows).
Shapes MakeShapes(Layout layout, DataType type, uint64_t bytes);

}  // namespace eltwise::bench
