// The CUDA backend on a real GPU, through the public API: every operator (Sign with both NaN
// policies, Round in all five modes) on every type, over the layouts of layout_cases.h (exhaustive
// 8/16-bit inputs, special values, strides, transposes, broadcast, in-place, partial overlap,
// misaligned addresses). The GPU's memory image must equal the CPU backend's byte for byte (so
// padding and neighbouring bytes are untouched), and the contiguous results must equal the
// independent oracle. Every test skips when no GPU is present.
#include <cuda_runtime_api.h>
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <vector>

#include "core/function.h"
#include "eltwise/eltwise.h"
#include "layout_cases.h"
#include "oracle.h"
#include "test_values.h"

namespace eltwise::testing {
namespace {

// The GPU under test, or why there is none.
const Expected<Device>& Gpu() {
  static const Expected<Device> device = Device::Cuda();
  return device;
}

#define ELTWISE_REQUIRE_GPU()                                                      \
  do {                                                                             \
    if (!Gpu().ok()) GTEST_SKIP() << "no CUDA GPU: " << Gpu().status().ToString(); \
  } while (0)

struct OpCase {
  const char* name;
  bool sign;
  NanPolicy nan;
  RoundingMode mode;
};

constexpr OpCase kOps[] = {
    {"sign_nan_zero", true, NanPolicy::kZero, {}},
    {"sign_nan_propagate", true, NanPolicy::kPropagate, {}},
    {"round_halves_to_nearest_even", false, {}, RoundingMode::kHalvesToNearestEven},
    {"round_toward_zero", false, {}, RoundingMode::kTowardZero},
    {"round_toward_infinity", false, {}, RoundingMode::kTowardInfinity},
    {"round_down", false, {}, RoundingMode::kDown},
    {"round_up", false, {}, RoundingMode::kUp},
};

OperatorDesc MakeDesc(const OpCase& op, const TensorDesc& in, const TensorDesc& out) {
  if (op.sign) return SignDesc{in, out, op.nan};
  return RoundDesc{in, out, op.mode};
}

Decoded Want(const OpCase& op, DataType type, const Decoded& x) {
  return op.sign ? OracleSign(type, x, op.nan) : OracleRound(type, x, op.mode);
}

// Runs desc on the image with the bindings at image.input_at / output_at; returns the final image.
Expected<std::vector<std::byte>> RunOnCpu(const OperatorDesc& desc, const Image& image) {
  AlignedBuffer memory(image.bytes.size());
  std::memcpy(memory.data(), image.bytes.data(), image.bytes.size());
  const Status s =
      Execute(*Device::Cpu(), desc,
              ConstBinding{memory.data() + image.input_at, image.input.total_tensor_size_in_bytes},
              Binding{memory.data() + image.output_at, image.output.total_tensor_size_in_bytes});
  if (!s.ok()) return s;
  return std::vector<std::byte>(memory.data(), memory.data() + image.bytes.size());
}

Expected<std::vector<std::byte>> RunOnGpu(const Device& gpu, const OperatorDesc& desc,
                                          const Image& image) {
  Expected<void*> memory = Allocate(gpu, image.bytes.size());
  if (!memory.ok()) return memory.status();
  auto* base = static_cast<std::byte*>(*memory);
  std::vector<std::byte> result(image.bytes.size());
  Status s = CopyToDevice(gpu, base, image.bytes.data(), image.bytes.size());
  if (s.ok()) {
    s = Execute(gpu, desc,
                ConstBinding{base + image.input_at, image.input.total_tensor_size_in_bytes},
                Binding{base + image.output_at, image.output.total_tensor_size_in_bytes});
  }
  if (s.ok()) s = CopyToHost(gpu, result.data(), base, result.size());
  if (s.ok()) s = Synchronize(gpu);
  Free(gpu, base);
  if (!s.ok()) return s;
  return result;
}

size_t FirstDifference(const std::vector<std::byte>& a, const std::vector<std::byte>& b) {
  for (size_t i = 0; i < a.size(); ++i) {
    if (a[i] != b[i]) return i;
  }
  return a.size();
}

struct GpuCase {
  OpCase op;
  DataType type;
};

void PrintTo(const GpuCase& c, std::ostream* os) { *os << c.op.name << " " << Name(c.type); }

class CudaSemantics : public ::testing::TestWithParam<GpuCase> {};

TEST_P(CudaSemantics, EveryLayoutMatchesCpuAndOracle) {
  ELTWISE_REQUIRE_GPU();
  const auto& [op, type] = GetParam();
  const std::vector<std::byte> values = TestInputs(type);
  const size_t esize = ElementSize(type);
  const uint64_t n = values.size() / esize;
  for (const LayoutCase& layout : LayoutCases(type, n)) {
    SCOPED_TRACE(layout.name);
    const Image image = MakeImage(layout, type, values);
    const OperatorDesc desc = MakeDesc(op, image.input, image.output);
    const Expected<std::vector<std::byte>> want = RunOnCpu(desc, image);
    ASSERT_TRUE(want.ok()) << want.status().ToString();
    const Expected<std::vector<std::byte>> got = RunOnGpu(*Gpu(), desc, image);
    ASSERT_TRUE(got.ok()) << got.status().ToString();
    const size_t diff = FirstDifference(*want, *got);
    EXPECT_EQ(diff, want->size()) << "GPU and CPU images differ first at byte " << diff
                                  << " (input at " << image.input_at << ", output at "
                                  << image.output_at << ")";
    if (layout.name == "contiguous") {  // every test value against the oracle
      int reported = 0;
      for (uint64_t i = 0; i < n && reported < 5; ++i) {
        const Decoded x = Decode(type, values.data() + i * esize);
        const Decoded w = Want(op, type, x);
        const Decoded g = Decode(type, got->data() + image.output_at + i * esize);
        if (!SameValue(w, g)) {
          ADD_FAILURE() << op.name << " " << Name(type) << " x=" << ToString(type, x) << " want "
                        << ToString(type, w) << " got " << ToString(type, g);
          ++reported;
        }
      }
    }
  }
}

std::vector<GpuCase> AllGpuCases() {
  std::vector<GpuCase> cases;
  for (const OpCase& op : kOps) {
    for (int t = 0; t < kDataTypeCount; ++t) cases.push_back({op, static_cast<DataType>(t)});
  }
  return cases;
}

INSTANTIATE_TEST_SUITE_P(AllOpsTypes, CudaSemantics, ::testing::ValuesIn(AllGpuCases()),
                         [](const auto& info) {
                           return std::string(info.param.op.name) + "_" +
                                  std::string(Name(info.param.type));
                         });

TEST(CudaDevice, DescribesTheGpu) {
  ELTWISE_REQUIRE_GPU();
  EXPECT_EQ(Gpu()->kind(), DeviceKind::kCuda);
  EXPECT_NE(Gpu()->description().find("sm_"), std::string::npos) << Gpu()->description();
  EXPECT_FALSE(GetSystemInfo().cuda_devices.empty());
}

TEST(CudaDevice, OrdinalOutOfRangeIsAnError) {
  ELTWISE_REQUIRE_GPU();
  const Expected<Device> device = Device::Cuda(CudaOptions{FeatureLevel::kExtended, 4096});
  ASSERT_FALSE(device.ok());
  EXPECT_EQ(device.status().code(), StatusCode::kInvalidArgument);
  EXPECT_NE(device.status().message().find("ordinal"), std::string::npos);
}

TEST(CudaDevice, InvalidBindingWritesNothing) {
  ELTWISE_REQUIRE_GPU();
  const TensorDesc t = TensorDesc::Packed(DataType::kFloat32, {64});
  const Status s =
      Execute(*Gpu(), SignDesc{t, t}, ConstBinding{nullptr, 256}, Binding{nullptr, 256});
  EXPECT_EQ(s.code(), StatusCode::kInvalidArgument);
}

// A caller's non-blocking stream: the work is ordered on it and Synchronize waits for it.
TEST(CudaDevice, RunsOnTheCallersStream) {
  ELTWISE_REQUIRE_GPU();
  cudaStream_t stream = nullptr;
  ASSERT_EQ(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking), cudaSuccess);
  const Expected<Device> gpu = Device::Cuda(CudaOptions{FeatureLevel::kExtended, 0, stream});
  ASSERT_TRUE(gpu.ok()) << gpu.status().ToString();
  const uint64_t n = 1 << 22;
  std::vector<float> in(n), out(n);
  for (uint64_t i = 0; i < n; ++i) in[i] = static_cast<float>(i % 7) - 3.5f;
  const TensorDesc t = TensorDesc::Packed(DataType::kFloat32, {n});
  void* d = *Allocate(*gpu, 2 * n * 4);
  auto* d_in = static_cast<std::byte*>(d);
  auto* d_out = d_in + n * 4;
  ASSERT_TRUE(CopyToDevice(*gpu, d_in, in.data(), n * 4).ok());
  ASSERT_TRUE(Execute(*gpu, RoundDesc{t, t, RoundingMode::kTowardInfinity},
                      ConstBinding{d_in, n * 4}, Binding{d_out, n * 4})
                  .ok());
  ASSERT_TRUE(CopyToHost(*gpu, out.data(), d_out, n * 4).ok());
  ASSERT_TRUE(Synchronize(*gpu).ok());
  for (uint64_t i = 0; i < n; ++i) {
    ASSERT_EQ(out[i], OracleRoundReal(in[i], RoundingMode::kTowardInfinity)) << i;  // halves away
  }
  Free(*gpu, d);
  EXPECT_EQ(cudaStreamDestroy(stream), cudaSuccess);
}

// More than 2^31 elements in a strided layout: the 64-bit strided kernel.
TEST(CudaDevice, SixtyFourBitIndexing) {
  ELTWISE_REQUIRE_GPU();
  const uint64_t columns = (uint64_t{1} << 31) / 3 + 1;  // 3 * columns > 2^31
  const std::vector<uint64_t> sizes = {3, columns};
  const TensorDesc in = TensorDesc::Strided(DataType::kInt8, sizes, {1, 3});
  const TensorDesc out = TensorDesc::Packed(DataType::kInt8, sizes);
  // Bindings cover the descriptions' total sizes (DirectML rounds them up to 4 bytes).
  const uint64_t bytes = in.total_tensor_size_in_bytes;
  ASSERT_EQ(bytes, out.total_tensor_size_in_bytes);
  Expected<void*> memory = Allocate(*Gpu(), 2 * bytes);
  if (!memory.ok()) GTEST_SKIP() << "not enough GPU memory: " << memory.status().ToString();
  auto* d_in = static_cast<std::byte*>(*memory);
  auto* d_out = d_in + bytes;
  std::vector<int8_t> host_in(bytes), want(bytes), got(bytes);
  for (uint64_t i = 0; i < bytes; ++i) host_in[i] = static_cast<int8_t>((i * 2654435761u) >> 13);
  const Status on_cpu = Execute(*Device::Cpu(), SignDesc{in, out},
                                ConstBinding{host_in.data(), bytes}, Binding{want.data(), bytes});
  ASSERT_TRUE(on_cpu.ok()) << on_cpu.ToString();
  ASSERT_TRUE(CopyToDevice(*Gpu(), d_in, host_in.data(), bytes).ok());
  ASSERT_TRUE(CopyToDevice(*Gpu(), d_out, want.data(), bytes).ok());  // the padding as on the CPU
  const Status s =
      Execute(*Gpu(), SignDesc{in, out}, ConstBinding{d_in, bytes}, Binding{d_out, bytes});
  ASSERT_TRUE(s.ok()) << s.ToString();
  ASSERT_TRUE(CopyToHost(*Gpu(), got.data(), d_out, bytes).ok());
  ASSERT_TRUE(Synchronize(*Gpu()).ok());
  Free(*Gpu(), *memory);
  EXPECT_TRUE(want == got);
}

// More than 2^32 contiguous elements: indices past 32 bits in the contiguous kernel. Sampled
// (every 4093rd element, the first and last 64 Ki) against the oracle; the byte after the last
// element (padding of the description's rounded size) must be untouched.
TEST(CudaDevice, SixtyFourBitIndexingContiguous) {
  ELTWISE_REQUIRE_GPU();
  const uint64_t n = (uint64_t{1} << 32) + 4099;
  const TensorDesc t = TensorDesc::Packed(DataType::kInt8, {n});
  const uint64_t bytes = t.total_tensor_size_in_bytes;  // n rounded up to 4 bytes
  Expected<void*> memory = Allocate(*Gpu(), 2 * bytes + 1);
  if (!memory.ok()) GTEST_SKIP() << "not enough GPU memory: " << memory.status().ToString();
  auto* d_in = static_cast<std::byte*>(*memory);
  auto* d_out = d_in + bytes;
  std::vector<int8_t> host(n + 1);
  for (uint64_t i = 0; i <= n; ++i) host[i] = static_cast<int8_t>((i * 2654435761u) >> 13);
  const int8_t guard = 0x5a;
  host[n] = guard;
  ASSERT_TRUE(CopyToDevice(*Gpu(), d_in, host.data(), n).ok());
  ASSERT_TRUE(CopyToDevice(*Gpu(), d_out + n, &guard, 1).ok());
  const Status s =
      Execute(*Gpu(), SignDesc{t, t}, ConstBinding{d_in, bytes}, Binding{d_out, bytes});
  ASSERT_TRUE(s.ok()) << s.ToString();
  std::vector<int8_t> got(n + 1);
  ASSERT_TRUE(CopyToHost(*Gpu(), got.data(), d_out, n + 1).ok());
  ASSERT_TRUE(Synchronize(*Gpu()).ok());
  Free(*Gpu(), *memory);
  EXPECT_EQ(got[n], guard) << "the byte after the output was written";
  auto want = [&](uint64_t i) { return static_cast<int8_t>((host[i] > 0) - (host[i] < 0)); };
  int reported = 0;
  auto check = [&](uint64_t i) {
    if (got[i] != want(i) && reported++ < 5) {
      ADD_FAILURE() << "element " << i << ": x=" << int{host[i]} << " got " << int{got[i]};
    }
  };
  for (uint64_t i = 0; i < n; i += 4093) check(i);
  for (uint64_t i = 0; i < 65536; ++i) check(i), check(n - 1 - i);
}

}  // namespace
}  // namespace eltwise::testing
