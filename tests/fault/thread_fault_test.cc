// Thread-creation faults (fault.h): with every pthread_create failing, parallel work must still
// complete, on the calling thread, with the exact result.
#include <gtest/gtest.h>

#include <atomic>
#include <cstring>
#include <thread>
#include <vector>

#include "cpu/thread_pool.h"
#include "eltwise/eltwise.h"
#include "fault/fault.h"
#include "oracle.h"

namespace eltwise::testing {
namespace {

// Turns thread faults on for a scope.
class NoThreads {
 public:
  NoThreads() : failed_before_(eltwise_fault_threads_failed()) { eltwise_fault_fail_threads(1); }
  ~NoThreads() { eltwise_fault_fail_threads(0); }
  uint64_t failed() const { return eltwise_fault_threads_failed() - failed_before_; }

 private:
  uint64_t failed_before_;
};

TEST(ThreadFaults, PoolRunsEveryTaskOnTheCallersThread) {
  ThreadPool pool;
  std::vector<std::atomic<int>> runs(1000);
  std::atomic<int> elsewhere{0};
  const std::thread::id caller = std::this_thread::get_id();
  {
    const NoThreads no_threads;
    pool.ParallelFor(runs.size(), 4, [&](size_t i) {
      runs[i].fetch_add(1);
      if (std::this_thread::get_id() != caller) elsewhere.fetch_add(1);
    });
    EXPECT_GT(no_threads.failed(), 0u) << "the pool started no thread";
  }
  for (size_t i = 0; i < runs.size(); ++i) EXPECT_EQ(runs[i].load(), 1) << "task " << i;
  EXPECT_EQ(elsewhere.load(), 0);
  // Threads can be created again: the pool then gets its workers.
  for (auto& r : runs) r.store(0);
  pool.ParallelFor(runs.size(), 4, [&](size_t i) { runs[i].fetch_add(1); });
  for (size_t i = 0; i < runs.size(); ++i) EXPECT_EQ(runs[i].load(), 1) << "task " << i;
}

// Through the library: the process-wide pool's first parallel call cannot start its workers.
// (CTest runs every test in a process of its own, so the pool has no workers yet.)
TEST(ThreadFaults, ExecuteCompletesWithoutWorkers) {
  Expected<Device> device = Device::Cpu(CpuOptions{.threads = 4});
  ASSERT_TRUE(device.ok());
  const uint64_t n = uint64_t{1} << 22;
  std::vector<float> in(n), out(n, 0.0f);
  for (uint64_t i = 0; i < n; ++i) in[i] = static_cast<float>(i % 1001) * 0.25f - 125.0f;
  const TensorDesc t = TensorDesc::Packed(DataType::kFloat32, {n});
  const RoundDesc desc{t, t, RoundingMode::kHalvesToNearestEven};
  const NoThreads no_threads;
  const Status s =
      Execute(*device, desc, ConstBinding{in.data(), 4 * n}, Binding{out.data(), 4 * n});
  ASSERT_TRUE(s.ok()) << s.ToString();
  if (no_threads.failed() == 0) GTEST_SKIP() << "the pool had its workers already";
  for (uint64_t i = 0; i < n; ++i) {
    const Decoded expected =
        OracleFor(desc, DataType::kFloat32, Decode(DataType::kFloat32, &in[i]));
    ASSERT_TRUE(SameValue(expected, Decode(DataType::kFloat32, &out[i]))) << "element " << i;
  }
}

}  // namespace
}  // namespace eltwise::testing
