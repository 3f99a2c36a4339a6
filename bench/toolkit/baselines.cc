#include "toolkit/baselines.h"

#include <cstring>

namespace eltwise::bench {

typedef unsigned char Block64 __attribute__((vector_size(64), aligned(1), may_alias));

// Not under sanitizers: an ifunc resolver runs before their runtime is up (TSan crashes there).
// ifunc exists only in ELF (not on Windows).
#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__) && defined(__ELF__) && \
    !defined(__SANITIZE_THREAD__) && !defined(__SANITIZE_ADDRESS__)
__attribute__((target_clones("avx512f", "avx2", "default")))
#endif
void CopyLoop(const std::byte* in, std::byte* out, uint64_t bytes) {
  uint64_t i = 0;
  for (; i + 256 <= bytes; i += 256) {
    Block64 a, b, c, d;
    std::memcpy(&a, in + i, 64);
    std::memcpy(&b, in + i + 64, 64);
    std::memcpy(&c, in + i + 128, 64);
    std::memcpy(&d, in + i + 192, 64);
    asm volatile("" : : : "memory");
    std::memcpy(out + i, &a, 64);
    std::memcpy(out + i + 64, &b, 64);
    std::memcpy(out + i + 128, &c, 64);
    std::memcpy(out + i + 192, &d, 64);
  }
  for (; i < bytes; ++i) {
    const std::byte v = in[i];
    asm volatile("" : : : "memory");
    out[i] = v;
  }
}

void RunBaseline(Baseline baseline, const std::byte* src, std::byte* dst, uint64_t bytes) {
  switch (baseline) {
    case Baseline::kMemcpy:
      std::memcpy(dst, src, bytes);
      break;
    case Baseline::kCopyLoop:
      CopyLoop(src, dst, bytes);
      break;
    case Baseline::kFill:
      std::memset(dst, 0x3f, bytes);
      break;
  }
}

void RunBaseline(Baseline baseline, const std::byte* src, std::byte* dst, uint64_t bytes,
                 const Team& team, int64_t calls) {
  team.Run(calls, [&](int thread, int threads) {
    const ByteRange part = PartOf(bytes, thread, threads);
    RunBaseline(baseline, src + part.begin, dst + part.begin, part.end - part.begin);
  });
}

}  // namespace eltwise::bench
