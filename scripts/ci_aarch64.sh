#!/usr/bin/env bash
# Linux aarch64: cross-builds eltwise (library, CLI, tests) with Debian's cross compiler against
# the arm64 multiarch libraries and runs the test programs under qemu-user on several emulated
# CPUs, so that every kernel table runs the exhaustive 8/16-bit and special-value tests:
#
#   QEMU_CPU                          tables (best first)                   what runs
#   max,sve=off                       NEON SCALAR reference                 every test program
#   max,sve128=on                     SVE2_128 SVE2 SVE (128-bit) + above   SVE tables, API layouts
#   max,sve-default-vector-length=32  SVE_256 SVE2 SVE (256-bit) + above    the SVE_256 table
#   max,sve-default-vector-length=256 SVE2 SVE (2048-bit) + above           SVE tables, API
#
# (qemu-user's SVE vector length is set with sve-default-vector-length, in bytes.) Test programs
# are run directly, one qemu each, not one per test. Needs scripts/setup_cross.sh aarch64.
#
# `quick` (CI's default `aarch64_sve` stage) runs every test program once, on the SVE2 CPU at 128
# bits only: its best table is the widest kernel code (SVE2_128), and the all-table tests there
# also run the SVE2, SVE, NEON, SCALAR and reference tables; three slow partial-overlap tests are
# left out (below). `all` (the `aarch64` stage, `full`) runs the four CPUs above.
#   usage: bash scripts/ci_aarch64.sh [all|quick]
set -euo pipefail
mode=${1:-all}
case "$mode" in
  all | quick) ;;
  *) echo "usage: $0 [all|quick]" >&2; exit 2 ;;
esac
cd "$(dirname "$0")/.."
PLATFORM=aarch64
source scripts/ci_lib.sh

step "configure and build (preset aarch64)"
cmake --preset aarch64 >/dev/null
cmake --build --preset aarch64

bin=build/aarch64
run() {  # run CPU NAME PROGRAM ARGS...: one program under qemu-aarch64 -cpu CPU
  local cpu=$1 name=$2
  shift 2
  QEMU_CPU=$cpu timed "[$cpu] $name" qemu-aarch64 "$@"
}

cpus=(max,sve=off max,sve128=on max,sve-default-vector-length=32 max,sve-default-vector-length=256)
[ "$mode" = all ] || cpus=(max,sve128=on)
for cpu in "${cpus[@]}"; do
  echo "-- aarch64 [$cpu]: $(QEMU_CPU=$cpu qemu-aarch64 $bin/tools/eltwise info | grep targets)"
done

# Every test program on the NEON CPU (eltwise_tests: the NEON, SCALAR and reference tables and
# everything that is not a kernel table). The CLI tests start the tool through qemu-aarch64, and
# the child inherits QEMU_CPU. eltwise_huge_test (opt-in, ~9 GiB) is left out.
export GTEST_BRIEF=1
neon=max,sve=off
if [ "$mode" = quick ]; then
  neon=max,sve128=on  # every program on the SVE2 CPU instead
  # Left out for time: three partial-overlap tests, among the slowest of eltwise_tests under
  # qemu-user (193, 174 and 26 s, one process on a busy 2-core VM). Their subject is the planning
  # and staging of overlapping walks, the same C++ on every CPU; the kernels they call, the other
  # tests run. The test and asan stages run them on x86-64 (tsan the first), and `all` here.
  export GTEST_FILTER="-Layout.PartialOverlapNonSquareTransposes:Layout.PartialOverlapStagingIsBounded"
  GTEST_FILTER+=":Layout.PartialOverlapLargerThanTheLimits"
fi
# Each gtest program's tests split between one qemu process per core (qemu-user runs a
# single-threaded test on one core), each shard's output kept apart; the programs without gtest
# (no GTEST_SHARD_INDEX in them: the DirectML C and target-version checks) run once.
for program in $(find $bin/tests -type f -perm -u+x -name 'eltwise_*test*' \
                   ! -name 'eltwise_huge_test' | sort); do
  if grep -q GTEST_SHARD_INDEX "$program"; then
    sharded "[$neon] $(basename "$program")" env QEMU_CPU=$neon qemu-aarch64 "$program"
  else
    run $neon "$(basename "$program")" "$program"
  fi
done

if [ "$mode" = quick ]; then
  step "done"
  exit 0
fi

# SVE tables only (NEON and SCALAR ran above), plus the tests that go through the public API,
# which now dispatch to the best SVE table, and the all-table checks of CpuKernelTables (the FPCR
# one, which runs every table, once).
sve='*KernelSemantics*/SVE*:*PublicApiSemantics*:Layout.*'
run max,sve128=on "eltwise_tests (SVE2_128, SVE2 and SVE at 128 bits)" $bin/tests/eltwise_tests \
  --gtest_filter="$sve:CpuKernelTables.*:CpuLayouts.*:FloatingPointEnvironment.*"
run max,sve-default-vector-length=32 "eltwise_tests (SVE_256)" $bin/tests/eltwise_tests \
  --gtest_filter='*KernelSemantics*/SVE_256_*:*PublicApiSemantics*'
run max,sve-default-vector-length=256 "eltwise_tests (SVE2 and SVE at 2048 bits)" \
  $bin/tests/eltwise_tests --gtest_filter="$sve:CpuKernelTables.*:-*ControlRegister*"

if python3 -c "import numpy, ml_dtypes" 2>/dev/null; then
  QEMU_CPU=max,sve128=on timed "[max,sve128=on] numpy interop" \
    python3 tests/cli/numpy_interop_test.py qemu-aarch64 $bin/tools/eltwise
fi
step "done"
