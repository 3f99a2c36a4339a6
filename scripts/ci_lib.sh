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
# targets, whose kernels those stages could not run there anyway: `every_target`. With
# `best_x86_target`, of the x86 targets only the best this CPU runs (AVX3 or AVX2; Highway's
# baseline target stays).
sanitizer_build_flags() {
  local flags="-O2 -g1 -DNDEBUG" disabled=0 best=older
  if [ "$(uname -m)" = x86_64 ]; then
    if grep -qw avx512f /proc/cpuinfo; then
      best=avx3
    elif grep -qw avx2 /proc/cpuinfo; then
      best=avx2
    fi
    # Bits of hwy/detect_targets.h: AVX3_DL 128, AVX3 256, AVX2 512, SSE4 2048, SSSE3 4096.
    case "$1/$best" in
    best_x86_target/avx3) disabled=$((128 | 512 | 2048 | 4096)) ;;
    best_x86_target/avx2) disabled=$((128 | 256 | 2048 | 4096)) ;;
    */avx3) ;;
    *) disabled=$((128 | 256)) ;;
    esac
  fi
  if [ "$disabled" -ne 0 ]; then flags+=" -DHWY_DISABLED_TARGETS=$disabled"; fi
  echo "-DCMAKE_CXX_FLAGS_RELWITHDEBINFO=$flags"
}
