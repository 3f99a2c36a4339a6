// The element functions a plan can run: one per (op, mode). ELTWISE_FOR_EACH_FUNCTION is the single
// list that the kernel tables of every backend, the tests and the benchmarks are generated from.
#pragma once

#include <cstdint>
#include <string_view>

#include "eltwise/operators.h"
#include "eltwise/types.h"

namespace eltwise {

// X(enumerator, scalar functor type)
#define ELTWISE_FOR_EACH_FUNCTION(X)                                                         \
  X(kSignNanZero, ::eltwise::SignFunctor<::eltwise::NanPolicy::kZero>)                       \
  X(kSignNanPropagate, ::eltwise::SignFunctor<::eltwise::NanPolicy::kPropagate>)             \
  X(kRoundHalvesToNearestEven,                                                               \
    ::eltwise::RoundFunctor<::eltwise::RoundingMode::kHalvesToNearestEven>)                  \
  X(kRoundTowardZero, ::eltwise::RoundFunctor<::eltwise::RoundingMode::kTowardZero>)         \
  X(kRoundTowardInfinity, ::eltwise::RoundFunctor<::eltwise::RoundingMode::kTowardInfinity>) \
  X(kRoundDown, ::eltwise::RoundFunctor<::eltwise::RoundingMode::kDown>)                     \
  X(kRoundUp, ::eltwise::RoundFunctor<::eltwise::RoundingMode::kUp>)                         \
  X(kCopy, ::eltwise::CopyFunctor)

enum class Function : uint8_t {
#define ELTWISE_FUNCTION_ENUMERATOR(e, F) e,
  ELTWISE_FOR_EACH_FUNCTION(ELTWISE_FUNCTION_ENUMERATOR)
#undef ELTWISE_FUNCTION_ENUMERATOR
};
inline constexpr int kFunctionCount = 8;

std::string_view Name(Function f);
Function SignFunction(NanPolicy nan);
// kCopy for integer types (Round is the identity on integers).
Function RoundFunction(RoundingMode mode, DataType type);
// The operator description that runs `f` on (input, output); the inverse of SignFunction and
// RoundFunction (kCopy gives Round halves_to_nearest_even, the identity on integers).
OperatorDesc DescribeFunction(Function f, const TensorDesc& input, const TensorDesc& output);

}  // namespace eltwise
