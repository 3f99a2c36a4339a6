// Devices, Compile and Execute: the thin layer that validates once, plans once, checks bindings and
// hands the plan to a backend.
#include <cstdio>
#include <new>

#include "core/backend.h"
#include "core/backend_registry.h"
#include "core/device_state.h"
#include "core/op_registry.h"
#include "core/out_of_memory.h"
#include "core/plan.h"
#include "core/validate.h"

namespace eltwise {
namespace internal {

Device DeviceState::MakeDevice(DeviceState state) {
  return Device(std::make_shared<const DeviceState>(std::move(state)));
}

CompiledOperator CompiledState::MakeCompiled(CompiledState state) {
  return CompiledOperator(std::make_shared<const CompiledState>(std::move(state)));
}

}  // namespace internal

namespace {

Status CheckFeatureLevel(FeatureLevel level) {
  for (FeatureLevel known : AllFeatureLevels()) {
    if (known == level) return Status::Ok();
  }
  return InvalidArgument("feature_level " + std::to_string(static_cast<uint32_t>(level)) +
                         " is not a DirectML feature level nor extended");
}

std::string Hex(const void* p) {
  char buffer[32];
  snprintf(buffer, sizeof buffer, "%p", p);
  return buffer;
}

// Execute's fixed cost is this check: the test is inline and the message is built out of line,
// only on failure. `alignment` is a power of two (validated), so the test is a mask.
inline bool BindingFits(const void* data, uint64_t size, uint64_t required, uint32_t alignment) {
  return data != nullptr && size >= required &&
         (reinterpret_cast<uintptr_t>(data) & (alignment - 1)) == 0;
}

[[gnu::cold, gnu::noinline]] Status BindingError(const void* data, uint64_t size, uint64_t required,
                                                 uint32_t alignment, FeatureLevel level,
                                                 const char* field) {
  const std::string f = field;
  if (data == nullptr) return InvalidArgument(f + " binding is null");
  if (size < required) {
    return InvalidArgument(f + " binding has " + std::to_string(size) + " bytes; " + f +
                           ".total_tensor_size_in_bytes requires at least " +
                           std::to_string(required));
  }
  return InvalidArgument(
      f + " binding address " + Hex(data) + " is not aligned to " + std::to_string(alignment) +
      " bytes" +
      (level == FeatureLevel::kExtended
           ? " (" + f + ".guaranteed_base_offset_alignment)"
           : " (DirectML requires 16-byte aligned buffers, or the guaranteed alignment)"));
}

// A device of `kind`: the feature level is checked here, the backend's own options by the
// backend registered for `kind`.
Expected<Device> OpenDevice(DeviceKind kind, FeatureLevel level, const DeviceOptions& options) {
  if (Status s = CheckFeatureLevel(level); !s.ok()) return s;
  for (const BackendEntry& entry : RegisteredBackends()) {
    if (entry.kind != kind) continue;
    Expected<std::shared_ptr<const Backend>> backend = entry.open(options);
    if (!backend.ok()) return backend.status();
    return internal::DeviceState::MakeDevice(
        internal::DeviceState{kind, level, std::move(*backend)});
  }
  return Status(StatusCode::kUnsupported, "this eltwise build has no backend for this device");
}

}  // namespace

Expected<Device> Device::Cpu(CpuOptions options) {
  return GuardAllocation("Device::Cpu", [&]() -> Expected<Device> {
    return OpenDevice(DeviceKind::kCpu, options.feature_level, options);
  });
}

Expected<Device> Device::Cuda(CudaOptions options) {
  return GuardAllocation("Device::Cuda", [&]() -> Expected<Device> {
    return OpenDevice(DeviceKind::kCuda, options.feature_level, options);
  });
}

DeviceKind Device::kind() const { return state_->kind; }
FeatureLevel Device::feature_level() const { return state_->feature_level; }
int Device::threads() const { return state_->backend->threads(); }
std::string Device::description() const { return state_->backend->description(); }

const OperatorDesc& CompiledOperator::desc() const { return state_->desc; }
const Device& CompiledOperator::device() const { return state_->device; }

Expected<CompiledOperator> Compile(const Device& device, const OperatorDesc& desc) {
  return GuardAllocation("Compile", [&]() -> Expected<CompiledOperator> {
    const FeatureLevel level = device.feature_level();
    if (Status s = Validate(level, desc); !s.ok()) return s;
    const TensorDesc& input = InputOf(desc);
    const TensorDesc& output = OutputOf(desc);
    internal::CompiledState state{
        device, desc,
        MakePlan(FunctionOf(desc), input, output, RequiredBindingAlignment(level, input),
                 RequiredBindingAlignment(level, output))};
    state.direct_kernel = device.state().backend->DirectKernelFor(state.plan);
    return internal::CompiledState::MakeCompiled(std::move(state));
  });
}

namespace {

// Every call but the direct one (see Execute). Out of line so that the direct path stays short.
[[gnu::noinline]] Status ExecuteGeneral(const internal::CompiledState& state, ConstBinding input,
                                        Binding output) {
  const Plan& plan = state.plan;
  if (plan.layout == Layout::kEmpty) return Status::Ok();
  if (!BindingFits(input.data, input.size_in_bytes, plan.input_required_bytes,
                   plan.input_alignment)) {
    return BindingError(input.data, input.size_in_bytes, plan.input_required_bytes,
                        plan.input_alignment, state.device.feature_level(), "input");
  }
  if (!BindingFits(output.data, output.size_in_bytes, plan.output_required_bytes,
                   plan.output_alignment)) {
    return BindingError(output.data, output.size_in_bytes, plan.output_required_bytes,
                        plan.output_alignment, state.device.feature_level(), "output");
  }
  const auto* in = static_cast<const std::byte*>(input.data);
  auto* out = static_cast<std::byte*>(output.data);
  return state.device.state().backend->Run(plan, in, out, Classify(plan, in, out));
}

}  // namespace

// The direct path (a backend's DirectKernelFor this plan, bindings that pass the same checks as
// ExecuteGeneral's, input and output disjoint or in place) calls the kernel here; everything
// else, errors included, is ExecuteGeneral's, which checks again and names the failure.
Status CompiledOperator::Execute(ConstBinding input, Binding output) const {
  const internal::CompiledState& state = *state_;
  const Plan& plan = state.plan;
  if (state.direct_kernel != nullptr &&
      BindingFits(input.data, input.size_in_bytes, plan.input_required_bytes,
                  plan.input_alignment) &&
      BindingFits(output.data, output.size_in_bytes, plan.output_required_bytes,
                  plan.output_alignment)) {
    const auto* in = static_cast<const std::byte*>(input.data);
    auto* out = static_cast<std::byte*>(output.data);
    if (Classify(plan, in, out) != Aliasing::kPartial) {
      state.direct_kernel(in + plan.input_offset, out + plan.output_offset, plan.element_count);
      return Status::Ok();
    }
  }
  return GuardAllocation("CompiledOperator::Execute",
                         [&] { return ExecuteGeneral(state, input, output); });
}

Status Execute(const Device& device, const OperatorDesc& desc, ConstBinding input, Binding output) {
  Expected<CompiledOperator> compiled = Compile(device, desc);
  if (!compiled.ok()) return compiled.status();
  return compiled->Execute(input, output);
}

namespace {

// Throws std::bad_alloc (Sign's and Round's guard reports it) if the device cannot be created,
// which with the default options only an allocation failure causes; the next call then tries again.
const Device& DefaultCpuDevice() {
  static const Device device = [] {
    Expected<Device> cpu = Device::Cpu();
    if (!cpu.ok()) throw std::bad_alloc();
    return *std::move(cpu);
  }();
  return device;
}

Status RunPacked(const OperatorDesc& desc, uint64_t count, const void* input, void* output) {
  const uint64_t bytes = count * ElementSize(InputOf(desc).type);
  return Execute(DefaultCpuDevice(), desc, ConstBinding{input, bytes}, Binding{output, bytes});
}

TensorDesc PackedVector(DataType type, uint64_t count) {
  TensorDesc t;
  t.type = type;
  t.sizes = {count};
  uint64_t bytes = 0;
  if (__builtin_mul_overflow(count, static_cast<uint64_t>(ElementSize(type)), &bytes)) bytes = 0;
  t.total_tensor_size_in_bytes = bytes;
  return t;
}

}  // namespace

Status Sign(DataType type, uint64_t count, const void* input, void* output, NanPolicy nan) {
  return GuardAllocation("Sign", [&] {
    const TensorDesc t = PackedVector(type, count);
    return RunPacked(SignDesc{t, t, nan}, count, input, output);
  });
}

Status Round(DataType type, uint64_t count, const void* input, void* output, RoundingMode mode) {
  return GuardAllocation("Round", [&] {
    const TensorDesc t = PackedVector(type, count);
    return RunPacked(RoundDesc{t, t, mode}, count, input, output);
  });
}

Expected<void*> Allocate(const Device& device, uint64_t bytes) {
  return device.state().backend->Allocate(bytes);
}

void Free(const Device& device, void* pointer) {
  if (pointer != nullptr) device.state().backend->Free(pointer);
}

Status CopyToDevice(const Device& device, void* device_dst, const void* host_src, uint64_t bytes) {
  return device.state().backend->Copy(device_dst, host_src, bytes,
                                      Backend::CopyKind::kHostToDevice);
}

Status CopyToHost(const Device& device, void* host_dst, const void* device_src, uint64_t bytes) {
  return device.state().backend->Copy(host_dst, device_src, bytes,
                                      Backend::CopyKind::kDeviceToHost);
}

Status CopyOnDevice(const Device& device, void* device_dst, const void* device_src,
                    uint64_t bytes) {
  return device.state().backend->Copy(device_dst, device_src, bytes,
                                      Backend::CopyKind::kDeviceToDevice);
}

Status Synchronize(const Device& device) { return device.state().backend->Synchronize(); }

}  // namespace eltwise
