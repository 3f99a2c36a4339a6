// Layout planning: done once at compile time, after validation. The plan is all a backend needs.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>

#include "core/function.h"
#include "eltwise/tensor.h"
#include "eltwise/types.h"

namespace eltwise {

// The loop shape every backend runs; decided once by MakePlan so that backends share one rule.
enum class Layout : uint8_t {
  kEmpty,       // no elements: nothing to do
  kContiguous,  // one run of `element_count` packed elements in and out
  kBroadcast,   // every output element reads the same input element: compute once, fill
  kRows,        // rank >= 2, the innermost dim packed (stride 1) in both tensors: one run per row
  kTransposed,  // rank >= 2, dim rank-2 is the input's fastest dim and rank-1 the output's:
                // tiles of (rank-2, rank-1) read along one and written along the other
  kGathered,    // anything else: the innermost dim is strided in the input or the output
};

// A transposed layout needs both tile extents at least this large to be worth tiling.
inline constexpr uint64_t kMinTransposeExtent = 8;

// Where input and output lie relative to each other for one execution.
enum class Aliasing : uint8_t {
  kDisjoint,  // no shared byte
  kInPlace,   // every output element is exactly its own input element
  kPartial,   // anything else: the result must be as if the input were read whole before any
              // output is written. A kBroadcast plan needs nothing for it (its one input element
              // is read before anything is written); how a backend makes the others exact is its
              // own (the CPU's: src/cpu/overlap/)
};

struct Plan {
  Function function = Function::kCopy;
  DataType type = DataType::kFloat32;
  uint32_t element_size = 0;
  uint64_t element_count = 0;
  Layout layout = Layout::kEmpty;

  // Simplified iteration space: size-1 dims dropped, output strides made positive and sorted
  // descending (innermost last), dims that are contiguous in both tensors merged; for kTransposed
  // the input's fastest dim is then moved to rank-2 (an N-d permutation becomes a batch of 2-d
  // transposes). Strides in elements. rank 0 means a single element.
  int rank = 0;
  std::array<uint64_t, kMaxRank> sizes{};
  std::array<int64_t, kMaxRank> input_strides{};
  std::array<int64_t, kMaxRank> output_strides{};

  // Byte offset of the first iterated element from the start of each bound buffer.
  uint64_t input_offset = 0;
  uint64_t output_offset = 0;
  // Exact byte span [0, span) of each bound buffer that elements address.
  uint64_t input_span = 0;
  uint64_t output_span = 0;
  // What each bound buffer must provide (size and address alignment).
  uint64_t input_required_bytes = 0;
  uint64_t output_required_bytes = 0;
  uint32_t input_alignment = 1;
  uint32_t output_alignment = 1;
};

// Builds the plan of an already validated (input, output) pair.
Plan MakePlan(Function function, const TensorDesc& input, const TensorDesc& output,
              uint32_t input_alignment, uint32_t output_alignment);

// Classifies where the bound buffers lie relative to each other. Inline: it runs on every call.
inline Aliasing Classify(const Plan& plan, const std::byte* input, const std::byte* output) {
  if (plan.layout == Layout::kEmpty) return Aliasing::kDisjoint;
  const auto in_lo = reinterpret_cast<uintptr_t>(input);
  const auto out_lo = reinterpret_cast<uintptr_t>(output);
  if (in_lo + plan.input_span <= out_lo || out_lo + plan.output_span <= in_lo) {
    return Aliasing::kDisjoint;
  }
  bool same_walk = in_lo + plan.input_offset == out_lo + plan.output_offset;
  // A contiguous plan walks both tensors with stride 1 (rank 0 or 1): the first elements decide.
  if (plan.layout == Layout::kContiguous) {
    return same_walk ? Aliasing::kInPlace : Aliasing::kPartial;
  }
  for (int i = 0; same_walk && i < plan.rank; ++i) {
    same_walk = plan.input_strides[i] == plan.output_strides[i];
  }
  return same_walk ? Aliasing::kInPlace : Aliasing::kPartial;
}

}  // namespace eltwise
