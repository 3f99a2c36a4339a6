// Lowers the CPU backend's partial-overlap limits (SetPartialOverlapLimits) for a test's scope, so
// that small tensors take the paths large ones take; the defaults come back when it ends, also
// when a fatal assertion leaves the test early.
#pragma once

#include <cstdint>

#include "cpu/cpu_backend.h"

namespace eltwise::testing {

struct OverlapLimits {
  OverlapLimits(uint64_t copy_bytes, uint64_t transpose_bytes) {
    SetPartialOverlapLimits(copy_bytes, transpose_bytes);
  }
  ~OverlapLimits() { SetPartialOverlapLimits(uint64_t{1} << 20, uint64_t{1} << 20); }
  OverlapLimits(const OverlapLimits&) = delete;
  OverlapLimits& operator=(const OverlapLimits&) = delete;
};

}  // namespace eltwise::testing
