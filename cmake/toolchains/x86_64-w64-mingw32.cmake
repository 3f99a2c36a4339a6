# Cross-compiling for Windows x86-64 with mingw-w64 (Debian: g++-mingw-w64-x86-64-posix, the
# POSIX-threads flavour that std::thread needs), linked statically so the programs need no DLLs
# beside them. Programs run under wine.
#
# Libraries come only from the mingw-w64 sysroot and from a prefix holding Highway, GoogleTest
# and CLI11 built or copied for this target (scripts/ci_windows.sh makes it): the environment
# variable ELTWISE_MINGW_DEPS, by default build/mingw-deps in the source tree. The host's
# /usr/include and /usr/lib are never searched.
set(CMAKE_SYSTEM_NAME Windows)
set(CMAKE_SYSTEM_PROCESSOR x86_64)
set(CMAKE_C_COMPILER x86_64-w64-mingw32-gcc-posix)
set(CMAKE_CXX_COMPILER x86_64-w64-mingw32-g++-posix)
set(CMAKE_RC_COMPILER x86_64-w64-mingw32-windres)

if(DEFINED ENV{ELTWISE_MINGW_DEPS})
  set(ELTWISE_MINGW_DEPS "$ENV{ELTWISE_MINGW_DEPS}")
else()
  get_filename_component(ELTWISE_MINGW_DEPS "${CMAKE_CURRENT_LIST_DIR}/../../build/mingw-deps"
                         ABSOLUTE)
endif()
set(CMAKE_FIND_ROOT_PATH /usr/x86_64-w64-mingw32 ${ELTWISE_MINGW_DEPS})
set(CMAKE_FIND_ROOT_PATH_MODE_PROGRAM NEVER)
set(CMAKE_FIND_ROOT_PATH_MODE_LIBRARY ONLY)
set(CMAKE_FIND_ROOT_PATH_MODE_INCLUDE ONLY)
set(CMAKE_FIND_ROOT_PATH_MODE_PACKAGE ONLY)
set(ENV{PKG_CONFIG_LIBDIR} "${ELTWISE_MINGW_DEPS}/lib/pkgconfig")
set(ENV{PKG_CONFIG_PATH} "")
set(ENV{PKG_CONFIG_SYSROOT_DIR} "")

# Static C++ runtime, libgcc and winpthread.
set(CMAKE_EXE_LINKER_FLAGS_INIT "-static")
set(CMAKE_SHARED_LINKER_FLAGS_INIT "-static")

# gtest_discover_tests and CTest start target programs through wine (WINEDEBUG=-all and a
# private WINEPREFIX are up to the caller's environment).
find_program(ELTWISE_WINE wine REQUIRED)
set(CMAKE_CROSSCOMPILING_EMULATOR ${ELTWISE_WINE})
