// Tensor layouts the CUDA tests run every (function, type) through, as memory images: one byte
// buffer that holds the input and output regions (separate, the same for in-place, or overlapping)
// with sentinel bytes everywhere else. A run must leave exactly the image the CPU backend leaves.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "eltwise/eltwise.h"

namespace eltwise::testing {

inline constexpr std::byte kSentinel{0xA5};
// Images start at this alignment (what cudaMalloc gives), so byte offsets set address phases.
inline constexpr size_t kImageAlignment = 256;

struct LayoutCase {
  enum class Sharing { kSeparate, kInPlace, kOverlap };
  std::string name;
  std::vector<uint64_t> sizes;
  std::optional<std::vector<int64_t>> input_strides;  // nullopt: packed
  std::optional<std::vector<int64_t>> output_strides;
  Sharing sharing = Sharing::kSeparate;
  // Byte offsets from the image start (kSeparate: the output's is from its own aligned region).
  uint64_t input_byte_offset = 0;
  uint64_t output_byte_offset = 0;
};

// The layouts for `type`; the contiguous ones have `contiguous_count` elements.
std::vector<LayoutCase> LayoutCases(DataType type, uint64_t contiguous_count);

// A layout made concrete for one type: descriptors, where the bindings start in the image, and
// the initial image (input elements cycle through `values`, everything else is kSentinel).
struct Image {
  TensorDesc input;
  TensorDesc output;
  uint64_t input_at = 0;
  uint64_t output_at = 0;
  std::vector<std::byte> bytes;
};
Image MakeImage(const LayoutCase& layout, DataType type, const std::vector<std::byte>& values);

// A host buffer aligned to kImageAlignment.
class AlignedBuffer {
 public:
  explicit AlignedBuffer(size_t size)
      : size_(size),
        data_(static_cast<std::byte*>(std::aligned_alloc(
            kImageAlignment, (size + kImageAlignment) / kImageAlignment * kImageAlignment))) {}
  std::byte* data() { return data_.get(); }
  size_t size() const { return size_; }

 private:
  struct Deleter {
    void operator()(std::byte* p) const { std::free(p); }
  };
  size_t size_;
  std::unique_ptr<std::byte, Deleter> data_;
};

}  // namespace eltwise::testing
