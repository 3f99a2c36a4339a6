// Names and parsing of the public enumerations.
#include <algorithm>
#include <array>
#include <cctype>
#include <string>

#include "core/function.h"
#include "eltwise/device.h"
#include "eltwise/feature_level.h"
#include "eltwise/operators.h"
#include "eltwise/status.h"
#include "eltwise/types.h"

namespace eltwise {

size_t ElementSize(DataType type) {
  switch (type) {
#define ELTWISE_SIZE_CASE(e, T, name) \
  case DataType::e:                   \
    return sizeof(T);
    ELTWISE_FOR_EACH_DATA_TYPE(ELTWISE_SIZE_CASE)
#undef ELTWISE_SIZE_CASE
  }
  return 0;
}

std::string_view Name(DataType type) {
  switch (type) {
#define ELTWISE_NAME_CASE(e, T, name) \
  case DataType::e:                   \
    return name;
    ELTWISE_FOR_EACH_DATA_TYPE(ELTWISE_NAME_CASE)
#undef ELTWISE_NAME_CASE
  }
  return "invalid";
}

std::optional<DataType> ParseDataType(std::string_view name) {
  std::string lower(name);
  std::transform(lower.begin(), lower.end(), lower.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
#define ELTWISE_PARSE_CASE(e, T, canonical) \
  if (lower == canonical) return DataType::e;
  ELTWISE_FOR_EACH_DATA_TYPE(ELTWISE_PARSE_CASE)
#undef ELTWISE_PARSE_CASE
  static constexpr std::pair<std::string_view, DataType> kAliases[] = {
      {"f4", DataType::kFloat32},     {"float", DataType::kFloat32}, {"f2", DataType::kFloat16},
      {"half", DataType::kFloat16},   {"bf16", DataType::kBFloat16}, {"f8", DataType::kFloat64},
      {"double", DataType::kFloat64}, {"i1", DataType::kInt8},       {"i2", DataType::kInt16},
      {"i4", DataType::kInt32},       {"i8", DataType::kInt64},      {"u1", DataType::kUInt8},
      {"u2", DataType::kUInt16},      {"u4", DataType::kUInt32},     {"u8", DataType::kUInt64},
  };
  for (const auto& [alias, type] : kAliases) {
    if (lower == alias) return type;
  }
  return std::nullopt;
}

bool IsFloatingPoint(DataType type) {
  return type == DataType::kFloat32 || type == DataType::kFloat16 || type == DataType::kBFloat16 ||
         type == DataType::kFloat64;
}

bool IsSignedInteger(DataType type) {
  return type == DataType::kInt8 || type == DataType::kInt16 || type == DataType::kInt32 ||
         type == DataType::kInt64;
}

std::string_view Name(StatusCode code) {
  switch (code) {
    case StatusCode::kOk:
      return "ok";
    case StatusCode::kInvalidArgument:
      return "invalid_argument";
    case StatusCode::kUnsupported:
      return "unsupported";
    case StatusCode::kOutOfMemory:
      return "out_of_memory";
    case StatusCode::kDeviceError:
      return "device_error";
    case StatusCode::kInternal:
      return "internal";
    case StatusCode::kIoError:
      return "io_error";
  }
  return "unknown";
}

std::string Status::ToString() const {
  if (ok()) return "ok";
  return std::string(Name(code_)) + ": " + message_;
}

std::string_view Name(Op op) { return op == Op::kSign ? "sign" : "round"; }

std::string_view Name(NanPolicy nan) { return nan == NanPolicy::kZero ? "zero" : "propagate"; }

namespace {
constexpr std::array<std::string_view, kRoundingModeCount> kModeNames = {
    "halves_to_nearest_even", "toward_zero", "toward_infinity", "down", "up"};
}

std::string_view Name(RoundingMode mode) {
  const auto i = static_cast<size_t>(mode);
  return i < kModeNames.size() ? kModeNames[i] : "invalid";
}

std::optional<Op> ParseOp(std::string_view name) {
  if (name == "sign") return Op::kSign;
  if (name == "round") return Op::kRound;
  return std::nullopt;
}

std::optional<NanPolicy> ParseNanPolicy(std::string_view name) {
  if (name == "zero") return NanPolicy::kZero;
  if (name == "propagate") return NanPolicy::kPropagate;
  return std::nullopt;
}

std::optional<RoundingMode> ParseRoundingMode(std::string_view name) {
  for (size_t i = 0; i < kModeNames.size(); ++i) {
    if (name == kModeNames[i]) return static_cast<RoundingMode>(i);
  }
  return std::nullopt;
}

std::string_view Name(Function f) {
  switch (f) {
#define ELTWISE_FUNCTION_NAME(e, F) \
  case Function::e:                 \
    return #e + 1;
    ELTWISE_FOR_EACH_FUNCTION(ELTWISE_FUNCTION_NAME)
#undef ELTWISE_FUNCTION_NAME
  }
  return "invalid";
}

Function SignFunction(NanPolicy nan) {
  return nan == NanPolicy::kZero ? Function::kSignNanZero : Function::kSignNanPropagate;
}

Function RoundFunction(RoundingMode mode, DataType type) {
  if (!IsFloatingPoint(type)) return Function::kCopy;
  switch (mode) {
    case RoundingMode::kHalvesToNearestEven:
      return Function::kRoundHalvesToNearestEven;
    case RoundingMode::kTowardZero:
      return Function::kRoundTowardZero;
    case RoundingMode::kTowardInfinity:
      return Function::kRoundTowardInfinity;
    case RoundingMode::kDown:
      return Function::kRoundDown;
    case RoundingMode::kUp:
      return Function::kRoundUp;
  }
  return Function::kCopy;
}

OperatorDesc DescribeFunction(Function f, const TensorDesc& input, const TensorDesc& output) {
  switch (f) {
    case Function::kSignNanZero:
      return SignDesc{input, output, NanPolicy::kZero};
    case Function::kSignNanPropagate:
      return SignDesc{input, output, NanPolicy::kPropagate};
    case Function::kRoundTowardZero:
      return RoundDesc{input, output, RoundingMode::kTowardZero};
    case Function::kRoundTowardInfinity:
      return RoundDesc{input, output, RoundingMode::kTowardInfinity};
    case Function::kRoundDown:
      return RoundDesc{input, output, RoundingMode::kDown};
    case Function::kRoundUp:
      return RoundDesc{input, output, RoundingMode::kUp};
    case Function::kRoundHalvesToNearestEven:
    case Function::kCopy:
      break;
  }
  return RoundDesc{input, output, RoundingMode::kHalvesToNearestEven};
}

std::string_view Version() { return ELTWISE_VERSION; }

}  // namespace eltwise
