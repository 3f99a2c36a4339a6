#!/usr/bin/env bash
# Packs what run_gpu_checks.sh needs on a GPU machine that has no package registry and no time to
# build: the CUDA-enabled binaries of BUILD_DIR (stripped, at their paths inside the build folder),
# the shared libraries they load beyond the C and C++ runtimes, Python wheels, and the path of the
# build folder (the test binaries name the CLI by absolute path; run_gpu_checks.sh links that path
# to the unpacked copy).
#
#   bash tests/cuda/pack_gpu_checks.sh BUILD_DIR DEST [WHEEL...]
#
# BUILD_DIR must be configured with ELTWISE_CUDA=ON and built. Then, on the GPU machine:
#   ELTWISE_PREBUILT=DEST bash tests/cuda/run_gpu_checks.sh
set -euo pipefail
build=$(realpath "$1")
dest=$2
shift 2
binaries=(tests/cuda/eltwise_cuda_tests tools/eltwise tools/eltwise-onnx tests/cli/eltwise_cli_tests
  tests/eltwise_tests)
rm -rf "$dest"
mkdir -p "$dest/build" "$dest/lib" "$dest/wheels"
echo "$build" >"$dest/build_dir"
# The commit the binaries were built from, for machine.txt (the GPU machine gets no .git).
git -C "$(dirname "$0")/../.." describe --always --dirty >"$dest/commit" 2>/dev/null || echo unknown >"$dest/commit"
for binary in "${binaries[@]}"; do
  [[ -x "$build/$binary" ]] || { echo "pack: $build/$binary is not built" >&2; exit 1; }
  mkdir -p "$dest/build/$(dirname "$binary")"
  strip -o "$dest/build/$binary" "$build/$binary"
  # Every library it loads but the C/C++ runtime and the kernel's (the GPU machine has its own).
  ldd "$build/$binary" | awk '$3 ~ /^\// {print $3}' |
    { grep -Ev '/(libc|libm|libstdc\+\+|libgcc_s|libpthread|libdl|librt|ld-linux[^/]*)\.so' || true; } |
    while read -r lib; do cp -L "$lib" "$dest/lib/"; done  # (none: grep finds nothing, not an error)
done
for wheel in "$@"; do cp "$wheel" "$dest/wheels/"; done
# ONNX's node tests of Sign and Round (libonnx-testdata), for `eltwise onnx-test --device cuda`.
for node in /usr/share/libonnx-testdata/data/node/test_sign /usr/share/libonnx-testdata/data/node/test_round; do
  [[ -d "$node" ]] && mkdir -p "$dest/onnx" && cp -r "$node" "$dest/onnx/"
done
du -sh "$dest"
