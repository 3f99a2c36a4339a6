// The library's compiled-operator cache (staging/operator_cache.h), its host fast path
// (staging/host_run.h) and the reusable in-place runner (staging::InPlaceRunner). Results are
// checked bit for bit against the oracle; cache behaviour through Get's `compiled` flag and the
// identity of the compiled operators it returns.
#include "staging/host_run.h"

#include <gtest/gtest.h>

#include <atomic>
#include <cstring>
#include <thread>
#include <vector>

#include "core/function.h"
#include "core/op_registry.h"
#include "cpu/layout_walkers.h"
#include "oracle.h"
#include "staging/operator_cache.h"
#include "staging/staging.h"
#include "test_values.h"

namespace eltwise::testing {
namespace {

Device Cpu(int threads = 1, FeatureLevel level = FeatureLevel::kExtended) {
  Expected<Device> device = Device::Cpu(CpuOptions{level, threads});
  EXPECT_TRUE(device.ok()) << device.status().ToString();
  return *device;
}

// Sign on n packed float32 elements.
OperatorDesc SignOf(uint64_t n) {
  const TensorDesc t = TensorDesc::Packed(DataType::kFloat32, {n});
  return SignDesc{t, t, NanPolicy::kPropagate};
}

TEST(OperatorCache, ReusesBoundsAndEvictsTheLeastRecentlyUsed) {
  const Device device = Cpu();
  staging::OperatorCache cache(3);
  bool compiled = false;
  Expected<CompiledOperator> a = cache.Get(device, SignOf(1), {}, &compiled);
  ASSERT_TRUE(a.ok());
  EXPECT_TRUE(compiled);
  Expected<CompiledOperator> again = cache.Get(device, SignOf(1), {}, &compiled);
  ASSERT_TRUE(again.ok());
  EXPECT_FALSE(compiled);
  EXPECT_EQ(&again->state(), &a->state());  // the same compiled operator
  ASSERT_TRUE(cache.Get(device, SignOf(2), {}, &compiled).ok());
  EXPECT_TRUE(compiled);
  ASSERT_TRUE(cache.Get(device, SignOf(3), {}, &compiled).ok());
  EXPECT_TRUE(compiled);
  EXPECT_EQ(cache.size(), 3u);
  // Using 1 makes 2 the least recently used: a fourth entry evicts 2, not 1.
  ASSERT_TRUE(cache.Get(device, SignOf(1), {}, &compiled).ok());
  EXPECT_FALSE(compiled);
  ASSERT_TRUE(cache.Get(device, SignOf(4), {}, &compiled).ok());
  EXPECT_TRUE(compiled);
  EXPECT_EQ(cache.size(), 3u);
  ASSERT_TRUE(cache.Get(device, SignOf(1), {}, &compiled).ok());
  EXPECT_FALSE(compiled);
  ASSERT_TRUE(cache.Get(device, SignOf(2), {}, &compiled).ok());
  EXPECT_TRUE(compiled);
  EXPECT_EQ(cache.size(), 3u);
}

TEST(OperatorCache, KeysOnDeviceOptionScopeAndTensors) {
  const Device one = Cpu(1), two = Cpu(2);
  staging::OperatorCache cache(16);
  bool compiled = false;
  ASSERT_TRUE(cache.Get(one, SignOf(8), {}, &compiled).ok());
  EXPECT_TRUE(compiled);
  ASSERT_TRUE(cache.Get(two, SignOf(8), {}, &compiled).ok());  // another device
  EXPECT_TRUE(compiled);
  const TensorDesc t = TensorDesc::Packed(DataType::kFloat32, {8});
  ASSERT_TRUE(cache.Get(one, SignDesc{t, t, NanPolicy::kZero}, {}, &compiled).ok());  // option
  EXPECT_TRUE(compiled);
  ASSERT_TRUE(cache.Get(one, SignOf(8), {7, 0}, &compiled).ok());  // scope
  EXPECT_TRUE(compiled);
  ASSERT_TRUE(cache.Get(one, SignOf(8), {7, 1}, &compiled).ok());
  EXPECT_TRUE(compiled);
  TensorDesc strided = t;
  strided.strides = std::vector<int64_t>{1};  // explicit strides: another description
  ASSERT_TRUE(
      cache.Get(one, SignDesc{strided, strided, NanPolicy::kPropagate}, {}, &compiled).ok());
  EXPECT_TRUE(compiled);
  EXPECT_EQ(cache.size(), 6u);
  for (const staging::CacheScope scope : {staging::CacheScope{}, staging::CacheScope{7, 1}}) {
    ASSERT_TRUE(cache.Get(one, SignOf(8), scope, &compiled).ok());
    EXPECT_FALSE(compiled);
  }
  EXPECT_NE(staging::NewCacheOwner(), staging::NewCacheOwner());
}

TEST(OperatorCache, FailuresAreNotCached) {
  const Device device = Cpu();
  staging::OperatorCache cache(4);
  TensorDesc in = TensorDesc::Packed(DataType::kFloat32, {4});
  TensorDesc out = TensorDesc::Packed(DataType::kFloat32, {5});  // sizes differ: invalid
  bool compiled = true;
  Expected<CompiledOperator> op =
      cache.Get(device, SignDesc{in, out, NanPolicy::kZero}, {}, &compiled);
  EXPECT_FALSE(op.ok());
  EXPECT_FALSE(compiled);
  EXPECT_EQ(cache.size(), 0u);
}

TEST(OperatorCache, ConcurrentUseStaysBoundedAndCorrect) {
  const Device device = Cpu();
  staging::OperatorCache cache(4);
  std::atomic<int> failures{0};
  std::vector<std::thread> threads;
  for (int t = 0; t < 8; ++t) {
    threads.emplace_back([&, t] {
      for (int i = 0; i < 300; ++i) {
        const uint64_t n = 1 + static_cast<uint64_t>((i * 7 + t) % 10);
        Expected<CompiledOperator> op = cache.Get(device, SignOf(n));
        if (!op.ok() || InputOf(op->desc()).sizes != std::vector<uint64_t>{n}) ++failures;
        // Run it: an operator handed out must stay usable after its entry is evicted.
        std::vector<float> data(n, -2.5f);
        const uint64_t bytes = n * sizeof(float);
        if (!op.ok() ||
            !op->Execute(ConstBinding{data.data(), bytes}, Binding{data.data(), bytes}).ok() ||
            data != std::vector<float>(n, -1.0f)) {
          ++failures;
        }
      }
    });
  }
  for (std::thread& t : threads) t.join();
  EXPECT_EQ(failures.load(), 0);
  EXPECT_EQ(cache.size(), 4u);
}

TEST(OperatorCache, GlobalIsOneBoundedCache) {
  EXPECT_EQ(&staging::OperatorCache::Global(), &staging::OperatorCache::Global());
  EXPECT_EQ(staging::OperatorCache::Global().capacity(), staging::OperatorCache::kCapacity);
  const Device device = Cpu();
  bool compiled = false;
  ASSERT_TRUE(staging::CompileCached(device, SignOf(11), {}, &compiled).ok());
  ASSERT_TRUE(staging::CompileCached(device, SignOf(11), {}, &compiled).ok());
  EXPECT_FALSE(compiled);
  EXPECT_LE(staging::OperatorCache::Global().size(), staging::OperatorCache::kCapacity);
}

// RunHost of `desc`'s function on n elements (strides in elements), checked against the oracle.
void CheckRunHost(const OperatorDesc& desc, DataType type, uint64_t n, ptrdiff_t in_step,
                  ptrdiff_t out_step, int threads) {
  const auto esize = static_cast<ptrdiff_t>(ElementSize(type));
  const std::vector<std::byte> values = TestInputs(type, 4096);
  const uint64_t value_count = values.size() / static_cast<size_t>(esize);
  const auto span = [&](ptrdiff_t step) {
    return (static_cast<ptrdiff_t>(n) - 1) * std::abs(step) + 1;
  };
  std::vector<std::byte> in(static_cast<size_t>(span(in_step) * esize));
  std::vector<std::byte> out(static_cast<size_t>(span(out_step) * esize), std::byte{0x5A});
  // Element i of each operand, from the operand's origin (the last address for negative steps).
  const auto at = [&](std::vector<std::byte>& v, ptrdiff_t step, uint64_t i) {
    const ptrdiff_t origin = step < 0 ? static_cast<ptrdiff_t>(v.size()) - esize : 0;
    return v.data() + origin + static_cast<ptrdiff_t>(i) * step * esize;
  };
  for (uint64_t i = 0; i < n; ++i) {
    std::memcpy(at(in, in_step, i), values.data() + (i % value_count) * esize, esize);
  }
  const TensorDesc t = TensorDesc::Packed(type, {1});
  const Function f = FunctionOf(WithTensors(desc, t, t));  // integer Round is a copy
  staging::RunHost(f, type, at(in, in_step, 0), in_step * esize, at(out, out_step, 0),
                   out_step * esize, n, threads);
  for (uint64_t i = 0; i < n; ++i) {
    const Decoded x = Decode(type, at(in, in_step, i));
    const Decoded want = OracleFor(desc, type, x);
    const Decoded got = Decode(type, at(out, out_step, i));
    ASSERT_TRUE(SameValue(got, want))
        << "n " << n << " element " << i << ": " << ToString(type, x) << " gave "
        << ToString(type, got) << ", expected " << ToString(type, want);
  }
}

TEST(HostRun, TheThresholdIsDerivedFromTheCpuBackendsParallelGrain) {
  EXPECT_EQ(staging::HostInlineBytes(), cpu::kParallelBytes / 2);
}

TEST(HostRun, ResultsOnEachSideOfTheInlineThreshold) {
  ASSERT_TRUE(staging::PrepareHostRuns().ok());
  const TensorDesc none;
  for (const DataType type : {DataType::kFloat32, DataType::kFloat16, DataType::kInt8}) {
    const uint64_t esize = ElementSize(type);
    const uint64_t below = staging::HostInlineBytes() / (2 * esize) - 1;  // inline
    const uint64_t above = staging::HostInlineBytes() / (2 * esize);      // a compiled operator
    for (const uint64_t n : {uint64_t{1}, uint64_t{1000}, below, above, 2 * above + 3}) {
      for (const int threads : {0, 1, 2}) {
        CheckRunHost(RoundDesc{none, none, RoundingMode::kHalvesToNearestEven}, type, n, 1, 1,
                     threads);
        CheckRunHost(SignDesc{none, none, NanPolicy::kPropagate}, type, n, 2, -1, threads);
      }
    }
    CheckRunHost(SignDesc{none, none, NanPolicy::kZero}, type, above, 0, 1, 2);  // broadcast input
  }
  CheckRunHost(SignDesc{}, DataType::kFloat32, 0, 1, 1, 2);  // nothing to do
}

// Which path a run took, seen in the cache: RunHost leaves a compiled operator there only from
// the threshold up.
TEST(HostRun, OnlyRunsFromTheThresholdUpCompile) {
  ASSERT_TRUE(staging::PrepareHostRuns().ok());
  const DataType type = DataType::kInt32;  // no other test here runs it
  const TensorDesc none;
  const OperatorDesc desc = SignDesc{none, none, NanPolicy::kZero};
  const uint64_t above = staging::HostInlineBytes() / 8;
  Expected<const Device*> device = staging::HostDevice(FeatureLevel::kExtended, 2);
  ASSERT_TRUE(device.ok());
  for (const uint64_t n : {above - 1, above}) {
    std::vector<int32_t> data(n, -7);
    auto* bytes = reinterpret_cast<std::byte*>(data.data());
    const TensorDesc t = staging::Describe(type, {n}, {1}, FeatureLevel::kExtended);
    const OperatorDesc described = WithTensors(desc, t, t);
    staging::RunHost(FunctionOf(described), type, bytes, 4, bytes, 4, n, 2);
    EXPECT_EQ(data, std::vector<int32_t>(n, -1));
    bool compiled = false;
    ASSERT_TRUE(staging::CompileCached(**device, described, {}, &compiled).ok());
    EXPECT_EQ(compiled, n < above) << n << " elements";
  }
}

TEST(HostRun, InPlace) {
  const uint64_t n = staging::HostInlineBytes();  // float32: 4x the threshold
  std::vector<float> data(n);
  for (uint64_t i = 0; i < n; ++i) data[i] = static_cast<float>(i % 7) - 3.5f;
  std::vector<float> want(n);
  const TensorDesc none;
  const RoundDesc desc{none, none, RoundingMode::kTowardInfinity};
  for (uint64_t i = 0; i < n; ++i) {
    const Decoded w = OracleFor(desc, DataType::kFloat32, Decode(DataType::kFloat32, &data[i]));
    want[i] = static_cast<float>(w.real);
  }
  auto* bytes = reinterpret_cast<std::byte*>(data.data());
  staging::RunHost(FunctionOf(desc), DataType::kFloat32, bytes, 4, bytes, 4, n, 2);
  for (uint64_t i = 0; i < n; ++i) {
    ASSERT_EQ(std::memcmp(&data[i], &want[i], 4), 0) << "element " << i;
  }
}

TEST(HostRun, IdentityAndDevicesArePerProcess) {
  ASSERT_TRUE(staging::PrepareHostRuns().ok());
  EXPECT_EQ(staging::RuntimeIdentity(), staging::RuntimeIdentity());
  EXPECT_EQ(staging::RuntimeIdentity().first,
            reinterpret_cast<uintptr_t>(&staging::OperatorCache::Global()));
  Expected<const Device*> a = staging::HostDevice(FeatureLevel::kExtended, 2);
  Expected<const Device*> b = staging::HostDevice(FeatureLevel::kExtended, 2);
  Expected<const Device*> c = staging::HostDevice(FeatureLevel::k6_4, 2);
  ASSERT_TRUE(a.ok() && b.ok() && c.ok());
  EXPECT_EQ(*a, *b);
  EXPECT_NE(*a, *c);
  EXPECT_EQ((*c)->feature_level(), FeatureLevel::k6_4);
  EXPECT_EQ((*a)->threads(), 2);
}

// Chunks through one runner: expected values from the oracle on a copy of each chunk.
void CheckChunks(const Device& device) {
  staging::InPlaceRunner runner(device);
  const TensorDesc none;
  const RoundDesc round{none, none, RoundingMode::kTowardInfinity};
  const std::vector<std::byte> values = TestInputs(DataType::kFloat16, 0);
  const uint64_t capacity = 256 + 64;
  for (const uint64_t count : {uint64_t{128}, uint64_t{128}, uint64_t{37}}) {
    std::vector<std::byte> chunk(capacity, std::byte{0x11});
    std::memcpy(chunk.data(), values.data() + count * 6, count * 2);
    const std::vector<std::byte> before = chunk;
    const TensorDesc t = TensorDesc::Packed(DataType::kFloat16, {count});
    const Status s =
        runner.Run(WithTensors(round, t, t), std::span(chunk.data(), count * 2), capacity);
    ASSERT_TRUE(s.ok()) << s.ToString();
    for (uint64_t i = 0; i < count; ++i) {
      const Decoded want =
          OracleFor(round, DataType::kFloat16, Decode(DataType::kFloat16, &before[i * 2]));
      ASSERT_TRUE(SameValue(Decode(DataType::kFloat16, &chunk[i * 2]), want)) << "element " << i;
    }
    for (uint64_t b = count * 2; b < capacity; ++b) ASSERT_EQ(chunk[b], before[b]) << "byte " << b;
  }
  std::vector<std::byte> other(capacity + 64);
  const TensorDesc t = TensorDesc::Packed(DataType::kFloat16, {4});
  const Status s = runner.Run(WithTensors(round, t, t), std::span(other.data(), 8), capacity + 64);
  if (staging::BindsPackedHostArrays(device)) {
    EXPECT_TRUE(s.ok());
  } else {
    EXPECT_EQ(s.message(), "a chunk's capacity changed within one stream");
  }
}

TEST(InPlaceRunner, RunsChunkAfterChunk) {
  CheckChunks(Cpu());                       // bound where they lie
  CheckChunks(Cpu(1, FeatureLevel::k6_4));  // through one reused device buffer
}

}  // namespace
}  // namespace eltwise::testing
