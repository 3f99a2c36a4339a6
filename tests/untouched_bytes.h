// Byte ranges larger than any test should fill: anonymous mappings whose pages are never touched
// (MAP_NORESERVE: nothing is committed), for the checks that refuse a size before reading.
#pragma once

#if !defined(_WIN32)
#include <sys/mman.h>

#include <cstddef>
#include <span>

namespace eltwise::testing {

class UntouchedBytes {
 public:
  explicit UntouchedBytes(size_t size)
      : size_(size),
        data_(
            ::mmap(nullptr, size, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0)) {}
  ~UntouchedBytes() {
    if (ok()) ::munmap(data_, size_);
  }
  UntouchedBytes(const UntouchedBytes&) = delete;
  UntouchedBytes& operator=(const UntouchedBytes&) = delete;

  bool ok() const { return data_ != MAP_FAILED; }
  std::span<const std::byte> bytes() const { return {static_cast<const std::byte*>(data_), size_}; }

 private:
  size_t size_;
  void* data_;
};

}  // namespace eltwise::testing
#endif
