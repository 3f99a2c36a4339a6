#!/usr/bin/env bash
# shellcheck disable=SC2317  # the steps are functions run through `step` (bash -c), not called here
# Everything eltwise needs checked on a machine with an NVIDIA GPU (and its many cores), in one go,
# within a deadline, most important first.
#
#   bash tests/cuda/run_gpu_checks.sh [STEP...]        (default: every step, in this order)
#
# On a lent GPU machine, with binaries packed here first (the GPU machine has no registry and no
# time to build; ELTWISE_GPU_DEADLINE below the command's own time limit, so the run ends itself):
#   here:   cmake --preset cuda && cmake --build build/cuda -j2 --target eltwise_cuda_tests \
#             eltwise_cli eltwise_cli_tests eltwise_tests
#           bash tests/cuda/pack_gpu_checks.sh build/cuda build/gpu-pack [WHEEL...]
#   device: ELTWISE_PREBUILT=build/gpu-pack ELTWISE_GPU_DEADLINE=480 bash tests/cuda/run_gpu_checks.sh
#           (carrying build/gpu-pack; command time limit 540 s; results under $OUT)
#
# Steps, in order of priority (a step runs only if its least useful time is left, and never past
# the deadline; what it wrote until then stays):
#   machine       machine.txt: GPU, driver, toolkit, compute-sanitizer and ncu versions, CPU,
#                 memory, Python and its libraries, the commit
#   gpu_tests     eltwise_cuda_tests (every op and type over every layout of layout_cases.h,
#                 bit-identical to the CPU backend and the oracle; > 2^32 elements), sharded over
#                 GPU_TEST_SHARDS processes, and the CLI's CUDA tests; no GPU test may skip
#   memcheck      compute-sanitizer memcheck over every GPU test but the > 2^32-element ones
#                 (MEMCHECK_FILTER), in MEMCHECK_SHARDS processes at once (gtest sharding)
#   racecheck     compute-sanitizer racecheck, synccheck and initcheck, at once, over the
#                 CudaSemantics tests of one type per element size (every layout: tiled
#                 transposes, strided gathers, broadcasts, ...)
#   python_gpu    the Python suite's GPU tests (NumPy, PyTorch, CuPy, JAX through DLPack; stream=)
#   cli           `eltwise onnx-test --device cuda` on ONNX's Sign and Round node tests, `eltwise run
#                 --device cuda`, a 1 GiB file streamed through the GPU against the CPU's output
#   bench_cuda    `eltwise bench --device cuda` against a device-to-device copy: contiguous, every
#                 type; in place, broadcast, gathered, transposed
#   bench_peers   bench/gpu_peers.py: eltwise against torch, CuPy and JAX on the same tensors
#   call_overhead bench/gpu_call_overhead.py: the host time of one call, taken apart
#   cpu_threads   `eltwise bench` on the CPU at 1, 2, 4, 8 and 16 threads against a copy with as many
#   ncu           Nsight Compute's SpeedOfLight and MemoryWorkloadAnalysis sections for the cases
#                 below their target (NCU_CASES)
#   cpu_tests     the CPU suite's main binary, sharded over every core (this CPU's SIMD targets)
#
# Written under OUT_DIR ($OUT when set, else $LOG_DIR, else BUILD_DIR/gpu-checks), the layout that
# bench/gpu_tables.py reads from docs/data/<gpu>-<date>/:
#   steps.tsv           one row per step as it ends: step, status, seconds, note; status is ok,
#                       failed, timed out, skipped (deadline), not available (a tool or binary
#                       missing) or interrupted
#   machine.txt         `key: value` lines and nvidia-smi's CSV record
#   logs/STEP.log       each step's output
#   tests/*.xml *.log   gtest (--gtest_output=xml) and pytest (--junitxml) results, with their text
#   sanitizers/*.log    every compute-sanitizer log
#   ncu/*.txt           Nsight Compute reports
#   bench_cuda_contiguous.json bench_cuda_layouts.json gpu_peers.json call_overhead.txt
#   cpu_threads_N.json  the benchmarks' records
# ELTWISE_GPU_DEADLINE: seconds for the whole run from the script's start (default 480).
# Binaries: ELTWISE_PREBUILT names a folder made by tests/cuda/pack_gpu_checks.sh; otherwise the
# tree is configured and built into BUILD_DIR (default build-gpu; DEPS_PREFIX: a prefix where
# Highway, GoogleTest, CLI11, ... are unpacked; EXTRA_CMAKE_ARGS: more -D options), within the
# same deadline. ELTWISE_WHEELS: a folder of wheels to install for Python (default: the packed
# ones), else Python uses eltwise as installed.
# Exit status: 0 when every step ran and passed, 1 when one failed or timed out, 2 when none
# failed but some were skipped or not available.
set -u -o pipefail

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
BUILD_DIR=${BUILD_DIR:-$ROOT/build-gpu}
OUT_DIR=${OUT:-${LOG_DIR:-$BUILD_DIR/gpu-checks}}
DEADLINE=${ELTWISE_GPU_DEADLINE:-480}
JOBS=${JOBS:-$(nproc)}
STARTED=$SECONDS
mkdir -p "$OUT_DIR/logs" "$OUT_DIR/tests" "$OUT_DIR/sanitizers" "$OUT_DIR/ncu"
STEPS_TSV=$OUT_DIR/steps.tsv
printf 'step\tstatus\tseconds\tnote\n' >"$STEPS_TSV"
export PYTHONUNBUFFERED=1 XLA_PYTHON_CLIENT_PREALLOCATE=false
NOT_AVAILABLE=77  # a step's exit status when its tool or binary is missing

