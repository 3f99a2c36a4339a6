// What this build and machine offer: for `eltwise info` and the bindings.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "eltwise/export.h"

namespace eltwise {

struct SystemInfo {
  std::string version;
  // CPU kernel tables this CPU can run, best first (e.g. "AVX3", "AVX2", ..., "reference").
  std::vector<std::string> cpu_targets;
  // The SIMD ones among them, best first; empty in a build without Highway (ELTWISE_SIMD=OFF) or on
  // a CPU with none of the compiled targets, where the scalar kernels run (exact but slower).
  std::vector<std::string> simd_targets;
  int hardware_threads = 1;
  // The CPU's model name and the bytes of one instance of its L1 data, L2 and L3 caches, as the
  // system reports them (0: no such level reported).
  std::string cpu_model;
  uint64_t l1d_cache_bytes = 0;
  uint64_t l2_cache_bytes = 0;
  uint64_t l3_cache_bytes = 0;
  bool cuda_backend_built = false;
  // One line per GPU found ("0: NVIDIA H100 80GB HBM3, sm_90"); empty without GPUs or CUDA.
  std::vector<std::string> cuda_devices;
};

ELTWISE_API SystemInfo GetSystemInfo();

}  // namespace eltwise
