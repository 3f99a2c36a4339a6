// Feature levels and the support queries, like DirectML's CheckFeatureSupport.
#pragma once

#include <optional>
#include <span>
#include <string_view>

#include "eltwise/export.h"
#include "eltwise/operators.h"
#include "eltwise/types.h"

namespace eltwise {

// Values equal DML_FEATURE_LEVEL. kExtended accepts everything the DirectML levels accept plus
// all 12 types for both ops, ranks 0-8, zero-sized dimensions, negative strides, 64-bit element
// counts, the rounding modes down/up and any buffer address.
enum class FeatureLevel : uint32_t {
  k1_0 = 0x1000,
  k2_0 = 0x2000,
  k2_1 = 0x2100,
  k3_0 = 0x3000,
  k3_1 = 0x3100,
  k4_0 = 0x4000,
  k4_1 = 0x4100,
  k5_0 = 0x5000,
  k5_1 = 0x5100,
  k5_2 = 0x5200,
  k6_0 = 0x6000,
  k6_1 = 0x6100,
  k6_2 = 0x6200,
  k6_3 = 0x6300,
  k6_4 = 0x6400,
  kExtended = 0xFFFFFFFF,
};

// Every level, lowest first (kExtended last).
ELTWISE_API std::span<const FeatureLevel> AllFeatureLevels();
ELTWISE_API std::string_view Name(FeatureLevel level);  // "2_0", ..., "6_4", "extended"
// Accepts "2_0", "2.0", "DML_FEATURE_LEVEL_2_0" and "extended".
ELTWISE_API std::optional<FeatureLevel> ParseFeatureLevel(std::string_view name);

// True if `level` accepts `op` on `type` at `rank` (ignoring sizes and strides).
ELTWISE_API bool Supports(FeatureLevel level, Op op, DataType type, int rank);
// Whether rounding `mode` is available at `level`.
ELTWISE_API bool Supports(FeatureLevel level, RoundingMode mode);
// The highest of `requested` levels that eltwise supports (all of them), like
// DML_FEATURE_QUERY_FEATURE_LEVELS; nullopt if `requested` is empty.
ELTWISE_API std::optional<FeatureLevel> HighestSupported(std::span<const FeatureLevel> requested);

}  // namespace eltwise
