// The backends of this build, keyed by DeviceKind. Each backend provides one BackendEntry (its
// device factory and what it adds to eltwise::GetSystemInfo); src/backends/registered.cc, the one
// file that names them, lists the entries of the backends linked in.
#pragma once

#include <memory>
#include <span>
#include <variant>

#include "core/backend.h"
#include "eltwise/device.h"
#include "eltwise/info.h"

namespace eltwise {

// The options of Device::Cpu and Device::Cuda; a backend reads its own alternative.
using DeviceOptions = std::variant<CpuOptions, CudaOptions>;

struct BackendEntry {
  DeviceKind kind;
  // Opens one device from `options` (already holding a valid feature level), or says why not
  // (invalid options, kUnsupported without the hardware or the build).
  Expected<std::shared_ptr<const Backend>> (*open)(const DeviceOptions& options);
  // Fills this backend's part of `info` (CPU targets and threads, GPUs).
  void (*describe)(SystemInfo& info);
};

// Every backend of this build (defined in src/backends/registered.cc).
std::span<const BackendEntry> RegisteredBackends();

}  // namespace eltwise
