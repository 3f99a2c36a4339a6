#!/usr/bin/env bash
# The toolchain of the floor wheels (scripts/wheel.sh build-floor): wheels tagged manylinux_2_28
# (glibc 2.28, NumPy's floor) for x86_64 and aarch64, built on any newer Linux. One compiler for
# both architectures: zig's clang (PyPI's ziglang), `zig cc/c++ -target ARCH-linux-gnu.2.28`,
# which links against glibc 2.28's symbol versions whatever the build machine's glibc is, and
# brings its own libc++ instead of the system's libstdc++ (whose GLIBCXX versions follow GCC).
#
#   bash scripts/floor_toolchain.sh prepare ARCH [DIR]   everything below for ARCH (x86_64,
#       aarch64) in DIR (default build/floor); each step is done once and then reused (a cache
#       folder: keep DIR between CI runs), and each prints what it took:
#     DIR/zig                  ziglang's wheel from PyPI, unpacked ($ELTWISE_ZIG_VERSION, 0.17.1)
#     DIR/ARCH/bin             clang, clang++, ar, ranlib: one path per tool for CMake (and nvcc's
#                              -ccbin): zig cc/c++/ar/ranlib with the target
#     DIR/ARCH/cxx             libeltwise_cxx.so.1: zig's libc++, libc++abi and libunwind for the
#                              target as one shared library with every symbol exported under the
#                              version ELTWISE_CXX_1. The wheel's three shared objects (the runtime
#                              and both extensions) pass C++ objects and exceptions to each other,
#                              so, as with libstdc++.so, there must be one copy of the C++ library
#                              in the process; zig's own archives are made for a private copy per
#                              shared object (hidden symbols), which would give each its own
#                              std::runtime_error type, so scripts/elf_unhide.py makes them visible.
#                              The version keeps other C++ libraries in the process (libstdc++'s
#                              __cxa_* and _Unwind_*) from being bound in its place. Everything in
#                              the wheel links it with -nostdlib++ (toolchain.cmake). libc++
#                              compares type_infos by address: a type of the project's own that is
#                              thrown or dynamic_cast across shared objects needs its type_info
#                              in one of them (a key function); the standard library's are in
#                              libeltwise_cxx, and no other type crosses today.
#     DIR/ARCH/prefix          Highway, protobuf and ONNX as static PIC libraries, from Debian
#                              bookworm's source packages with Debian's patches (the versions the
#                              other wheels bundle: Highway 1.0.3, protobuf 3.21.12, the version
#                              of the host's protoc, which generates ONNX's sources), downloaded
#                              into DIR/src and checked against the Sources index's SHA-256 (the
#                              index against the signed InRelease where debian-archive-keyring is
#                              installed); ONNX 1.12.0 (bookworm's) from its PyPI sdist, whose
#                              SHA-256 is pinned here (Debian's mirror does not serve its source).
#                              ONNX on protobuf's lite library (ONNX_USE_LITE_PROTO): the front end
#                              parses, checks and builds models, which needs no reflection, and the
#                              lite library alone builds in 34 s where the full one took 157 (2
#                              cores, -g0); ONNX (mostly its operator schemas, read once per model)
#                              at -Os. The whole prefix: about 3 minutes on 2 cores (zig's libc++
#                              before it, 2 to 2.5).
#     DIR/ARCH/toolchain.cmake the CMake toolchain file for all of the above
# Needs: python3 with pip (PyPI), curl, xz, cmake, ninja, patch, protoc 3.21.12 (protobuf-compiler),
# binutils for ARCH (ARCH-linux-gnu-strip: binutils, binutils-aarch64-linux-gnu).
set -euo pipefail
cd "$(dirname "$0")/.."
root=$(pwd)
command=${1:-}
arch=${2:-}
dir=$(realpath -m "${3:-build/floor}")
zig_version=${ELTWISE_ZIG_VERSION:-0.17.1}
mirror=${DEBIAN_MIRROR:-http://deb.debian.org/debian}
jobs=${ELTWISE_FLOOR_JOBS:-$(nproc)}
glibc=2.28

timed() {  # NAME COMMAND...: runs COMMAND and says how long it took
  local start=$SECONDS step=$1
  shift
  "$@"
  echo "floor: $step took $((SECONDS - start)) s"
}

fetch_zig() {
  [ -x "$dir/zig/ziglang/zig" ] && return
  rm -rf "$dir/zig" "$dir/zig-download" && mkdir -p "$dir/zig-download"
  python3 -m pip download -q --disable-pip-version-check --no-deps --only-binary=:all: \
    --dest "$dir/zig-download" "ziglang==$zig_version"
  python3 -m zipfile -e "$dir"/zig-download/ziglang-*.whl "$dir/zig"
  chmod +x "$dir/zig/ziglang/zig"
  "$dir/zig/ziglang/zig" version
}

# One script per tool: CMake and nvcc take a single path, not a command with arguments. zig keeps
# what it builds for the target (libc++, glibc's stubs) in DIR/zig-cache.
make_wrappers() {
  local bin=$dir/$arch/bin zig=$dir/zig/ziglang/zig
  mkdir -p "$bin"
  for tool in clang:cc clang++:c++ ar:ar ranlib:ranlib; do
    local target_flag="-target $arch-linux-gnu.$glibc"
    [ "${tool#*:}" = ar ] || [ "${tool#*:}" = ranlib ] && target_flag=""
    cat >"$bin/${tool%%:*}" <<WRAPPER
#!/bin/sh
# zig ${tool#*:} for $arch-linux-gnu with glibc $glibc's symbols (scripts/floor_toolchain.sh).
ZIG_GLOBAL_CACHE_DIR="$dir/zig-cache" ZIG_LOCAL_CACHE_DIR="$dir/zig-cache" \\
  exec "$zig" ${tool#*:} $target_flag "\$@"
WRAPPER
    chmod +x "$bin/${tool%%:*}"
  done
}

make_cxx() {
  local cxx=$dir/$arch/cxx bin=$dir/$arch/bin
  [ -e "$cxx/.complete" ] && return
  rm -rf "$cxx" && mkdir -p "$cxx/probe"
  # zig builds its libc++ for the target on first use; --verbose-link names the archives.
  echo 'int eltwise_probe() { return 0; }' >"$cxx/probe/probe.cc"
  local archives
  archives=$(cd "$cxx/probe" && ZIG_GLOBAL_CACHE_DIR="$dir/zig-cache" \
    ZIG_LOCAL_CACHE_DIR="$dir/zig-cache" "$dir/zig/ziglang/zig" build-lib -dynamic -lc++ \
    -OReleaseFast -target "$arch-linux-gnu.$glibc" --verbose-link probe.cc 2>&1 |
    tr ' ' '\n' | grep -E '/lib(c\+\+|c\+\+abi|unwind)\.a$' | sort -u)
  [ "$(echo "$archives" | wc -l)" -eq 3 ] || {
    echo "floor: zig's libc++, libc++abi and libunwind not found in: $archives" >&2; exit 1; }
  local visible=()
  for archive in $archives; do
    python3 "$root/scripts/elf_unhide.py" "$archive" "$cxx/probe/$(basename "$archive")"
    visible+=("$cxx/probe/$(basename "$archive")")
  done
  echo 'ELTWISE_CXX_1 { global: *; };' >"$cxx/probe/version.map"
  # -Bsymbolic: the archives' own references to their formerly hidden symbols stay direct.
  "$bin/clang++" -shared -nostdlib++ -Wl,-Bsymbolic -Wl,--whole-archive "${visible[@]}" \
    -Wl,--no-whole-archive -Wl,--version-script="$cxx/probe/version.map" \
    -Wl,-soname,libeltwise_cxx.so.1 -o "$cxx/libeltwise_cxx.so.1"
  "$arch-linux-gnu-strip" --strip-debug "$cxx/libeltwise_cxx.so.1"  # zig's archives carry DWARF
  ln -sf libeltwise_cxx.so.1 "$cxx/libeltwise_cxx.so"
  rm -rf "$cxx/probe"
  touch "$cxx/.complete"
}

make_toolchain_file() {
  local bin=$dir/$arch/bin
  cat >"$dir/$arch/toolchain.cmake" <<CMAKE
# The floor wheels' toolchain for $arch (generated by scripts/floor_toolchain.sh): zig's clang for
# $arch-linux-gnu with glibc $glibc's symbols, one shared libc++ (libeltwise_cxx), and the static
# dependencies of $dir/$arch/prefix.
set(CMAKE_SYSTEM_NAME Linux)
set(CMAKE_SYSTEM_PROCESSOR $arch)
set(CMAKE_C_COMPILER "$bin/clang")
set(CMAKE_CXX_COMPILER "$bin/clang++")
set(CMAKE_AR "$bin/ar" CACHE FILEPATH "")
set(CMAKE_RANLIB "$bin/ranlib" CACHE FILEPATH "")
set(CMAKE_STRIP "$(command -v "$arch-linux-gnu-strip" || true)" CACHE FILEPATH "")  # binutils'
set(CMAKE_POSITION_INDEPENDENT_CODE ON)
# zig's clang emits DWARF unless told not to (GCC and clang do not); the wheels strip it anyway,
# and without it everything here compiles about a fifth faster.
set(CMAKE_C_FLAGS_INIT "-g0")
set(CMAKE_CXX_FLAGS_INIT "-g0")
# The static dependencies are found through their own CMake packages: protobuf's names only its
# lite library, which CMake's FindProtobuf module would not accept.
set(CMAKE_FIND_PACKAGE_PREFER_CONFIG ON)
# No link-time optimization: zig would build another libc++ for it.
set(CMAKE_INTERPROCEDURAL_OPTIMIZATION OFF)
set(CMAKE_FIND_ROOT_PATH "$dir/$arch/prefix")
set(CMAKE_FIND_ROOT_PATH_MODE_PROGRAM NEVER)
set(CMAKE_FIND_ROOT_PATH_MODE_LIBRARY ONLY)
set(CMAKE_FIND_ROOT_PATH_MODE_INCLUDE ONLY)
set(CMAKE_FIND_ROOT_PATH_MODE_PACKAGE ONLY)
set(CMAKE_SHARED_LINKER_FLAGS_INIT "-nostdlib++ -L$dir/$arch/cxx -leltwise_cxx")
set(CMAKE_MODULE_LINKER_FLAGS_INIT "-nostdlib++ -L$dir/$arch/cxx -leltwise_cxx")
CMAKE
}

# The sources of Debian bookworm's package PACKAGE at VERSION, patched, in DIR/src/PACKAGE.
debian_source() {
  local package=$1 version=$2 src=$dir/src
  [ -e "$src/$package/.complete" ] && return
  mkdir -p "$src"
  if ! [ -e "$src/Sources" ]; then
    curl -fsSL -o "$src/InRelease" "$mirror/dists/bookworm/InRelease"
    curl -fsSL -o "$src/Sources.xz" "$mirror/dists/bookworm/main/source/Sources.xz"
    if [ -e /usr/share/keyrings/debian-archive-keyring.gpg ] && command -v gpgv >/dev/null; then
      gpgv --keyring /usr/share/keyrings/debian-archive-keyring.gpg "$src/InRelease" 2>/dev/null
      local sum
      sum=$(sha256sum "$src/Sources.xz" | cut -d' ' -f1)
      grep -q " $sum .* main/source/Sources.xz$" "$src/InRelease" || {
        echo "floor: Sources.xz does not match the signed InRelease" >&2; exit 1; }
    else
      echo "floor: no debian-archive-keyring: the Sources index is not checked against InRelease"
    fi
    xz -dc "$src/Sources.xz" >"$src/Sources.partial" && mv "$src/Sources.partial" "$src/Sources"
  fi
  local stanza
  stanza=$(awk -v p="$package" '$0 == "Package: " p {s=1} s && /^$/ {exit} s' "$src/Sources")
  [[ "$stanza" == *"Version: $version"* ]] || {
    echo "floor: bookworm's $package is not $version" >&2; exit 1; }
  local directory
  directory=$(echo "$stanza" | sed -n 's/^Directory: //p')
  rm -rf "${src:?}/$package" && mkdir -p "$src/$package"
  local files
  files=$(echo "$stanza" | sed -n '/^Checksums-Sha256:/,/^[^ ]/p' |
    grep -E '^ [0-9a-f]{64} [0-9]+ .*\.(orig|debian)\.tar\.[a-z]+$')
  while read -r sum _ name; do
    [ -e "$src/$name" ] || curl -fsSL -o "$src/$name" "$mirror/$directory/$name"
    echo "$sum  $src/$name" | sha256sum -c --quiet
    case "$name" in
    *.orig.tar.*) tar -xf "$src/$name" -C "$src/$package" --strip-components=1 ;;
    *.debian.tar.*) tar -xf "$src/$name" -C "$src/$package" ;;
    esac
  done <<<"$files"
  if [ -e "$src/$package/debian/patches/series" ]; then
    grep -v '^\s*#' "$src/$package/debian/patches/series" | while read -r patch _; do
      [ -n "$patch" ] && patch -s -d "$src/$package" -p1 <"$src/$package/debian/patches/$patch"
    done
  fi
  touch "$src/$package/.complete"
}

