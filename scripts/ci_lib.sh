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
