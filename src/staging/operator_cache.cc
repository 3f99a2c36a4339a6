// The compiled-operator cache of operator_cache.h.
#include "staging/operator_cache.h"

#include <atomic>
#include <new>

#include "core/op_registry.h"

namespace eltwise::staging {
namespace {

template <class T>
void Append(std::string& key, const T& value) {
  key.append(reinterpret_cast<const char*>(&value), sizeof value);
}

void AppendTensor(std::string& key, const TensorDesc& t) {
  Append(key, t.type);
  Append(key, static_cast<uint8_t>(t.sizes.size()));
  for (uint64_t s : t.sizes) Append(key, s);
  Append(key, t.strides.has_value());
  if (t.strides) {
    Append(key, static_cast<uint8_t>(t.strides->size()));
    for (int64_t s : *t.strides) Append(key, s);
  }
  Append(key, t.total_tensor_size_in_bytes);
  Append(key, t.guaranteed_base_offset_alignment);
}

std::string KeyOf(const Device& device, const OperatorDesc& desc, CacheScope scope) {
  std::string key;
  key.reserve(176);
  Append(key, &device.state());
  Append(key, static_cast<uint8_t>(desc.index()));
  Append(key, OptionOf(desc));
  AppendTensor(key, InputOf(desc));
  AppendTensor(key, OutputOf(desc));
  Append(key, scope.owner);
  Append(key, scope.item);
  return key;
}

}  // namespace

uint64_t NewCacheOwner() {
  static std::atomic<uint64_t> next{1};
  return next.fetch_add(1);
}

Expected<CompiledOperator> OperatorCache::Get(const Device& device, const OperatorDesc& desc,
                                              CacheScope scope, bool* compiled) {
  if (compiled != nullptr) *compiled = false;
  std::string key = KeyOf(device, desc, scope);
  {
    std::lock_guard<std::mutex> lock(mutex_);
    if (auto it = index_.find(key); it != index_.end()) {
      recent_.splice(recent_.begin(), recent_, it->second);
      return it->second->second;
    }
  }
  Expected<CompiledOperator> op = Compile(device, desc);  // outside the lock: it may take a while
  if (!op.ok()) return op;  // failures are not cached: the message is built again
  if (compiled != nullptr) *compiled = true;
  std::lock_guard<std::mutex> lock(mutex_);
  if (capacity_ != 0 && index_.count(key) == 0) {
    recent_.emplace_front(key, *op);
    try {
      index_.emplace(std::move(key), recent_.begin());
    } catch (const std::bad_alloc&) {
      recent_.pop_front();  // no entry without its index: the cache stays consistent
      throw;
    }
    if (recent_.size() > capacity_) {
      index_.erase(recent_.back().first);
      recent_.pop_back();
    }
  }
  return op;
}

size_t OperatorCache::size() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return recent_.size();
}

OperatorCache& OperatorCache::Global() {
  static auto* cache = new OperatorCache(kCapacity);  // leaked: used until the process ends
  return *cache;
}

}  // namespace eltwise::staging
