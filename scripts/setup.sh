#!/usr/bin/env bash
# Installs what eltwise needs to build and test on Debian bookworm (run as root, or with sudo
# available). Safe to run again: it installs only what is missing.
set -euo pipefail

packages=(
  cmake ninja-build g++ clang pkg-config
  libgtest-dev libgmock-dev libbenchmark-dev
  libhwy-dev libcli11-dev pybind11-dev libxnnpack-dev libpthreadpool-dev libdnnl-dev
  libonnx-dev libonnx-testdata libprotobuf-dev protobuf-compiler
  python3 python3-pip
)
python_packages=(numpy ml_dtypes onnx onnxruntime pytest hypothesis scikit-build-core pybind11 dask)

sudo_cmd=()
if [ "$(id -u)" -ne 0 ]; then sudo_cmd=(sudo); fi

missing=()
for p in "${packages[@]}"; do
  dpkg -s "$p" >/dev/null 2>&1 || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
  echo "setup: installing ${missing[*]}"
  "${sudo_cmd[@]}" apt-get update -qq
  DEBIAN_FRONTEND=noninteractive "${sudo_cmd[@]}" apt-get install -y -qq "${missing[@]}" >/dev/null
fi

missing_py=()
for p in "${python_packages[@]}"; do
  python3 -m pip show -q "$p" >/dev/null 2>&1 || missing_py+=("$p")
done
if [ ${#missing_py[@]} -gt 0 ]; then
  echo "setup: pip installing ${missing_py[*]}"
  python3 -m pip install -q --disable-pip-version-check "${missing_py[@]}" 2>&1 |
    grep -v "Running pip as the 'root' user" || true
fi
echo "setup: all dependencies present"
