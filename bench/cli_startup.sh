#!/usr/bin/env bash
# What one `eltwise sign` costs on a small file, against `cp` of the same file: `perf stat -r RUNS`
# (elapsed time and CPU time per run), rounds alternating between the programs, medians printed.
#   bash bench/cli_startup.sh ELTWISE [OTHER_ELTWISE] [ROUNDS] [RUNS]
# OTHER_ELTWISE (e.g. a build of an earlier commit) is measured in the same rounds. The file is
# 100 float32 values (464 bytes); OUT is replaced each run, as a user running the tool over many
# files does. Needs perf (Debian: linux-perf) and python3 with NumPy.
set -euo pipefail
eltwise=$(realpath "$1")
other=${2:+$(realpath "$2")}
rounds=${3:-7}
runs=${4:-200}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
python3 -c "import numpy as np, sys; np.save(sys.argv[1], np.linspace(-3, 3, 100, dtype=np.float32))" \
  "$work/in.npy"

# Prints "ELAPSED_MS CPU_MS" per run of the command.
measure() {
  perf stat -x, -e task-clock -r "$runs" "$@" 2>&1 >/dev/null | awk -F, -v runs="$runs" '
    /task-clock/ { cpu = $1 }
    END { printf "%.3f\n", cpu }' | tr '\n' ' '
  local start end
  start=$(date +%s%N)
  for ((i = 0; i < runs; ++i)); do "$@" >/dev/null; done
  end=$(date +%s%N)
  awk -v ns=$((end - start)) -v runs="$runs" 'BEGIN { printf "%.3f\n", ns / runs / 1e6 }'
}

names=(cp eltwise)
commands=("cp $work/in.npy $work/out.npy" "$eltwise sign $work/in.npy $work/out.npy")
if [ -n "$other" ]; then
  names+=(other)
  commands+=("$other sign $work/in.npy $work/out.npy")
fi
declare -A cpu wall
for ((round = 0; round < rounds; ++round)); do
  for i in "${!names[@]}"; do
    # shellcheck disable=SC2086
    read -r c w < <(measure ${commands[$i]})
    cpu[${names[$i]}]+="$c "
    wall[${names[$i]}]+="$w "
  done
done
median() { tr ' ' '\n' | grep . | sort -g | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }'; }
echo "per run, median of $rounds rounds of $runs runs (CPU: perf's task-clock; wall: a shell loop)"
for name in "${names[@]}"; do
  printf '%-8s CPU %6.3f ms   wall %6.3f ms\n' "$name" "$(echo "${cpu[$name]}" | median)" \
    "$(echo "${wall[$name]}" | median)"
done
