// How the benchmark toolkit reports a failed library call: the front end turns it into its own
// error (`eltwise bench`: "eltwise: <context>: <message>" and the status's exit code).
#pragma once

#include <stdexcept>
#include <string>
#include <utility>

#include "eltwise/status.h"

namespace eltwise::bench {

class Failure : public std::runtime_error {
 public:
  // `context` (e.g. "execute"; may be empty) names what failed.
  explicit Failure(Status status, std::string context = {})
      : std::runtime_error(status.message()),
        status_(std::move(status)),
        context_(std::move(context)) {}
  const Status& status() const { return status_; }
  const std::string& context() const { return context_; }

 private:
  Status status_;
  std::string context_;
};

// Throws Failure for `status` unless it is ok.
inline void ThrowIfFailed(const Status& status, std::string context = {}) {
  if (!status.ok()) throw Failure(status, std::move(context));
}

}  // namespace eltwise::bench
