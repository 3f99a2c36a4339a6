// A one-line progress bar on stderr for long commands (sign/round on big files, bench): shown only
// when stderr is a terminal, not silenced by --quiet, and the work has run for more than
// kProgressDelay; redrawn at most 10 times a second; erased when the work ends.
#pragma once

#include <chrono>
#include <cstdint>
#include <mutex>
#include <string>
#include <string_view>

namespace eltwise::cli {

inline constexpr std::chrono::milliseconds kProgressDelay{1000};

// Whether stderr is a terminal (a console on Windows).
bool StderrIsTerminal();

class Progress {
 public:
  enum class Unit { kBytes, kCases };
  // `enabled`: usually !quiet && StderrIsTerminal(). `total`: the amount Update reaches at the end.
  Progress(std::string label, uint64_t total, Unit unit, bool enabled);
  ~Progress() { Clear(); }
  Progress(const Progress&) = delete;
  Progress& operator=(const Progress&) = delete;

  // Records `done` of `total`; redraws when due. Thread-safe.
  void Update(uint64_t done);
  // Erases the line, if one is shown (before other output goes to the terminal, and at the end);
  // the next Update draws it again.
  void Clear();

 private:
  using Clock = std::chrono::steady_clock;
  void Draw(uint64_t done, Clock::time_point now);

  std::mutex mutex_;
  const std::string label_;
  const uint64_t total_;
  const Unit unit_;
  const bool enabled_;
  const Clock::time_point start_ = Clock::now();
  Clock::time_point last_draw_{};
  size_t shown_ = 0;  // characters of the line on screen (0: none)
};

// The bar's text after `seconds` of work with `done` of `total` reached: label, bar, percentage,
// amounts (MiB or GiB, or cases), the rate for bytes, and the time left while work remains.
std::string ProgressLine(std::string_view label, uint64_t done, uint64_t total, Progress::Unit unit,
                         double seconds);

}  // namespace eltwise::cli
