// The CUDA backend: runs plans on one GPU, on the caller's stream, without waiting.
//
// Note [partial overlap on the GPU]: when output and input overlap other than element for element,
// the result must be as if the whole input were read first. Thousands of threads run in no fixed
// order, so no kernel ordering gives that in general. Run copies the input's span into a
// stream-ordered temporary (cudaMallocAsync + cudaMemcpyAsync on the same stream), runs the kernel
// from the copy and frees it with cudaFreeAsync: still asynchronous, and the allocation comes from
// the device's memory pool, so it is cheap after the first time. This is the only case that
// allocates. The plan's overlap.staging is honoured as far as a GPU allows: kNone (a broadcast
// input, read before anything is written) needs no copy; kChunked, kSwapTiles and kWholeInput all
// copy the input span here (chunked launches in order, or one launch over mirror tile pairs, would
// bound the memory; not done). A GPU without
// memory pools falls back to cudaMalloc, a stream synchronisation and cudaFree (documented; no GPU
// this backend supports lacks pools).
#include "cuda/cuda_backend.h"

#include <cuda_runtime_api.h>

#include <algorithm>
#include <array>
#include <cstdio>
#include <memory>
#include <mutex>
#include <string>

#include "cuda/launch.h"
#include "cuda/launch_table.h"

namespace eltwise {
namespace {

std::string ErrorText(cudaError_t error) {
  return std::string(cudaGetErrorName(error)) + " (" + cudaGetErrorString(error) + ")";
}

Status CudaFailure(cudaError_t error, const std::string& what, int ordinal) {
  const StatusCode code =
      error == cudaErrorMemoryAllocation ? StatusCode::kOutOfMemory : StatusCode::kDeviceError;
  return Status(code,
                what + " failed on CUDA GPU " + std::to_string(ordinal) + ": " + ErrorText(error));
}

// Makes `ordinal` the calling thread's current GPU for the guard's lifetime.
class CurrentDevice {
 public:
  explicit CurrentDevice(int ordinal) {
    error_ = cudaGetDevice(&previous_);
    if (error_ == cudaSuccess && previous_ != ordinal) {
      error_ = cudaSetDevice(ordinal);
      changed_ = error_ == cudaSuccess;
    }
  }
  ~CurrentDevice() {
    if (changed_) cudaSetDevice(previous_);
  }
  CurrentDevice(const CurrentDevice&) = delete;
  CurrentDevice& operator=(const CurrentDevice&) = delete;
  cudaError_t error() const { return error_; }

 private:
  int previous_ = 0;
  bool changed_ = false;
  cudaError_t error_ = cudaSuccess;
};

const cuda::LaunchTable& Kernels() {
  static const cuda::LaunchTable table = [] {
    cuda::LaunchTable t;
    cuda::FillFloatKernels(t);
    cuda::FillHalfKernels(t);
    cuda::FillIntegerKernels(t);
    return t;
  }();
  return table;
}

// One GPU's capabilities, probed once per process.
struct Gpu {
  int ordinal;
  bool memory_pools;
  std::string description;
};

// A device: one GPU and the stream it launches on.
class Cuda final : public Backend {
 public:
  Cuda(const Gpu& gpu, cudaStream_t stream)
      : ordinal_(gpu.ordinal),
        memory_pools_(gpu.memory_pools),
        description_(gpu.description),
        stream_(stream) {}

