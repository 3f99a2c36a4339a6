// The seam between the front of the library (validation, planning, binding checks) and the
// backends that run plans. Core knows backends only through this interface and the registry
// (backend_registry.h); it includes no backend header. Backends trust their inputs: everything has
// been validated.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>

#include "core/plan.h"
#include "eltwise/status.h"

namespace eltwise {

// One opened device of one backend: it holds the backend's own device state (the CPU's thread
// count, a GPU's ordinal and stream). Immutable and thread-safe.
class Backend {
 public:
  virtual ~Backend() = default;
  // Runs `plan` on bound buffers that have passed every check. Must honour `aliasing`: for
  // kPartial the result must be as if the whole input were read first.
  virtual Status Run(const Plan& plan, const std::byte* input, std::byte* output,
                     Aliasing aliasing) const = 0;

  // Optional fast path for small calls: a function that does all of Run's work for `plan` when
  // input and output are disjoint or in place (never kPartial), called by
  // CompiledOperator::Execute after every binding check, as
  //   kernel(input + plan.input_offset, output + plan.output_offset, plan.element_count).
  // Asked once per compiled operator and kept with it: the answer must depend on nothing but the
  // plan and this (immutable) backend, and stay callable while the backend lives. nullptr: Run.
  using DirectKernel = void (*)(const std::byte* input, std::byte* output, size_t count);
  virtual DirectKernel DirectKernelFor(const Plan& /*plan*/) const { return nullptr; }

  // Optional fast path for host runs without a plan (staging::RunHost): the kernels that apply
  // `function` to `type` elements on the calling thread, packed (DirectKernel) or strided
  // (strides in bytes, any sign, zero for the input; `input` may be `output` with the same
  // stride, no other overlap), and the bytes moved (input + output) below which a caller runs
  // these kernels itself rather than a compiled operator: at most the size below which Run stays
  // on the calling thread, and the results are Run's either way. Only a backend whose device
  // memory is host memory offers them; {} and 0: none.
  using StridedKernel = void (*)(const std::byte* input, ptrdiff_t input_stride, std::byte* output,
                                 ptrdiff_t output_stride, size_t count);
  struct HostKernels {
    DirectKernel packed = nullptr;
    StridedKernel strided = nullptr;
  };
  virtual HostKernels HostKernelsFor(Function /*function*/, DataType /*type*/) const { return {}; }
  virtual uint64_t InlineBytes() const { return 0; }

  // Device memory (see eltwise::Allocate and friends in device.h).
  virtual Expected<void*> Allocate(uint64_t bytes) const = 0;
  virtual void Free(void* pointer) const = 0;
  enum class CopyKind { kHostToDevice, kDeviceToHost, kDeviceToDevice };
  virtual Status Copy(void* dst, const void* src, uint64_t bytes, CopyKind kind) const = 0;
  virtual Status Synchronize() const = 0;

  // What Device::description() and Device::threads() report.
  virtual std::string description() const = 0;
  virtual int threads() const { return 1; }
};

}  // namespace eltwise
