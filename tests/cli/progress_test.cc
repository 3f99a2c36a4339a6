// The progress bar's text (tools/progress.cc): amounts, rate and time left, written out by hand.
#include "progress.h"

#include <gtest/gtest.h>

#include <cstdint>

namespace eltwise::cli {
namespace {

constexpr uint64_t kMiB = uint64_t{1} << 20;
constexpr uint64_t kGiB = uint64_t{1} << 30;

TEST(ProgressLine, BytesInMiBAndGiBWithRateAndTimeLeft) {
  EXPECT_EQ(ProgressLine("round", 3 * kGiB / 2, 3 * kGiB, Progress::Unit::kBytes, 10.0),
            "round [############            ]  50%  1.50 GiB / 3.00 GiB  0.16 GB/s  ETA 0:10");
  EXPECT_EQ(ProgressLine("sign", 256 * kMiB, kGiB, Progress::Unit::kBytes, 1.0),
            "sign [######                  ]  25%  256.0 MiB / 1.00 GiB  0.27 GB/s  ETA 0:03");
}

TEST(ProgressLine, NoRateYetMeansNoTimeLeft) {
  EXPECT_EQ(ProgressLine("round", 0, kMiB, Progress::Unit::kBytes, 0.0),
            "round [                        ]   0%  0.0 MiB / 1.0 MiB  0.00 GB/s");
}

TEST(ProgressLine, CasesWithMinutesAndHoursLeft) {
  EXPECT_EQ(ProgressLine("bench", 1, 2, Progress::Unit::kCases, 61.0),
            "bench [############            ]  50%  1 / 2 cases  ETA 1:01");
  EXPECT_EQ(ProgressLine("bench", 1, 4, Progress::Unit::kCases, 1800.0),
            "bench [######                  ]  25%  1 / 4 cases  ETA 1:30:00");
}

TEST(ProgressLine, FinishedOrEmptyWorkIsFullWithNoTimeLeft) {
  EXPECT_EQ(ProgressLine("bench", 0, 0, Progress::Unit::kCases, 2.0),
            "bench [########################] 100%  0 / 0 cases");
  EXPECT_EQ(ProgressLine("sign", 2 * kMiB, 2 * kMiB, Progress::Unit::kBytes, 1.0),
            "sign [########################] 100%  2.0 MiB / 2.0 MiB  0.00 GB/s");
}

}  // namespace
}  // namespace eltwise::cli
