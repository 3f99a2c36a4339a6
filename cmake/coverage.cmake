# ELTWISE_COVERAGE: every C and C++ target of this build compiled and linked with --coverage (gcov
# counters, written as .gcda files when each instrumented process exits), for the coverage report
# and its floors (scripts/coverage.sh; CI's test stage). The optimisation level stays the build
# type's, but only what must be inlined is (-fno-inline; Highway's ops are always_inline): an
# inlined function's branches would be counted again at every call site. The counters are plain
# (not -fprofile-update=atomic, which made the suite twice as slow): threads may lose counts, and
# a branch count gcov derives from lost counts can come out zero or negative (gcovr warns and takes
# it as not taken), so any error is towards less coverage. CUDA sources are not instrumented. A
# static libeltwise built this way needs libgcov in whatever links it, so its CMake package and
# eltwise.pc say so (--coverage at link time).
option(ELTWISE_COVERAGE "Instrument every C/C++ target with --coverage (gcov; scripts/coverage.sh)" OFF)
if(ELTWISE_COVERAGE)
  if(NOT CMAKE_CXX_COMPILER_ID STREQUAL "GNU")
    message(FATAL_ERROR "ELTWISE_COVERAGE needs GCC (gcov data for gcovr); "
                        "the C++ compiler is ${CMAKE_CXX_COMPILER_ID}")
  endif()
  add_compile_options("$<$<COMPILE_LANGUAGE:C,CXX>:--coverage;-fno-inline>")
  add_link_options(--coverage)
endif()
