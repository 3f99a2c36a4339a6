// Allocation failures at the library's boundary. Every fallible entry point returns a Status, so
// a std::bad_alloc from inside (a container, a string, a plan) must not escape it: the entry
// points run their body through GuardAllocation, which turns it into kOutOfMemory. Entry points
// allocate before they write anything, so on that error nothing was written.
#pragma once

#include <new>
#include <string>
#include <utility>

#include "eltwise/status.h"

namespace eltwise {

// kOutOfMemory "out of memory in {where}"; "out of memory" alone (13 characters: held in
// std::string's inline buffer, no allocation) if even that message cannot be allocated.
inline Status OutOfMemory(const char* where) noexcept {
  try {
    return Status(StatusCode::kOutOfMemory, std::string("out of memory in ") + where);
  } catch (const std::bad_alloc&) {
    return Status(StatusCode::kOutOfMemory, "out of memory");
  }
}

// body() (a Status or an Expected<T>), or OutOfMemory(where) if it throws std::bad_alloc (other
// exceptions pass through).
template <class Body>
auto GuardAllocation(const char* where, Body&& body) -> decltype(body()) {
  try {
    return std::forward<Body>(body)();
  } catch (const std::bad_alloc&) {
    return OutOfMemory(where);
  }
}

}  // namespace eltwise
