// The library's one host fast path: a function applied to n host elements with byte strides, the
// way a front end runs a packed array or a strided run handed to it (the Python module's packed
// route and NumPy ufunc loops). Small runs call the CPU backend's kernel on the calling thread
// (Backend::HostKernelsFor), below the one threshold the backend owns (Backend::InlineBytes,
// derived from the bytes moved below which it would not split a call across threads); larger ones
// go through a compiled operator from the one cache (operator_cache.h), which splits them across
// threads.
// Thread-safe; nothing here touches a front end's state. Not in the public API.
#pragma once

#include <array>
#include <atomic>
#include <cstddef>
#include <cstdint>
#include <utility>

#include "core/function.h"
#include "eltwise/device.h"
#include "eltwise/status.h"

namespace eltwise::staging {

// The process's CPU device at `level` with `threads` threads (0: one per hardware thread), opened
// on first use and kept for the process, one per (level, threads).
Expected<const Device*> HostDevice(FeatureLevel level, int threads);

// Opens what every RunHost call uses (the device whose backend gives the inline kernels), once;
// kOutOfMemory if it cannot. A caller that cannot take an exception from RunHost (code running
// without a language runtime's lock, a C callback) calls this first; RunHost never throws after
// it succeeded.
Status PrepareHostRuns();

// The bytes moved (input + output) below which RunHost runs on the calling thread.
uint64_t HostInlineBytes();

// Runs `f` on n host elements from `in` to `out` with byte strides (any sign; zero for the input;
// `in` may be `out` with the same stride, no other overlap) on up to `threads` threads (0: one
// per hardware thread). Runs moving less than HostInlineBytes() and strides that are not whole
// elements call the backend's kernel on this thread; larger runs (on one thread too) execute a
// cached compiled operator, or, without memory for one, the same kernel on this thread. Inline:
// after PrepareHostRuns, a run on this thread costs the caller a lookup and the kernel's call.
inline void RunHost(Function f, DataType type, const std::byte* in, ptrdiff_t in_stride,
                    std::byte* out, ptrdiff_t out_stride, uint64_t n, int threads);

// Addresses of process-wide state of this copy of the library (the operator cache, the host
// runs' backend), for checking that two modules share one copy. Needs PrepareHostRuns.
std::pair<uintptr_t, uintptr_t> RuntimeIdentity();

namespace detail {

// What RunHost reads on every call, set once (by PrepareHostRuns or the first RunHost) and never
// changed: the kernels of the backend RunHost runs on this thread, per (function, type), and the
// threshold. Kernel types as in Backend::HostKernels.
struct HostPath {
  using Packed = void (*)(const std::byte* input, std::byte* output, size_t count);
  using Strided = void (*)(const std::byte* input, ptrdiff_t input_stride, std::byte* output,
                           ptrdiff_t output_stride, size_t count);
  std::array<std::array<Packed, kDataTypeCount>, kFunctionCount> packed{};
  std::array<std::array<Strided, kDataTypeCount>, kFunctionCount> strided{};
  std::array<uint8_t, kDataTypeCount> element_size{};
  uint64_t inline_bytes = 0;
  const void* backend = nullptr;  // for RuntimeIdentity
};
extern std::atomic<const HostPath*> g_host_path;

// Whether a run goes through a compiled operator (see RunHost): on one thread too, where the
// operator makes the backend's choices for large runs that the bare kernel does not (on Zen 3,
// streaming stores past the last-level cache: 1.1 -> 1.7 of a copy at 64 MiB).
inline bool Threaded(const HostPath& path, DataType type, ptrdiff_t in_stride, ptrdiff_t out_stride,
                     uint64_t n) {
  const auto esize = static_cast<ptrdiff_t>(path.element_size[static_cast<size_t>(type)]);
  return 2 * n * static_cast<uint64_t>(esize) >= path.inline_bytes && in_stride % esize == 0 &&
         out_stride % esize == 0;
}

// The kernel on this thread.
inline void RunInline(const HostPath& path, Function f, DataType type, const std::byte* in,
                      ptrdiff_t in_stride, std::byte* out, ptrdiff_t out_stride, uint64_t n) {
  const auto fi = static_cast<size_t>(f), ti = static_cast<size_t>(type);
  const auto esize = static_cast<ptrdiff_t>(path.element_size[ti]);
  if (in_stride == esize && out_stride == esize) {
    path.packed[fi][ti](in, out, n);
  } else {
    path.strided[fi][ti](in, in_stride, out, out_stride, n);
  }
}

// Everything else: preparing the path, and the threaded runs. RunHost's, for n > 0 only.
void RunHostOutOfLine(Function f, DataType type, const std::byte* in, ptrdiff_t in_stride,
                      std::byte* out, ptrdiff_t out_stride, uint64_t n, int threads);

}  // namespace detail

inline void RunHost(Function f, DataType type, const std::byte* in, ptrdiff_t in_stride,
                    std::byte* out, ptrdiff_t out_stride, uint64_t n, int threads) {
  if (n == 0) return;
  const detail::HostPath* path = detail::g_host_path.load(std::memory_order_acquire);
  if (path != nullptr && !detail::Threaded(*path, type, in_stride, out_stride, n)) {
    detail::RunInline(*path, f, type, in, in_stride, out, out_stride, n);
    return;
  }
  detail::RunHostOutOfLine(f, type, in, in_stride, out, out_stride, n, threads);
}

}  // namespace eltwise::staging
