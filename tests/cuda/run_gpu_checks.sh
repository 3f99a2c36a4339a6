#!/usr/bin/env bash
# Everything the CUDA backend needs checked on a machine with an NVIDIA GPU, in one go:
#   1. configure and build (ELTWISE_CUDA=ON) into $BUILD_DIR (default build-gpu);
#   2. the CUDA tests (eltwise_cuda_tests: host checks and every GPU test), then the whole ctest suite;
#   3. compute-sanitizer: memcheck over the CUDA tests, racecheck and synccheck over the tiled
#      (shared memory) layouts, initcheck (QUICK=1: fewer types under memcheck);
#   4. `eltwise info` and `eltwise bench --device cuda` (skipped if the CLI or the bench command is
#      not built).
# Logs go to $LOG_DIR (default: $OUT/gpu-checks when $OUT is set, else $BUILD_DIR/gpu-checks).
# Extra arguments are passed to the CMake configure step (e.g. -DELTWISE_BUILD_ONNX=OFF).
# Exit status: 0 when steps 1-3 pass; the benchmark is informative only.
set -u -o pipefail

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
BUILD_DIR=${BUILD_DIR:-$ROOT/build-gpu}
if [[ -n "${OUT:-}" ]]; then LOG_DIR=${LOG_DIR:-$OUT/gpu-checks}; else LOG_DIR=${LOG_DIR:-$BUILD_DIR/gpu-checks}; fi
JOBS=${JOBS:-$(nproc)}
BENCH_SIZES=${BENCH_SIZES:-"4K 256K 64M 256M 1G"}
mkdir -p "$LOG_DIR"

declare -a SUMMARY=()
FAILED=0
step() {  # step NAME REQUIRED(1/0) COMMAND...: runs COMMAND, logs to $LOG_DIR/NAME.log
  local name=$1 required=$2
  shift 2
  echo "=== $name: $*"
  local start=$SECONDS
  "$@" 2>&1 | tee "$LOG_DIR/$name.log"
  local rc=${PIPESTATUS[0]}
  local result="FAILED (exit $rc)"
  [[ $rc == 0 ]] && result=ok
  local line="$name: $result in $((SECONDS - start)) s"
  SUMMARY+=("$line")
  echo "=== $line"
  if [[ $rc != 0 && $required == 1 ]]; then FAILED=1; fi
  return "$rc"
}

find_tool() {  # find_tool NAME: PATH, then the CUDA toolkit's usual places
  local name=$1 dir
  if command -v "$name" >/dev/null 2>&1; then command -v "$name"; return 0; fi
  for dir in "${CUDA_HOME:-/usr/local/cuda}/bin" "${CUDA_HOME:-/usr/local/cuda}/compute-sanitizer" \
             /usr/local/cuda/bin /usr/local/cuda/compute-sanitizer /opt/nvidia/*/bin; do
    if [[ -x "$dir/$name" ]]; then echo "$dir/$name"; return 0; fi
  done
  return 1
}

{
  echo "date: $(date -u)"
  echo "host: $(uname -a)"
  if command -v nvidia-smi >/dev/null 2>&1; then
    nvidia-smi --query-gpu=index,name,compute_cap,memory.total,driver_version --format=csv
  else
    echo "nvidia-smi not found"
  fi
  NVCC=$(find_tool nvcc) && "$NVCC" --version | tail -2
} 2>&1 | tee "$LOG_DIR/machine.log"

GENERATOR=()
command -v ninja >/dev/null 2>&1 && GENERATOR=(-G Ninja)
CUDA_COMPILER=()
NVCC=$(find_tool nvcc) && CUDA_COMPILER=(-DCMAKE_CUDA_COMPILER="$NVCC")

if ! step configure 1 cmake -S "$ROOT" -B "$BUILD_DIR" "${GENERATOR[@]}" -DCMAKE_BUILD_TYPE=Release \
    -DELTWISE_CUDA=ON -DELTWISE_BUILD_TESTS=ON "${CUDA_COMPILER[@]}" "$@"; then
  printf '%s\n' "${SUMMARY[@]}"
  exit 1
fi
if ! step build 1 cmake --build "$BUILD_DIR" -j "$JOBS"; then
  printf '%s\n' "${SUMMARY[@]}"
  exit 1
fi

TESTS="$BUILD_DIR/tests/cuda/eltwise_cuda_tests"
# Every GPU test must run, not skip (a skip means the GPU was not usable); only the no-GPU check
# skips on a GPU machine.
# shellcheck disable=SC2317  # invoked through `step`
check_cuda_tests() {
  local out="$LOG_DIR/cuda_tests.out" rc
  "$TESTS" >"$out" 2>&1
  rc=$?
  cat "$out"
  [[ $rc == 0 ]] || return "$rc"
  if grep '^\[  SKIPPED \]' "$out" | grep -v 'WithoutGpuIsUnsupportedNotACrash' | grep -q .; then
    echo "CUDA tests were skipped: the GPU was not usable" >&2
    return 1
  fi
}
step cuda_tests 1 check_cuda_tests
step ctest_all 1 ctest --test-dir "$BUILD_DIR" --output-on-failure -j "$JOBS"

# QUICK=1 runs the sanitizers on a few types only.
if [[ "${QUICK:-0}" == 1 ]]; then
  MEMCHECK_FILTER='*CudaSemantics*_float32:*CudaSemantics*_float16:*CudaSemantics*sign_nan_zero_int8:*CudaSemantics*round_up_uint64:*CudaDevice*:-*SixtyFourBitIndexing*'
else
  # Every GPU test but the 4 GiB one (the sanitizer's shadow memory would double it).
  MEMCHECK_FILTER='*CudaSemantics*:*CudaDevice*:-*SixtyFourBitIndexing*'
fi
TILED_FILTER='*CudaSemantics*sign_nan_zero_float32:*CudaSemantics*round_up_float64:*CudaSemantics*sign_nan_zero_int8:*CudaSemantics*round_down_bfloat16'
if SANITIZER=$(find_tool compute-sanitizer); then
  step memcheck 1 "$SANITIZER" --tool memcheck --error-exitcode 99 --leak-check full \
    "$TESTS" --gtest_filter="$MEMCHECK_FILTER"
  step racecheck 1 "$SANITIZER" --tool racecheck --error-exitcode 99 \
    "$TESTS" --gtest_filter="$TILED_FILTER"
  step synccheck 1 "$SANITIZER" --tool synccheck --error-exitcode 99 \
    "$TESTS" --gtest_filter="$TILED_FILTER"
  step initcheck 1 "$SANITIZER" --tool initcheck --error-exitcode 99 \
    "$TESTS" --gtest_filter="$TILED_FILTER"
else
  SUMMARY+=("compute-sanitizer: NOT FOUND (not run)")
  FAILED=1
fi

CLI="$BUILD_DIR/tools/eltwise"
if [[ -x "$CLI" ]]; then
  step info 0 "$CLI" info
  if "$CLI" bench --help >/dev/null 2>&1; then
    # shellcheck disable=SC2086
    step bench_cuda 0 "$CLI" bench --device cuda --sizes $BENCH_SIZES --json "$LOG_DIR/bench_cuda.json"
  else
    SUMMARY+=("bench_cuda: the CLI has no bench command (not run)")
  fi
else
  SUMMARY+=("info, bench_cuda: $CLI not built (not run)")
fi

echo
echo "=== summary (logs in $LOG_DIR)"
printf '%s\n' "${SUMMARY[@]}" | tee "$LOG_DIR/summary.log"
exit "$FAILED"
