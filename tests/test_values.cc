#include "test_values.h"

#include <cmath>
#include <cstdint>

namespace eltwise::testing {
namespace {

template <class T>
void Append(std::vector<std::byte>& out, T v) {
  const size_t at = out.size();
  out.resize(at + sizeof(T));
  std::memcpy(out.data() + at, &v, sizeof(T));
}

template <class T>
void AppendAllPatterns(std::vector<std::byte>& out) {
  using U = std::make_unsigned_t<T>;
  for (uint64_t b = 0; b <= std::numeric_limits<U>::max(); ++b) Append(out, static_cast<U>(b));
}

template <class F, class U>
void AppendFloats(std::vector<std::byte>& out, size_t random_count, uint64_t seed) {
  const int mantissa_bits = std::numeric_limits<F>::digits - 1;
  std::vector<F> values = {0.0,
                           1.0,
                           0.5,
                           1.5,
                           2.5,
                           1.25,
                           1.75,
                           3.5,
                           0.25,
                           0.75,
                           4.5,
                           5.5,
                           1e30,
                           std::numeric_limits<F>::denorm_min(),
                           std::numeric_limits<F>::min(),
                           std::numeric_limits<F>::min() - std::numeric_limits<F>::denorm_min(),
                           std::numeric_limits<F>::max(),
                           std::numeric_limits<F>::infinity(),
                           std::numeric_limits<F>::quiet_NaN(),
                           std::numeric_limits<F>::signaling_NaN()};
  const F mantissa_end = std::ldexp(F(1), mantissa_bits);  // 2^23 / 2^52
  for (F base : {F(0.5), F(1), F(2), mantissa_end / 2, mantissa_end, mantissa_end * 2}) {
    F below = base, above = base;
    for (int k = 0; k < 4; ++k) {
      values.push_back(below);
      values.push_back(above);
      below = std::nextafter(below, F(0));
      above = std::nextafter(above, std::numeric_limits<F>::infinity());
    }
  }
  for (int k = 0; k < 64; ++k) values.push_back(F(k) + F(0.5));  // exact halves, odd and even
  values.push_back(F(0.49999997f));
  for (F v : std::vector<F>(values)) values.push_back(-v);
  for (F v : values) Append(out, v);
  std::mt19937_64 rng(seed);
  for (size_t i = 0; i < random_count; ++i) Append(out, static_cast<U>(rng()));  // any pattern
  std::uniform_real_distribution<double> range(-mantissa_end * 2, mantissa_end * 2);
  for (size_t i = 0; i < random_count; ++i) {
    const F x = static_cast<F>(range(rng));
    Append(out, std::floor(x) + F(0.5));  // halves across the whole integral range
    Append(out, static_cast<F>(std::ldexp(range(rng), -static_cast<int>(rng() % 40))));
  }
}

template <class T>
void AppendIntegers(std::vector<std::byte>& out, size_t random_count, uint64_t seed) {
  using L = std::numeric_limits<T>;
  for (T v : {T(0), T(1), T(2), L::max(), T(L::max() - 1), L::min(), T(L::min() + 1)})
    Append(out, v);
  if constexpr (std::is_signed_v<T>) {
    for (T v : {T(-1), T(-2)}) Append(out, v);
  }
  std::mt19937_64 rng(seed);
  for (size_t i = 0; i < random_count; ++i) Append(out, static_cast<T>(rng()));
}

}  // namespace

std::vector<std::byte> TestInputs(DataType type, size_t random_count) {
  std::vector<std::byte> out;
  switch (type) {
    case DataType::kInt8:
    case DataType::kUInt8:
      AppendAllPatterns<uint8_t>(out);
      break;
    case DataType::kInt16:
    case DataType::kUInt16:
    case DataType::kFloat16:
    case DataType::kBFloat16:
      AppendAllPatterns<uint16_t>(out);
      break;
    case DataType::kFloat32:
      AppendFloats<float, uint32_t>(out, random_count, 32);
      break;
    case DataType::kFloat64:
      AppendFloats<double, uint64_t>(out, random_count, 64);
      break;
    case DataType::kInt32:
      AppendIntegers<int32_t>(out, random_count, 1);
      break;
    case DataType::kInt64:
      AppendIntegers<int64_t>(out, random_count, 2);
      break;
    case DataType::kUInt32:
      AppendIntegers<uint32_t>(out, random_count, 3);
      break;
    case DataType::kUInt64:
      AppendIntegers<uint64_t>(out, random_count, 4);
      break;
  }
  return out;
}

}  // namespace eltwise::testing
