// The host fast path of host_run.h.
#include "staging/host_run.h"

#include <algorithm>
#include <map>
#include <mutex>
#include <new>
#include <type_traits>
#include <utility>

#include "core/backend.h"
#include "core/device_state.h"
#include "core/op_registry.h"
#include "staging/operator_cache.h"
#include "staging/staging.h"

namespace eltwise::staging {
namespace detail {
std::atomic<const HostPath*> g_host_path{nullptr};
}  // namespace detail

namespace {

static_assert(std::is_same_v<detail::HostPath::Packed, Backend::DirectKernel>);
static_assert(std::is_same_v<detail::HostPath::Strided, Backend::StridedKernel>);

// Throws std::bad_alloc if the device cannot be opened (the next call tries again).
const detail::HostPath* OpenHostPath() {
  Expected<const Device*> device = HostDevice(FeatureLevel::kExtended, 1);
  if (!device.ok()) throw std::bad_alloc();
  auto* path = new detail::HostPath();  // leaked, like the device: used until the process ends
  const Backend& backend = *(*device)->state().backend;
  for (int f = 0; f < kFunctionCount; ++f) {
    for (int t = 0; t < kDataTypeCount; ++t) {
      const Backend::HostKernels kernels =
          backend.HostKernelsFor(static_cast<Function>(f), static_cast<DataType>(t));
      path->packed[static_cast<size_t>(f)][static_cast<size_t>(t)] = kernels.packed;
      path->strided[static_cast<size_t>(f)][static_cast<size_t>(t)] = kernels.strided;
    }
  }
  for (int t = 0; t < kDataTypeCount; ++t) {
    path->element_size[static_cast<size_t>(t)] =
        static_cast<uint8_t>(ElementSize(static_cast<DataType>(t)));
  }
  path->inline_bytes = backend.InlineBytes();
  path->backend = &backend;
  return path;
}

const detail::HostPath& Path() {
  static const detail::HostPath* const path = [] {
    const detail::HostPath* p = OpenHostPath();
    detail::g_host_path.store(p, std::memory_order_release);
    return p;
  }();
  return *path;
}

}  // namespace

Expected<const Device*> HostDevice(FeatureLevel level, int threads) {
  static auto* mutex = new std::mutex();  // leaked, like the devices: used until the process ends
  static auto* devices = new std::map<std::pair<uint32_t, int>, Device>();
  const auto key = std::make_pair(static_cast<uint32_t>(level), threads);
  std::lock_guard<std::mutex> lock(*mutex);
  if (auto it = devices->find(key); it != devices->end()) return &it->second;
  Expected<Device> device = Device::Cpu(CpuOptions{level, threads});
  if (!device.ok()) return device.status();
  return &devices->emplace(key, *device).first->second;
}

Status PrepareHostRuns() {
  try {
    (void)Path();
  } catch (const std::bad_alloc&) {
    return Status(StatusCode::kOutOfMemory, "opening the host device failed: out of memory");
  }
  return Status::Ok();
}

uint64_t HostInlineBytes() { return Path().inline_bytes; }

namespace detail {

void RunHostOutOfLine(Function f, DataType type, const std::byte* in, ptrdiff_t in_stride,
                      std::byte* out, ptrdiff_t out_stride, uint64_t n, int threads) {
  const HostPath& path = Path();
  // The threaded path: false if it did not run. Nothing may escape RunHost (callers run it
  // without a lock a language runtime would need to report an exception): without memory for the
  // path (std::bad_alloc from the device map, the cache or a description) the kernel, which
  // allocates nothing, runs instead.
  const auto run_threaded = [&]() -> bool {
    Expected<const Device*> device = HostDevice(FeatureLevel::kExtended, threads);
    if (!device.ok()) return false;
    const auto esize = static_cast<ptrdiff_t>(ElementSize(type));
    const TensorDesc input = Describe(type, {n}, {in_stride / esize}, FeatureLevel::kExtended);
    const TensorDesc output = Describe(type, {n}, {out_stride / esize}, FeatureLevel::kExtended);
    Expected<CompiledOperator> op = CompileCached(**device, DescribeFunction(f, input, output));
    if (!op.ok()) return false;
    // Bindings start at each operand's lowest-addressed element (tensor.h).
    const auto last = static_cast<ptrdiff_t>(n - 1);
    const std::byte* in_low = in + std::min<ptrdiff_t>(0, in_stride * last);
    std::byte* out_low = out + std::min<ptrdiff_t>(0, out_stride * last);
    // Anything the library refuses here (it cannot, for a 1-D run, but for lack of memory) falls
    // through to the kernel.
    return op
        ->Execute(ConstBinding{in_low, input.total_tensor_size_in_bytes},
                  Binding{out_low, output.total_tensor_size_in_bytes})
        .ok();
  };
  if (Threaded(path, type, in_stride, out_stride, n)) {
    try {
      if (run_threaded()) return;
    } catch (const std::bad_alloc&) {
    }
  }
  RunInline(path, f, type, in, in_stride, out, out_stride, n);
}

}  // namespace detail

std::pair<uintptr_t, uintptr_t> RuntimeIdentity() {
  return {reinterpret_cast<uintptr_t>(&OperatorCache::Global()),
          reinterpret_cast<uintptr_t>(Path().backend)};
}

}  // namespace eltwise::staging
