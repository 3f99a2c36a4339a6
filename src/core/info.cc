#include "eltwise/info.h"

#include "core/backend_registry.h"
#include "eltwise/device.h"

namespace eltwise {

SystemInfo GetSystemInfo() {
  SystemInfo info;
  info.version = std::string(Version());
  for (const BackendEntry& backend : RegisteredBackends()) backend.describe(info);
  return info;
}

}  // namespace eltwise