  Status Run(const Plan& plan, const std::byte* input, std::byte* output,
             Aliasing aliasing) const override {
    const cuda::LaunchFunction launch_function = Kernels().Get(plan.function, plan.type);
    if (launch_function == nullptr) {
      return Status(StatusCode::kInternal, "no CUDA kernel for " +
                                               std::string(Name(plan.function)) + " on " +
                                               std::string(Name(plan.type)));
    }
    CurrentDevice current(ordinal_);
    if (current.error() != cudaSuccess)
      return CudaFailure(current.error(), "cudaSetDevice", ordinal_);
    const cudaStream_t stream = stream_;

    // See Note [partial overlap on the GPU].
    void* copy = nullptr;
    if (aliasing == Aliasing::kPartial && plan.layout != Layout::kBroadcast) {
      cudaError_t error = memory_pools_ ? cudaMallocAsync(&copy, plan.input_span, stream)
                                        : cudaMalloc(&copy, plan.input_span);
      if (error != cudaSuccess) {
        return CudaFailure(error,
                           "allocating a " + std::to_string(plan.input_span) +
                               "-byte copy of the input (input and output overlap partially)",
                           ordinal_);
      }
      error = cudaMemcpyAsync(copy, input, plan.input_span, cudaMemcpyDeviceToDevice, stream);
      if (error != cudaSuccess) {
        (void)Release(copy, stream);  // the copy error is the one to report
        return CudaFailure(error, "copying the input (input and output overlap partially)",
                           ordinal_);
      }
      input = static_cast<const std::byte*>(copy);
    }

    const std::byte* in = input + plan.input_offset;
    std::byte* out = output + plan.output_offset;
    Status status;
    Expected<cuda::Launch> launch =
        cuda::PlanLaunch(plan, reinterpret_cast<uintptr_t>(in), reinterpret_cast<uintptr_t>(out));
    if (!launch.ok()) {
      status = launch.status();
    } else if (const cudaError_t error = launch_function(*launch, in, out, stream);
               error != cudaSuccess) {
      status = CudaFailure(
          error,
          "launching " + std::string(Name(plan.function)) + " on " + std::string(Name(plan.type)),
          ordinal_);
    }
    if (copy != nullptr) {
      if (Status s = Release(copy, stream); status.ok()) status = s;
    }
    return status;
  }

  Expected<void*> Allocate(uint64_t bytes) const override {
    CurrentDevice current(ordinal_);
    if (current.error() != cudaSuccess)
      return CudaFailure(current.error(), "cudaSetDevice", ordinal_);
    void* p = nullptr;
    if (const cudaError_t error = cudaMalloc(&p, std::max<uint64_t>(bytes, 1));
        error != cudaSuccess) {
      return CudaFailure(error, "cudaMalloc of " + std::to_string(bytes) + " bytes", ordinal_);
    }
    return p;
  }

  void Free(void* pointer) const override {
    CurrentDevice current(ordinal_);
    cudaFree(pointer);  // waits for work on the device, so pending kernels finish first
  }

  Status Copy(void* dst, const void* src, uint64_t bytes, CopyKind kind) const override {
    if (bytes == 0) return Status::Ok();
    CurrentDevice current(ordinal_);
    if (current.error() != cudaSuccess)
      return CudaFailure(current.error(), "cudaSetDevice", ordinal_);
    const cudaMemcpyKind cuda_kind = kind == CopyKind::kHostToDevice   ? cudaMemcpyHostToDevice
                                     : kind == CopyKind::kDeviceToHost ? cudaMemcpyDeviceToHost
                                                                       : cudaMemcpyDeviceToDevice;
    if (const cudaError_t error = cudaMemcpyAsync(dst, src, bytes, cuda_kind, stream_);
        error != cudaSuccess) {
      return CudaFailure(error, "cudaMemcpyAsync of " + std::to_string(bytes) + " bytes", ordinal_);
    }
    return Status::Ok();
  }

  Status Synchronize() const override {
    CurrentDevice current(ordinal_);
    if (current.error() != cudaSuccess)
      return CudaFailure(current.error(), "cudaSetDevice", ordinal_);
    if (const cudaError_t error = cudaStreamSynchronize(stream_); error != cudaSuccess) {
      return CudaFailure(error, "cudaStreamSynchronize", ordinal_);
    }
    return Status::Ok();
  }

  std::string description() const override { return description_; }

 private:
  Status Release(void* copy, cudaStream_t stream) const {
    cudaError_t error;
    if (memory_pools_) {
      error = cudaFreeAsync(copy, stream);
    } else {
      error = cudaStreamSynchronize(stream);
      const cudaError_t free_error = cudaFree(copy);
      if (error == cudaSuccess) error = free_error;
    }
    return error == cudaSuccess ? Status::Ok()
                                : CudaFailure(error, "freeing the input copy", ordinal_);
  }

