#!/usr/bin/env bash
# Runs every eltwise fuzzer for SECONDS each (default 60), one after another, and prints the
# number of executions of each. Builds the fuzzers first (clang, libFuzzer, ASan + UBSan) in
# BUILD_DIR (default build/fuzz). New corpus entries go to BUILD_DIR/corpus/<fuzzer>; the seed
# corpus fuzz/corpus/<fuzzer> is only read. A crash input is saved under BUILD_DIR/artifacts and
# makes the script fail.
#   usage: fuzz/run.sh [SECONDS] [BUILD_DIR]      e.g. fuzz/run.sh 600
# Extra libFuzzer flags can be given in ELTWISE_FUZZ_FLAGS (e.g. "-jobs=2 -workers=2").
# ELTWISE_FUZZ_SIMD_TARGETS (all or static, default all) is the build's ELTWISE_SIMD_TARGETS: the
# kernel fuzzer checks every compiled target, and all of them take most of the build's time.
set -euo pipefail
cd "$(dirname "$0")/.."
seconds=${1:-60}
build=${2:-build/fuzz}

if [ ! -f "$build/CMakeCache.txt" ]; then
  cmake -S . -B "$build" -G Ninja -DCMAKE_CXX_COMPILER="${CXX_FOR_FUZZ:-clang++}" \
    -DCMAKE_BUILD_TYPE=RelWithDebInfo -DELTWISE_BUILD_FUZZERS=ON -DELTWISE_BUILD_TESTS=OFF \
    -DELTWISE_BUILD_TOOLS=OFF -DELTWISE_BUILD_BENCHMARKS=OFF -DELTWISE_BUILD_PYTHON=OFF \
    -DELTWISE_INSTALL=OFF -DELTWISE_CUDA=OFF \
    -DELTWISE_SIMD_TARGETS="${ELTWISE_FUZZ_SIMD_TARGETS:-all}" >/dev/null
fi
cmake --build "$build" -j"${ELTWISE_FUZZ_BUILD_JOBS:-2}" >/dev/null

fuzzers=(descriptor_fuzzer kernel_fuzzer npy_fuzzer onnx_model_fuzzer onnx_tensor_fuzzer)
status=0
summary=()
for name in "${fuzzers[@]}"; do
  binary="$build/fuzz/$name"
  if [ ! -x "$binary" ]; then
    summary+=("$name: not built (its library is absent from this build)")
    continue
  fi
  work="$build/corpus/$name"
  artifacts="$build/artifacts/$name"
  mkdir -p "$work" "$artifacts"
  log="$build/$name.log"
  echo "fuzz: $name for ${seconds}s (log: $log)"
  # shellcheck disable=SC2086
  if "$binary" -max_total_time="$seconds" -timeout=60 -rss_limit_mb=4096 -max_len=8192 \
      -print_final_stats=1 -artifact_prefix="$artifacts/" ${ELTWISE_FUZZ_FLAGS:-} \
      "$work" "fuzz/corpus/$name" >"$log" 2>&1; then
    runs=$(grep -h "stat::number_of_executed_units" "$log" | awk '{s += $2} END {print s + 0}')
    summary+=("$name: ok, $runs executions in ${seconds}s")
  else
    status=1
    summary+=("$name: FAILED (see $log and $artifacts)")
    tail -n 40 "$log" >&2
  fi
done
printf '%s\n' "${summary[@]}"
exit $status
