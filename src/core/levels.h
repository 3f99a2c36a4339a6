// Internal view of the feature-level tables (feature_level.cc), shared by validation and `info`.
#pragma once

#include <optional>

#include "eltwise/feature_level.h"

namespace eltwise {

struct RankRange {
  int min;
  int max;  // min > max: none
};

bool IsKnownFeatureLevel(FeatureLevel level);
// The lowest DirectML level at which `op` exists.
std::optional<FeatureLevel> MinimumLevel(Op op);
RankRange SupportedRanks(FeatureLevel level, Op op);
bool SupportsType(FeatureLevel level, Op op, DataType type);
// Whether option value `value` of `op` (e.g. a RoundingMode) exists at `level`.
bool SupportsOption(FeatureLevel level, Op op, int value);

}  // namespace eltwise
