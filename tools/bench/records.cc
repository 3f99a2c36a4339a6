#include "bench/records.h"

#include <algorithm>
#include <cinttypes>
#include <cstdarg>
#include <cstdio>
#include <fstream>

#include "bench/failure.h"
#include "bench/json.h"

namespace eltwise::bench {
namespace {

__attribute__((format(printf, 1, 2))) std::string Format(const char* format, ...) {
  va_list args, measure;
  va_start(args, format);
  va_copy(measure, args);
  const int length = std::vsnprintf(nullptr, 0, format, measure);
  va_end(measure);
  std::string text(static_cast<size_t>(std::max(length, 0)) + 1, '\0');
  std::vsnprintf(text.data(), text.size(), format, args);
  va_end(args);
  text.pop_back();  // the terminating zero
  return text;
}

std::string RecordJson(const Record& r) {
  return "{\"op\": " + JsonString(r.op) + ", \"mode\": " + JsonString(r.mode) +
         ", \"dtype\": " + JsonString(r.dtype) + ", \"layout\": " + JsonString(r.layout) +
         ", \"device\": " + JsonString(r.device) + ", \"baseline\": " + JsonString(r.baseline) +
         ", " +
         Format("\"elements\": %" PRIu64
                ", \"threads\": %d, \"seconds\": %.9g, "
                "\"copy_seconds\": %.9g, \"memcpy_seconds\": %.9g, \"copy_loop_seconds\": %.9g, "
                "\"ratio\": %.4f, \"bytes_moved\": %" PRIu64
                ", \"gb_per_s\": %.3f, \"one_thread_seconds\": %.9g",
                r.elements, r.threads, r.seconds, r.copy_seconds, r.memcpy_seconds,
                r.copy_loop_seconds, r.copy_seconds / r.seconds, r.bytes_moved,
                static_cast<double>(r.bytes_moved) / r.seconds / 1e9, r.one_thread_seconds) +
         ", " + MachineJson() + "}";
}

}  // namespace

std::string TableHeader() {
  return Format("%-6s %-22s %-9s %-10s %12s %3s %10s %9s %9s %7s  %s\n", "op", "mode", "dtype",
                "layout", "elements", "thr", "time", "GB/s", "copy GB/s", "ratio", "baseline");
}

std::string TableRow(const Record& r) {
  const auto bytes = static_cast<double>(r.bytes_moved);
  std::string row =
      Format("%-6s %-22s %-9s %-10s %12" PRIu64 " %3d %8.3gus %9.2f %9.2f %7.3f  %s", r.op.c_str(),
             r.mode.c_str(), r.dtype.c_str(), r.layout.c_str(), r.elements, r.threads,
             r.seconds * 1e6, bytes / r.seconds / 1e9, bytes / r.copy_seconds / 1e9,
             r.copy_seconds / r.seconds, r.baseline.c_str());
  if (r.timed_one_thread) row += Format("  time/1-thread %.3f", r.seconds / r.one_thread_seconds);
  return row + "\n";
}

void WriteRecordsJson(const std::string& path, const std::vector<Record>& records) {
  std::vector<std::string> objects;
  objects.reserve(records.size());
  for (const Record& r : records) objects.push_back(RecordJson(r));
  std::ofstream file(path);
  if (!file) throw Failure(Status(StatusCode::kIoError, "cannot open " + path + " for writing"));
  file << JsonArray(objects);
  file.close();
  if (!file) throw Failure(Status(StatusCode::kIoError, "writing " + path + " failed"));
}

}  // namespace eltwise::bench
