# Linux aarch64 with Debian's cross toolchain (g++-aarch64-linux-gnu) against multiarch arm64
# libraries (libhwy-dev:arm64, libgtest-dev:arm64, libgmock-dev:arm64). Programs run under
# qemu-aarch64; the emulated CPU is chosen with QEMU_CPU (e.g. QEMU_CPU=max,sve=off for NEON
# only), which child processes inherit.
set(CMAKE_SYSTEM_PROCESSOR aarch64)
set(ELTWISE_TRIPLE aarch64-linux-gnu)
set(ELTWISE_QEMU qemu-aarch64)
include(${CMAKE_CURRENT_LIST_DIR}/debian-multiarch.cmake)
