// What a Device and a CompiledOperator hold.
#pragma once

#include <memory>

#include "core/backend.h"
#include "core/plan.h"
#include "eltwise/device.h"

namespace eltwise::internal {

struct DeviceState {
  DeviceKind kind = DeviceKind::kCpu;
  FeatureLevel feature_level = FeatureLevel::kExtended;
  // The opened device of its backend; it holds the backend-specific state (threads, GPU, stream).
  std::shared_ptr<const Backend> backend;

  static Device MakeDevice(DeviceState state);
};

struct CompiledState {
  Device device;
  OperatorDesc desc;
  Plan plan;
  // The backend's DirectKernelFor(plan), asked once at compile time (both are immutable).
  Backend::DirectKernel direct_kernel = nullptr;

  static CompiledOperator MakeCompiled(CompiledState state);
};

}  // namespace eltwise::internal
