# Highway SIMD kernels for the CPU backend (one KernelTable per compiled target, runtime dispatch)
# and the persistent thread pool. Without Highway the backend runs the scalar reference table.
# Libraries are linked by path (not imported targets) so the installed eltwiseTargets.cmake needs
# nothing extra from consumers.
find_package(PkgConfig QUIET)
if(PkgConfig_FOUND)
  pkg_check_modules(ELTWISE_HWY_PC QUIET libhwy)
endif()
find_library(ELTWISE_HWY_LIBRARY hwy HINTS ${ELTWISE_HWY_PC_LIBRARY_DIRS})
find_path(ELTWISE_HWY_INCLUDE_DIR hwy/highway.h HINTS ${ELTWISE_HWY_PC_INCLUDE_DIRS})
set(THREADS_PREFER_PTHREAD_FLAG ON)
find_package(Threads REQUIRED)

target_sources(eltwise PRIVATE ${CMAKE_CURRENT_LIST_DIR}/../thread_pool.cc)
if(CMAKE_THREAD_LIBS_INIT)
  target_link_libraries(eltwise PUBLIC ${CMAKE_THREAD_LIBS_INIT})
endif()

if(ELTWISE_HWY_LIBRARY AND ELTWISE_HWY_INCLUDE_DIR)
  target_sources(eltwise PRIVATE ${CMAKE_CURRENT_LIST_DIR}/simd_kernels.cc)
  target_include_directories(eltwise SYSTEM PRIVATE ${ELTWISE_HWY_INCLUDE_DIR})
  target_link_libraries(eltwise PRIVATE ${ELTWISE_HWY_LIBRARY})
  message(STATUS "eltwise: Highway ${ELTWISE_HWY_PC_VERSION} SIMD kernels (${ELTWISE_HWY_LIBRARY})")
else()
  target_sources(eltwise PRIVATE ${CMAKE_CURRENT_LIST_DIR}/no_simd.cc)
  message(WARNING "eltwise: Highway (libhwy-dev) not found; the CPU backend is scalar only")
endif()
