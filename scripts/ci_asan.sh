#!/usr/bin/env bash
# CI's `asan` stage (default): AddressSanitizer + UndefinedBehaviorSanitizer over the tests of the
# code that moves memory: every kernel table (the exhaustive 8/16-bit semantics on each compiled
# SIMD target), the layouts and their walkers, partial overlap, validation and staging
# (eltwise_tests), and the command-line tool with its streamed files (eltwise_cli_tests, which runs
# the instrumented `eltwise`). Each test program runs as one gtest shard per CPU side by side (not
# a process per test), in a time box: a run that needs longer fails the stage rather than
# stretching CI.
# The SIMD kernels' sources are compiled without ASan's use-after-scope checks
# (src/cpu/simd/simd.cmake says why); everything else has them.
# `bash scripts/ci_asan.sh all` runs the whole suite under the `asan` preset instead (`full`).
#   usage: bash scripts/ci_asan.sh [quick|all]
set -euo pipefail
cd "$(dirname "$0")/.."
PLATFORM=asan
source scripts/ci_lib.sh

export ASAN_OPTIONS="detect_leaks=1:check_initialization_order=1:strict_init_order=1:detect_stack_use_after_return=1"
export UBSAN_OPTIONS="print_stacktrace=1:halt_on_error=1"

if [ "${1:-quick}" = all ]; then
  cmake --preset asan >/dev/null
  cmake --build --preset asan
  ctest --preset asan
  exit 0
fi

build=build/asan-ci
step "configure and build (preset asan, no ONNX front end)"
cmake --preset asan -B "$build" -DELTWISE_BUILD_ONNX=OFF "$(sanitizer_build_flags every_target)" >/dev/null
cmake --build "$build" -j2 --target eltwise_tests eltwise_cli eltwise_cli_tests

export GTEST_BRIEF=1
sharded "eltwise_tests" timeout 2400 "$build/tests/eltwise_tests"
sharded "eltwise_cli_tests" timeout 900 "$build/tests/cli/eltwise_cli_tests"
step "done"