FAILED=0
INCOMPLETE=0
CURRENT=
CURRENT_START=0
note() { echo "$*" | tee -a "$OUT_DIR/logs/all.log"; }
record() {  # record STEP STATUS SECONDS NOTE: one row of steps.tsv, written at once
  printf '%s\t%s\t%s\t%s\n' "$1" "$2" "$3" "$4" >>"$STEPS_TSV"
  note "=== $1: $2 in $3 s${4:+ ($4)}"
  case $2 in
    ok) ;;
    skipped* | "not available") INCOMPLETE=1 ;;
    *) FAILED=1 ;;
  esac
}
# Stopped from outside: the step under way is recorded as such; the rest of the output stays.
on_signal() {
  [[ -n "$CURRENT" ]] && record "$CURRENT" interrupted $((SECONDS - CURRENT_START)) "signal"
  exit 1
}
trap on_signal TERM INT HUP

# step NAME NEED_S LIMIT_S FUNCTION: runs FUNCTION under the smaller of LIMIT_S and the time left
# before the deadline; skips it when less than NEED_S (the least time in which it is worth
# starting) is left.
step() {
  local name=$1 need=$2 limit=$3 fn=$4 left rc status start
  left=$((DEADLINE - (SECONDS - STARTED)))
  if ((left < need)); then
    record "$name" "skipped (deadline)" 0 "needs ${need} s, ${left} s left"
    return 0
  fi
  ((limit > left)) && limit=$left
  note "=== $name (limit ${limit} s)"
  CURRENT=$name CURRENT_START=$SECONDS
  start=$SECONDS
  timeout --kill-after=5 "$limit" bash -o pipefail -c '"$@"' step "$fn" >"$OUT_DIR/logs/$name.log" 2>&1
  rc=$?
  CURRENT=
  case $rc in
    0) status=ok ;;
    124 | 137) status="timed out" ;;
    "$NOT_AVAILABLE") status="not available" ;;
    *) status="failed" ;;
  esac
  record "$name" "$status" $((SECONDS - start)) \
    "$( ((rc == 0 || rc == 124 || rc == 137)) || tail -1 "$OUT_DIR/logs/$name.log" | tr '\t' ' ' | cut -c1-160)"
}

NATIVE_LIBS=
ELTWISE_WHEELS=${ELTWISE_WHEELS:-}
PREBUILT=
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
need_tool() {  # need_tool NAME: its path, or "not available: NAME" (stderr) and status 77
  find_tool "$1" || { echo "not available: $1 (not on PATH nor in the CUDA toolkit)" >&2; return "$NOT_AVAILABLE"; }
}
need_file() {  # need_file PATH...: each an executable, or "not available" and status 77
  local f
  for f in "$@"; do
    [[ -x "$f" ]] || { echo "not available: $f is not built"; return "$NOT_AVAILABLE"; }
  done
}

