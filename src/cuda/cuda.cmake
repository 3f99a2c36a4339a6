# The CUDA backend. Until it exists, the library reports kUnsupported for CUDA devices.
target_sources(eltwise PRIVATE ${CMAKE_CURRENT_LIST_DIR}/cuda_unavailable.cc)
