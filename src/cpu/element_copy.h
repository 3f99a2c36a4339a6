// Size-generic element moves of the CPU backend (no function applied): strided gathers into a
// packed buffer, scatters back out, and reversed rows. Elements are moved as unsigned integers of
// their size; addresses need not be element-aligned.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>

namespace eltwise::cpu {

// Calls f(U{}) with U the unsigned integer type of `esize` bytes (1, 2, 4 or 8): the one place that
// maps an element size to a type for the size-generic loops.
template <class F>
auto WithElementType(size_t esize, F f) {
  switch (esize) {
    case 1:
      return f(uint8_t{});
    case 2:
      return f(uint16_t{});
    case 4:
      return f(uint32_t{});
    default:
      return f(uint64_t{});
  }
}

// out[i] = in[i * stride] (stride in bytes) for n elements.
template <class U>
void Gather(const std::byte* in, ptrdiff_t stride, std::byte* out, size_t n) {
  for (size_t i = 0; i < n; ++i, in += stride) std::memcpy(out + i * sizeof(U), in, sizeof(U));
}
// out[i * stride] = in[i] (stride in bytes) for n elements.
template <class U>
void Scatter(const std::byte* in, std::byte* out, ptrdiff_t stride, size_t n) {
  for (size_t i = 0; i < n; ++i, out += stride) std::memcpy(out, in + i * sizeof(U), sizeof(U));
}
// out[i] = in[-i] for n elements (a row walked backwards), as a loop compilers vectorize.
template <class U>
void ReverseCopy(const std::byte* in, std::byte* out, size_t n) {
  const std::byte* from = in - static_cast<ptrdiff_t>(n - 1) * ptrdiff_t(sizeof(U));
  size_t i = 0;
  if constexpr (sizeof(U) == 1) {  // bytes: eight at a time, reversed within a word
    for (; i + 8 <= n; i += 8) {
      uint64_t word;
      std::memcpy(&word, from + (n - 8 - i), 8);
      word = __builtin_bswap64(word);
      std::memcpy(out + i, &word, 8);
    }
  }
  for (; i < n; ++i) {  // addresses need not be element-aligned
    U v;
    std::memcpy(&v, from + (n - 1 - i) * sizeof(U), sizeof(U));
    std::memcpy(out + i * sizeof(U), &v, sizeof(U));
  }
}

using GatherFn = void (*)(const std::byte*, ptrdiff_t, std::byte*, size_t);
using ScatterFn = void (*)(const std::byte*, std::byte*, ptrdiff_t, size_t);
using ReverseFn = void (*)(const std::byte*, std::byte*, size_t);

// The moves above for elements of `esize` bytes.
inline GatherFn GatherFor(size_t esize) {
  return WithElementType(esize, [](auto u) -> GatherFn { return &Gather<decltype(u)>; });
}
inline ScatterFn ScatterFor(size_t esize) {
  return WithElementType(esize, [](auto u) -> ScatterFn { return &Scatter<decltype(u)>; });
}
inline ReverseFn ReverseFor(size_t esize) {
  return WithElementType(esize, [](auto u) -> ReverseFn { return &ReverseCopy<decltype(u)>; });
}

}  // namespace eltwise::cpu