# --- binaries -----------------------------------------------------------------------------------
build() {
  local generator=() prefix_args=() nvcc
  command -v ninja >/dev/null 2>&1 && generator=(-G Ninja)
  [[ -n "${DEPS_PREFIX:-}" ]] && prefix_args=(-DCMAKE_PREFIX_PATH="$DEPS_PREFIX")
  nvcc=$(need_tool nvcc) || return
  # shellcheck disable=SC2086  # EXTRA_CMAKE_ARGS: more -D options, split on spaces
  CUDACXX=$nvcc cmake -S "$ROOT" -B "$BUILD_DIR" "${generator[@]}" -DCMAKE_BUILD_TYPE=Release \
    -DELTWISE_CUDA=ON -DELTWISE_BUILD_TESTS=ON -DELTWISE_CUDA_ARCHITECTURES=90 \
    "${prefix_args[@]}" ${EXTRA_CMAKE_ARGS:-} &&
    cmake --build "$BUILD_DIR" -j "$JOBS" --target eltwise_cuda_tests eltwise_cli eltwise_cli_tests \
      eltwise_tests
}
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
  [[ -n "${DEPS_PREFIX:-}" ]] && NATIVE_LIBS=$DEPS_PREFIX/lib/x86_64-linux-gnu
  export ROOT BUILD_DIR JOBS NOT_AVAILABLE
  export -f build find_tool need_tool
  step build 120 "$DEADLINE" build
