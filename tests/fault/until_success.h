// The fault tests' loop: a call run with its n-th allocation failing, for n = 1, 2, ... until a
// run reaches no failing allocation (fault.h). Each failing run must return kOutOfMemory and
// change nothing, or recover and give the exact result; the last run must give the exact result.
#pragma once

#include <gtest/gtest.h>

#include <cstdio>
#include <functional>
#include <string>

#include "eltwise/status.h"
#include "fault/fault.h"

namespace eltwise::testing {

inline constexpr uint64_t kMaxAttempts = 20000;

// What one scenario's loop saw: allocations of the run that succeeded, failing runs that
// returned kOutOfMemory, and failing runs that recovered and succeeded anyway.
struct Tally {
  uint64_t allocations = 0;
  uint64_t reported = 0;
  uint64_t absorbed = 0;
};

struct Checks {
  std::function<void()> reset;      // restores the state before each run
  std::function<void()> unchanged;  // after a failing run: nothing was written
  std::function<void()> correct;    // after a successful run: the exact result
};

// Runs call() with the n-th allocation failing, for n = 1, 2, ... (see the file comment).
inline Tally UntilSuccess(const std::string& name, const std::function<Status()>& call,
                          const Checks& checks) {
  Tally tally;
  for (uint64_t n = 1; n <= kMaxAttempts; ++n) {
    checks.reset();
    Status status;
    bool threw = false;
    char what[256] = "";
    eltwise_fault_arm_allocation(n);
    try {
      status = call();
    } catch (const std::exception& e) {
      threw = true;
      std::snprintf(what, sizeof what, "%s", e.what());
    }
    const bool fired = eltwise_fault_allocation_fired() != 0;
    eltwise_fault_arm_allocation(0);
    SCOPED_TRACE(name + ", allocation " + std::to_string(n) + " failing");
    if (threw) {
      ADD_FAILURE() << "the call threw: " << what;
      checks.unchanged();
      continue;
    }
    if (!fired) {
      EXPECT_TRUE(status.ok()) << status.ToString();
      checks.correct();
      tally.allocations = n - 1;
      std::printf(
          "[fault] %s: %llu allocations; %llu failures reported (out_of_memory), %llu "
          "absorbed\n",
          name.c_str(), static_cast<unsigned long long>(tally.allocations),
          static_cast<unsigned long long>(tally.reported),
          static_cast<unsigned long long>(tally.absorbed));
      return tally;
    }
    if (status.ok()) {
      std::printf("[fault] %s: allocation %llu failed and the call recovered\n", name.c_str(),
                  static_cast<unsigned long long>(n));
      ++tally.absorbed;
      checks.correct();
      continue;
    }
    ++tally.reported;
    EXPECT_EQ(status.code(), StatusCode::kOutOfMemory) << status.ToString();
    EXPECT_FALSE(status.message().empty());
    checks.unchanged();
    if (::testing::Test::HasFailure()) return tally;  // one report per scenario is enough
  }
  ADD_FAILURE() << name << ": still allocating after " << kMaxAttempts << " runs";
  return tally;
}

}  // namespace eltwise::testing
