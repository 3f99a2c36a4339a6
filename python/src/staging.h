// Staging for the Python module: the geometry of a call, its descriptors, and how it runs when the
// operands' memory is not what the device binds directly: DirectML-level binding rules on the host
// (aligned, rounded-up buffers) and host arrays on a CUDA device (copied there and back).
// Note [Which descriptor the library sees]
// At the extended level an operand is described exactly as it lies in memory: its real sizes and
// element strides (negative and zero strides included), the binding starting at its
// lowest-addressed element and total_tensor_size_in_bytes equal to its exact byte span (tensor.h).
// Arrays of more than 8 dimensions are passed with the dimensions that are contiguous in both x and
// out merged. At a DirectML level the array's shape and strides are the tensor description,
// unchanged (so rank, type, size and stride rules apply to what the user wrote) and
// total_tensor_size_in_bytes is DMLCalcBufferTensorSize. DirectML also wants 16-byte aligned
// buffers of at least that size; when an array's memory is not aligned or its span is shorter than
// the rounded-up size, the array is staged through an aligned buffer of the same layout (what a
// DirectML user's upload does), and only the addressed output elements are copied back.
#pragma once

#include <cstdint>
#include <vector>

#include "eltwise/eltwise.h"

namespace eltwise::python {

struct Geometry {
  std::vector<uint64_t> sizes;
  std::vector<int64_t> in_strides;
  std::vector<int64_t> out_strides;
};

// Merges dimensions that are contiguous in both operands (after dropping size-1 dimensions and
// ordering by output stride), for arrays of more than kMaxRank dimensions.
Geometry Merge(const Geometry& g);

// The tensor description of one operand at `level` (Note above).
TensorDesc Describe(DataType type, const std::vector<uint64_t>& sizes,
                    const std::vector<int64_t>& strides, FeatureLevel level);

// Everything a call needs once the operands are settled; filled with the GIL held, run without.
struct Call {
  const Device* device = nullptr;
  OperatorDesc desc;
  DataType type = DataType::kFloat32;
  Geometry geometry;  // what the descriptors say (merged or not)
  std::byte* in_origin = nullptr;
  std::byte* out_origin = nullptr;
  // Host operands on a CUDA device: staged through packed device buffers.
  bool stage_through_device = false;
};

// Runs a call whose operands are in the device's own memory (host memory for the CPU).
Status RunDirect(const Call& call);
// Host operands on a CUDA device: staged through packed device buffers. `host` holds the
// operands' own strides.
Status RunThroughDevice(const Call& call, const Geometry& host);

}  // namespace eltwise::python
