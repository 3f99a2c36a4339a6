// Validation of operator descriptions against a feature level (docs/semantics.md section 2). Every
// message names the field and the rule. This is the only place descriptors are checked.
#pragma once

#include "eltwise/feature_level.h"
#include "eltwise/operators.h"
#include "eltwise/status.h"

namespace eltwise {

// The binding address alignment a tensor requires at `level`: max(16, guaranteed alignment) at
// DirectML levels; the guaranteed alignment (or 1) at the extended level.
uint32_t RequiredBindingAlignment(FeatureLevel level, const TensorDesc& tensor);

}  // namespace eltwise
