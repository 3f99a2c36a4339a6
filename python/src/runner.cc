#include "runner.h"

#include <atomic>
#include <list>
#include <map>
#include <memory>
#include <mutex>
#include <new>
#include <string>
#include <tuple>
#include <unordered_map>
#include <utility>

#include "core/op_registry.h"
#include "cpu/kernel_dispatch.h"

namespace eltwise::python {
namespace {

std::atomic<int> g_process_threads{0};
thread_local int t_thread_override = -1;

// Devices and compiled operators are shared by every Python thread and by ufunc loops running
// without the GIL; one mutex guards both (held for map operations only, never while running).
std::mutex& Mutex() {
  static auto* mutex = new std::mutex();  // leaked: used until the process ends
  return *mutex;
}

template <class T>
void Append(std::string& key, const T& value) {
  key.append(reinterpret_cast<const char*>(&value), sizeof value);
}

void AppendTensor(std::string& key, const TensorDesc& t) {
  Append(key, t.type);
  Append(key, static_cast<uint8_t>(t.sizes.size()));
  for (uint64_t s : t.sizes) Append(key, s);
  Append(key, t.strides.has_value());
  if (t.strides) {
    Append(key, static_cast<uint8_t>(t.strides->size()));
    for (int64_t s : *t.strides) Append(key, s);
  }
  Append(key, t.total_tensor_size_in_bytes);
  Append(key, t.guaranteed_base_offset_alignment);
}

std::string KeyOf(const Device& device, const OperatorDesc& desc) {
  std::string key;
  key.reserve(160);
  Append(key, &device.state());  // devices live for the process (GetDevice)
  Append(key, static_cast<uint8_t>(desc.index()));
  Append(key, OptionOf(desc));
  AppendTensor(key, InputOf(desc));
  AppendTensor(key, OutputOf(desc));
  return key;
}

struct OperatorCache {
  using Entry = std::pair<std::string, CompiledOperator>;
  std::list<Entry> recent;  // most recently used first
  std::unordered_map<std::string, std::list<Entry>::iterator> index;
};

OperatorCache& Cache() {
  static auto* cache = new OperatorCache();  // leaked, like Mutex()
  return *cache;
}

const KernelTable& Table() {
  static const KernelTable& table = BestKernelTable();
  return table;
}

// n elements `stride` elements apart, described with their exact span (the extended level's rule).
TensorDesc Vector(DataType type, uint64_t n, int64_t stride) {
  TensorDesc t;
  t.type = type;
  t.sizes = {n};
  t.strides = std::vector<int64_t>{stride};
  t.total_tensor_size_in_bytes = SpanInBytes(type, t.sizes, t.strides).value_or(0);
  return t;
}

}  // namespace

int DefaultThreads() {
  return t_thread_override >= 0 ? t_thread_override : g_process_threads.load();
}
int ProcessThreads() { return g_process_threads.load(); }
void SetProcessThreads(int threads) { g_process_threads.store(threads); }
int SetThreadOverride(int threads) { return std::exchange(t_thread_override, threads); }

Expected<const Device*> GetDevice(DeviceKind kind, int ordinal, FeatureLevel level, int threads,
                                  uintptr_t stream) {
  static auto* devices = new std::map<std::tuple<int, int, uint32_t, int, uintptr_t>, Device>();
  if (kind == DeviceKind::kCpu || stream == 1) stream = 0;  // 1: the legacy default stream
  const auto key = std::make_tuple(static_cast<int>(kind), ordinal, static_cast<uint32_t>(level),
                                   kind == DeviceKind::kCpu ? threads : 0, stream);
  std::lock_guard<std::mutex> lock(Mutex());
  if (auto it = devices->find(key); it != devices->end()) return &it->second;
  Expected<Device> device =
      kind == DeviceKind::kCpu
          ? Device::Cpu(CpuOptions{level, threads})
          : Device::Cuda(CudaOptions{level, ordinal, reinterpret_cast<void*>(stream)});
  if (!device.ok()) return device.status();
  return &devices->emplace(key, *device).first->second;
}

Expected<CompiledOperator> CompileCached(const Device& device, const OperatorDesc& desc) {
  std::string key = KeyOf(device, desc);
  OperatorCache& cache = Cache();
  {
    std::lock_guard<std::mutex> lock(Mutex());
    if (auto it = cache.index.find(key); it != cache.index.end()) {
      cache.recent.splice(cache.recent.begin(), cache.recent, it->second);
      return it->second->second;
    }
  }
  Expected<CompiledOperator> op = Compile(device, desc);  // outside the lock: it may take a while
  if (!op.ok()) return op;  // failures are not cached: the message is built again
  std::lock_guard<std::mutex> lock(Mutex());
  if (cache.index.count(key) == 0) {
    cache.recent.emplace_front(key, *op);
    try {
      cache.index.emplace(std::move(key), cache.recent.begin());
    } catch (const std::bad_alloc&) {
      cache.recent.pop_front();  // no entry without its index: the cache stays consistent
      throw;
    }
    if (cache.recent.size() > kOperatorCacheCapacity) {
      cache.index.erase(cache.recent.back().first);
      cache.recent.pop_back();
    }
  }
  return op;
}

size_t OperatorCacheSize() {
  std::lock_guard<std::mutex> lock(Mutex());
  return Cache().recent.size();
}

void RunHost(Function f, DataType type, const std::byte* in, ptrdiff_t in_stride, std::byte* out,
             ptrdiff_t out_stride, uint64_t n, int threads) {
  const auto esize = static_cast<ptrdiff_t>(ElementSize(type));
  const bool packed = in_stride == esize && out_stride == esize;
  if (n == 0) return;
  // Runs on the library's threaded path; false if it did not run there. Callers release the GIL
  // around RunHost (Py_BEGIN_ALLOW_THREADS, not a scope guard), so nothing may escape: without
  // memory for the path (std::bad_alloc from the device map, the cache or a description) the
  // kernel below, which allocates nothing, runs instead.
  const auto run_threaded = [&]() -> bool {
    Expected<const Device*> device =
        GetDevice(DeviceKind::kCpu, 0, FeatureLevel::kExtended, threads);
    if (device.ok()) {
      const TensorDesc input = Vector(type, n, in_stride / esize);
      const TensorDesc output = Vector(type, n, out_stride / esize);
      Expected<CompiledOperator> op = CompileCached(**device, DescribeFunction(f, input, output));
      if (op.ok()) {
        // Bindings start at each operand's lowest-addressed element (tensor.h).
        const auto last = static_cast<ptrdiff_t>(n - 1);
        const std::byte* in_low = in + std::min<ptrdiff_t>(0, in_stride * last);
        std::byte* out_low = out + std::min<ptrdiff_t>(0, out_stride * last);
        if (op->Execute(ConstBinding{in_low, input.total_tensor_size_in_bytes},
                        Binding{out_low, output.total_tensor_size_in_bytes})
                .ok()) {
          return true;
        }
      }
    }
    // Anything the library refuses here (it cannot, for a 1-D run, but for lack of memory) falls
    // through to the kernel.
    return false;
  };
  if (2 * n * static_cast<uint64_t>(esize) >= kDirectBytes && in_stride % esize == 0 &&
      out_stride % esize == 0 && threads != 1) {
    try {
      if (run_threaded()) return;
    } catch (const std::bad_alloc&) {
    }
  }
  if (packed) {
    Table().Contiguous(f, type)(in, out, n);
  } else {
    Table().Strided(f, type)(in, in_stride, out, out_stride, n);
  }
}

}  // namespace eltwise::python
