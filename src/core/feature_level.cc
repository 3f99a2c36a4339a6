// The feature-level support tables (docs/semantics.md section 2). Validation and the Supports
// queries both read these functions, so the table the validator enforces is the table
// `eltwise info` prints.
#include "eltwise/feature_level.h"

#include <algorithm>
#include <array>
#include <string>

#include "core/levels.h"
#include "core/op_registry.h"

namespace eltwise {
namespace {

constexpr std::array<FeatureLevel, 16> kAllLevels = {
    FeatureLevel::k1_0, FeatureLevel::k2_0, FeatureLevel::k2_1, FeatureLevel::k3_0,
    FeatureLevel::k3_1, FeatureLevel::k4_0, FeatureLevel::k4_1, FeatureLevel::k5_0,
    FeatureLevel::k5_1, FeatureLevel::k5_2, FeatureLevel::k6_0, FeatureLevel::k6_1,
    FeatureLevel::k6_2, FeatureLevel::k6_3, FeatureLevel::k6_4, FeatureLevel::kExtended};

constexpr bool AtLeast(FeatureLevel level, FeatureLevel minimum) {
  return static_cast<uint32_t>(level) >= static_cast<uint32_t>(minimum);
}

}  // namespace

std::span<const FeatureLevel> AllFeatureLevels() { return kAllLevels; }

std::string_view Name(FeatureLevel level) {
  switch (level) {
    case FeatureLevel::k1_0:
      return "1_0";
    case FeatureLevel::k2_0:
      return "2_0";
    case FeatureLevel::k2_1:
      return "2_1";
    case FeatureLevel::k3_0:
      return "3_0";
    case FeatureLevel::k3_1:
      return "3_1";
    case FeatureLevel::k4_0:
      return "4_0";
    case FeatureLevel::k4_1:
      return "4_1";
    case FeatureLevel::k5_0:
      return "5_0";
    case FeatureLevel::k5_1:
      return "5_1";
    case FeatureLevel::k5_2:
      return "5_2";
    case FeatureLevel::k6_0:
      return "6_0";
    case FeatureLevel::k6_1:
      return "6_1";
    case FeatureLevel::k6_2:
      return "6_2";
    case FeatureLevel::k6_3:
      return "6_3";
    case FeatureLevel::k6_4:
      return "6_4";
    case FeatureLevel::kExtended:
      return "extended";
  }
  return "invalid";
}

std::optional<FeatureLevel> ParseFeatureLevel(std::string_view name) {
  constexpr std::string_view kPrefix = "DML_FEATURE_LEVEL_";
  if (name.substr(0, kPrefix.size()) == kPrefix) name.remove_prefix(kPrefix.size());
  std::string normalized(name);
  for (char& c : normalized) {
    if (c == '.') c = '_';
  }
  for (FeatureLevel level : kAllLevels) {
    if (normalized == Name(level)) return level;
  }
  return std::nullopt;
}

bool IsKnownFeatureLevel(FeatureLevel level) {
  for (FeatureLevel known : kAllLevels) {
    if (known == level) return true;
  }
  return false;
}

std::optional<FeatureLevel> MinimumLevel(Op op) { return Info(op).directml_since; }

// Ranks are the same rule for every op: exactly 4 before DirectML 3.0, 1 to 8 from it.
RankRange SupportedRanks(FeatureLevel level, Op op) {
  if (level == FeatureLevel::kExtended) return {0, kMaxRank};
  if (!AtLeast(level, *MinimumLevel(op))) return {1, 0};  // empty
  if (!AtLeast(level, FeatureLevel::k3_0)) return {4, 4};
  return {1, kMaxRank};
}

bool SupportsType(FeatureLevel level, Op op, DataType type) {
  if (level == FeatureLevel::kExtended) return true;
  if (!AtLeast(level, *MinimumLevel(op))) return false;
  for (const TypesSince& rule : Info(op).directml_types) {
    if (std::find(rule.types.begin(), rule.types.end(), type) != rule.types.end()) {
      return AtLeast(level, rule.level);
    }
  }
  return false;
}

bool Supports(FeatureLevel level, Op op, DataType type, int rank) {
  const RankRange ranks = SupportedRanks(level, op);
  return IsKnownFeatureLevel(level) && SupportsType(level, op, type) && rank >= ranks.min &&
         rank <= ranks.max;
}

bool SupportsOption(FeatureLevel level, Op op, int value) {
  const OptionInfo& option = Info(op).option;
  if (!IsKnownFeatureLevel(level) || !AtLeast(level, *MinimumLevel(op))) return false;
  if (value < 0 || static_cast<size_t>(value) >= option.names.size()) return false;
  return level == FeatureLevel::kExtended || value < option.directml_values;
}

bool Supports(FeatureLevel level, RoundingMode mode) {
  return SupportsOption(level, Op::kRound, static_cast<int>(mode));
}

std::optional<FeatureLevel> HighestSupported(std::span<const FeatureLevel> requested) {
  std::optional<FeatureLevel> best;
  for (FeatureLevel level : requested) {
    if (!IsKnownFeatureLevel(level)) continue;
    if (!best || AtLeast(level, *best)) best = level;
  }
  return best;
}

}  // namespace eltwise
