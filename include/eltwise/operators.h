// Operator descriptions, mirroring DML_ELEMENT_WISE_SIGN_OPERATOR_DESC and
// DML_ELEMENT_WISE_ROUND_OPERATOR_DESC. The meaning of every mode is fixed by the scalar functors
// in src/ref/functors.h.
#pragma once

#include <optional>
#include <string_view>
#include <variant>

#include "eltwise/export.h"
#include "eltwise/tensor.h"

namespace eltwise {

enum class Op : uint8_t { kSign, kRound };

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

using OperatorDesc = std::variant<SignDesc, RoundDesc>;

ELTWISE_API std::string_view Name(Op op);           // "sign", "round"
ELTWISE_API std::string_view Name(NanPolicy nan);   // "zero", "propagate"
ELTWISE_API std::string_view Name(RoundingMode m);  // "halves_to_nearest_even", ...
ELTWISE_API std::optional<Op> ParseOp(std::string_view name);
ELTWISE_API std::optional<NanPolicy> ParseNanPolicy(std::string_view name);
ELTWISE_API std::optional<RoundingMode> ParseRoundingMode(std::string_view name);

}  // namespace eltwise
