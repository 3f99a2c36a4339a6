# Linux s390x (big-endian) with Debian's cross toolchain (g++-s390x-linux-gnu) against multiarch
# s390x libraries (libhwy-dev:s390x, libgtest-dev:s390x, libgmock-dev:s390x). Programs run under
# qemu-s390x. Highway has no SIMD target for this CPU: the kernels are its SCALAR target and the
# reference loops.
set(CMAKE_SYSTEM_PROCESSOR s390x)
set(ELTWISE_TRIPLE s390x-linux-gnu)
set(ELTWISE_QEMU qemu-s390x)
include(${CMAKE_CURRENT_LIST_DIR}/debian-multiarch.cmake)
