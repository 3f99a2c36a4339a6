// The CPU backend: one opened CPU device. Runs plans with the best kernel table for this CPU
// through the layout walkers (layout_walkers.h), a partial overlap of input and output through
// overlap/partial_overlap.h, and host memory as device memory.
#include "cpu/cpu_backend.h"

#include <algorithm>
#include <cstring>
#include <memory>
#include <new>
#include <string>

#include "cpu/layout_walkers.h"
#include "cpu/overlap/partial_overlap.h"

namespace eltwise {
namespace {

class Cpu final : public Backend {
 public:
  explicit Cpu(int threads) : threads_(threads) {}

  Status Run(const Plan& plan, const std::byte* input, std::byte* output,
             Aliasing aliasing) const override {
    // Small contiguous calls never get here: Execute runs DirectKernelFor's kernel itself.
    const KernelTable& table = table_;
    if (aliasing == Aliasing::kPartial && plan.layout != Layout::kBroadcast) {
      return cpu::RunPartialOverlap(table, plan, input, output, threads_);
    }
    cpu::RunPlan(table, plan, input, output, threads_);
    return Status::Ok();
  }

  // Small contiguous plans: the table's kernel itself, the one RunPlan would call for them.
  DirectKernel DirectKernelFor(const Plan& plan) const override {
    if (plan.layout != Layout::kContiguous || !cpu::IsSmallContiguous(plan)) return nullptr;
    return table_.Contiguous(plan.function, plan.type);
  }

  // The table's own kernels, inline below kInlineBytes (the threshold of the direct path above):
  // from there a strided run is faster through the walkers, whose gathered and tiled kernels beat
  // the plain strided loop.
  HostKernels HostKernelsFor(Function function, DataType type) const override {
    return {table_.Contiguous(function, type), table_.Strided(function, type)};
  }
  uint64_t InlineBytes() const override { return cpu::kInlineBytes; }

  Expected<void*> Allocate(uint64_t bytes) const override {
    void* p = ::operator new (std::max<uint64_t>(bytes, 1), std::align_val_t{64}, std::nothrow);
    if (p == nullptr) {
      return Status(StatusCode::kOutOfMemory,
                    "allocating " + std::to_string(bytes) + " bytes of host memory failed");
    }
    return p;
  }
  void Free(void* pointer) const override {
    ::operator delete (pointer, std::align_val_t{64}, std::nothrow);
  }
  Status Copy(void* dst, const void* src, uint64_t bytes, CopyKind /*kind*/) const override {
    if (bytes != 0) std::memmove(dst, src, bytes);
    return Status::Ok();
  }
  Status Synchronize() const override { return Status::Ok(); }

  std::string description() const override {
    return "cpu (" + std::to_string(threads_) + " threads)";
  }
  int threads() const override { return threads_; }

 private:
  int threads_;
  const KernelTable& table_ = BestKernelTable();  // chosen once: the CPU does not change
};

}  // namespace

void RunPlanWithTable(const KernelTable& table, const Plan& plan, const std::byte* input,
                      std::byte* output) {
  cpu::RunPlan(table, plan, input, output, 1);
}

void RunPlanWithTable(const KernelTable& table, const Plan& plan, const std::byte* input,
                      std::byte* output, int threads) {
  cpu::RunPlan(table, plan, input, output, threads);
}

std::shared_ptr<const Backend> MakeCpuBackend(int threads) {
  return std::make_shared<const Cpu>(threads);
}

}  // namespace eltwise