# ONNX 1.12.0's release sources, from PyPI (its sdist): Debian's mirror lists bookworm's onnx
# source package (1.12.0-2) in the Sources index but does not serve its files. Debian's patches
# for it touch the Python package and tests, not the C++ library built here.
onnx_source() {
  local src=$dir/src sum=13b3e77d27523b9dbf4f30dfc9c959455859d5e34e921c44f712d69b8369eff9
  [ -e "$src/onnx/.complete" ] && return
  rm -rf "$src/onnx" "$src/onnx-download" && mkdir -p "$src/onnx" "$src/onnx-download"
  python3 -m pip download -q --disable-pip-version-check --no-deps --no-binary=:all: \
    --dest "$src/onnx-download" onnx==1.12.0
  echo "$sum  $src/onnx-download/onnx-1.12.0.tar.gz" | sha256sum -c --quiet
  tar -xzf "$src/onnx-download/onnx-1.12.0.tar.gz" -C "$src/onnx" --strip-components=1
  touch "$src/onnx/.complete"
}

# protobuf's install and export rules name its full library beside the lite one; ONNX here needs
# only the lite one, so the full one is neither built nor installed (idempotent).
protobuf_lite_only() {
  sed -i -e 's/^set(_protobuf_libraries libprotobuf-lite libprotobuf)$/set(_protobuf_libraries libprotobuf-lite)/' \
    -e 's/^\( *export(TARGETS libprotobuf-lite\) libprotobuf$/\1/' "$dir/src/protobuf/cmake/install.cmake"
  grep -q '^set(_protobuf_libraries libprotobuf-lite)$' "$dir/src/protobuf/cmake/install.cmake" || {
    echo "floor: protobuf's cmake/install.cmake is not as expected" >&2; exit 1; }
}

