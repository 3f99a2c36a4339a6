# Shared by the cross CI scripts (sourced): `step` prints a stage with the seconds since the script
# started, `timed NAME COMMAND...` runs a command and prints its wall time, `sharded` runs a gtest
# program's shards side by side. PLATFORM names the platform in the output.
start=$SECONDS
step() { echo "-- $PLATFORM: $1 ($((SECONDS - start)) s)"; }
timed() {
  local name=$1 t0=$SECONDS
  shift
  echo "-- $PLATFORM: $name: $*"
  "$@"
  echo "-- $PLATFORM: $name passed in $((SECONDS - t0)) s"
}

# sharded NAME COMMAND...: a gtest program (COMMAND, with whatever runs it: qemu, timeout) as
# $CI_SHARDS (default: the CPU count) processes at once, gtest's sharding splitting its cases; each
# shard's output goes to a log, whose tail is printed, and whole if the shard fails.
sharded() {
  local name=$1 shards=${CI_SHARDS:-$(nproc)} shard pids=() failed=0 t0=$SECONDS logs
  shift
  logs=$(mktemp -d)
  echo "-- $PLATFORM: $name: $* ($shards shards)"
  for ((shard = 0; shard < shards; shard++)); do
    GTEST_TOTAL_SHARDS=$shards GTEST_SHARD_INDEX=$shard "$@" >"$logs/$shard.log" 2>&1 &
    pids+=($!)
  done
  for ((shard = 0; shard < shards; shard++)); do
    if ! wait "${pids[$shard]}"; then
      failed=1
      cat "$logs/$shard.log"
    else
      tail -n 3 "$logs/$shard.log"
    fi
  done
  rm -rf "$logs"
  if [ $failed = 1 ]; then
    echo "-- $PLATFORM: $name FAILED" >&2
    return 1
  fi
  echo "-- $PLATFORM: $name passed in $((SECONDS - t0)) s ($shards shards)"
}

# The CMake argument of the sanitizer stages' builds (RelWithDebInfo): line tables only (-g1:
# enough for the sanitizers' stack traces; a third quicker to compile than -g, measured on the
# gathered-kernel source under ASan), and on an x86-64 CPU without AVX-512 no AVX-512 Highway
# targets, whose kernels those stages could not run there anyway.
sanitizer_build_flags() {
  local flags="-O2 -g1 -DNDEBUG"
  if [ "$(uname -m)" = x86_64 ] && ! grep -qw avx512f /proc/cpuinfo; then
    flags+=" -DHWY_DISABLED_TARGETS=384"  # HWY_AVX3 | HWY_AVX3_DL (hwy/detect_targets.h)
  fi
  echo "-DCMAKE_CXX_FLAGS_RELWITHDEBINFO=$flags"
}
