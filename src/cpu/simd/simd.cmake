# Highway SIMD kernels for the CPU backend (one KernelTable per compiled target, runtime dispatch)
# and the persistent thread pool.
#
# ELTWISE_SIMD=ON (the default) requires Highway (Debian/Ubuntu: libhwy-dev; its CMake package
# hwy::hwy). ELTWISE_SIMD=OFF builds the scalar reference kernels only: exact, but several times
# slower; `eltwise info` and eltwise.info() then list no SIMD target and the Python module warns at
# import. A build never falls back to it silently.
#
# Appends to eltwise_backend_sources and eltwise_link_libraries, for the top-level CMakeLists.txt.
set(THREADS_PREFER_PTHREAD_FLAG ON)
find_package(Threads REQUIRED)
list(APPEND eltwise_backend_sources ${CMAKE_CURRENT_LIST_DIR}/../thread_pool.cc)
list(APPEND eltwise_link_libraries Threads::Threads)

set(ELTWISE_WITH_HWY OFF)
if(ELTWISE_SIMD)
  find_package(hwy 1.0 CONFIG QUIET)
  if(NOT hwy_FOUND)
    message(FATAL_ERROR
      "eltwise: Highway was not found; the CPU backend's SIMD kernels need it.\n"
      "Install it (Debian/Ubuntu: apt-get install libhwy-dev; or set hwy_DIR to the folder "
      "holding hwy-config.cmake), or configure with -DELTWISE_SIMD=OFF for a scalar-only build "
      "(exact but much slower).")
  endif()
  set(ELTWISE_WITH_HWY ON)
  # One translation unit per kernel family (and per stride for gathers), each compiling every
  # target, so that they build in parallel; simd_ops-inl.h holds the vector ops they share.
  set(eltwise_simd_sources ${CMAKE_CURRENT_LIST_DIR}/simd_kernels.cc
      ${CMAKE_CURRENT_LIST_DIR}/simd_transposed.cc ${CMAKE_CURRENT_LIST_DIR}/simd_gathered2.cc
      ${CMAKE_CURRENT_LIST_DIR}/simd_gathered3.cc ${CMAKE_CURRENT_LIST_DIR}/simd_gathered4.cc)
  list(APPEND eltwise_backend_sources ${eltwise_simd_sources})
  list(APPEND eltwise_link_libraries hwy::hwy)
  # Under AddressSanitizer the kernels' sources leave out its use-after-scope checks: Highway's
  # inlined vector temporaries give them thousands of scopes to poison and unpoison, which took
  # simd_gathered2.cc's compile from 34 s to 105 s (GCC 12, side by side on 2 cores). Reads and
  # writes past a buffer, on the heap or in the kernels' stack arrays, are still caught; every
  # other source keeps the check.
  if(CMAKE_CXX_FLAGS MATCHES "-fsanitize=[^ ]*address")
    set_source_files_properties(${eltwise_simd_sources}
                                PROPERTIES COMPILE_OPTIONS -fno-sanitize-address-use-after-scope)
  endif()
  # "static" compiles the kernels once, for the target the compiler flags allow (for x86-64's
  # baseline flags, Highway's EMU128), instead of once per target with run-time dispatch: several
  # times quicker to build and slower to run, for checks of the build alone (tests/consumer).
  set(ELTWISE_SIMD_TARGETS "all" CACHE STRING
      "all: every target Highway can attain, chosen at run time; static: the compiler's target only")
  set_property(CACHE ELTWISE_SIMD_TARGETS PROPERTY STRINGS all static)
  if(ELTWISE_SIMD_TARGETS STREQUAL "static")
    list(APPEND eltwise_build_definitions HWY_COMPILE_ONLY_STATIC=1)
  elseif(NOT ELTWISE_SIMD_TARGETS STREQUAL "all")
    message(FATAL_ERROR "eltwise: ELTWISE_SIMD_TARGETS must be all or static, not "
                        "'${ELTWISE_SIMD_TARGETS}'")
  endif()
  message(STATUS "eltwise: Highway ${hwy_VERSION} SIMD kernels (${hwy_DIR}), targets: "
                 "${ELTWISE_SIMD_TARGETS}")
else()
  list(APPEND eltwise_backend_sources ${CMAKE_CURRENT_LIST_DIR}/no_simd.cc)
  message(STATUS "eltwise: ELTWISE_SIMD=OFF: scalar reference kernels only (no SIMD)")
endif()
