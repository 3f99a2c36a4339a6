#include "staging.h"

#include "core/op_registry.h"
#include "runner.h"

namespace eltwise::python {

Status RunCall(const Device& device, const staging::StridedCall& call) {
  const FeatureLevel level = device.feature_level();
  const bool in_place_memory =
      call.memory == staging::Memory::kDevice || device.kind() == DeviceKind::kCpu;
  if (level != FeatureLevel::kExtended || !in_place_memory) {
    return staging::RunStrided(device, call);
  }
  // Extended level, operands in the device's memory: no staging, so the compiled operator can be
  // kept (CompileCached) and bound to the operands where they lie.
  const staging::Geometry g = staging::DescribedGeometry(device, call);
  const OperatorDesc desc =
      WithTensors(call.op, staging::Describe(call.type, g.sizes, g.in_strides, level),
                  staging::Describe(call.type, g.sizes, g.out_strides, level));
  Expected<CompiledOperator> op = CompileCached(device, desc);
  if (!op.ok()) return op.status();
  const staging::Region in = staging::RegionOf(call.input, call.type, g.sizes, g.in_strides);
  const staging::Region out = staging::RegionOf(call.output, call.type, g.sizes, g.out_strides);
  // RegionOf works on const bytes; the output region starts inside the caller's writable output.
  auto* out_lowest = call.output - (reinterpret_cast<const std::byte*>(call.output) - out.lowest);
  Status s = op->Execute(ConstBinding{in.lowest, in.span}, Binding{out_lowest, out.span});
  if (s.ok() && device.kind() != DeviceKind::kCpu) s = Synchronize(device);
  return s;
}

}  // namespace eltwise::python
