// Element values of the benchmarks' inputs: floating-point values stored from doubles, and random
// inputs.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "eltwise/types.h"

namespace eltwise::bench {

// Stores `value` as a floating-point element, rounded to nearest even (float16 and bfloat16:
// finite values below 65520 only); other types are left alone.
void StoreValue(DataType type, double value, std::byte* element);

// Writes `count` elements of random inputs (the same on every run): floating-point values uniform
// in +-1000 (float16, bfloat16: +-62.5), so with fractions, finite and normal; any bits for
// integers.
void FillRandomValues(DataType type, std::byte* elements, uint64_t count);
// The same in a new vector.
std::vector<std::byte> RandomValues(DataType type, uint64_t count);

}  // namespace eltwise::bench
