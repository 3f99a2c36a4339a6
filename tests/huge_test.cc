// Huge tensors (opt-in: CTest label `huge`, skipped unless ELTWISE_HUGE_TESTS=1): 4.5 Gi int8 /
// uint8 elements (> 2^32), contiguous, in place, transposed, reversed (negative stride) and
// broadcast, checked at sampled points: windows around every multiple of 2^31 and the end, plus
// millions of pseudo-random indices. The input pattern depends on all 64 bits of the index, so an
// offset truncated to 32 bits reads or writes the wrong element and shows. Round on uint8 is a
// copy, which checks addressing alone; Sign on int8 checks computing too. Needs about 9 GiB of
// host memory (and of GPU memory for the CUDA cases, which run when a GPU is present).
//   ELTWISE_HUGE_TESTS=1 ctest --test-dir <build> -L huge --output-on-failure
#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <thread>
#include <vector>

#include "eltwise/eltwise.h"

namespace eltwise::testing {
namespace {

constexpr uint64_t kN = (uint64_t{9} << 30) / 2;  // 4.5 Gi elements
// Transposed case: kRows x kCols = 65536 x 73729 elements (4.5 Gi + 65536).
constexpr uint64_t kRows = 65536;
constexpr uint64_t kCols = 73729;
static_assert(kRows * kCols > (uint64_t{1} << 32) && kRows * kCols <= kN + kRows);

bool Enabled() {
  const char* v = std::getenv("ELTWISE_HUGE_TESTS");
  return v != nullptr && std::strcmp(v, "0") != 0 && v[0] != '\0';
}

// The input byte at index i: a hash of all 64 bits of i.
inline uint8_t Pattern(uint64_t i) {
  return static_cast<uint8_t>((i * 0x9E3779B97F4A7C15ull) >> 56);
}
inline uint8_t SignOf(uint8_t byte) {
  const auto v = static_cast<int8_t>(byte);
  return static_cast<uint8_t>(static_cast<int8_t>((v > 0) - (v < 0)));
}

struct HostBuffer {
  explicit HostBuffer(uint64_t n) : size(n), data(static_cast<uint8_t*>(std::malloc(n))) {}
  ~HostBuffer() { std::free(data); }
  uint64_t size;
  uint8_t* data;
};

// Runs body(begin, end) over [0, n) on all hardware threads.
template <class F>
void ParallelRange(uint64_t n, F body) {
  const unsigned threads = std::max(1u, std::thread::hardware_concurrency());
  std::vector<std::thread> pool;
  for (unsigned t = 0; t < threads; ++t) {
    pool.emplace_back([&, t] { body(n * t / threads, n * (t + 1) / threads); });
  }
  for (std::thread& th : pool) th.join();
}

void Fill(uint8_t* p, uint64_t n) {
  ParallelRange(n, [p](uint64_t begin, uint64_t end) {
    for (uint64_t i = begin; i < end; ++i) p[i] = Pattern(i);
  });
}

// Indices to check: windows around multiples of 2^31 and the end, and pseudo-random ones.
std::vector<uint64_t> SampleIndices(uint64_t n) {
  std::vector<uint64_t> indices;
  constexpr uint64_t kWindow = 4096;
  for (uint64_t b = 0; b <= n; b += uint64_t{1} << 31) {
    for (uint64_t i = b > kWindow ? b - kWindow : 0; i < std::min(n, b + kWindow); ++i)
      indices.push_back(i);
  }
  for (uint64_t i = n - std::min(n, kWindow); i < n; ++i) indices.push_back(i);
  uint64_t x = 0x243F6A8885A308D3ull;
  for (int k = 0; k < (1 << 23); ++k) {
    x ^= x << 13;
    x ^= x >> 7;
    x ^= x << 17;
    indices.push_back(x % n);
  }
  return indices;
}

double Seconds(std::chrono::steady_clock::time_point since) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - since).count();
}

// Executes `desc` on host buffers and reports the time.
void RunTimed(const Device& device, const OperatorDesc& desc, const void* in, uint64_t in_bytes,
              void* out, uint64_t out_bytes, const char* what) {
  const auto start = std::chrono::steady_clock::now();
  const Status s = Execute(device, desc, ConstBinding{in, in_bytes}, Binding{out, out_bytes});
  ASSERT_TRUE(s.ok()) << what << ": " << s.ToString();
  ASSERT_TRUE(Synchronize(device).ok());
  std::printf("[ huge     ] %-44s %7.2f s on %s\n", what, Seconds(start),
              device.description().c_str());
}

// out[k] must equal expected(k) at every sampled k.
template <class F>
void ExpectAtSamples(const uint8_t* out, uint64_t n, F expected, const char* what) {
  int bad = 0;
  for (uint64_t k : SampleIndices(n)) {
    const uint8_t want = expected(k);
    if (out[k] != want && ++bad <= 5) {
      ADD_FAILURE() << what << ": element " << k << " is " << int(out[k]) << ", want " << int(want);
    }
  }
  EXPECT_EQ(bad, 0) << what;
}

class Huge : public ::testing::Test {
 protected:
  void SetUp() override {
    if (!Enabled()) GTEST_SKIP() << "set ELTWISE_HUGE_TESTS=1 to run (needs about 9 GiB)";
  }
};