  int ordinal_;
  bool memory_pools_;
  std::string description_;
  cudaStream_t stream_;
};

// The GPUs this process sees, or why there are none.
Expected<int> DeviceCount() {
  int count = 0;
  const cudaError_t error = cudaGetDeviceCount(&count);
  if (error != cudaSuccess) {
    cudaGetLastError();  // do not leave the failure for the caller's next cudaGetLastError
    return Unsupported("no usable CUDA GPU: cudaGetDeviceCount reports " + ErrorText(error));
  }
  if (count == 0) return Unsupported("no CUDA GPU is present");
  return count;
}

std::string Describe(int ordinal, const cudaDeviceProp& p) {
  char memory[32];
  snprintf(memory, sizeof memory, "%.1f GiB", static_cast<double>(p.totalGlobalMem) / (1 << 30));
  return std::to_string(ordinal) + ": " + p.name + ", sm_" + std::to_string(p.major) +
         std::to_string(p.minor) + ", " + std::to_string(p.multiProcessorCount) + " SMs, " + memory;
}

// GPU `ordinal`, probed once (its kernel image checked, its memory pools queried), or why it
// cannot be used.
Expected<const Gpu*> OpenGpu(int ordinal) {
  static std::mutex mutex;
  static std::array<std::unique_ptr<Gpu>, 64> gpus;
  Expected<int> count = DeviceCount();
  if (!count.ok()) return count.status();
  if (ordinal < 0 || ordinal >= *count) {
    return InvalidArgument("ordinal is " + std::to_string(ordinal) + "; this machine has " +
                           std::to_string(*count) + " CUDA GPU(s), ordinals 0 to " +
                           std::to_string(*count - 1));
  }
  if (ordinal >= static_cast<int>(gpus.size())) {
    return Unsupported("CUDA GPU ordinals above " + std::to_string(gpus.size() - 1) +
                       " are not supported");
  }
  cudaDeviceProp properties;
  if (const cudaError_t error = cudaGetDeviceProperties(&properties, ordinal);
      error != cudaSuccess) {
    return CudaFailure(error, "cudaGetDeviceProperties", ordinal);
  }

  std::lock_guard<std::mutex> lock(mutex);
  if (gpus[ordinal] == nullptr) {
    CurrentDevice current(ordinal);
    if (current.error() != cudaSuccess)
      return CudaFailure(current.error(), "cudaSetDevice", ordinal);
    if (const cudaError_t error = cuda::CheckKernelImage(); error != cudaSuccess) {
      cudaGetLastError();
      return Unsupported("CUDA GPU " + std::to_string(ordinal) + " (" + properties.name + ", sm_" +
                         std::to_string(properties.major) + std::to_string(properties.minor) +
                         ") cannot run this build's kernels (sm_80, sm_90 and compute_90 PTX): " +
                         ErrorText(error));
    }
    int pools = 0;
    if (cudaDeviceGetAttribute(&pools, cudaDevAttrMemoryPoolsSupported, ordinal) != cudaSuccess) {
      cudaGetLastError();
      pools = 0;
    }
    gpus[ordinal] =
        std::make_unique<Gpu>(Gpu{ordinal, pools != 0, "cuda " + Describe(ordinal, properties)});
  }
  return static_cast<const Gpu*>(gpus[ordinal].get());
}

Expected<std::shared_ptr<const Backend>> OpenCuda(const DeviceOptions& device_options) {
  const CudaOptions& options = std::get<CudaOptions>(device_options);
  Expected<const Gpu*> gpu = OpenGpu(options.ordinal);
  if (!gpu.ok()) return gpu.status();
  return std::shared_ptr<const Backend>(
      std::make_shared<const Cuda>(**gpu, static_cast<cudaStream_t>(options.stream)));
}

void DescribeCuda(SystemInfo& info) {
  info.cuda_backend_built = true;
  info.cuda_devices = CudaDeviceNames();
}

}  // namespace

BackendEntry CudaBackendEntry() { return {DeviceKind::kCuda, &OpenCuda, &DescribeCuda}; }

bool CudaBackendBuilt() { return true; }

std::vector<std::string> CudaDeviceNames() {
  std::vector<std::string> names;
  Expected<int> count = DeviceCount();
  if (!count.ok()) return names;
  for (int i = 0; i < *count; ++i) {
    cudaDeviceProp properties;
    if (cudaGetDeviceProperties(&properties, i) == cudaSuccess) {
      names.push_back(Describe(i, properties));
    } else {
      cudaGetLastError();
      names.push_back(std::to_string(i) + ": (properties unavailable)");
    }
  }
  return names;
}

}  // namespace eltwise
