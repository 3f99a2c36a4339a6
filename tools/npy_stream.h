// Element-wise operators on .npy files of any size, in bounded memory: the data is read, computed
// and written in chunks by two threads (this one reads and computes the next chunks while a writer
// writes the previous ones), so the data held is kStreamBuffers chunks whatever the file size. The
// output keeps the input's dtype, order (C or Fortran), byte order and format version; it is
// written to a temporary beside OUT, flushed to disk and renamed over OUT only when everything
// succeeded, so OUT may be IN. SIGINT/SIGTERM (Ctrl-C) stop the run: the temporary is removed, OUT
// is untouched, and the command exits with 128 + the signal number.
#pragma once

#include <functional>
#include <string>

#include "commands.h"

namespace eltwise::cli {

// Chunk size: 1 MiB, or the environment variable ELTWISE_CHUNK_BYTES (a byte count, rounded down
// to a multiple of 64, at least 64) for tests and tuning. Small chunks stay in the cache between
// the read, the operator and the write, and let reading and writing overlap from the first MiB:
// 1 MiB chunks measured ~2x faster than 64 MiB ones on 256 MiB files (docs/performance.md).
// kStreamBuffers chunks in flight let the reader run ahead while a write waits for the disk.
inline constexpr uint64_t kDefaultChunkBytes = uint64_t{1} << 20;
inline constexpr int kStreamBuffers = 8;

struct StreamOptions {
  std::string input, output;
  bool quiet = false;  // no progress bar
  std::string label;   // the progress bar's label (e.g. "round")
};

// The operator for a tensor (input and output descriptions equal).
using MakeOperatorDesc = std::function<OperatorDesc(const TensorDesc&)>;

// Validates desc_for(the whole array) at the feature level of `device` (the same messages as
// Compile), then applies desc_for(a packed 1-D chunk) chunk by chunk. Fail()s on any error
// (OUT untouched, no temporary left).
void TransformNpyFile(const DeviceOptions& device, const MakeOperatorDesc& desc_for,
                      const StreamOptions& options);

}  // namespace eltwise::cli
