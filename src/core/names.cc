// Names and parsing of the public enumerations.
#include <algorithm>
#include <array>
#include <cctype>
#include <string>

#include "core/function.h"
#include "core/op_registry.h"
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

namespace {

// The name of option value `value` of `op`, "invalid" when out of range.
std::string_view OptionName(Op op, int value) {
  const std::span<const std::string_view> names = Info(op).option.names;
  return value >= 0 && static_cast<size_t>(value) < names.size() ? names[value] : "invalid";
}

std::optional<int> ParseOption(Op op, std::string_view name) {
  const std::span<const std::string_view> names = Info(op).option.names;
  for (size_t i = 0; i < names.size(); ++i) {
    if (name == names[i]) return static_cast<int>(i);
  }
  return std::nullopt;
}

}  // namespace

std::string_view Name(Op op) { return static_cast<int>(op) < kOpCount ? Info(op).name : "invalid"; }

std::string_view Name(NanPolicy nan) { return OptionName(Op::kSign, static_cast<int>(nan)); }

std::string_view Name(RoundingMode mode) { return OptionName(Op::kRound, static_cast<int>(mode)); }

std::optional<Op> ParseOp(std::string_view name) {
  for (const OpInfo& info : AllOps()) {
    if (name == info.name) return info.op;
  }
  return std::nullopt;
}

std::optional<NanPolicy> ParseNanPolicy(std::string_view name) {
  const std::optional<int> value = ParseOption(Op::kSign, name);
  if (!value) return std::nullopt;
  return static_cast<NanPolicy>(*value);
}

std::optional<RoundingMode> ParseRoundingMode(std::string_view name) {
  const std::optional<int> value = ParseOption(Op::kRound, name);
  if (!value) return std::nullopt;
  return static_cast<RoundingMode>(*value);
}

std::string_view Name(Function f) {
  switch (f) {
#define ELTWISE_FUNCTION_NAME(e, ...) \
  case Function::e:                   \
    return &#e[1]; /* the name without its k */
    ELTWISE_FOR_EACH_FUNCTION(ELTWISE_FUNCTION_NAME)
#undef ELTWISE_FUNCTION_NAME
  }
  return "invalid";
}

Function SignFunction(NanPolicy nan) {
  return FunctionFor(Op::kSign, static_cast<int>(nan), DataType::kFloat32);
}

Function RoundFunction(RoundingMode mode, DataType type) {
  return FunctionFor(Op::kRound, static_cast<int>(mode), type);
}

OperatorDesc DescribeFunction(Function f, const TensorDesc& input, const TensorDesc& output) {
  return MakeDesc(OpOfFunction(f), OptionOfFunction(f), input, output);
}

std::string_view Version() { return ELTWISE_VERSION; }

}  // namespace eltwise
