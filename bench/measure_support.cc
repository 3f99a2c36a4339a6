#include "measure_support.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <new>

namespace eltwise::bench {
namespace {

double HalfToDouble(uint16_t h) {
  const int e = (h >> 10) & 0x1f;
  const int m = h & 0x3ff;
  double v;
  if (e == 0) {
    v = std::ldexp(m, -24);
  } else if (e == 31) {
    v = m ? NAN : INFINITY;
  } else {
    v = std::ldexp(m + 1024, e - 25);
  }
  return (h & 0x8000) ? -v : v;
}

}  // namespace

constexpr std::align_val_t kAlignment{64};

AlignedBuffer::AlignedBuffer(size_t bytes)
    : data_(static_cast<std::byte*>(::operator new(std::max<size_t>(bytes, 64), kAlignment))),
      size_(bytes) {}

AlignedBuffer::~AlignedBuffer() { ::operator delete(data_, kAlignment); }

std::byte* OutputBeside(const AlignedBuffer& out, const std::byte* in) {
  const uintptr_t start = reinterpret_cast<uintptr_t>(out.data());
  return out.data() + ((reinterpret_cast<uintptr_t>(in) + 2048 - start) & (kOutputSlack - 1));
}

std::string SizeName(uint64_t bytes) {
  if (bytes >= (uint64_t{1} << 20)) return std::to_string(bytes >> 20) + "MiB";
  return std::to_string(bytes >> 10) + "KiB";
}

double ToDouble(DataType type, const std::byte* element) {
  switch (type) {
    case DataType::kFloat32: {
      float f;
      std::memcpy(&f, element, 4);
      return f;
    }
    case DataType::kFloat64: {
      double d;
      std::memcpy(&d, element, 8);
      return d;
    }
    case DataType::kBFloat16: {
      uint16_t h;
      std::memcpy(&h, element, 2);
      const uint32_t b = static_cast<uint32_t>(h) << 16;
      float f;
      std::memcpy(&f, &b, 4);
      return f;
    }
    case DataType::kFloat16: {
      uint16_t h;
      std::memcpy(&h, element, 2);
      return HalfToDouble(h);
    }
    default:
      return NAN;
  }
}

uint64_t Bits(DataType type, const std::byte* element) {
  uint64_t b = 0;
  std::memcpy(&b, element, ElementSize(type));  // little-endian
  return b;
}

}  // namespace eltwise::bench