# The build and prefix of an earlier recipe (the full protobuf, DWARF everywhere) are rebuilt, not
# reused: the prefix would still hold them.
recipe=2
check_recipe() {
  if [ "$(cat "$dir/$arch/recipe" 2>/dev/null)" != "$recipe" ]; then
    rm -rf "${dir:?}/$arch/build" "${dir:?}/$arch/prefix"
    echo "$recipe" >"$dir/$arch/recipe"
  fi
}

# Configures SOURCE with CMake options, builds TARGETS (space-separated: what the install rules
# install; protobuf's name only its lite library, so its full one is never built) and installs
# it into DIR/ARCH/prefix: static, PIC and hidden, so that what links them exports none of their
# symbols (zig's linker has no --exclude-libs, which the other wheels' runtime uses for this).
# (zig's libc++ build, make_cxx, is single-threaded, but nothing compiles beside it: zig's C++
# compiles wait for it, measured.)
cmake_dep() {
  local name=$1 source=$2 targets=$3
  shift 3
  local build=$dir/$arch/build/$name
  [ -e "$build/.complete" ] && return
  rm -rf "$build" && mkdir -p "$build"
  cmake -S "$source" -B "$build" -G Ninja -Wno-dev -DCMAKE_BUILD_TYPE=Release \
    -DCMAKE_TOOLCHAIN_FILE="$dir/$arch/toolchain.cmake" -DCMAKE_INSTALL_PREFIX="$dir/$arch/prefix" \
    -DBUILD_SHARED_LIBS=OFF -DCMAKE_CXX_VISIBILITY_PRESET=hidden \
    -DCMAKE_C_VISIBILITY_PRESET=hidden -DCMAKE_VISIBILITY_INLINES_HIDDEN=ON "$@" \
    >"$build.log" 2>&1 || { tail -30 "$build.log"; exit 1; }
  # shellcheck disable=SC2086
  nice -n 5 cmake --build "$build" -j "$jobs" --target $targets >>"$build.log" 2>&1 ||
    { tail -40 "$build.log"; exit 1; }
  cmake --install "$build" >>"$build.log" 2>&1
  touch "$build/.complete"
}

