// How a parsed call (arguments.h) runs: one decision (ChooseRoute in dispatch.cc) picks one of
// four routes, and each route runs straight through to the library:
//  * packed: a contiguous host NumPy array at the extended level runs straight into the library's
//    kernel (the library's host fast path, staging/host_run.h, RunHost), without descriptors,
//    compile or staging;
//  * ufunc: other host arrays at the extended level, and containers with __array_ufunc__ (Dask,
//    xarray, pandas), go through the op's NumPy ufunc (ufuncs.h), whose loops call RunHost;
//  * library: everything else that is an array (DLPack tensors, other devices, DirectML levels,
//    outs the module must check) is described and run by the library: a cached compiled operator
//    where the operands can be bound where they lie, else the library's one staging path
//    (src/staging/staging.h, RunStrided);
//  * as-array: anything else (lists, scalars, buffers, ndarray subclasses) is read as NumPy does
//    and decided again, once, as the array it becomes.
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

#include "arguments.h"
#include "errors.h"

namespace eltwise::python {

// Runs `r` on x into out (Py_None: a new array) and returns the result (out, a new array, a NumPy
// scalar for a scalar x, or the container's own kind).
nb::object Dispatch(const Request& r, PyObject* x, PyObject* out);

}  // namespace eltwise::python
