// The library's one cache of compiled operators, shared by every front end (the Python module, the
// ONNX runner, the CLI's streams): a bounded, thread-safe, least-recently-used map from (device,
// operator description, scope) to Compile's result. Not in the public API.
#pragma once

#include <cstddef>
#include <cstdint>
#include <list>
#include <mutex>
#include <string>
#include <unordered_map>
#include <utility>

#include "eltwise/device.h"
#include "eltwise/operators.h"
#include "eltwise/status.h"

namespace eltwise::staging {

// Separates the entries of callers that must not share operators with each other (the ONNX runner
// counts the operators each model compiles, per node). Scope {} is shared by every caller.
struct CacheScope {
  uint64_t owner = 0;  // NewCacheOwner(), or 0
  uint64_t item = 0;
};
// A process-unique owner id (never 0, never reused).
uint64_t NewCacheOwner();

class OperatorCache {
 public:
  explicit OperatorCache(size_t capacity) : capacity_(capacity) {}
  OperatorCache(const OperatorCache&) = delete;
  OperatorCache& operator=(const OperatorCache&) = delete;

  // Compile(device, desc), remembered under the key (device, desc's op, option and both tensor
  // descriptions: type, sizes, strides, total size, guaranteed alignment; scope). Alignment of
  // the bound memory is not part of a compiled operator (Execute checks it per call). Failures are
  // not remembered. `compiled`, if given, is set to whether this call compiled. A cached operator
  // holds its Device, so a device's state (part of the key) cannot be freed and its address
  // reused while an entry names it. Thread-safe; Compile runs outside the lock.
  Expected<CompiledOperator> Get(const Device& device, const OperatorDesc& desc,
                                 CacheScope scope = {}, bool* compiled = nullptr);

  size_t size() const;
  size_t capacity() const { return capacity_; }

  // The process-wide cache (capacity kCapacity), used by every front end; never destroyed.
  static OperatorCache& Global();
  static constexpr size_t kCapacity = 256;

 private:
  using Entry = std::pair<std::string, CompiledOperator>;
  const size_t capacity_;
  mutable std::mutex mutex_;
  std::list<Entry> recent_;  // most recently used first
  std::unordered_map<std::string, std::list<Entry>::iterator> index_;
};

// OperatorCache::Global().Get(...).
inline Expected<CompiledOperator> CompileCached(const Device& device, const OperatorDesc& desc,
                                                CacheScope scope = {}, bool* compiled = nullptr) {
  return OperatorCache::Global().Get(device, desc, scope, compiled);
}

}  // namespace eltwise::staging
