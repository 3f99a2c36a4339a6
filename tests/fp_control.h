// The floating-point control register that results must never depend on (docs/semantics.md):
// x86 MXCSR (rounding control, FTZ, DAZ) or Arm FPCR (RMode, FZ, FZ16). FpControlStates lists
// every rounding mode, each with and without flushing subnormals, on top of the current state.
#pragma once

#include <cstdint>
#include <cstdio>
#include <string>
#include <vector>

#if defined(__x86_64__) || defined(__i386__)
#include <xmmintrin.h>
#define ELTWISE_TEST_FP_CONTROL 1
#elif defined(__aarch64__)
#define ELTWISE_TEST_FP_CONTROL 1
#else
#define ELTWISE_TEST_FP_CONTROL 0
#endif

namespace eltwise::testing {

#if defined(__x86_64__) || defined(__i386__)
using FpControl = unsigned;
inline FpControl GetFpControl() { return _mm_getcsr(); }
inline void SetFpControl(FpControl state) { _mm_setcsr(state); }
inline std::vector<FpControl> FpControlStates(FpControl saved) {
  std::vector<FpControl> states;
  for (unsigned rounding : {0x0000u, 0x2000u, 0x4000u, 0x6000u}) {  // RC: nearest, -inf, +inf, 0
    for (unsigned flush : {0x0000u, 0x8040u}) {                     // FTZ | DAZ
      states.push_back((saved & ~0xE040u) | rounding | flush);
    }
  }
  return states;
}
#elif defined(__aarch64__)
using FpControl = uint64_t;
inline FpControl GetFpControl() {
  uint64_t state;
  asm volatile("mrs %0, fpcr" : "=r"(state) : : "memory");
  return state;
}
inline void SetFpControl(FpControl state) {
  asm volatile("msr fpcr, %0" : : "r"(state) : "memory");
}
inline std::vector<FpControl> FpControlStates(FpControl saved) {
  constexpr uint64_t kRMode = uint64_t{3} << 22, kFZ = uint64_t{1} << 24, kFZ16 = uint64_t{1} << 19;
  std::vector<FpControl> states;
  for (uint64_t rounding = 0; rounding < 4; ++rounding) {  // RN, RP, RM, RZ
    for (uint64_t flush : {uint64_t{0}, kFZ | kFZ16}) {
      states.push_back((saved & ~(kRMode | kFZ | kFZ16)) | rounding << 22 | flush);
    }
  }
  return states;
}
#endif

#if ELTWISE_TEST_FP_CONTROL
inline std::string FpControlName(FpControl state) {
  char text[32];
  snprintf(text, sizeof text, "fp control 0x%llx", static_cast<unsigned long long>(state));
  return text;
}
#endif

}  // namespace eltwise::testing
