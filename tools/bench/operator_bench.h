// `eltwise bench`'s measurement: throughput of each (op, dtype, layout, size) through the public
// API (Device, Allocate, Compile, Execute, CopyOnDevice, Synchronize), held against a copy of the
// same bytes timed in the same run, so that the ratio is free of machine noise between runs.
//
// Baselines (CPU: on 1 and on the device's threads, the faster counting, since a copy on fewer
// threads is a valid, and for small sizes faster, copy at this thread count; CUDA: CopyOnDevice):
//   contiguous, rows, transposed, gathered*, overlap*: the faster of memcpy and a copy loop over
//   the output's bytes;
//   inplace: a loop that reads and rewrites the same bytes in place;
//   broadcast: memset of the output bytes (a fill).
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "bench/records.h"
#include "bench/timing.h"
#include "eltwise/eltwise.h"

namespace eltwise::bench {

struct OpChoice {
  Op op;
  int option;  // the op's option value (0 for an op without an option)
};

struct OperatorBenchPlan {
  Device device;
  // Where each call is also timed, with `busy` cores kept busy throughout (CPU only).
  std::optional<Device> one_thread;
  int busy = 0;
  std::vector<OpChoice> ops;
  std::vector<DataType> types;
  // Layout names (see layouts.h); a name that is none fails when its turn comes.
  std::vector<std::string> layouts;
  std::vector<uint64_t> sizes;  // output bytes
  TimingOptions timing;
};

// Times every (op, type, layout, size), in that order of nesting, and returns their records; each
// record is also handed to `on_record` as soon as it is measured. Throws Failure when a call of the
// library fails or a layout name is unknown.
std::vector<Record> RunOperatorBench(const OperatorBenchPlan& plan,
                                     const std::function<void(const Record&)>& on_record);

}  // namespace eltwise::bench
