# The committed corpora (fuzz/corpus/<fuzzer>) replayed as tests: each fuzz target is also linked
# with fuzz/replay_main.cc instead of libFuzzer (any compiler; the sanitizer presets instrument it
# like the rest), and CTest runs it over its corpus (tests fuzz_replay_<fuzzer>, label fuzz).
# Three targets include libFuzzer's header-only FuzzedDataProvider.h, which comes with clang; they
# are skipped, with a message, where it is absent. Included by tests/CMakeLists.txt.
set(eltwise_fuzz_dir ${PROJECT_SOURCE_DIR}/fuzz)
if(CMAKE_CXX_COMPILER_ID MATCHES "Clang")
  set(ELTWISE_FUZZED_DATA_PROVIDER_INCLUDE "")  # clang's own include folder has it
else()
  file(GLOB eltwise_clang_includes LIST_DIRECTORIES true /usr/lib/llvm-*/lib/clang/*/include)
  find_path(ELTWISE_FUZZED_DATA_PROVIDER_INCLUDE fuzzer/FuzzedDataProvider.h
            PATHS ${eltwise_clang_includes} NO_DEFAULT_PATH)
endif()

# eltwise_add_fuzz_replay(name needs_provider [libraries...])
function(eltwise_add_fuzz_replay name needs_provider)
  if(needs_provider AND NOT CMAKE_CXX_COMPILER_ID MATCHES "Clang"
     AND NOT ELTWISE_FUZZED_DATA_PROVIDER_INCLUDE)
    message(STATUS "eltwise: fuzz_replay_${name} skipped (no fuzzer/FuzzedDataProvider.h: "
                   "it comes with clang)")
    return()
  endif()
  add_executable(${name}_replay ${eltwise_fuzz_dir}/${name}.cc ${eltwise_fuzz_dir}/replay_main.cc)
  target_link_libraries(${name}_replay PRIVATE eltwise_internal ${ARGN})
  target_include_directories(${name}_replay PRIVATE ${PROJECT_SOURCE_DIR}/src ${eltwise_fuzz_dir})
  if(needs_provider AND ELTWISE_FUZZED_DATA_PROVIDER_INCLUDE)
    # Only that header is wanted from clang's folder, which also holds clang's own stddef.h and
    # intrinsics headers: searched after the compiler's system folders (-idirafter).
    target_compile_options(${name}_replay PRIVATE
                           "SHELL:-idirafter ${ELTWISE_FUZZED_DATA_PROVIDER_INCLUDE}")
  endif()
  add_test(NAME fuzz_replay_${name}
           COMMAND ${name}_replay ${eltwise_fuzz_dir}/corpus/${name})
  set_tests_properties(fuzz_replay_${name} PROPERTIES LABELS fuzz
                       PASS_REGULAR_EXPRESSION "^replayed [1-9][0-9]* inputs")
endfunction()

eltwise_add_fuzz_replay(descriptor_fuzzer ON)
eltwise_add_fuzz_replay(kernel_fuzzer ON)
if(TARGET eltwise_npy)
  eltwise_add_fuzz_replay(npy_fuzzer ON eltwise_npy)
endif()
if(TARGET eltwise_onnx)
  eltwise_add_fuzz_replay(onnx_model_fuzzer OFF eltwise_onnx)
  eltwise_add_fuzz_replay(onnx_tensor_fuzzer OFF eltwise_onnx)
endif()
