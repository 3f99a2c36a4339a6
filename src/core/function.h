// The element functions a plan can run: one per (op, option value), plus kCopy.
// ELTWISE_FOR_EACH_FUNCTION is the single list that the kernel tables of every backend, the tests
// and the benchmarks are generated from, and that maps each op's options to a function (see
// FunctionFor in core/op_registry.h).
#pragma once

#include <cstdint>
#include <string_view>

#include "eltwise/operators.h"
#include "eltwise/types.h"

namespace eltwise {

// X(enumerator, scalar functor type, op, option value)
// The (op, option value) of a function is the operator description that runs it
// (DescribeFunction). kCopy, the identity, has no op of its own: its (op, option value) is
// Round halves_to_nearest_even, the description that runs it on integer types only (Round is the
// identity on integers; on floating-point types that description runs kRoundHalvesToNearestEven).
// Users take the trailing arguments as `...` when they ignore them.
#define ELTWISE_FOR_EACH_FUNCTION(X)                                                               \
  X(kSignNanZero, ::eltwise::SignFunctor<::eltwise::NanPolicy::kZero>, ::eltwise::Op::kSign,       \
    ::eltwise::NanPolicy::kZero)                                                                   \
  X(kSignNanPropagate, ::eltwise::SignFunctor<::eltwise::NanPolicy::kPropagate>,                   \
    ::eltwise::Op::kSign, ::eltwise::NanPolicy::kPropagate)                                        \
  X(kRoundHalvesToNearestEven,                                                                     \
    ::eltwise::RoundFunctor<::eltwise::RoundingMode::kHalvesToNearestEven>, ::eltwise::Op::kRound, \
    ::eltwise::RoundingMode::kHalvesToNearestEven)                                                 \
  X(kRoundTowardZero, ::eltwise::RoundFunctor<::eltwise::RoundingMode::kTowardZero>,               \
    ::eltwise::Op::kRound, ::eltwise::RoundingMode::kTowardZero)                                   \
  X(kRoundTowardInfinity, ::eltwise::RoundFunctor<::eltwise::RoundingMode::kTowardInfinity>,       \
    ::eltwise::Op::kRound, ::eltwise::RoundingMode::kTowardInfinity)                               \
  X(kRoundDown, ::eltwise::RoundFunctor<::eltwise::RoundingMode::kDown>, ::eltwise::Op::kRound,    \
    ::eltwise::RoundingMode::kDown)                                                                \
  X(kRoundUp, ::eltwise::RoundFunctor<::eltwise::RoundingMode::kUp>, ::eltwise::Op::kRound,        \
    ::eltwise::RoundingMode::kUp)                                                                  \
  X(kCopy, ::eltwise::CopyFunctor, ::eltwise::Op::kRound,                                          \
    ::eltwise::RoundingMode::kHalvesToNearestEven)

enum class Function : uint8_t {
#define ELTWISE_FUNCTION_ENUMERATOR(e, ...) e,
  ELTWISE_FOR_EACH_FUNCTION(ELTWISE_FUNCTION_ENUMERATOR)
#undef ELTWISE_FUNCTION_ENUMERATOR
};
#define ELTWISE_FUNCTION_COUNT_ONE(e, ...) +1
inline constexpr int kFunctionCount = 0 ELTWISE_FOR_EACH_FUNCTION(ELTWISE_FUNCTION_COUNT_ONE);
#undef ELTWISE_FUNCTION_COUNT_ONE

std::string_view Name(Function f);
// The function a Sign with `nan` runs (FunctionFor(Op::kSign, ...)).
Function SignFunction(NanPolicy nan);
// The function a Round with `mode` runs on `type`: kCopy for integer types (Round is the identity
// on integers).
Function RoundFunction(RoundingMode mode, DataType type);
// The operator description that runs `f` on (input, output); the inverse of FunctionFor, except
// that kCopy gives Round halves_to_nearest_even, which runs kCopy only on integer types.
OperatorDesc DescribeFunction(Function f, const TensorDesc& input, const TensorDesc& output);

}  // namespace eltwise
