#include "progress.h"

#include <cstdio>
#if defined(_WIN32)
#include <io.h>
#else
#include <unistd.h>
#endif

namespace eltwise::cli {
namespace {

std::string Amount(double value, Progress::Unit unit) {
  char text[32];
  if (unit == Progress::Unit::kCases) {
    std::snprintf(text, sizeof text, "%.0f", value);
  } else if (value >= double(1 << 30)) {
    std::snprintf(text, sizeof text, "%.2f GiB", value / double(1 << 30));
  } else {
    std::snprintf(text, sizeof text, "%.1f MiB", value / double(1 << 20));
  }
  return text;
}

std::string Duration(double seconds) {
  const long s = static_cast<long>(seconds + 0.5);
  char text[32];
  if (s >= 3600) {
    std::snprintf(text, sizeof text, "%ld:%02ld:%02ld", s / 3600, s / 60 % 60, s % 60);
  } else {
    std::snprintf(text, sizeof text, "%ld:%02ld", s / 60, s % 60);
  }
  return text;
}

}  // namespace

bool StderrIsTerminal() {
#if defined(_WIN32)
  return ::_isatty(::_fileno(stderr)) != 0;
#else
  return ::isatty(STDERR_FILENO) != 0;
#endif
}

Progress::Progress(std::string label, uint64_t total, Unit unit, bool enabled)
    : label_(std::move(label)), total_(total), unit_(unit), enabled_(enabled) {}

void Progress::Update(uint64_t done) {
  if (!enabled_) return;
  const Clock::time_point now = Clock::now();
  std::lock_guard lock(mutex_);
  if (now - start_ < kProgressDelay) return;
  if (shown_ != 0 && now - last_draw_ < std::chrono::milliseconds(100)) return;
  Draw(done, now);
}

std::string ProgressLine(std::string_view label, uint64_t done, uint64_t total, Progress::Unit unit,
                         double seconds) {
  const double fraction = total == 0 ? 1.0 : static_cast<double>(done) / static_cast<double>(total);
  constexpr int kBarWidth = 24;
  const int filled = static_cast<int>(fraction * kBarWidth);
  std::string line = std::string(label) + " [" + std::string(static_cast<size_t>(filled), '#') +
                     std::string(static_cast<size_t>(kBarWidth - filled), ' ') + "] ";
  char numbers[128];
  std::snprintf(numbers, sizeof numbers, "%3.0f%%  ", 100 * fraction);
  line += numbers + Amount(static_cast<double>(done), unit) + " / " +
          Amount(static_cast<double>(total), unit) +
          (unit == Progress::Unit::kCases ? " cases" : "");
  const double rate = seconds > 0 ? static_cast<double>(done) / seconds : 0;
  if (unit == Progress::Unit::kBytes) {
    std::snprintf(numbers, sizeof numbers, "  %.2f GB/s", rate / 1e9);
    line += numbers;
  }
  if (rate > 0 && done < total) {
    line += "  ETA " + Duration(static_cast<double>(total - done) / rate);
  }
  return line;
}

void Progress::Draw(uint64_t done, Clock::time_point now) {
  last_draw_ = now;
  std::string line = ProgressLine(label_, done, total_, unit_,
                                  std::chrono::duration<double>(now - start_).count());
  // Spaces over the rest of a longer previous line (portable: no terminal escape codes).
  const size_t width = line.size();
  if (width < shown_) line.append(shown_ - width, ' ');
  std::fprintf(stderr, "\r%s", line.c_str());
  std::fflush(stderr);
  shown_ = width;
}

void Progress::Clear() {
  if (!enabled_) return;
  std::lock_guard lock(mutex_);
  if (shown_ == 0) return;
  std::fprintf(stderr, "\r%s\r", std::string(shown_, ' ').c_str());
  std::fflush(stderr);
  shown_ = 0;
}

}  // namespace eltwise::cli
