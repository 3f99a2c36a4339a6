#!/usr/bin/env bash
# A long fuzzing campaign, run by hand: each eltwise fuzzer runs until it has used CPU_SECONDS of
# CPU time (not wall time, so fuzzers sharing a busy machine each still get their share), JOBS at
# a time, then stops with SIGINT and prints libFuzzer's final statistics. Uses the fuzzers built by
# fuzz/run.sh in BUILD_DIR (default build/fuzz); grows BUILD_DIR/corpus/<fuzzer>, reads the seed
# corpus fuzz/corpus/<fuzzer>. A crash stops that fuzzer, is kept under BUILD_DIR/artifacts and
# makes the script fail. One line per fuzzer goes to BUILD_DIR/campaign.txt.
#   usage: fuzz/campaign.sh CPU_SECONDS [JOBS] [BUILD_DIR] [FUZZER...]
set -euo pipefail
cd "$(dirname "$0")/.."
cpu_seconds=${1:?usage: fuzz/campaign.sh CPU_SECONDS [JOBS] [BUILD_DIR] [FUZZER...]}
jobs=${2:-2}
build=${3:-build/fuzz}
shift $(($# < 3 ? $# : 3))
fuzzers=("$@")
if [ ${#fuzzers[@]} -eq 0 ]; then
  # Slowest per execution first, so that the fast ones fill the end.
  fuzzers=(kernel_fuzzer onnx_model_fuzzer onnx_tensor_fuzzer descriptor_fuzzer npy_fuzzer)
fi
ticks=$(getconf CLK_TCK)

# CPU seconds (user + system) used so far by process $1, from /proc/PID/stat fields 14 and 15.
cpu_used() {
  local stat
  stat=$(cat "/proc/$1/stat" 2>/dev/null) || return 1
  stat=${stat##*) }  # the command name may hold spaces; the fields after it do not
  # shellcheck disable=SC2086
  set -- $stat
  echo $(((${12} + ${13}) / ticks))
}

fuzz_one() {
  local name=$1 binary="$build/fuzz/$1" work="$build/corpus/$1" artifacts="$build/artifacts/$1"
  local log="$build/campaign-$1.log" start pid used status
  mkdir -p "$work" "$artifacts"
  start=$(date +%s)
  "$binary" -timeout=60 -rss_limit_mb=4096 -max_len=8192 -print_final_stats=1 \
    -artifact_prefix="$artifacts/" "$work" "fuzz/corpus/$name" >"$log" 2>&1 &
  pid=$!
  used=0
  while kill -0 "$pid" 2>/dev/null; do
    used=$(cpu_used "$pid") || break
    if [ "$used" -ge "$cpu_seconds" ]; then
      kill -INT "$pid"
      break
    fi
    sleep 5
  done
  status=0
  wait "$pid" || status=$?
  local runs cov
  runs=$(grep -h "stat::number_of_executed_units" "$log" | awk '{print $2}' | tail -n 1)
  cov=$(grep -E "^#[0-9]+" "$log" | tail -n 1 | grep -oE "cov: [0-9]+ ft: [0-9]+ corp: [0-9]+" || true)
  # libFuzzer exits with 72 when interrupted; anything else before the CPU budget is a failure.
  local verdict=ok
  if [ "$status" -ne 72 ] && [ "$status" -ne 0 ]; then verdict="FAILED (exit $status, see $log)"; fi
  echo "$name: $verdict, wall $(($(date +%s) - start)) s, cpu ${used} s, ${runs:-?} executions, ${cov:-?}" |
    tee -a "$build/campaign.txt"
  [ "$verdict" = ok ]
}
export -f fuzz_one cpu_used
export build cpu_seconds ticks

printf '%s\n' "${fuzzers[@]}" | xargs -P "$jobs" -I{} bash -c 'fuzz_one {}'
