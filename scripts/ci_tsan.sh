#!/usr/bin/env bash
# CI's `tsan` stage: the concurrent parts under ThreadSanitizer (GCC, preset `tsan`):
#   - the thread pool, compiled operators executed from many threads at once, threaded layouts;
#   - the CLI's streamed reader/writer (the instrumented `eltwise`, run by its tests);
#   - the Python module called from many Python threads with the GIL released (libtsan preloaded
#     into the uninstrumented interpreter).
# The SIMD kernels are compiled for one x86 target, the best this machine runs, beside Highway's
# baseline (sanitizer_build_flags best_x86_target, ci_lib.sh): threads share out a walk in code
# that is the same for every table (the pool, the plan's partition, the staging buffers), and each
# table's kernels run inside one thread's share, so a race shows on any table; every table's
# results are the test and asan stages' business. Every target was about a minute more here.
# Any report fails the run (halt_on_error; TSan's exit status 66).
#   usage: bash scripts/ci_tsan.sh [BUILD_DIR]      (default build/tsan-ci)
set -euo pipefail
cd "$(dirname "$0")/.."
build=${1:-build/tsan-ci}

PLATFORM=tsan
source scripts/ci_lib.sh
cmake --preset tsan -B "$build" -DELTWISE_BUILD_ONNX=OFF \
  -DELTWISE_BUILD_PYTHON=ON "$(sanitizer_build_flags best_x86_target)" >/dev/null
cmake --build "$build" -j2 --target eltwise_concurrency_tests eltwise_stress_test \
  eltwise_cli_tests eltwise eltwise_python

export TSAN_OPTIONS="halt_on_error=1:second_deadlock_stack=1:exitcode=66"
# GCC 12's TSan runtime can crash at start-up where the kernel places mappings with more ASLR
# entropy than it expects (an interpreter with libtsan preloaded did here, every time): run
# without address randomisation (inherited by every child process).
no_aslr=(setarch "$(uname -m)" -R)
# From eltwise_tests, the pool and the layout tests alone (eltwise_concurrency_tests: a smaller
# build): compiled operators from many threads, and every layout walk (contiguous, rows,
# broadcast, transposed, gathered, partial overlap) on 1 to 5 threads around the parallel grain,
# as a gtest shard per CPU side by side.
# Left out for time (about 70 s under TSan), as they run walks the others run too: the staging
# bound and the limits of partial overlap, the broadcast fills at unaligned addresses and the
# small calls that take the direct kernel.
left_out='Layout.PartialOverlapStagingIsBounded:Layout.PartialOverlapLargerThanTheLimits'
left_out+=':CpuLayouts.BroadcastFillAtUnalignedAddresses:CpuLayouts.SmallContiguousDirectPath*'
export GTEST_BRIEF=1
sharded eltwise_concurrency_tests "${no_aslr[@]}" "$build/tests/eltwise_concurrency_tests" \
  --gtest_filter="ThreadPool.*:*.OneCompiledOperatorFromManyThreads:CpuLayouts.*:Layout.*:-$left_out"
threaded='Stress\.|Cli\.(Streamed|Interrupted)'
"${no_aslr[@]}" ctest --test-dir "$build" -j2 --output-on-failure --no-tests=error -R "$threaded" -E 'huge'

# The interpreter is not instrumented, so the runtime must be loaded before anything else; the
# interpreter itself, not a wrapper script (a pyenv shim) that would start under it too.
libtsan=$(readlink -f "$(g++ -print-file-name=libtsan.so)")
python=$(python3 -c 'import sys; print(sys.executable)')
PYTHONPATH="$build/python" PYTHONDONTWRITEBYTECODE=1 LD_PRELOAD="$libtsan" \
  "${no_aslr[@]}" "$python" -m pytest -q -p no:cacheprovider python/tests/test_threads.py
