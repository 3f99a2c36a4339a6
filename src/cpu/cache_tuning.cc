#include "cpu/cache_tuning.h"

#include <algorithm>
#include <limits>

namespace eltwise::cpu {
namespace {

// The shortest rows measured to gain from streaming on Intel (CacheTuning::stream_row_bytes).
constexpr uint64_t kIntelStreamRowBytes = 4000;

}  // namespace

CacheTuning TuningFor(const CpuCaches& caches) {
  CacheTuning tuning;
  const uint64_t l1d = caches.l1d_bytes != 0 ? caches.l1d_bytes : uint64_t{32} << 10;
  for (size_t log_size = 0; log_size < tuning.transpose_tile_edge.size(); ++log_size) {
    const uint64_t size = uint64_t{1} << log_size;
    size_t edge = 16;
    while (2 * (2 * edge) * (2 * edge) * size <= l1d &&
           (2 * edge) * (2 * edge) * size <= kTransposeTileBytes) {
      edge *= 2;
    }
    tuning.transpose_tile_edge[log_size] = edge;
  }
  const uint64_t last = caches.LastLevelBytes();
  tuning.stream_output_bytes = last / 4;
  const bool amd_family_25 = caches.x86_vendor == "AuthenticAMD" && caches.x86_family == 25;
  const bool zen3 = amd_family_25 && caches.x86_model < 16;
  tuning.stream_scattered_output_bytes =
      zen3 ? tuning.stream_output_bytes
           : std::min(tuning.stream_output_bytes,
                      caches.l2_bytes != 0 ? 4 * caches.l2_bytes : last / 16);
  const bool intel = caches.x86_vendor == "GenuineIntel" && caches.x86_family == 6;
  tuning.stream_past_last_level_threads = intel ? std::numeric_limits<int>::max() : (zen3 ? 1 : 0);
  tuning.stream_row_bytes = intel ? kIntelStreamRowBytes : 0;
  tuning.f16_round_in_integers = amd_family_25;
  return tuning;
}

const CacheTuning& MachineTuning() {
  static const CacheTuning tuning = TuningFor(MachineCaches());
  return tuning;
}

}  // namespace eltwise::cpu
