// What a Device and a CompiledOperator hold.
#pragma once

#include "core/backend.h"
#include "core/plan.h"
#include "eltwise/device.h"

namespace eltwise::internal {

struct DeviceState {
  DeviceKind kind = DeviceKind::kCpu;
  FeatureLevel feature_level = FeatureLevel::kExtended;
  int threads = 1;
  int cuda_ordinal = 0;
  void* cuda_stream = nullptr;
  std::string description;
  const Backend* backend = nullptr;

  static Device MakeDevice(DeviceState state);
};

struct CompiledState {
  Device device;
  OperatorDesc desc;
  Plan plan;

  static CompiledOperator MakeCompiled(CompiledState state);
};

}  // namespace eltwise::internal
