// Input values for the semantics tests: every bit pattern of 8- and 16-bit types, and for 32/64-bit
// types the special values of docs/semantics.md (+-0, subnormals, halves, MantissaEnd +-1, +-inf,
// NaN, integer extremes) plus seeded random bit patterns and random values near halves.
#pragma once

#include <cstring>
#include <limits>
#include <random>
#include <vector>

#include "eltwise/eltwise.h"

namespace eltwise::testing {

// Raw little-endian element bytes, `ElementSize(type)` per element.
std::vector<std::byte> TestInputs(DataType type, size_t random_count = 1 << 18);

}  // namespace eltwise::testing
