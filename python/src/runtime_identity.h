// Which copy of the library a module runs on: the addresses of the process-wide state the library
// keeps (the kernel table production code runs, the CPU backend's thread pool). eltwise._core and
// eltwise._onnx both report them (_runtime_identity()), so a test can check that they share one
// runtime (one libeltwise_runtime, python/CMakeLists.txt) rather than each carrying its own.
#pragma once

#include <cstdint>
#include <utility>

#include "cpu/kernel_dispatch.h"
#include "cpu/thread_pool.h"

namespace eltwise::python {

// (kernel table address, thread pool address); creates the thread pool if no call has yet.
inline std::pair<uintptr_t, uintptr_t> RuntimeIdentity() {
  return {reinterpret_cast<uintptr_t>(&BestKernelTable()),
          reinterpret_cast<uintptr_t>(&ThreadPool::Global())};
}

}  // namespace eltwise::python
