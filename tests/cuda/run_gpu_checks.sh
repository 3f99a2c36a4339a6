#!/usr/bin/env bash
# Everything eltwise needs checked on a machine with an NVIDIA GPU (and its many cores), in one go.
#
#   bash tests/cuda/run_gpu_checks.sh [STEP...]        (default: every step, in this order)
#
# Steps (in order of priority):
#   machine      GPU, driver, CPU and toolkit
#   cuda_tests   eltwise_cuda_tests: every op and type over every layout of layout_cases.h,
#                bit-identical to the CPU backend and the oracle; > 2^32 elements; no test skips
#   cli          the CLI's CUDA tests (chunked streaming included), `eltwise info`, and
#                `eltwise onnx-test --device cuda` on ONNX's own Sign and Round node tests
#   python       the Python suite's GPU tests (NumPy, PyTorch, CuPy, JAX through DLPack; stream=),
#                then the whole Python suite
#   bench_cuda   `eltwise bench --device cuda` against a device-to-device copy, every type
#   bench_peers  bench/gpu_peers.py: eltwise against torch, CuPy and JAX on the same tensors;
#                bench/gpu_call_overhead.py: the host time of one call, taken apart
#   sanitizers   compute-sanitizer memcheck (a few types), racecheck, synccheck, initcheck
#   cpu_scaling  `eltwise bench` on the CPU at 1, 2, 4, 8 and 16 threads against a copy with as many
#   cpu_tests    the CPU suite's main binary, sharded over every core (this CPU's SIMD targets)
#
# Binaries: ELTWISE_PREBUILT names a folder made by tests/cuda/pack_gpu_checks.sh elsewhere (the
# binaries, their libraries, wheels); otherwise the tree is configured and built into BUILD_DIR
# (default build-gpu; DEPS_PREFIX: a prefix where Highway, GoogleTest, CLI11, ... are unpacked;
# EXTRA_CMAKE_ARGS: more -D options). ELTWISE_WHEELS: a folder of wheels to install for Python
# (default: the packed ones), else Python uses eltwise as installed.
# Logs: each step to $LOG_DIR/<step>.log and all of them to $LOG_DIR/all.log; tables as JSON;
# LOG_DIR defaults to $OUT when set. DEADLINE_S bounds the whole run (default 3600 s): each step
# gets the smaller of its own limit and the time left. Exit status 0 when every check passed.
set -u -o pipefail

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
BUILD_DIR=${BUILD_DIR:-$ROOT/build-gpu}
if [[ -n "${OUT:-}" ]]; then LOG_DIR=${LOG_DIR:-$OUT}; else LOG_DIR=${LOG_DIR:-$BUILD_DIR/gpu-checks}; fi
DEADLINE_S=${DEADLINE_S:-3600}
JOBS=${JOBS:-$(nproc)}
mkdir -p "$LOG_DIR/steps"
ALL_LOG=$LOG_DIR/all.log
STARTED=$SECONDS
export PYTHONUNBUFFERED=1 XLA_PYTHON_CLIENT_PREALLOCATE=false

declare -a SUMMARY=()
FAILED=0
note() { echo "$*" | tee -a "$ALL_LOG"; }
# step NAME LIMIT_S COMMAND...: runs COMMAND (a command or an exported function) under the smaller
# of LIMIT_S and the time left, logged to steps/NAME.log and all.log. A failure fails the run.
step() {
  local name=$1 limit=$2
  shift 2
  local left=$((DEADLINE_S - (SECONDS - STARTED)))
  ((limit > left)) && limit=$left
  if ((limit < 5)); then
    SUMMARY+=("$name: NOT RUN (deadline)")
    FAILED=1
    return 1
  fi
  note "=== $name (limit ${limit} s): $*"
  local start=$SECONDS
  timeout --kill-after=10 "$limit" bash -o pipefail -c '"$@"' step "$@" 2>&1 | tee "$LOG_DIR/steps/$name.log" >>"$ALL_LOG"
  local rc=${PIPESTATUS[0]}
  local result="FAILED (exit $rc)"
  [[ $rc == 0 ]] && result=ok
  [[ $rc == 124 || $rc == 137 ]] && result="TIMED OUT after $limit s"
  SUMMARY+=("$name: $result in $((SECONDS - start)) s")
  note "=== $name: $result in $((SECONDS - start)) s"
  [[ $rc == 0 ]] || FAILED=1
  return "$rc"
}

