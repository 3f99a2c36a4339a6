#include "bench/threads.h"

namespace eltwise::bench {

ByteRange PartOf(uint64_t bytes, int part, int parts) {
  const auto cut = [&](int k) {
    return std::min(
        bytes, (bytes * static_cast<uint64_t>(k) / static_cast<uint64_t>(parts) + 63) / 64 * 64);
  };
  return {part == 0 ? 0 : cut(part), part + 1 == parts ? bytes : cut(part + 1)};
}

BusyLoad::BusyLoad(int count) {
  for (int i = 0; i < count; ++i) {
    threads_.emplace_back([](std::stop_token stop) {
      volatile uint64_t sink = 0;
      while (!stop.stop_requested()) {
        for (int k = 0; k < 4096; ++k) sink = sink + 1;
      }
    });
  }
}

}  // namespace eltwise::bench
