// How the module runs the library: process-wide devices and thread settings. Compiled operators
// come from the library's one cache (staging/operator_cache.h, CompileCached) and runs on host
// memory from its one host fast path (staging/host_run.h, RunHost), which calls the CPU backend's
// kernel directly for runs too small for anything else to pay. Everything here is thread-safe and
// never touches Python, so the NumPy ufunc inner loops (which run without the GIL) use it too.
#pragma once

#include <cstddef>
#include <cstdint>

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
// process: CPU devices are the library's host devices (staging::HostDevice), which the host fast
// path runs on too. `stream` (CUDA only) is a DLPack stream value: 0 or 1 the legacy default
// stream, 2 the per-thread default stream, else a cudaStream_t. One device is kept per stream a
// caller names.
Expected<const Device*> GetDevice(DeviceKind kind, int ordinal, FeatureLevel level, int threads,
                                  uintptr_t stream = 0);

}  // namespace eltwise::python
