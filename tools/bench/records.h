// The results of `eltwise bench`: one record per (op, dtype, layout, size), as a table row and as
// JSON.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace eltwise::bench {

struct Record {
  std::string op, mode, dtype, layout, device;
  uint64_t elements = 0;  // output elements
  int threads = 1;        // the device's threads
  double seconds = 0;     // per call
  // The baseline's seconds (the one named by `baseline`), and each host baseline's (0: not run).
  double copy_seconds = 0, memcpy_seconds = 0, copy_loop_seconds = 0;
  // The same call on a 1-thread device (0 unless timed_one_thread).
  bool timed_one_thread = false;
  double one_thread_seconds = 0;
  uint64_t bytes_moved = 0;  // input + output bytes (output only for a broadcast)
  std::string baseline;      // "memcpy", "copy loop", "in-place copy loop", "memset", ...
};

// The table's header and one record's row (each with its newline). The row's ratio is
// copy_seconds / seconds: 1.0 is as fast as the baseline.
std::string TableHeader();
std::string TableRow(const Record& record);

// Writes the records as a JSON array of objects to `path`; throws Failure (kIoError) if it cannot.
void WriteRecordsJson(const std::string& path, const std::vector<Record>& records);

}  // namespace eltwise::bench
