// How the module runs the library on host memory without compiling per call: process-wide devices,
// a bounded cache of compiled operators, and the library's kernel called directly for runs too
// small for anything else to pay. Everything here is thread-safe and never touches Python, so the
// NumPy ufunc inner loops (which run without the GIL) use it too.
#pragma once

#include <cstddef>
#include <cstdint>

#include "core/function.h"
#include "eltwise/eltwise.h"

namespace eltwise::python {

// Threads a call uses when it gives none: the calling thread's override (eltwise.num_threads
// context), else the process-wide setting (eltwise.set_num_threads); 0 means one per hardware
// thread, as in CpuOptions.
int DefaultThreads();
int ProcessThreads();
void SetProcessThreads(int threads);
// Sets the calling thread's override (-1: none) and returns the previous one.
int SetThreadOverride(int threads);

// The device for (kind, ordinal, level, threads, stream), created on first use and kept for the
// process. `stream` (CUDA only) is a DLPack stream value: 0 or 1 the legacy default stream, 2 the
// per-thread default stream, else a cudaStream_t. One device is kept per stream a caller names.
Expected<const Device*> GetDevice(DeviceKind kind, int ordinal, FeatureLevel level, int threads,
                                  uintptr_t stream = 0);

// Compile(device, desc), remembered in a bounded least-recently-used cache keyed by the device and
// everything in desc (op, option, type, sizes, strides, total size, guaranteed alignment).
// Alignment of the bound memory is not part of a compiled operator (Execute checks it per call).
Expected<CompiledOperator> CompileCached(const Device& device, const OperatorDesc& desc);
size_t OperatorCacheSize();
inline constexpr size_t kOperatorCacheCapacity = 256;

// Runs `f` on n host elements from `in` to `out` with byte strides (any sign; zero for the input;
// `in` may be `out` with the same stride, no other overlap) on up to `threads` threads (0: all).
// Runs moving less than kDirectBytes call the best kernel table's kernel on this thread (below
// the library's parallel grain the library would do the same); larger runs go through a cached
// compiled operator, which splits them across threads.
void RunHost(Function f, DataType type, const std::byte* in, ptrdiff_t in_stride, std::byte* out,
             ptrdiff_t out_stride, uint64_t n, int threads);
inline constexpr uint64_t kDirectBytes = uint64_t{256} << 10;

}  // namespace eltwise::python