TEST_F(Huge, CpuContiguousInPlaceTransposedReversedBroadcast) {
  static_assert(kN > (uint64_t{1} << 32));
  auto a = std::make_unique<HostBuffer>(kN);
  auto b = std::make_unique<HostBuffer>(kN);
  ASSERT_NE(a->data, nullptr);
  ASSERT_NE(b->data, nullptr);
  auto start = std::chrono::steady_clock::now();
  Fill(a->data, kN);
  std::printf("[ huge     ] fill %llu bytes: %.2f s\n", static_cast<unsigned long long>(kN),
              Seconds(start));
  const Device device = *Device::Cpu();
  const TensorDesc u8 = TensorDesc::Packed(DataType::kUInt8, {kN});
  const TensorDesc i8 = TensorDesc::Packed(DataType::kInt8, {kN});

  // Contiguous copy (Round on uint8), then Sign in place on the copy.
  RunTimed(device, RoundDesc{u8, u8}, a->data, kN, b->data, kN, "contiguous Round uint8 (copy)");
  ExpectAtSamples(b->data, kN, Pattern, "contiguous");
  RunTimed(device, SignDesc{i8, i8}, b->data, kN, b->data, kN, "contiguous Sign int8 in place");
  ExpectAtSamples(
      b->data, kN, [](uint64_t k) { return SignOf(Pattern(k)); }, "in place");

  // Reversed: input stride -1.
  const TensorDesc reversed = TensorDesc::Strided(DataType::kUInt8, {kN}, {-1});
  RunTimed(device, RoundDesc{reversed, u8}, a->data, kN, b->data, kN,
           "reversed Round uint8 (stride -1)");
  ExpectAtSamples(
      b->data, kN, [](uint64_t k) { return Pattern(kN - 1 - k); }, "reversed");

  // Transposed: a column-major input read into a row-major output.
  const uint64_t cells = kRows * kCols;
  const TensorDesc column_major =
      TensorDesc::Strided(DataType::kUInt8, {kRows, kCols}, {1, static_cast<int64_t>(kRows)});
  const TensorDesc row_major = TensorDesc::Packed(DataType::kUInt8, {kRows, kCols});
  a.reset();  // at most one pair (~9 GiB) live at once
  b.reset();
  HostBuffer a2(cells), b2(cells);  // the transposed case has kRows more elements than kN
  ASSERT_NE(a2.data, nullptr);
  ASSERT_NE(b2.data, nullptr);
  Fill(a2.data, cells);
  RunTimed(device, RoundDesc{column_major, row_major}, a2.data, cells, b2.data, cells,
           "transposed Round uint8 (65536 x 73729)");
  ExpectAtSamples(
      b2.data, cells, [](uint64_t k) { return Pattern(k / kCols + (k % kCols) * kRows); },
      "transposed");

  // Broadcast: one input element to every output element (input stride 0).
  const TensorDesc broadcast = TensorDesc::Strided(DataType::kInt8, {cells}, {0});
  const TensorDesc i8_out = TensorDesc::Packed(DataType::kInt8, {cells});
  a2.data[0] = 0x80;  // -128
  RunTimed(device, SignDesc{broadcast, i8_out}, a2.data, 4, b2.data, cells,
           "broadcast Sign int8 (stride 0)");
  ExpectAtSamples(
      b2.data, cells, [](uint64_t) { return uint8_t{0xFF}; }, "broadcast");
}

TEST_F(Huge, CudaContiguousAndReversed) {
  Expected<Device> gpu = Device::Cuda();
  if (!gpu.ok()) GTEST_SKIP() << "no CUDA device: " << gpu.status().message();
  HostBuffer host(kN);
  ASSERT_NE(host.data, nullptr);
  Fill(host.data, kN);
  Expected<void*> in = Allocate(*gpu, kN);
  ASSERT_TRUE(in.ok()) << in.status().ToString();
  Expected<void*> out = Allocate(*gpu, kN);
  ASSERT_TRUE(out.ok()) << out.status().ToString();
  ASSERT_TRUE(CopyToDevice(*gpu, *in, host.data, kN).ok());
  const TensorDesc u8 = TensorDesc::Packed(DataType::kUInt8, {kN});
  const TensorDesc i8 = TensorDesc::Packed(DataType::kInt8, {kN});
  const TensorDesc reversed = TensorDesc::Strided(DataType::kUInt8, {kN}, {-1});

  RunTimed(*gpu, RoundDesc{u8, u8}, *in, kN, *out, kN, "cuda contiguous Round uint8 (copy)");
  ASSERT_TRUE(CopyToHost(*gpu, host.data, *out, kN).ok());
  ASSERT_TRUE(Synchronize(*gpu).ok());
  ExpectAtSamples(host.data, kN, Pattern, "cuda contiguous");

  RunTimed(*gpu, RoundDesc{reversed, u8}, *in, kN, *out, kN,
           "cuda reversed Round uint8 (stride -1)");
  ASSERT_TRUE(CopyToHost(*gpu, host.data, *out, kN).ok());
  ASSERT_TRUE(Synchronize(*gpu).ok());
  ExpectAtSamples(
      host.data, kN, [](uint64_t k) { return Pattern(kN - 1 - k); }, "cuda reversed");

  RunTimed(*gpu, SignDesc{i8, i8}, *in, kN, *in, kN, "cuda contiguous Sign int8 in place");
  ASSERT_TRUE(CopyToHost(*gpu, host.data, *in, kN).ok());
  ASSERT_TRUE(Synchronize(*gpu).ok());
  ExpectAtSamples(
      host.data, kN, [](uint64_t k) { return SignOf(Pattern(k)); }, "cuda in place");
  Free(*gpu, *in);
  Free(*gpu, *out);
}

}  // namespace
}  // namespace eltwise::testing