fi
# ELTWISE_WHEELS: a folder of wheels for this machine's python3, installed into a private folder.
shopt -s nullglob
wheels=("${ELTWISE_WHEELS:-/nonexistent}"/*.whl)
shopt -u nullglob
if ((${#wheels[@]} > 0)); then
  SITE=${SITE:-/tmp/eltwise-site}
  if python3 -m pip install -q --no-index --no-deps --no-compile --target "$SITE" "${wheels[@]}" \
      >>"$OUT_DIR/logs/all.log" 2>&1; then
    export PYTHONPATH="$SITE${PYTHONPATH:+:$PYTHONPATH}"
  else
    note "pip could not install ${wheels[*]} (wheel for another Python?)"
  fi
fi
TESTS=$BUILD_DIR/tests/cuda/eltwise_cuda_tests
CLI=$BUILD_DIR/tools/eltwise
CLI_TESTS=$BUILD_DIR/tests/cli/eltwise_cli_tests

# --- steps --------------------------------------------------------------------------------------
# machine.txt: `key: value` lines (bench/gpu_tables.py reads them) and nvidia-smi's CSV record.
machine() {
  local out=$OUT_DIR/machine.txt tool module
  {
    echo "date: $(date -u '+%Y-%m-%d %H:%M:%S UTC')"
    # The binaries' commit (packed with them), else the tree's.
    echo "commit: $(cat "${PREBUILT:-/nonexistent}/commit" 2>/dev/null ||
      git -C "$ROOT" describe --always --dirty 2>/dev/null || echo unknown)"
    echo "kernel: $(uname -srm)"
    if command -v nvidia-smi >/dev/null 2>&1; then
      nvidia-smi --query-gpu=name,compute_cap,memory.total,driver_version,clocks.max.sm,clocks.max.mem \
        --format=csv || echo "nvidia-smi: failed"
      nvidia-smi | head -5
    else
      echo "nvidia-smi: not available"
    fi
    for tool in nvcc compute-sanitizer ncu; do
      if tool_path=$(find_tool "$tool"); then
        echo "$tool: $("$tool_path" --version 2>&1 | grep -E 'release|Version' | tail -1)"
      else
        echo "$tool: not available"
      fi
    done
    lscpu | grep -E '^(Model name|CPU\(s\)|Thread|Core|Socket|L3|NUMA node\(s\))'
    echo "cpu flags: $(grep -o -w -E 'avx512f|avx512bw|avx512_bf16|avx512_fp16|avx2' /proc/cpuinfo |
      sort -u | tr '\n' ' ')"
    echo "memory: $(free -g | awk '/^Mem:/ {print $2 " GiB"}')"
    python3 -c 'import sys; print("python:", sys.version.split()[0])' || echo "python: not available"
    for module in numpy torch cupy jax eltwise; do
      python3 -c "import $module as m; print('$module:', getattr(m, '__version__', '?'))" 2>/dev/null ||
        echo "$module: not installed"
    done
    python3 -c 'import torch; print("torch cuda:", torch.version.cuda)' 2>/dev/null || true
  } >"$out" 2>&1
  cat "$out"
  if [[ -x "$CLI" ]]; then native "$CLI" info | head -20; fi
}

# gtest binary shards: run_shards LOG_PREFIX SHARDS COMMAND... runs COMMAND in SHARDS processes
# at once (gtest sharding), each with its own log (and XML when COMMAND ends in a gtest binary
# given --gtest_output=xml:PREFIX, completed here per shard); fails when any shard fails.
run_shards() {
  local prefix=$1 shards=$2 i rc=0 pids=() pid
  shift 2
  for ((i = 0; i < shards; ++i)); do
    GTEST_TOTAL_SHARDS=$shards GTEST_SHARD_INDEX=$i native "$@" \
      ${XML_PREFIX:+--gtest_output=xml:$XML_PREFIX.shard$i.xml} >"$prefix.shard$i.log" 2>&1 &
    pids+=($!)
  done
  for pid in "${pids[@]}"; do wait "$pid" || rc=1; done  # by pid: `wait -n` can miss a quick one
  return "$rc"
}

# Every GPU test must run, not skip (a skip means the GPU was not usable).
gpu_tests() {
  local verdict=() shards=${GPU_TEST_SHARDS:-4}
  need_file "$TESTS" || return
  XML_PREFIX=$OUT_DIR/tests/eltwise_cuda_tests run_shards "$OUT_DIR/tests/eltwise_cuda_tests" "$shards" \
    "$TESTS" --gtest_print_time=1 || verdict+=("eltwise_cuda_tests failed")
  grep -h -E '^\[  (PASSED|FAILED|SKIPPED) ' "$OUT_DIR"/tests/eltwise_cuda_tests.shard*.log | sort | uniq -c
  grep -h -B2 -A12 'Failure' "$OUT_DIR"/tests/eltwise_cuda_tests.shard*.log | head -100
  if grep -h -E '^\[  SKIPPED \] [A-Za-z0-9_/]+\.' "$OUT_DIR"/tests/eltwise_cuda_tests.shard*.log |
      grep -v 'WithoutGpuIsUnsupportedNotACrash' | grep -q .; then
    verdict+=("GPU tests skipped: the GPU was not usable")
  fi
  if [[ -x "$CLI_TESTS" ]]; then
    native "$CLI_TESTS" --gtest_filter='Cli.CudaDevice:Cli.StreamedInChunks' \
      --gtest_output=xml:"$OUT_DIR/tests/eltwise_cli_cuda_tests.xml" \
      >"$OUT_DIR/tests/eltwise_cli_cuda_tests.log" 2>&1 || verdict+=("the CLI's CUDA tests failed")
    tail -3 "$OUT_DIR/tests/eltwise_cli_cuda_tests.log"
  else
    verdict+=("$CLI_TESTS is not built")
  fi
  ((${#verdict[@]} == 0)) && return 0
  (IFS=';'; echo "${verdict[*]}")  # the last line: steps.tsv's note
  return 1
}

memcheck() {
  local sanitizer rc=0
  sanitizer=$(need_tool compute-sanitizer) || return
  need_file "$TESTS" || return
  # The > 2^32-element tests move ~9 GiB through a kernel: hours under memcheck.
  run_shards "$OUT_DIR/sanitizers/memcheck" "${MEMCHECK_SHARDS:-8}" "$sanitizer" --tool memcheck \
    --error-exitcode 99 --leak-check full "$TESTS" \
    --gtest_filter="${MEMCHECK_FILTER:-*-*SixtyFourBitIndexing*}" || rc=1
  grep -h 'ERROR SUMMARY' "$OUT_DIR"/sanitizers/memcheck.shard*.log
  return "$rc"
}

racecheck() {
  local sanitizer tool rc=0 pids=() pid
  sanitizer=$(need_tool compute-sanitizer) || return
  need_file "$TESTS" || return
  local cases='*CudaSemantics*sign_nan_zero_float32:*CudaSemantics*round_up_float64:*CudaSemantics*sign_nan_zero_int8:*CudaSemantics*round_down_bfloat16'
  for tool in racecheck synccheck initcheck; do
    native "$sanitizer" --tool "$tool" --error-exitcode 99 "$TESTS" --gtest_filter="$cases" \
      >"$OUT_DIR/sanitizers/$tool.log" 2>&1 &
    pids+=($!)
  done
  for pid in "${pids[@]}"; do wait "$pid" || rc=1; done
  grep -H 'ERROR SUMMARY' "$OUT_DIR"/sanitizers/{racecheck,synccheck,initcheck}.log
  return "$rc"
}

python_gpu() {
  python3 -c 'import pytest' 2>/dev/null || { echo "not available: pytest"; return "$NOT_AVAILABLE"; }
  python3 -c 'import eltwise; print(eltwise.__file__, eltwise.info())' ||
    { echo "not available: the eltwise module"; return "$NOT_AVAILABLE"; }
  python3 -m pytest -p no:cacheprovider -q -rs --junitxml="$OUT_DIR/tests/pytest_gpu.xml" \
    "$ROOT/python/tests/test_cuda.py" "$ROOT/python/tests/test_dlpack.py" \
    "$ROOT/python/tests/test_errors.py" 2>&1 | tee "$OUT_DIR/tests/pytest_gpu.log" | tail -15
}

cli() {
  local rc=0 node TIMEFORMAT device
  need_file "$CLI" || return
  node=${ONNX_NODE_DIR:-$(python3 -c 'import onnx, os; print(os.path.dirname(onnx.__file__))' 2>/dev/null)/backend/test/data/node}
  if [[ -d "$node/test_sign" ]]; then
    native "$CLI" onnx-test --device cuda "$node/test_sign" "$node/test_round" || rc=1
    native "$CLI" run --device cuda "$node/test_round/model.onnx" \
      -i "$node/test_round/test_data_set_0/input_0.pb" -o /tmp/round_cuda.pb || rc=1
    if cmp /tmp/round_cuda.pb "$node/test_round/test_data_set_0/output_0.pb"; then
      echo "run: output_0 identical"
    else
      echo "eltwise run --device cuda: output differs from ONNX's output_0.pb"; rc=1
    fi
  else
    echo "no ONNX node tests in $node"; rc=1
  fi
  # A 1 GiB file streamed through the GPU in chunks must equal the CPU's output.
  python3 -c 'import numpy as np; np.save("/tmp/big.npy", (np.arange(1 << 28, dtype=np.float32) - (1 << 27)) / 4)' || return 1
  for device in cpu cuda; do
    TIMEFORMAT="round --device $device, 1 GiB: %R s"
    time native "$CLI" round --quiet --device "$device" --mode toward_infinity /tmp/big.npy \
      "/tmp/big_$device.npy" || rc=1
  done
  if cmp /tmp/big_cpu.npy /tmp/big_cuda.npy; then echo "1 GiB stream: CPU and CUDA outputs identical"; else rc=1; fi
  rm -f /tmp/big*.npy
  return "$rc"
}

bench_cuda() {
  need_file "$CLI" || return
  # shellcheck disable=SC2086  # the sizes and types: lists split on spaces
  native "$CLI" bench --device cuda --quiet --layouts contiguous --sizes ${BENCH_SIZES:-4K 1M 16M 256M 1G} \
    ${BENCH_DTYPES:+--dtypes $BENCH_DTYPES} --min-time 0.02 --repeats 3 \
    --json "$OUT_DIR/bench_cuda_contiguous.json" || return 1
  # shellcheck disable=SC2086
  native "$CLI" bench --device cuda --quiet --dtypes ${BENCH_LAYOUT_DTYPES:-float32 float16 int8 float64} \
    --layouts transposed broadcast gathered inplace --sizes 16M 256M \
    --min-time 0.02 --repeats 3 --json "$OUT_DIR/bench_cuda_layouts.json"
}

python_bench() {  # python_bench SCRIPT ARGS...: needs torch and eltwise
  python3 -c 'import torch, eltwise' 2>/dev/null ||
    { echo "not available: torch or eltwise for $1"; return "$NOT_AVAILABLE"; }
  python3 "$@"
}
bench_peers() { python_bench "$ROOT/bench/gpu_peers.py" --json "$OUT_DIR/gpu_peers.json"; }
call_overhead() { python_bench "$ROOT/bench/gpu_call_overhead.py" --out "$OUT_DIR/call_overhead.txt"; }

cpu_threads() {
  local threads
  need_file "$CLI" || return
  for threads in ${CPU_THREADS:-1 2 4 8 16}; do
    native "$CLI" bench --device cpu --threads "$threads" --quiet --ops sign round --dtypes float32 \
      --layouts contiguous transposed gathered --sizes 256M --min-time 0.05 --repeats 3 \
      --json "$OUT_DIR/cpu_threads_$threads.json" || return 1
  done
}

# Cases below their target in the last run (op:dtype:layout:size), profiled one kernel each.
ncu_profile() {
  local ncu rc=0 case op dtype layout size
  ncu=$(need_tool ncu) || return
  need_file "$CLI" || return
  for case in ${NCU_CASES:-sign:int8:contiguous:256M sign:float16:transposed:256M \
      round:float32:transposed:256M round:float16:gathered:256M sign:float16:broadcast:256M}; do
    IFS=: read -r op dtype layout size <<<"$case"
    native "$ncu" --section SpeedOfLight --section MemoryWorkloadAnalysis \
      -k 'regex:(Contiguous|Strided|Tiled)Kernel' --launch-count 1 \
      "$CLI" bench --device cuda --quiet --ops "$op" --dtypes "$dtype" --layouts "$layout" \
      --sizes "$size" --min-time 0.001 --repeats 1 >"$OUT_DIR/ncu/${op}_${dtype}_${layout}_$size.txt" 2>&1 ||
      { rc=1; tail -3 "$OUT_DIR/ncu/${op}_${dtype}_${layout}_$size.txt"; }
  done
  return "$rc"
}

# The CPU suite's main binary in as many gtest shards as there are cores (on this CPU's SIMD
# targets: AVX-512 ones where it has them).
cpu_tests() {
  local binary=$BUILD_DIR/tests/eltwise_tests
  need_file "$binary" || return
  XML_PREFIX=$OUT_DIR/tests/eltwise_tests run_shards "$OUT_DIR/tests/eltwise_tests" "$(nproc)" "$binary"
  local rc=$?
  grep -h -E '^\[  (PASSED|FAILED) ' "$OUT_DIR"/tests/eltwise_tests.shard*.log | sort | uniq -c
  grep -h -A8 'Failure' "$OUT_DIR"/tests/eltwise_tests.shard*.log | head -60
  return "$rc"
}

export ROOT BUILD_DIR OUT_DIR TESTS CLI CLI_TESTS NATIVE_LIBS PREBUILT NOT_AVAILABLE
export -f native find_tool need_tool need_file run_shards machine gpu_tests memcheck racecheck \
  python_gpu cli bench_cuda python_bench bench_peers call_overhead cpu_threads ncu_profile cpu_tests
# name: least seconds worth starting it with, most seconds it may take, function.
declare -A NEED=([machine]=5 [gpu_tests]=30 [memcheck]=30 [racecheck]=20 [python_gpu]=20 [cli]=15
                 [bench_cuda]=20 [bench_peers]=20 [call_overhead]=10 [cpu_threads]=15 [ncu]=15
                 [cpu_tests]=20)
declare -A LIMIT=([machine]=30 [gpu_tests]=150 [memcheck]=150 [racecheck]=120 [python_gpu]=90
                  [cli]=60 [bench_cuda]=120 [bench_peers]=90 [call_overhead]=40 [cpu_threads]=90
                  [ncu]=90 [cpu_tests]=90)
declare -A FUNCTION=([ncu]=ncu_profile)
ALL_STEPS=(machine gpu_tests memcheck racecheck python_gpu cli bench_cuda bench_peers call_overhead
           cpu_threads ncu cpu_tests)
STEPS=("$@")
((${#STEPS[@]} == 0)) && STEPS=("${ALL_STEPS[@]}")
for name in "${STEPS[@]}"; do
  if [[ -z "${NEED[$name]:-}" ]]; then
    record "$name" failed 0 "no such step (steps: ${ALL_STEPS[*]})"
    continue
  fi
  step "$name" "${NEED[$name]}" "${LIMIT[$name]}" "${FUNCTION[$name]:-$name}"
done

note ""
note "=== summary ($((SECONDS - STARTED)) s of ${DEADLINE} s; results in $OUT_DIR)"
column -t -s $'\t' "$STEPS_TSV" 2>/dev/null | tee -a "$OUT_DIR/logs/all.log" || cat "$STEPS_TSV"
((FAILED)) && exit 1
((INCOMPLETE)) && exit 2
exit 0
