// Start-up cost of the CLI: Highway's shared library (libhwy.so 1.0.x) calibrates its benchmark
// timer in a static initializer, `hwy::platform::TimerResolution()`: loops of serialised reads of
// the time-stamp counter, 4-5 ms of every `eltwise` run here, more than everything else a small
// file costs. The only reader of that value is Highway's nanobenchmark (hwy::Measure), which this
// program never calls.
//
// libhwy.so calls the function through its PLT, so a definition of the same ELF symbol exported by
// the executable is the one its initializer binds to (ELF symbol interposition, the mechanism by
// which programs replace malloc). This is a C function that carries the symbol's name, not a second
// C++ definition of Highway's function. The value it gives is never read in this program; it is a
// plausible one (the tick difference of back-to-back reads on current x86 and Arm CPUs) so that a
// caller of hwy::Measure would still get sane repetition counts. tests/cli checks that the binding
// happens (LD_DEBUG=bindings). Built only where Highway is a shared library on an ELF platform
// (tools/CMakeLists.txt).
#include <cstdint>

extern "C" {
// Exported from the executable (tools/CMakeLists.txt: --export-dynamic-symbol).
__attribute__((visibility("default"), used)) std::uint64_t
eltwise_cli_highway_timer_resolution() __asm__("_ZN3hwy8platform15TimerResolutionEv");

std::uint64_t eltwise_cli_highway_timer_resolution() { return 32; }
}
