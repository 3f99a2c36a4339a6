#include "runner.h"

#include <atomic>
#include <map>
#include <mutex>
#include <tuple>
#include <utility>

#include "staging/host_run.h"

namespace eltwise::python {
namespace {

std::atomic<int> g_process_threads{0};
thread_local int t_thread_override = -1;

}  // namespace

int DefaultThreads() {
  return t_thread_override >= 0 ? t_thread_override : g_process_threads.load();
}
int ProcessThreads() { return g_process_threads.load(); }
void SetProcessThreads(int threads) { g_process_threads.store(threads); }
int SetThreadOverride(int threads) { return std::exchange(t_thread_override, threads); }

Expected<const Device*> GetDevice(DeviceKind kind, int ordinal, FeatureLevel level, int threads,
                                  uintptr_t stream) {
  if (kind == DeviceKind::kCpu) return staging::HostDevice(level, threads);
  // CUDA devices are shared by every Python thread; the mutex is held for map operations only.
  static auto* mutex = new std::mutex();  // leaked, like the devices: used until the process ends
  static auto* devices = new std::map<std::tuple<int, uint32_t, uintptr_t>, Device>();
  if (stream == 1) stream = 0;  // 1: the legacy default stream
  const auto key = std::make_tuple(ordinal, static_cast<uint32_t>(level), stream);
  std::lock_guard<std::mutex> lock(*mutex);
  if (auto it = devices->find(key); it != devices->end()) return &it->second;
  Expected<Device> device =
      Device::Cuda(CudaOptions{level, ordinal, reinterpret_cast<void*>(stream)});
  if (!device.ok()) return device.status();
  return &devices->emplace(key, *device).first->second;
}

}  // namespace eltwise::python
