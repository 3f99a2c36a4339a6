// The op registry: everything the library knows about each operator, in one table (op_registry.cc)
// read by validation, naming, the feature-level tables, Compile, the ONNX front end, the CLI, the
// Python module, the tests and the benchmarks. Adding an op: docs/architecture.md, "Adding an op".
#pragma once

#include <span>
#include <string_view>

#include "core/function.h"
#include "eltwise/feature_level.h"
#include "eltwise/operators.h"
#include "eltwise/status.h"
#include "eltwise/tensor.h"

namespace eltwise {

// The input and output descriptions of any operator description.
const TensorDesc& InputOf(const OperatorDesc& desc);
const TensorDesc& OutputOf(const OperatorDesc& desc);
// `prototype` (its options) with its tensors replaced.
OperatorDesc WithTensors(OperatorDesc prototype, TensorDesc input, TensorDesc output);

}  // namespace eltwise
