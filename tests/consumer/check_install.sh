#!/usr/bin/env bash
# Installs a configured and built eltwise tree, MOVES the install to another prefix, and builds and
# runs the consumer (main.cc) against the moved copy twice: with find_package(eltwise) and with
# pkg-config. Fails if an installed CMake or pkg-config file names the install prefix, the source
# tree or the build tree, or if a shared libeltwise exports anything but the API.
#   usage: bash tests/consumer/check_install.sh BUILD_DIR WORK_DIR [CMAKE_GENERATOR [CXX]]
set -euo pipefail
if [ $# -lt 2 ]; then
  echo "usage: $0 BUILD_DIR WORK_DIR [CMAKE_GENERATOR [CXX]]" >&2
  exit 2
fi
here=$(cd "$(dirname "$0")" && pwd)
source_root=$(cd "$here/../.." && pwd)
build=$(cd "$1" && pwd)
work=$2
generator=${3:-}
cxx=${4:-c++}
fail() {
  echo "check_install: FAILED: $*" >&2
  exit 1
}

rm -rf "$work"
mkdir -p "$work"
work=$(cd "$work" && pwd)
cmake --install "$build" --prefix "$work/installed" >"$work/install.log"
mv "$work/installed" "$work/moved"
prefix=$work/moved

# 1. Relocatable: no installed text file names where it was installed, built or configured from.
if grep -rIl -e "$work/installed" -e "$build" -e "$source_root" "$prefix"; then
  fail "the files above hold an absolute path of the build (install prefix, source or build tree)"
fi

pc=$(find "$prefix" -name eltwise.pc)
[ -n "$pc" ] || fail "no eltwise.pc installed"
libdir=$(cd "$(dirname "$pc")/.." && pwd)
shared=""
if [ -e "$libdir/libeltwise.so" ]; then
  shared=1
  soname=$(readelf -d "$libdir/libeltwise.so" | sed -n 's/.*(SONAME).*\[\(.*\)\]/\1/p')
  echo "shared library: $(basename "$(readlink -f "$libdir/libeltwise.so")"), soname $soname"
  [[ "$soname" =~ ^libeltwise\.so\.[0-9] ]] || fail "libeltwise.so has no versioned soname"
  # 2. Hidden visibility: the dynamic symbols it defines are eltwise's API (namespace eltwise and
  # DirectML's helper), plus the C++ library's vague-linkage instantiations; nothing else (no
  # internals, nothing of the static CUDA runtime).
  nm -D --defined-only "$libdir/libeltwise.so" | awk '{print $3}' | c++filt >"$work/exports.txt"
  others=$(grep -v -e '^eltwise::' -e '^DMLCalcBufferTensorSize' -e '^std::' -e '^typeinfo' \
    -e '^vtable' -e '^_init$' -e '^_fini$' -e '^_edata$' -e '^_end$' -e '^__bss_start$' \
    "$work/exports.txt" || true)
  [ -z "$others" ] || fail "libeltwise.so exports more than the API: $others"
  internal=$(grep -e '^eltwise::internal::' -e '^eltwise::detail::' -e '^eltwise::cpu::' \
    -e '^eltwise::cuda::' -e '^eltwise::N_' "$work/exports.txt" || true)
  [ -z "$internal" ] || fail "libeltwise.so exports internals: $internal"
  echo "exported symbols: $(grep -c '^eltwise::\|^DMLCalc' "$work/exports.txt") of the API," \
    "$(grep -c -v '^eltwise::\|^DMLCalc' "$work/exports.txt") others (std:: instantiations)"
fi

# 3. find_package(eltwise) from the moved prefix.
generator_args=()
if [ -n "$generator" ]; then generator_args=(-G "$generator"); fi
cmake -S "$here" -B "$work/cmake-consumer" "${generator_args[@]}" -DCMAKE_CXX_COMPILER="$cxx" \
  -DCMAKE_PREFIX_PATH="$prefix" -DELTWISE_CONSUMER_MODE=package >"$work/cmake-consumer.log"
found=$(sed -n 's/^eltwise_DIR:PATH=//p' "$work/cmake-consumer/CMakeCache.txt")
[[ "$found" == "$prefix"/* ]] || fail "find_package found eltwise in '$found', not under $prefix"
cmake --build "$work/cmake-consumer" >>"$work/cmake-consumer.log"
"$work/cmake-consumer/consumer"

# 4. pkg-config from the moved prefix (--static for a static libeltwise: what it links).
pc_args=(--cflags --libs)
if [ -z "$shared" ]; then pc_args+=(--static); fi
flags=$(PKG_CONFIG_PATH="$(dirname "$pc")" pkg-config "${pc_args[@]}" eltwise)
echo "pkg-config ${pc_args[*]} eltwise: $flags"
[[ "$flags" == *"-I$prefix/"* && "$flags" == *"-L$prefix/"* ]] ||
  fail "pkg-config's paths do not point into the moved prefix"
# shellcheck disable=SC2086  # the flags are words
"$cxx" -std=c++20 -O1 "$here/main.cc" -o "$work/pkg-config-consumer" $flags
LD_LIBRARY_PATH="$libdir" "$work/pkg-config-consumer"
echo "check_install: install moved to $prefix works via find_package and pkg-config"
