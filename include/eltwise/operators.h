// Operator descriptions, mirroring DML_ELEMENT_WISE_SIGN_OPERATOR_DESC and
// DML_ELEMENT_WISE_ROUND_OPERATOR_DESC. The meaning of every mode is fixed by the scalar functors
// in src/ref/functors.h.
#pragma once

#include <optional>
#include <string_view>
#include <type_traits>
#include <variant>

#include "eltwise/export.h"
#include "eltwise/tensor.h"

namespace eltwise {

// The operators: X(enumerator, description type). The one list of ops; everything else about
// each op (names, DirectML and ONNX availability, options) is in the library's op registry.
#define ELTWISE_FOR_EACH_OP(X) \
  X(kSign, SignDesc)           \
  X(kRound, RoundDesc)

enum class Op : uint8_t {
#define ELTWISE_OP_ENUMERATOR(e, Desc) e,
  ELTWISE_FOR_EACH_OP(ELTWISE_OP_ENUMERATOR)
#undef ELTWISE_OP_ENUMERATOR
};
#define ELTWISE_OP_COUNT_ONE(e, Desc) +1
inline constexpr int kOpCount = 0 ELTWISE_FOR_EACH_OP(ELTWISE_OP_COUNT_ONE);
#undef ELTWISE_OP_COUNT_ONE

// What Sign returns for NaN.
enum class NanPolicy : uint8_t {
  kZero,       // +0: DirectML, PyTorch, WebNN, ONNX Runtime CUDA (the default)
  kPropagate,  // NaN: NumPy, the ONNX reference, XLA
};

// Values 0-2 equal DML_ROUNDING_MODE; 3 and 4 are eltwise extensions (extended level only).
enum class RoundingMode : uint8_t {
  kHalvesToNearestEven = 0,  // IEEE roundToIntegralTiesToEven; ONNX Round
  kTowardZero = 1,           // truncate
  kTowardInfinity = 2,       // nearest, halves away from zero (NOT ceil)
  kDown = 3,                 // floor
  kUp = 4,                   // ceil
};
inline constexpr int kRoundingModeCount = 5;

struct SignDesc {
  TensorDesc input;
  TensorDesc output;
  NanPolicy nan = NanPolicy::kZero;
};

struct RoundDesc {
  TensorDesc input;
  TensorDesc output;
  RoundingMode mode = RoundingMode::kHalvesToNearestEven;
};

// One alternative per op, in ELTWISE_FOR_EACH_OP's order: OperatorDesc::index() is the Op.
using OperatorDesc = std::variant<SignDesc, RoundDesc>;
static_assert(std::variant_size_v<OperatorDesc> == kOpCount);
#define ELTWISE_OP_CHECK_ALTERNATIVE(e, Desc)                                                     \
  static_assert(                                                                                  \
      std::is_same_v<std::variant_alternative_t<static_cast<size_t>(Op::e), OperatorDesc>, Desc>, \
      "OperatorDesc must list the descriptions in ELTWISE_FOR_EACH_OP's order");
ELTWISE_FOR_EACH_OP(ELTWISE_OP_CHECK_ALTERNATIVE)
#undef ELTWISE_OP_CHECK_ALTERNATIVE

ELTWISE_API std::string_view Name(Op op);           // "sign", "round"
ELTWISE_API std::string_view Name(NanPolicy nan);   // "zero", "propagate"
ELTWISE_API std::string_view Name(RoundingMode m);  // "halves_to_nearest_even", ...
ELTWISE_API std::optional<Op> ParseOp(std::string_view name);
ELTWISE_API std::optional<NanPolicy> ParseNanPolicy(std::string_view name);
ELTWISE_API std::optional<RoundingMode> ParseRoundingMode(std::string_view name);

}  // namespace eltwise
