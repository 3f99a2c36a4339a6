// What only the benchmark programs in bench/ use beside the toolkit (tools/bench/, shipped with
// `eltwise bench`): aligned host buffers, where an output goes beside its input, size names, and
// element values as doubles.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>

#include "eltwise/types.h"

namespace eltwise::bench {

// 64-byte aligned host memory of `bytes` (at least 64 are allocated), uninitialised.
class AlignedBuffer {
 public:
  explicit AlignedBuffer(size_t bytes);
  ~AlignedBuffer();
  AlignedBuffer(const AlignedBuffer&) = delete;
  AlignedBuffer& operator=(const AlignedBuffer&) = delete;

  std::byte* data() const { return data_; }
  size_t size() const { return size_; }

 private:
  std::byte* data_;
  size_t size_;
};

// Extra bytes an output buffer needs for OutputBeside.
inline constexpr size_t kOutputSlack = 4096;

// Where an output of out.size() - kOutputSlack bytes starts in `out`: half a page past the page
// offset of `in`. Buffers whose addresses are equal modulo 4 KiB make every load wait on an earlier
// store to the same page offset ("4K aliasing"), which would time the allocator, not the code.
std::byte* OutputBeside(const AlignedBuffer& out, const std::byte* in);

// "512KiB", "64MiB": whole KiB below 1 MiB, whole MiB from there.
std::string SizeName(uint64_t bytes);

// The value of a floating-point element (float16, bfloat16, float32, float64); NaN for other types.
double ToDouble(DataType type, const std::byte* element);
// The element's bit pattern (little-endian), in the low ElementSize(type) bytes.
uint64_t Bits(DataType type, const std::byte* element);

}  // namespace eltwise::bench