NATIVE_LIBS=
ELTWISE_WHEELS=${ELTWISE_WHEELS:-}
# native COMMAND...: runs one of the binaries (or a tool running them) with their libraries.
native() { LD_LIBRARY_PATH="${NATIVE_LIBS}${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}" "$@"; }

find_tool() {  # find_tool NAME: PATH, then the CUDA toolkit's usual places
  local name=$1 dir
  if command -v "$name" >/dev/null 2>&1; then command -v "$name"; return 0; fi
  for dir in "${CUDA_HOME:-/usr/local/cuda}/bin" "${CUDA_HOME:-/usr/local/cuda}/compute-sanitizer" \
             /usr/local/cuda/bin /usr/local/cuda/compute-sanitizer /opt/nvidia/*/bin; do
    if [[ -x "$dir/$name" ]]; then echo "$dir/$name"; return 0; fi
  done
  return 1
}

# --- binaries -----------------------------------------------------------------------------------
if [[ -n "${ELTWISE_PREBUILT:-}" ]]; then
  PREBUILT=$(realpath "$ELTWISE_PREBUILT")
  BUILD_DIR=$(cat "$PREBUILT/build_dir")
  # The binaries name each other by the build folder's absolute path: make it lead to the copy.
  if [[ ! -e "$BUILD_DIR" ]]; then
    mkdir -p "$(dirname "$BUILD_DIR")"
    ln -s "$PREBUILT/build" "$BUILD_DIR"
  fi
  NATIVE_LIBS=$PREBUILT/lib  # for the packed binaries only: Python keeps the system's libraries
  [[ -d "$PREBUILT/onnx" ]] && export ONNX_NODE_DIR=$PREBUILT/onnx
  ELTWISE_WHEELS=${ELTWISE_WHEELS:-$PREBUILT/wheels}
else
  GENERATOR=()
  command -v ninja >/dev/null 2>&1 && GENERATOR=(-G Ninja)
  PREFIX_ARGS=()
  if [[ -n "${DEPS_PREFIX:-}" ]]; then
    PREFIX_ARGS=(-DCMAKE_PREFIX_PATH="$DEPS_PREFIX")
    NATIVE_LIBS=$DEPS_PREFIX/lib/x86_64-linux-gnu
  fi
  NVCC=$(find_tool nvcc) && export CUDACXX=$NVCC
  # shellcheck disable=SC2086  # EXTRA_CMAKE_ARGS: more -D options, split on spaces
  step configure 300 cmake -S "$ROOT" -B "$BUILD_DIR" "${GENERATOR[@]}" -DCMAKE_BUILD_TYPE=Release \
    -DELTWISE_CUDA=ON -DELTWISE_BUILD_TESTS=ON -DELTWISE_CUDA_ARCHITECTURES=90 \
    "${PREFIX_ARGS[@]}" ${EXTRA_CMAKE_ARGS:-} || exit 1
  step build 1200 cmake --build "$BUILD_DIR" -j "$JOBS" --target eltwise_cuda_tests eltwise_cli \
    eltwise_cli_tests eltwise_tests || exit 1
fi
# ELTWISE_WHEELS: a folder of wheels for this machine's python3, installed into a private folder.
shopt -s nullglob
wheels=("${ELTWISE_WHEELS:-/nonexistent}"/*.whl)
shopt -u nullglob
if ((${#wheels[@]} > 0)); then
  SITE=${SITE:-/tmp/eltwise-site}
  if python3 -m pip install -q --no-index --no-deps --no-compile --target "$SITE" "${wheels[@]}" \
      >>"$ALL_LOG" 2>&1; then
    export PYTHONPATH="$SITE${PYTHONPATH:+:$PYTHONPATH}"
  else
    note "pip could not install ${wheels[*]} (wheel for another Python?)"
  fi
fi
TESTS=$BUILD_DIR/tests/cuda/eltwise_cuda_tests
CLI=$BUILD_DIR/tools/eltwise
CLI_TESTS=$BUILD_DIR/tests/cli/eltwise_cli_tests

# --- steps --------------------------------------------------------------------------------------
machine() {
  date -u
  uname -a
  nvidia-smi --query-gpu=name,compute_cap,memory.total,driver_version,clocks.max.sm,clocks.max.mem \
    --format=csv || echo "nvidia-smi failed"
  nvidia-smi | head -5
  lscpu | grep -E '^(Model name|CPU\(s\)|Thread|Core|Socket|L3|NUMA node\(s\))'
  grep -o -w -E 'avx512f|avx512bw|avx512_bf16|avx512_fp16|avx2' /proc/cpuinfo | sort | uniq -c
  free -g | head -2
  (NVCC=$(find_tool nvcc) && "$NVCC" --version | tail -2) || true
  python3 -c 'import sys, numpy; print("python", sys.version.split()[0], "numpy", numpy.__version__)'
  python3 -c 'import torch; print("torch", torch.__version__, torch.version.cuda)' || true
  python3 -c 'import cupy; print("cupy", cupy.__version__)' || true
  python3 -c 'import jax; print("jax", jax.__version__, jax.devices())' || true
  native "$CLI" info | head -20
}

# Every GPU test must run, not skip (a skip means the GPU was not usable).
cuda_tests() {
  local out=$LOG_DIR/steps/cuda_tests.out rc
  native "$TESTS" --gtest_print_time=1 >"$out" 2>&1
  rc=$?
  grep -E '^\[ *(FAILED|SKIPPED|PASSED|  OK) *\]|tests ran' "$out" | grep -v '^\[       OK \]' | tail -40
  grep -E '^\[       OK \].*\(([0-9]{4,}) ms\)' "$out" | head -20  # the slow ones
  [[ $rc == 0 ]] || { grep -B2 -A12 'Failure' "$out" | head -150; return "$rc"; }
  if grep -E '^\[  SKIPPED \] [A-Za-z0-9_/]+\.' "$out" | grep -v 'WithoutGpuIsUnsupportedNotACrash' |
      grep -q .; then
    echo "CUDA tests were skipped: the GPU was not usable" >&2
    return 1
  fi
}

cli() {
  local rc=0 node
  native "$CLI_TESTS" --gtest_filter='Cli.CudaDevice:Cli.StreamedInChunks' || rc=1
  node=${ONNX_NODE_DIR:-$(python3 -c 'import onnx, os; print(os.path.dirname(onnx.__file__))')/backend/test/data/node}
  if [[ -d "$node/test_sign" ]]; then
    native "$CLI" onnx-test --device cuda "$node/test_sign" "$node/test_round" || rc=1
    native "$CLI" run --device cuda "$node/test_round/model.onnx" \
      -i "$node/test_round/test_data_set_0/input_0.pb" -o /tmp/round_cuda.pb || rc=1
    cmp /tmp/round_cuda.pb "$node/test_round/test_data_set_0/output_0.pb" && echo "run: output_0 identical" ||
      { echo "eltwise run --device cuda: output differs from ONNX's output_0.pb"; rc=1; }
  else
    echo "no ONNX node tests in $node"; rc=1
  fi
  # A 1 GiB file streamed through the GPU in chunks must equal the CPU's output.
  python3 -c 'import numpy as np; np.save("/tmp/big.npy", (np.arange(1 << 28, dtype=np.float32) - (1 << 27)) / 4)'
  local TIMEFORMAT
  for device in cpu cuda; do
    TIMEFORMAT="round --device $device, 1 GiB: %R s"
    time native "$CLI" round --quiet --device "$device" --mode toward_infinity /tmp/big.npy \
      "/tmp/big_$device.npy" || rc=1
  done
  cmp /tmp/big_cpu.npy /tmp/big_cuda.npy && echo "1 GiB stream: CPU and CUDA outputs identical" || rc=1
  rm -f /tmp/big*.npy
  return $rc
}

python_tests() {
  local rc=0
  python3 -c 'import eltwise; print(eltwise.__file__, eltwise.info())' || return 1
  python3 -m pytest -p no:cacheprovider -q -rs "$ROOT/python/tests/test_cuda.py" \
    "$ROOT/python/tests/test_dlpack.py" "$ROOT/python/tests/test_errors.py" || rc=1
  local parallel=()
  python3 -c 'import xdist' 2>/dev/null && parallel=(-n 8)
  # The rest of the suite. Files whose packages this machine lacks (dask, mypy, ...) fail to
  # collect; the others still run.
  python3 -m pytest -p no:cacheprovider -q "${parallel[@]}" --continue-on-collection-errors \
    --ignore="$ROOT/python/tests/test_cuda.py" --ignore="$ROOT/python/tests/test_dlpack.py" \
    --ignore="$ROOT/python/tests/test_errors.py" "$ROOT/python/tests" || rc=1
  return $rc
}

bench_cuda() {
  native "$CLI" bench --device cuda --quiet --layouts contiguous --sizes ${BENCH_SIZES:-4K 1M 16M 256M 1G} \
    ${BENCH_DTYPES:+--dtypes $BENCH_DTYPES} --min-time 0.02 --repeats 3 \
    --json "$LOG_DIR/bench_cuda_contiguous.json" || return 1
  native "$CLI" bench --device cuda --quiet --dtypes ${BENCH_LAYOUT_DTYPES:-float32 float16 int8 float64} \
    --layouts transposed broadcast gathered inplace --sizes 16M 256M \
    --min-time 0.02 --repeats 3 --json "$LOG_DIR/bench_cuda_layouts.json"
}

bench_peers() {
  python3 "$ROOT/bench/gpu_peers.py" --json "$LOG_DIR/gpu_peers.json" &&
    python3 "$ROOT/bench/gpu_call_overhead.py"
}

sanitizers() {
  local sanitizer rc=0
  sanitizer=$(find_tool compute-sanitizer) || { echo "compute-sanitizer not found"; return 1; }
  local quick='*CudaSemantics*_float32:*CudaSemantics*_float16:*CudaSemantics*sign_nan_zero_int8:*CudaSemantics*round_up_uint64:*CudaDevice*:-*SixtyFourBitIndexing*'
  local tiled='*CudaSemantics*sign_nan_zero_float32:*CudaSemantics*round_up_float64:*CudaSemantics*sign_nan_zero_int8:*CudaSemantics*round_down_bfloat16'
  native "$sanitizer" --tool memcheck --error-exitcode 99 --leak-check full "$TESTS" --gtest_filter="$quick" |
    tail -5 || rc=1
  for tool in racecheck synccheck initcheck; do
    native "$sanitizer" --tool "$tool" --error-exitcode 99 "$TESTS" --gtest_filter="$tiled" | tail -3 || rc=1
  done
  return $rc
}

cpu_scaling() {
  local threads
  for threads in ${CPU_THREADS:-1 2 4 8 16}; do
    native "$CLI" bench --device cpu --threads "$threads" --quiet --ops sign round --dtypes float32 \
      --layouts contiguous transposed gathered --sizes 256M --min-time 0.05 --repeats 3 \
      --json "$LOG_DIR/steps/cpu_threads_$threads.json" || return 1
  done
}

# The CPU suite's main binary in as many gtest shards as there are cores (on this CPU's SIMD
# targets: AVX-512 ones where it has them).
cpu_tests() {
  local binary=$BUILD_DIR/tests/eltwise_tests shards i rc=0
  shards=$(nproc)
  for ((i = 0; i < shards; ++i)); do
    GTEST_TOTAL_SHARDS=$shards GTEST_SHARD_INDEX=$i native "$binary" >"$LOG_DIR/steps/cpu_shard_$i.log" 2>&1 &
  done
  for ((i = 0; i < shards; ++i)); do wait -n || rc=1; done
  grep -h -E '^\[  (PASSED|FAILED) ' "$LOG_DIR"/steps/cpu_shard_*.log | sort | uniq -c
  grep -h -A8 'Failure' "$LOG_DIR"/steps/cpu_shard_*.log | head -60
  return $rc
}

export ROOT BUILD_DIR LOG_DIR TESTS CLI CLI_TESTS NATIVE_LIBS
export -f native find_tool machine cuda_tests cli python_tests bench_cuda bench_peers sanitizers \
  cpu_scaling cpu_tests
declare -A LIMIT=([machine]=60 [cuda_tests]=200 [cli]=90 [python]=150 [bench_cuda]=120
                  [bench_peers]=90 [sanitizers]=150 [cpu_scaling]=120 [cpu_tests]=90)
ALL_STEPS=(machine cuda_tests cli python sanitizers bench_cuda bench_peers cpu_scaling cpu_tests)
STEPS=("$@")
((${#STEPS[@]} == 0)) && STEPS=("${ALL_STEPS[@]}")
for name in "${STEPS[@]}"; do
  fn=$name
  [[ $name == python ]] && fn=python_tests
  step "$name" "${LIMIT[$name]:-120}" "$fn"
done

note ""
note "=== summary ($((SECONDS - STARTED)) s; logs in $LOG_DIR)"
printf '%s\n' "${SUMMARY[@]}" | tee "$LOG_DIR/summary.txt" | tee -a "$ALL_LOG"
tar -czf "$LOG_DIR/steps.tar.gz" -C "$LOG_DIR" steps 2>/dev/null && rm -rf "$LOG_DIR/steps"
exit "$FAILED"
