// How a Python call that is not a packed host run (runner.h) reaches the library. Operands in the
// device's own memory at the extended level run through a cached compiled operator; everything
// that needs staging (DirectML's binding rules on the host, host arrays on a CUDA device) goes
// through the library's one staging path (src/staging/staging.h, RunStrided).
//
// Note [Which descriptor the library sees]
// At the extended level an operand is described exactly as it lies in memory: its real sizes and
// element strides (negative and zero strides included), the binding starting at its
// lowest-addressed element and total_tensor_size_in_bytes equal to its exact byte span (tensor.h).
// Arrays of more than 8 dimensions are passed with the dimensions that are contiguous in both x and
// out merged. At a DirectML level the array's shape and strides are the tensor description,
// unchanged (so rank, type, size and stride rules apply to what the user wrote) and
// total_tensor_size_in_bytes is DMLCalcBufferTensorSize; memory DirectML would not bind is staged
// by the library.
#pragma once

#include "eltwise/eltwise.h"
#include "staging/staging.h"

namespace eltwise::python {

// Runs `call` on `device` (without the GIL: it touches no Python object).
Status RunCall(const Device& device, const staging::StridedCall& call);

}  // namespace eltwise::python
