# The CUDA backend. ELTWISE_CUDA: AUTO builds it when nvcc is found, ON requires it, OFF leaves it
# out; without it the library links cuda_unavailable.cc and reports kUnsupported for CUDA devices.
#
# Included by the top-level CMakeLists.txt BEFORE any target exists: a target takes its
# CUDA_ARCHITECTURES from CMAKE_CUDA_ARCHITECTURES when it is created, and the Makefile generator
# rejects a target that links CUDA objects with that property empty.
#
# Kernels are compiled for sm_80 and sm_90 plus compute_90 PTX (newer GPUs JIT it); override with
# ELTWISE_CUDA_ARCHITECTURES. Never --use_fast_math or flush-to-zero: results are bit patterns
# (functors.h) and a positive subnormal's Sign is +1 on the GPU too.
#
# Sets, for the top level: ELTWISE_WITH_CUDA, and appends to eltwise_backend_sources,
# eltwise_object_libraries and eltwise_link_libraries.
set(ELTWISE_CUDA_ARCHITECTURES "80-real;90" CACHE STRING
    "CUDA architectures for the eltwise kernels (CMake CUDA_ARCHITECTURES syntax)")

set(ELTWISE_WITH_CUDA OFF)
if(ELTWISE_CUDA STREQUAL "ON")
  set(ELTWISE_WITH_CUDA ON)
elseif(ELTWISE_CUDA STREQUAL "AUTO")
  include(CheckLanguage)
  check_language(CUDA)
  if(CMAKE_CUDA_COMPILER)
    set(ELTWISE_WITH_CUDA ON)
  else()
    message(STATUS "eltwise: nvcc not found; building without the CUDA backend")
  endif()
elseif(NOT ELTWISE_CUDA STREQUAL "OFF")
  message(FATAL_ERROR "ELTWISE_CUDA is '${ELTWISE_CUDA}'; it must be AUTO, ON or OFF")
endif()

if(NOT ELTWISE_WITH_CUDA)
  list(APPEND eltwise_backend_sources ${CMAKE_CURRENT_LIST_DIR}/cuda_unavailable.cc)
  return()
endif()

if(NOT DEFINED CMAKE_CUDA_ARCHITECTURES)
  # Keeps enable_language from probing the default architecture, and gives every target created
  # from here on a non-empty CUDA_ARCHITECTURES.
  set(CMAKE_CUDA_ARCHITECTURES ${ELTWISE_CUDA_ARCHITECTURES})
endif()
enable_language(CUDA)
find_package(CUDAToolkit REQUIRED)
if(NOT DEFINED CMAKE_CUDA20_STANDARD_COMPILE_OPTION)
  # CMake before 3.26 does not know nvcc's C++20 flag (nvcc has it since 12.0).
  set(CMAKE_CUDA20_STANDARD_COMPILE_OPTION "-std=c++20")
  set(CMAKE_CUDA20_EXTENSION_COMPILE_OPTION "-std=c++20")
endif()
message(STATUS "eltwise: CUDA backend enabled (nvcc ${CMAKE_CUDA_COMPILER_VERSION}, "
               "architectures ${ELTWISE_CUDA_ARCHITECTURES})")

# A separate object library keeps the CUDA compile flags apart from the C++ ones; its objects go
# into the same libraries as the rest (see the top-level CMakeLists.txt).
add_library(eltwise_cuda_objects OBJECT
  ${CMAKE_CURRENT_LIST_DIR}/cuda_backend.cc
  ${CMAKE_CURRENT_LIST_DIR}/launch.cc
  ${CMAKE_CURRENT_LIST_DIR}/kernels_float.cu
  ${CMAKE_CURRENT_LIST_DIR}/kernels_half.cu
  ${CMAKE_CURRENT_LIST_DIR}/kernels_integer.cu
)
set_target_properties(eltwise_cuda_objects PROPERTIES
  CUDA_ARCHITECTURES "${ELTWISE_CUDA_ARCHITECTURES}"
  CUDA_STANDARD 20
  CUDA_STANDARD_REQUIRED ON
  CUDA_EXTENSIONS OFF
  CXX_VISIBILITY_PRESET hidden
  CUDA_VISIBILITY_PRESET hidden
  VISIBILITY_INLINES_HIDDEN ON
  POSITION_INDEPENDENT_CODE ON)
target_include_directories(eltwise_cuda_objects PRIVATE
  ${PROJECT_SOURCE_DIR}/include ${PROJECT_SOURCE_DIR}/src)
target_compile_definitions(eltwise_cuda_objects PRIVATE ${eltwise_build_definitions})
target_link_libraries(eltwise_cuda_objects PRIVATE CUDA::cudart_static)
target_compile_options(eltwise_cuda_objects PRIVATE
  $<$<COMPILE_LANGUAGE:CXX>:-Wall -Wextra>
  # Exact IEEE behaviour: no flush-to-zero and IEEE division/sqrt (nvcc's defaults, stated so
  # no toolchain flags change them) and no FMA contraction (the kernels compute on bit patterns).
  $<$<COMPILE_LANGUAGE:CUDA>:-ftz=false -prec-div=true -prec-sqrt=true -fmad=false>
  $<$<COMPILE_LANGUAGE:CUDA>:-Xcompiler=-Wall,-Wextra>)

list(APPEND eltwise_object_libraries eltwise_cuda_objects)
list(APPEND eltwise_link_libraries CUDA::cudart_static)
