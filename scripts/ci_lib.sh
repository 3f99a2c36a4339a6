# Shared by the cross CI scripts (sourced): `step` prints a stage with the seconds since the script
# started, `timed NAME COMMAND...` runs a command and prints its wall time. PLATFORM names the
# platform in the output.
start=$SECONDS
step() { echo "-- $PLATFORM: $1 ($((SECONDS - start)) s)"; }
timed() {
  local name=$1 t0=$SECONDS
  shift
  echo "-- $PLATFORM: $name: $*"
  "$@"
  echo "-- $PLATFORM: $name passed in $((SECONDS - t0)) s"
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
