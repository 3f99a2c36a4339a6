// CPU plan driver: contiguous runs go straight to a kernel, broadcast inputs are computed once and
// filled, everything else walks the outer dims and hands each innermost row to a kernel.
#include "cpu/cpu_backend.h"

#include <algorithm>
#include <cstring>
#include <memory>
#include <new>

#include "core/device_state.h"

namespace eltwise {
namespace {

void RunBroadcast(const KernelTable& table, const Plan& plan, const std::byte* input,
                  std::byte* output) {
  alignas(16) std::byte value[16];
  table.Contiguous(plan.function, plan.type)(input, value, 1);
  const size_t esize = plan.element_size;
  std::array<uint64_t, kMaxRank> index{};
  const int inner = plan.rank - 1;
  const ptrdiff_t inner_stride = plan.output_strides[inner] * static_cast<ptrdiff_t>(esize);
  std::byte* row = output;
  for (;;) {
    std::byte* p = row;
    for (uint64_t i = 0; i < plan.sizes[inner]; ++i, p += inner_stride) std::memcpy(p, value, esize);
    int d = inner - 1;
    for (; d >= 0; --d) {
      row += plan.output_strides[d] * static_cast<ptrdiff_t>(esize);
      if (++index[d] < plan.sizes[d]) break;
      row -= static_cast<ptrdiff_t>(plan.sizes[d]) * plan.output_strides[d] *
             static_cast<ptrdiff_t>(esize);
      index[d] = 0;
    }
    if (d < 0) return;
  }
}

void RunStrided(const KernelTable& table, const Plan& plan, const std::byte* input,
                std::byte* output) {
  const ptrdiff_t esize = plan.element_size;
  const int inner = plan.rank - 1;
  const ptrdiff_t in_step = plan.input_strides[inner] * esize;
  const ptrdiff_t out_step = plan.output_strides[inner] * esize;
  const size_t n = plan.sizes[inner];
  const bool contiguous_rows = in_step == esize && out_step == esize;
  const ContiguousKernel contiguous = table.Contiguous(plan.function, plan.type);
  const StridedKernel strided = table.Strided(plan.function, plan.type);
  std::array<uint64_t, kMaxRank> index{};
  const std::byte* in_row = input;
  std::byte* out_row = output;
  for (;;) {
    if (contiguous_rows) {
      contiguous(in_row, out_row, n);
    } else {
      strided(in_row, in_step, out_row, out_step, n);
    }
    int d = inner - 1;
    for (; d >= 0; --d) {
      in_row += plan.input_strides[d] * esize;
      out_row += plan.output_strides[d] * esize;
      if (++index[d] < plan.sizes[d]) break;
      in_row -= static_cast<ptrdiff_t>(plan.sizes[d]) * plan.input_strides[d] * esize;
      out_row -= static_cast<ptrdiff_t>(plan.sizes[d]) * plan.output_strides[d] * esize;
      index[d] = 0;
    }
    if (d < 0) return;
  }
}

class Cpu final : public Backend {
 public:
  Status Run(const internal::DeviceState& /*device*/, const Plan& plan, const std::byte* input,
             std::byte* output, Aliasing aliasing) const override {
    std::unique_ptr<std::byte[]> copy;
    if (aliasing == Aliasing::kPartial) {
      // The output overlaps the input other than element for element: read the whole input first.
      copy.reset(new (std::nothrow) std::byte[plan.input_span]);
      if (!copy) {
        return Status(StatusCode::kOutOfMemory,
                      "input and output overlap partially and a " +
                          std::to_string(plan.input_span) + "-byte copy of the input failed");
      }
      std::memcpy(copy.get(), input, plan.input_span);
      input = copy.get();
    }
    RunPlanWithTable(ReferenceKernels(), plan, input, output);
    return Status::Ok();
  }

  Expected<void*> Allocate(const internal::DeviceState& /*device*/, uint64_t bytes) const override {
    void* p = ::operator new(std::max<uint64_t>(bytes, 1), std::align_val_t{64}, std::nothrow);
    if (p == nullptr) {
      return Status(StatusCode::kOutOfMemory,
                    "allocating " + std::to_string(bytes) + " bytes of host memory failed");
    }
    return p;
  }
  void Free(const internal::DeviceState& /*device*/, void* pointer) const override {
    ::operator delete(pointer, std::align_val_t{64}, std::nothrow);
  }
  Status Copy(const internal::DeviceState& /*device*/, void* dst, const void* src, uint64_t bytes,
              CopyKind /*kind*/) const override {
    if (bytes != 0) std::memmove(dst, src, bytes);
    return Status::Ok();
  }
  Status Synchronize(const internal::DeviceState& /*device*/) const override {
    return Status::Ok();
  }
};

}  // namespace

void RunPlanWithTable(const KernelTable& table, const Plan& plan, const std::byte* input,
                      std::byte* output) {
  input += plan.input_offset;
  output += plan.output_offset;
  switch (plan.layout) {
    case Layout::kEmpty:
      return;
    case Layout::kContiguous:
      table.Contiguous(plan.function, plan.type)(input, output, plan.element_count);
      return;
    case Layout::kBroadcast:
      RunBroadcast(table, plan, input, output);
      return;
    case Layout::kStrided:
      RunStrided(table, plan, input, output);
      return;
  }
}

const Backend& CpuBackend() {
  static const Cpu backend;
  return backend;
}

}  // namespace eltwise

namespace eltwise {

std::vector<NamedKernelTable> AvailableKernelTables() { return {{"reference", &ReferenceKernels()}}; }

}  // namespace eltwise
