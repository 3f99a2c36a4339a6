// Compile-time maps from the Function and DataType enumerators to functor and storage types, and
// the sharing of kernels between (function, type) pairs that produce the same bits. Plain C++:
// the kernel translation units and the host tests both use it.
#pragma once

#include <cstddef>
#include <cstdint>
#include <type_traits>

#include "core/function.h"
#include "ref/functors.h"

namespace eltwise::cuda {

// Functions that produce the same bits share kernels: a copy (kCopy, and Round on integers) of
// any type is a copy of an unsigned integer of its size, and integer Sign ignores the NaN policy.
template <size_t kSize>
using UnsignedOfSize = std::conditional_t<
    kSize == 1, uint8_t,
    std::conditional_t<kSize == 2, uint16_t, std::conditional_t<kSize == 4, uint32_t, uint64_t>>>;

template <class F, class T>
struct Canonical {
  using Functor = F;
  using Type = T;
};
template <class T>
struct Canonical<CopyFunctor, T> {
  using Functor = CopyFunctor;
  using Type = UnsignedOfSize<sizeof(T)>;
};
template <RoundingMode kMode, class T>
requires(!kIsFloat<T>) struct Canonical<RoundFunctor<kMode>, T> : Canonical<CopyFunctor, T> {
};
template <class T>
requires(!kIsFloat<T>) struct Canonical<SignFunctor<NanPolicy::kPropagate>, T> {
  using Functor = SignFunctor<NanPolicy::kZero>;
  using Type = T;
};

template <Function f>
struct FunctorOf;
#define ELTWISE_CUDA_FUNCTOR_OF(e, F, ...) \
  template <>                              \
  struct FunctorOf<Function::e> {          \
    using type = F;                        \
  };
ELTWISE_FOR_EACH_FUNCTION(ELTWISE_CUDA_FUNCTOR_OF)
#undef ELTWISE_CUDA_FUNCTOR_OF

template <DataType t>
struct StorageOf;
#define ELTWISE_CUDA_STORAGE_OF(e, T, name) \
  template <>                               \
  struct StorageOf<DataType::e> {           \
    using type = T;                         \
  };
ELTWISE_FOR_EACH_DATA_TYPE(ELTWISE_CUDA_STORAGE_OF)
#undef ELTWISE_CUDA_STORAGE_OF

enum class Unit { kFloat, kHalf, kInteger };

template <class F, class T>
constexpr Unit UnitOf() {
  using Type = typename Canonical<F, T>::Type;
  if constexpr (std::is_same_v<Type, float> || std::is_same_v<Type, double>) return Unit::kFloat;
  if constexpr (std::is_same_v<Type, float16_t> || std::is_same_v<Type, bfloat16_t>) {
    return Unit::kHalf;
  }
  return Unit::kInteger;
}

}  // namespace eltwise::cuda
