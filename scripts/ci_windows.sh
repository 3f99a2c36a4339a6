#!/usr/bin/env bash
# Windows x86-64: cross-builds eltwise (library, CLI, tests) with mingw-w64, statically linked, and
# runs every test program under wine. Needs scripts/setup_cross.sh windows.
#
# Target dependencies go into build/mingw-deps (reused by later runs; delete it to rebuild):
#   Highway   Debian's own source package (apt-get source highway), built static, tests off
#   GoogleTest from /usr/src/googletest (Debian's googletest package)
#   CLI11     its header folder and CMake package file only (the host's /usr/include is never
#             on the target's search path)
set -euo pipefail
cd "$(dirname "$0")/.."
root=$PWD
deps=$root/build/mingw-deps
toolchain=$root/cmake/toolchains/x86_64-w64-mingw32.cmake
export ELTWISE_MINGW_DEPS=$deps
jobs=$(nproc)
PLATFORM=windows
source scripts/ci_lib.sh

# wine: a private prefix, no debug chatter, one persistent wineserver for the whole run (every
# program would otherwise pay for starting one: about 3 s each).
export WINEPREFIX=$root/build/wineprefix WINEDEBUG=-all WINEDLLOVERRIDES="mscoree,mshtml="
mkdir -p "$WINEPREFIX"
wineserver -p
trap 'wineserver -k || true' EXIT
wine cmd /c exit >/dev/null 2>&1  # creates the prefix on first use

if [ ! -f "$deps/.complete" ]; then
  step "Highway from Debian's source package"
  rm -rf "$deps" build/mingw-src
  mkdir -p build/mingw-src
  (cd build/mingw-src && apt-get source -qq highway >/dev/null 2>&1)
  hwy_src=$(find build/mingw-src -maxdepth 1 -type d -name 'highway-*' | head -1)
  cmake -S "$hwy_src" -B build/mingw-src/hwy-build -G Ninja -DCMAKE_TOOLCHAIN_FILE="$toolchain" \
    -DCMAKE_BUILD_TYPE=Release -DBUILD_SHARED_LIBS=OFF -DBUILD_TESTING=OFF \
    -DHWY_ENABLE_TESTS=OFF -DHWY_ENABLE_EXAMPLES=OFF -DHWY_ENABLE_CONTRIB=OFF \
    -DCMAKE_INSTALL_PREFIX="$deps" >/dev/null
  cmake --build build/mingw-src/hwy-build --target install -j "$jobs" >/dev/null

  step "GoogleTest from /usr/src/googletest"
  cmake -S /usr/src/googletest -B build/mingw-src/gtest-build -G Ninja \
    -DCMAKE_TOOLCHAIN_FILE="$toolchain" -DCMAKE_BUILD_TYPE=Release -DBUILD_GMOCK=ON \
    -DINSTALL_GTEST=ON -DCMAKE_INSTALL_PREFIX="$deps" >/dev/null
  cmake --build build/mingw-src/gtest-build --target install -j "$jobs" >/dev/null

  step "CLI11 header and package file"
  mkdir -p "$deps/include" "$deps/share/cmake"
  cp -r /usr/include/CLI "$deps/include/"
  cp -r /usr/share/cmake/CLI11 "$deps/share/cmake/"
  rm -rf build/mingw-src
  touch "$deps/.complete"
else
  step "reusing $deps"
fi

step "configure and build (preset mingw)"
cmake --preset mingw >/dev/null
cmake --build --preset mingw

bin=build/mingw
run() {  # run NAME PROGRAM ARGS...: one program under wine
  local name=$1
  shift
  timed "$name" wine "$@"
}

step "eltwise info"
wine $bin/tools/eltwise.exe info | head -3
# Every test program; eltwise_tests runs every kernel table this CPU supports (Highway's x86
# list), the CLI tests start the tool through cmd.exe. eltwise_huge_test (opt-in, ~9 GiB) is
# left out.
export GTEST_BRIEF=1
for program in $(find $bin/tests -type f -name 'eltwise_*test*.exe' \
                   ! -name 'eltwise_huge_test.exe' | sort); do
  run "$(basename "$program")" "$program"
done
if python3 -c "import numpy, ml_dtypes" 2>/dev/null; then
  timed "numpy interop (the tool started by Python through wine)" \
    python3 tests/cli/numpy_interop_test.py wine $bin/tools/eltwise.exe
fi
step "done"
