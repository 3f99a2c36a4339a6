#include "bench/baselines.h"

#include <cstring>
#include <utility>

#if defined(__x86_64__) && defined(__GNUC__) && defined(__ELF__)
#include <cpuid.h>
#endif

namespace eltwise::bench {

namespace {

// One 256-byte step of the copy loop through vector registers. The empty asm with a memory clobber
// keeps the compiler from turning the loop into memcpy or dropping an in-place copy. GCC on x86
// keeps blocks in registers only when they are as wide as its vectors: 64-byte blocks with SSE2
// or AVX2 went through the stack, at 0.4 of the speed in L1 (a separate loop on an AVX-512 Xeon).
// Clang, and GCC on Arm, split four 64-byte blocks into registers of any width.
#if defined(__GNUC__) && !defined(__clang__) && (defined(__x86_64__) || defined(__i386__))
template <size_t kVectorBytes, size_t... k>
__attribute__((always_inline)) inline void CopyBlocks(const std::byte* in, std::byte* out,
                                                      std::index_sequence<k...>) {
  // Naturally aligned locals (memcpy does the unaligned accesses): an under-aligned vector array
  // on the stack was moved with aligned instructions under AddressSanitizer, and faulted.
  typedef unsigned char Block __attribute__((vector_size(kVectorBytes)));
  Block blocks[sizeof...(k)];
  (std::memcpy(&blocks[k], in + k * kVectorBytes, kVectorBytes), ...);
  asm volatile("" : : : "memory");
  (std::memcpy(out + k * kVectorBytes, &blocks[k], kVectorBytes), ...);
}
template <size_t kVectorBytes>
__attribute__((always_inline)) inline void CopyStep(const std::byte* in, std::byte* out) {
  CopyBlocks<kVectorBytes>(in, out, std::make_index_sequence<256 / kVectorBytes>());
}
#else
template <size_t>
__attribute__((always_inline)) inline void CopyStep(const std::byte* in, std::byte* out) {
  typedef unsigned char Block64 __attribute__((vector_size(64), aligned(1), may_alias));
  Block64 a, b, c, d;
  std::memcpy(&a, in, 64);
  std::memcpy(&b, in + 64, 64);
  std::memcpy(&c, in + 128, 64);
  std::memcpy(&d, in + 192, 64);
  asm volatile("" : : : "memory");
  std::memcpy(out, &a, 64);
  std::memcpy(out + 64, &b, 64);
  std::memcpy(out + 128, &c, 64);
  std::memcpy(out + 192, &d, 64);
}
#endif

// 256-byte steps through registers of kVectorBytes, the rest a byte at a time.
template <size_t kVectorBytes>
__attribute__((always_inline)) inline void CopyLoopBody(const std::byte* in, std::byte* out,
                                                        uint64_t bytes) {
  uint64_t i = 0;
  for (; i + 256 <= bytes; i += 256) CopyStep<kVectorBytes>(in + i, out + i);
  for (; i < bytes; ++i) {
    const std::byte v = in[i];
    asm volatile("" : : : "memory");
    out[i] = v;
  }
}

using CopyLoopFn = void (*)(const std::byte*, std::byte*, uint64_t);

void CopyLoopBaseline(const std::byte* in, std::byte* out, uint64_t bytes) {
  CopyLoopBody<16>(in, out, bytes);
}

// The widest x86 vectors are picked on the first call. Not with target_clones: its ifunc resolver
// ran libgcc's CPU detection while every `eltwise` process loaded, CPUID instructions that a VM
// traps, about 0.1 ms a process (docs/performance.md, "Start-up on small files"). Not on Windows,
// whose ABI does not align the stack for spilled 256- and 512-bit registers.
#if defined(__x86_64__) && defined(__GNUC__) && defined(__ELF__)
__attribute__((target("avx512f"))) void CopyLoopAvx512(const std::byte* in, std::byte* out,
                                                       uint64_t bytes) {
  CopyLoopBody<64>(in, out, bytes);
}
__attribute__((target("avx2"))) void CopyLoopAvx2(const std::byte* in, std::byte* out,
                                                  uint64_t bytes) {
  CopyLoopBody<32>(in, out, bytes);
}
// AVX-512F or AVX2 when both the CPU (CPUID) and the OS (the register state it saves, XCR0)
// support them.
CopyLoopFn PickCopyLoop() {
  unsigned eax = 0, ebx = 0, ecx = 0, edx = 0;
  if (__get_cpuid(1, &eax, &ebx, &ecx, &edx) == 0 || (ecx & bit_OSXSAVE) == 0) {
    return &CopyLoopBaseline;
  }
  uint32_t xcr0 = 0, xcr0_high = 0;
  asm volatile("xgetbv" : "=a"(xcr0), "=d"(xcr0_high) : "c"(0));
  if (__get_cpuid_count(7, 0, &eax, &ebx, &ecx, &edx) == 0) return &CopyLoopBaseline;
  constexpr uint32_t kYmmState = 0x6, kZmmState = 0xe6;  // XMM|YMM, and opmask|ZMM halves
  if ((xcr0 & kZmmState) == kZmmState && (ebx & bit_AVX512F) != 0) return &CopyLoopAvx512;
  if ((xcr0 & kYmmState) == kYmmState && (ebx & bit_AVX2) != 0) return &CopyLoopAvx2;
  return &CopyLoopBaseline;
}
#else
CopyLoopFn PickCopyLoop() { return &CopyLoopBaseline; }
#endif

}  // namespace

void CopyLoop(const std::byte* in, std::byte* out, uint64_t bytes) {
  static const CopyLoopFn copy = PickCopyLoop();
  copy(in, out, bytes);
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