case "$command" in
prepare)
  case "$arch" in
  x86_64 | aarch64) ;;
  *) echo "usage: bash scripts/floor_toolchain.sh prepare x86_64|aarch64 [DIR]" >&2; exit 2 ;;
  esac
  protoc_version=$(protoc --version | cut -d' ' -f2)
  [ "$protoc_version" = 3.21.12 ] || {
    echo "floor: protoc is $protoc_version; ONNX's sources need protobuf 3.21.12's" >&2; exit 1; }
  mkdir -p "$dir/$arch"
  exec 9>"$dir/$arch/.lock"
  flock 9  # one prepare per architecture at a time (the second reuses the first's work)
  timed "zig $zig_version download" fetch_zig
  check_recipe
  make_wrappers
  make_toolchain_file
  timed "libeltwise_cxx ($arch)" make_cxx
  timed "Debian sources" debian_source highway 1.0.3-3+deb12u1
  timed "Debian sources" debian_source protobuf 3.21.12-3+deb12u1
  timed "ONNX's sources" onnx_source
  protobuf_lite_only
  timed "Highway ($arch)" cmake_dep highway "$dir/src/highway" all -DHWY_ENABLE_TESTS=OFF \
    -DHWY_ENABLE_EXAMPLES=OFF -DHWY_ENABLE_CONTRIB=OFF -DHWY_ENABLE_INSTALL=ON
  timed "protobuf ($arch)" cmake_dep protobuf "$dir/src/protobuf" libprotobuf-lite \
    -Dprotobuf_BUILD_TESTS=OFF -Dprotobuf_BUILD_PROTOC_BINARIES=OFF -Dprotobuf_BUILD_LIBPROTOC=OFF \
    -Dprotobuf_WITH_ZLIB=OFF -Dprotobuf_INSTALL=ON
  timed "ONNX ($arch)" cmake_dep onnx "$dir/src/onnx" all \
    -DONNX_USE_PROTOBUF_SHARED_LIBS=OFF -DONNX_USE_LITE_PROTO=ON \
    -DCMAKE_CXX_FLAGS_RELEASE="-Os -DNDEBUG" -DCMAKE_C_FLAGS_RELEASE="-Os -DNDEBUG" \
    -DBUILD_ONNX_PYTHON=OFF -DONNX_BUILD_TESTS=OFF -DONNX_ML=ON \
    -DONNX_CUSTOM_PROTOC_EXECUTABLE="$(command -v protoc)" \
    -DProtobuf_PROTOC_EXECUTABLE="$(command -v protoc)"
  echo "floor: $dir/$arch/toolchain.cmake ready"
  ;;
*)
  echo "usage: bash scripts/floor_toolchain.sh prepare x86_64|aarch64 [DIR]" >&2
  exit 2
  ;;
esac
