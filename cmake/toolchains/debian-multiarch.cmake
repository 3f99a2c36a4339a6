# Shared part of the Linux cross toolchains: Debian's cross compiler for ELTWISE_TRIPLE against
# the multiarch libraries of that architecture (/usr/lib/<triple>, installed as libfoo-dev:<arch>),
# programs run under qemu-user (ELTWISE_QEMU).
set(CMAKE_SYSTEM_NAME Linux)
set(CMAKE_C_COMPILER ${ELTWISE_TRIPLE}-gcc)
set(CMAKE_CXX_COMPILER ${ELTWISE_TRIPLE}-g++)
set(CMAKE_LIBRARY_ARCHITECTURE ${ELTWISE_TRIPLE})

# Libraries and packages: the target's multiarch folders only, never the host's.
set(CMAKE_FIND_ROOT_PATH /usr/${ELTWISE_TRIPLE})
set(CMAKE_FIND_ROOT_PATH_MODE_PROGRAM NEVER)
set(CMAKE_FIND_ROOT_PATH_MODE_LIBRARY BOTH)
set(CMAKE_FIND_ROOT_PATH_MODE_INCLUDE BOTH)
set(CMAKE_FIND_ROOT_PATH_MODE_PACKAGE BOTH)
set(ENV{PKG_CONFIG_LIBDIR} "/usr/lib/${ELTWISE_TRIPLE}/pkgconfig:/usr/share/pkgconfig")
set(ENV{PKG_CONFIG_PATH} "")

# gtest_discover_tests, try_run and CTest start target programs through this. No -L
# /usr/<triple>: the programs need libraries from the multiarch folder (libhwy.so.1), whose libc6
# dependency brings the matching dynamic loader under /lib; the cross toolchain's loader with the
# multiarch libc (another build of glibc) corrupts glibc's state (the first pthread_create loops
# forever).
find_program(ELTWISE_QEMU_PROGRAM ${ELTWISE_QEMU} REQUIRED)
set(CMAKE_CROSSCOMPILING_EMULATOR ${ELTWISE_QEMU_PROGRAM})
