#!/usr/bin/env bash
# Linux s390x (big-endian), optional: cross-builds eltwise and runs under qemu-s390x the scalar
# kernel tables (Highway's SCALAR target and the reference loops; Highway has no SIMD target for
# this CPU) on every function and type, exhaustively for 8/16-bit, the .npy reader and writer in
# both byte orders, and the CLI. Needs scripts/setup_cross.sh s390x. Part of `.ci/run full` (about
# 3.5 minutes on a 2-core machine), not of the default run.
set -euo pipefail
cd "$(dirname "$0")/.."
PLATFORM=s390x
source scripts/ci_lib.sh

step "configure and build (preset s390x)"
cmake --preset s390x >/dev/null
cmake --build --preset s390x

bin=build/s390x
run() {  # run NAME PROGRAM ARGS...: one program under qemu-s390x
  local name=$1
  shift
  timed "$name" qemu-s390x "$@"
}
echo "-- s390x: $(qemu-s390x $bin/tools/eltwise info | grep targets)"
export GTEST_BRIEF=1
semantics='*KernelSemantics*:*PublicApiSemantics*:DirectMLRoundingTable.*'
semantics+=':SignedZeroAndSpecials.*:IntegerSign.*:SignOnnxExample.*'
run "eltwise_tests (kernel tables, public API, DirectML table)" $bin/tests/eltwise_tests \
  --gtest_filter="$semantics"
run "eltwise_npy_tests (both byte orders)" $bin/tests/npy/eltwise_npy_tests
run "eltwise_cli_tests" $bin/tests/cli/eltwise_cli_tests
run "eltwise_fuzz_regression_test" $bin/tests/eltwise_fuzz_regression_test
step "done"
