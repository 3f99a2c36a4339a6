#include "bench/values.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <random>

namespace eltwise::bench {
namespace {

// Round to nearest even; only finite |x| < 65520 is needed.
uint16_t FloatToHalfBits(float x) {
  uint32_t b;
  std::memcpy(&b, &x, 4);
  const uint32_t sign = (b >> 16) & 0x8000;
  const float a = std::fabs(x);
  if (a < 6.103515625e-05f) {  // subnormal (or zero) in binary16: a multiple of 2^-24
    return static_cast<uint16_t>(sign | static_cast<uint32_t>(std::nearbyint(a * 16777216.0f)));
  }
  uint32_t ab = b & 0x7fffffff;
  const uint32_t round = 0xfff + ((ab >> 13) & 1);
  ab = (ab + round) >> 13;                                         // 10 mantissa bits
  return static_cast<uint16_t>(sign | (ab - ((127 - 15) << 10)));  // exponent bias 127 -> 15
}

}  // namespace

void StoreValue(DataType type, double value, std::byte* element) {
  switch (type) {
    case DataType::kFloat32: {
      const float f = static_cast<float>(value);
      std::memcpy(element, &f, 4);
      break;
    }
    case DataType::kFloat64:
      std::memcpy(element, &value, 8);
      break;
    case DataType::kBFloat16: {  // round to nearest even (finite values only)
      const float f = static_cast<float>(value);
      uint32_t b;
      std::memcpy(&b, &f, 4);
      const uint16_t h = static_cast<uint16_t>((b + 0x7fff + ((b >> 16) & 1)) >> 16);
      std::memcpy(element, &h, 2);
      break;
    }
    case DataType::kFloat16: {
      const uint16_t h = FloatToHalfBits(static_cast<float>(value));
      std::memcpy(element, &h, 2);
      break;
    }
    default:
      break;
  }
}

void FillRandomValues(DataType type, std::byte* elements, uint64_t count) {
  const size_t esize = ElementSize(type);
  std::mt19937_64 rng(42);
  std::uniform_real_distribution<double> value(-1000.0, 1000.0);
  const bool half = type == DataType::kFloat16 || type == DataType::kBFloat16;
  // The first kRandomPeriod elements are drawn; the rest repeat them. Drawing a gigabyte element by
  // element took seconds per case, and a 4 Mi-element period is far beyond any cache or branch
  // history.
  constexpr uint64_t kRandomPeriod = uint64_t{1} << 22;
  const uint64_t drawn = std::min(count, kRandomPeriod);
  for (uint64_t i = 0; i < drawn; ++i) {
    std::byte* element = elements + i * esize;
    if (IsFloatingPoint(type)) {
      StoreValue(type, half ? value(rng) / 16 : value(rng), element);
    } else {
      const uint64_t r = rng();
      std::memcpy(element, &r, esize);
    }
  }
  for (uint64_t done = drawn; done < count;) {  // doubling copies of what is filled so far
    const uint64_t n = std::min(done, count - done);
    std::memcpy(elements + done * esize, elements, n * esize);
    done += n;
  }
}

std::vector<std::byte> RandomValues(DataType type, uint64_t count) {
  std::vector<std::byte> bytes(count * ElementSize(type));
  FillRandomValues(type, bytes.data(), count);
  return bytes;
}

}  // namespace eltwise::bench
