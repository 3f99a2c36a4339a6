// Which copy of the library a module runs on: the addresses of process-wide state the library
// keeps (its compiled-operator cache, the backend its host runs use; staging::RuntimeIdentity).
// eltwise._core and eltwise._onnx both report them (_runtime_identity()), so a test can check that
// they share one runtime (one libeltwise_runtime, python/CMakeLists.txt) rather than each carrying
// its own.
#pragma once

#include <cstdint>
#include <utility>

#include "staging/host_run.h"

namespace eltwise::python {

// (operator cache address, host backend address); opens the host device if no call has yet.
inline std::pair<uintptr_t, uintptr_t> RuntimeIdentity() { return staging::RuntimeIdentity(); }

}  // namespace eltwise::python
