#!/usr/bin/env bash
# Runs the eltwise CLI of a sanitizer build (the `asan` preset: build/asan/tools/eltwise) over its
# paths: info, demo, sign and round on every seed .npy (all types, C and Fortran order, both byte
# orders, 0-d and empty arrays, in place), DirectML feature levels, ONNX `run` and `onnx-test`,
# a short `bench`, and malformed or missing files. Valid calls must succeed, invalid ones must fail
# with a message, and no call may report an AddressSanitizer, UBSan or LeakSanitizer error.
#   usage: fuzz/cli_sanitized.sh [ELTWISE_BINARY]     (default build/asan/tools/eltwise)
set -uo pipefail
cd "$(dirname "$0")/.."
cli=${1:-build/asan/tools/eltwise}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1}
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}
failures=0
calls=0

# expect ok|fail ARGS...: runs the CLI and checks its exit status and its sanitizer silence.
expect() {
  local want=$1
  shift
  calls=$((calls + 1))
  "$cli" "$@" >"$work/out.txt" 2>&1
  local rc=$?
  if grep -qE "ERROR: (AddressSanitizer|LeakSanitizer)|runtime error:|SUMMARY: UndefinedBehaviorSanitizer" \
      "$work/out.txt"; then
    echo "SANITIZER: eltwise $*" >&2
    head -n 30 "$work/out.txt" >&2
    failures=$((failures + 1))
  elif [ "$want" = ok ] && [ $rc -ne 0 ]; then
    echo "FAILED (rc $rc, expected success): eltwise $*" >&2
    tail -n 5 "$work/out.txt" >&2
    failures=$((failures + 1))
  elif [ "$want" = fail ] && { [ $rc -eq 0 ] || [ ! -s "$work/out.txt" ]; }; then
    echo "FAILED (rc $rc, expected an error message): eltwise $*" >&2
    failures=$((failures + 1))
  fi
}

expect ok --version
expect ok info
expect ok demo
for npy in fuzz/corpus/npy_fuzzer/*.npy; do
  name=$(basename "$npy")
  if ! "$cli" sign "$npy" "$work/probe.npy" >/dev/null 2>&1; then
    expect fail sign "$npy" "$work/$name"  # a malformed seed: rejected with a message
    continue
  fi
  expect ok sign "$npy" "$work/$name"
  expect ok sign --nan propagate "$npy" "$work/$name"
  for mode in halves_to_nearest_even toward_zero toward_infinity down up; do
    expect ok round --mode "$mode" "$npy" "$work/$name"
  done
  cp "$npy" "$work/inplace.npy"
  expect ok round "$work/inplace.npy" "$work/inplace.npy"
  expect ok sign "$work/$name" "$work/$name"
done
# DirectML levels: f32 rank 2 is rejected at 2_0 (rank 4 only) and accepted from 3_0.
expect fail sign --feature-level 2_0 fuzz/corpus/npy_fuzzer/f4_c.npy "$work/x.npy"
expect ok sign --feature-level 3_0 fuzz/corpus/npy_fuzzer/f4_c.npy "$work/x.npy"
expect fail round --feature-level 6_4 --mode down fuzz/corpus/npy_fuzzer/f4_c.npy "$work/x.npy"
expect fail sign --feature-level 9_9 fuzz/corpus/npy_fuzzer/f4_c.npy "$work/x.npy"
# Malformed and missing files.
head -c 20 fuzz/corpus/npy_fuzzer/f4_c.npy >"$work/truncated.npy"
expect fail sign "$work/truncated.npy" "$work/x.npy"
expect fail sign "$work/does-not-exist.npy" "$work/x.npy"
expect fail sign fuzz/corpus/npy_fuzzer/f4_c.npy "$work/no/such/dir/x.npy"
expect fail sign fuzz/corpus/onnx_model_fuzzer/sign.onnx "$work/x.npy"
# ONNX models and node tests.
if "$cli" --help 2>/dev/null | grep -q "onnx-test"; then
  node=/usr/share/libonnx-testdata/data/node
  for t in test_sign test_round; do
    if [ -d "$node/$t" ]; then
      expect ok onnx-test "$node/$t"
      expect ok run "$node/$t/model.onnx" -i "$node/$t/test_data_set_0/input_0.pb" \
        -o "$work/out.pb"
      expect ok run "$node/$t/model.onnx" -i "$node/$t/test_data_set_0/input_0.pb" \
        -o "$work/out.npy"
    fi
  done
  expect fail run fuzz/corpus/npy_fuzzer/f4_c.npy -i fuzz/corpus/npy_fuzzer/f4_c.npy -o "$work/o.npy"
  expect fail run fuzz/corpus/onnx_model_fuzzer/sign.onnx -i "$work/truncated.npy" -o "$work/o.npy"
  expect fail onnx-test "$work"
fi
expect ok bench --sizes 4K --dtypes float32 float16 --layouts contiguous transposed --min-time 0.001

echo "cli_sanitized: $calls calls, $failures failures"
[ $failures -eq 0 ]
