// Errors are values: every fallible call returns a Status (or an Expected<T>) with a code and a
// message that names the offending field and the rule it breaks.
#pragma once

#include <string>
#include <utility>
#include <variant>

#include "eltwise/export.h"

namespace eltwise {

enum class StatusCode {
  kOk = 0,
  kInvalidArgument,  // the request breaks a validation rule; nothing was written
  kUnsupported,      // valid request that this build or device cannot run (e.g. no CUDA)
  kOutOfMemory,
  kDeviceError,  // a backend (e.g. the CUDA runtime) reported a failure
  kInternal,
  kIoError,  // opening, reading or writing a file failed (front ends: .npy, ONNX models)
};

ELTWISE_API std::string_view Name(StatusCode code);

class [[nodiscard]] Status {
 public:
  Status() = default;
  Status(StatusCode code, std::string message) : code_(code), message_(std::move(message)) {}
  static Status Ok() { return Status(); }

  bool ok() const { return code_ == StatusCode::kOk; }
  StatusCode code() const { return code_; }
  const std::string& message() const { return message_; }
  // "invalid_argument: input.sizes[2] is 0; ..." or "ok".
  ELTWISE_API std::string ToString() const;

 private:
  StatusCode code_ = StatusCode::kOk;
  std::string message_;
};

inline Status InvalidArgument(std::string message) {
  return Status(StatusCode::kInvalidArgument, std::move(message));
}
inline Status Unsupported(std::string message) {
  return Status(StatusCode::kUnsupported, std::move(message));
}

// A value or the Status that explains why there is none.
template <class T>
class [[nodiscard]] Expected {
 public:
  Expected(T value) : state_(std::move(value)) {}         // NOLINT: implicit by design
  Expected(Status status) : state_(std::move(status)) {}  // NOLINT: implicit by design

  bool ok() const { return std::holds_alternative<T>(state_); }
  explicit operator bool() const { return ok(); }
  Status status() const { return ok() ? Status::Ok() : std::get<Status>(state_); }
  T& value() & { return std::get<T>(state_); }
  const T& value() const& { return std::get<T>(state_); }
  T&& value() && { return std::get<T>(std::move(state_)); }
  T& operator*() & { return value(); }
  const T& operator*() const& { return value(); }
  T* operator->() { return &value(); }
  const T* operator->() const { return &value(); }

 private:
  std::variant<T, Status> state_;
};

}  // namespace eltwise
