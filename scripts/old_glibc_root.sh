#!/usr/bin/env bash
# A Debian root with an old glibc and a CPython built there, where the manylinux_2_28 wheels are
# tested (scripts/wheel.sh test-in-old-root): the proof that they install and run on a glibc older
# than the build machine's. Run as root.
#   bash scripts/old_glibc_root.sh make DIR [amd64]
#       debootstrap --variant=minbase of bullseye (glibc 2.31, the oldest suite deb.debian.org
#       serves) for amd64 into DIR, then CPython 3.11 built in it (bullseye's own is 3.9) from the
#       upstream tarball of Debian's source package of python3.11 (bookworm's, 3.11.2; Debian's
#       patches are not applied: they adapt CPython to Debian's file layout, which an
#       interpreter in /usr/local does not need, and backport security fixes, which a test root
#       does not need). The files are checked along the archive's chain of trust: InRelease's
#       signature (gpgv, the host's debian-archive-keyring), Sources.xz's SHA-256 from it, the
#       source package's files' SHA-256 from Sources. Configured with --prefix=/usr/local (no
#       PGO or LTO), built with make -j2, installed with make altinstall (python3.11 and its
#       pip: /usr/local/bin/python3.11).
#       The build fails unless the modules pip and the wheels' test dependencies import were
#       built (_ssl, _ctypes, zlib, _bz2, _lzma, _sqlite3, _uuid, _hashlib, ...). Then every
#       package installed for the build (compiler, headers, -dev packages) is purged, so the
#       root has no compiler and no Highway, ONNX or protobuf, and apt's lists are dropped. Each
#       step is timed. Does nothing when DIR holds a finished root of the same request.
#   bash scripts/old_glibc_root.sh make DIR arm64
#       The same for arm64, but unpacked (mmdebstrap --variant=extract, as debian_root.sh makes
#       foreign roots) and its CPython cross-compiled on this machine against a sysroot of
#       bullseye's arm64 -dev packages (see cross_build), then checked in the root under qemu-user.
# Needs debootstrap, curl, gpgv and debian-archive-keyring on the host, and
# scripts/debian_root.sh (its `run` namespace for the chroot); for arm64 also mmdebstrap,
# qemu-user-static, the aarch64 cross compiler (scripts/setup_cross.sh aarch64) and Debian's
# python3.11 (the build interpreter).
set -euo pipefail
cd "$(dirname "$0")/.."

mirror=${DEBIAN_MIRROR:-http://deb.debian.org/debian}
suite=bullseye
source_suite=bookworm
source_package=python3.11
version=3.11
keyring=/usr/share/keyrings/debian-archive-keyring.gpg
# What the wheels' test dependencies and pip need beyond the core: ssl (pip), ctypes (numpy,
# onnx), zlib, bz2 and lzma (pip, pandas, tarfile), sqlite3 (hypothesis' database), uuid and
# hashlib (distributed), decimal, json, csv, multiprocessing's _posixshmem (dask, distributed).
# No readline, curses, dbm or tkinter: nothing the tests run needs them.
modules="_ssl _hashlib _ctypes zlib _bz2 _lzma _sqlite3 _uuid _decimal _json _csv _posixshmem
  _multiprocessing select _socket pyexpat _elementtree _struct math _datetime _pickle array"
# Installed before the build and kept: the runtime libraries of those modules.
runtime="ca-certificates libssl1.1 libffi7 libsqlite3-0 libbz2-1.0 liblzma5 zlib1g libuuid1
  libexpat1"
# The tools the test runs in a foreign root, which is unpacked, not configured (debian_root.sh).
foreign_extra="bash coreutils dash findutils grep sed libc-bin libstdc++6"
# The -dev packages of a cross build's sysroot.
cross_dev="libc6-dev libssl-dev libffi-dev libsqlite3-dev libbz2-dev liblzma-dev zlib1g-dev
  uuid-dev libexpat1-dev"
# Installed for the build and purged after it.
build_deps="gcc make libc6-dev pkg-config libssl-dev libffi-dev libsqlite3-dev libbz2-dev
  liblzma-dev zlib1g-dev uuid-dev libexpat1-dev xz-utils"

step_start=$SECONDS
step() {  # Prints the previous step's time, then names the next.
  if [ -n "${step_name:-}" ]; then
    echo "old_glibc_root: $step_name took $((SECONDS - step_start)) s"
  fi
  step_name=$1 step_start=$SECONDS
  [ -z "$step_name" ] || echo "old_glibc_root: $step_name"
}

# Downloads the source package's files into DIR (kept between runs), checked as described above.
fetch_source() {  # DIR
  local dir=$1 sources_sha
  mkdir -p "$dir"
  curl -sSf -o "$dir/InRelease" "$mirror/dists/$source_suite/InRelease"
  gpgv --keyring "$keyring" "$dir/InRelease" 2>"$dir/gpgv.log" || {
    cat "$dir/gpgv.log" >&2; echo "old_glibc_root: bad InRelease signature" >&2; return 1; }
  sources_sha=$(awk '/^SHA256:/ {s = 1; next} /^[^ ]/ {s = 0}
    s && $3 == "main/source/Sources.xz" {print $1}' "$dir/InRelease")
  [ -n "$sources_sha" ] || { echo "old_glibc_root: no Sources.xz in InRelease" >&2; return 1; }
  curl -sSf -o "$dir/Sources.xz" "$mirror/dists/$source_suite/main/source/Sources.xz"
  echo "$sources_sha  $dir/Sources.xz" | sha256sum -c --quiet
  # The package's stanza: its pool folder and its files' SHA-256 sums.
  # (awk reads to the end: an early exit would kill xz with SIGPIPE, a failure under pipefail.)
  xz -dc "$dir/Sources.xz" | awk -v p="$source_package" '
    /^Package: / {keep = (!done && $2 == p)} keep {print} keep && /^$/ {keep = 0; done = 1}' \
    >"$dir/stanza"
  local directory
  directory=$(sed -n 's/^Directory: //p' "$dir/stanza")
  sed -n "s/^Version: /old_glibc_root: $source_package /p" "$dir/stanza"
  awk '/^Checksums-Sha256:/ {s = 1; next} /^[^ ]/ {s = 0} s && NF == 3 {print $1, $3}' \
    "$dir/stanza" >"$dir/files"
  [ -s "$dir/files" ] || { echo "old_glibc_root: no $source_package in Sources" >&2; return 1; }
  local sha name
  while read -r sha name; do
    if ! echo "$sha  $dir/$name" | sha256sum -c --quiet >/dev/null 2>&1; then
      curl -sSf -o "$dir/$name" "$mirror/$directory/$name"
      echo "$sha  $dir/$name" | sha256sum -c --quiet
    fi
    echo "old_glibc_root: $name sha256 $sha ok"
  done <"$dir/files"
}

in_root() {  # DIR SCRIPT: SCRIPT runs by bash in a chroot of DIR.
  bash scripts/debian_root.sh run "$1" env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin HOME=/root \
    LANG=C.UTF-8 DEBIAN_FRONTEND=noninteractive chroot "$1" bash -euo pipefail -c "$2"
}

# Imports each of $modules with the installed python3.11 (in the root), and names it.
check_modules="/usr/local/bin/python$version -c '
import importlib, sys
missing = []
for name in sys.argv[1:]:
    try:
        importlib.import_module(name)
    except ImportError as error:
        missing.append(f\"{name} ({error})\")
if missing:
    sys.exit(\"old_glibc_root: modules not built: \" + \", \".join(missing))
import ssl
print(\"old_glibc_root: Python\", sys.version.split()[0], \"with\", ssl.OPENSSL_VERSION)' ${modules//$'\n'/ }"

# A root of another architecture (arm64): building CPython under qemu-user would take hours, so
# it is cross-compiled with Debian's aarch64-linux-gnu-gcc against a sysroot of the suite's own
# -dev packages (glibc 2.31's headers and libraries, not the cross toolchain's), with this
# machine's python3.11 as the build interpreter, and installed into the root (make altinstall
# DESTDIR). Both trees are unpacked by mmdebstrap --variant=extract, as debian_root.sh does for
# foreign roots; the sysroot and the build tree are removed afterwards, so the root never holds a
# compiler or headers.
cross_build() {  # DIR ORIG
  local dir=$1 orig=$2 sysroot=$1.sysroot build=$1.build triple=aarch64-linux-gnu
  local unpack=(mmdebstrap --variant=extract --mode=root --arch="$arch"
    --aptopt='Acquire::Check-Valid-Until "false"')
  step "unpacking $suite $arch into $dir, and its build sysroot"
  rm -rf "$dir" "$sysroot" "$build"
  "${unpack[@]}" --include="$(echo "$runtime" "$foreign_extra" | tr -s ' \n' ',')" "$suite" "$dir" \
    "$mirror" >"$dir.log" 2>&1 || { tail -20 "$dir.log" >&2; return 1; }
  "${unpack[@]}" --include="$(echo "$runtime" "$cross_dev" | tr -s ' \n' ',')" "$suite" \
    "$sysroot" "$mirror" >>"$dir.log" 2>&1 || { tail -20 "$dir.log" >&2; return 1; }
  echo "$arch" >"$dir/.eltwise-arch"
  # The -dev packages' absolute links (libpthread.so -> /lib/...) would reach this machine's own
  # arm64 libraries (a newer glibc); they point into the sysroot instead.
  local link target
  while IFS= read -r -d '' link; do
    target=$(readlink "$link")
    if [[ "$target" == /* ]]; then ln -sfn "$sysroot$target" "$link"; fi
  done < <(find "$sysroot/usr/lib" "$sysroot/lib" -type l -print0)
  # libffi.pc names $sysroot/usr/include as ffi.h's folder, and CPython's setup.py then builds
  # _ctypes without libffi when ffi.h is not there; Debian keeps it in the multiarch folder, which
  # only a native compiler searches by itself.
  local header
  for header in ffi.h ffitarget.h; do ln -sfn "$triple/$header" "$sysroot/usr/include/$header"; done

  step "cross-building CPython $version (configure, make -j2, make altinstall)"
  mkdir -p "$build"
  tar -xf "$orig" -C "$build" --strip-components=1
  # setup.py adds this machine's /usr/include/aarch64-linux-gnu and /usr/lib/aarch64-linux-gnu
  # (Debian multiarch, meant for native builds) before everything else; there they would be the
  # cross toolchain's newer glibc. The sysroot's own come from CC, and from LDFLAGS and CPPFLAGS,
  # where setup.py looks for libraries (libffi for _ctypes) and headers.
  sed -i 's/^    def add_multiarch_paths(self):$/&\n        if CROSS_COMPILING:\n            return/' \
    "$build/setup.py"
  grep -A1 'def add_multiarch_paths' "$build/setup.py" | grep -q CROSS_COMPILING ||
    { echo "old_glibc_root: setup.py's add_multiarch_paths not found" >&2; return 1; }
  # The sysroot's headers and libraries before the cross toolchain's own glibc (2.36).
  local cc="$triple-gcc --sysroot=$sysroot -isystem $sysroot/usr/include/$triple"
  cc+=" -isystem $sysroot/usr/include -B$sysroot/usr/lib/$triple -L$sysroot/usr/lib/$triple"
  cc+=" -L$sysroot/lib/$triple"
  # configure's answers that it would get by running a program (glibc 2.31 on Linux).
  printf '%s\n' ac_cv_file__dev_ptmx=yes ac_cv_file__dev_ptc=no ac_cv_buggy_getaddrinfo=no \
    ac_cv_working_tzset=yes ac_cv_have_long_long_format=yes >"$build/config.site"
  (
    cd "$build"
    CONFIG_SITE=$build/config.site PKG_CONFIG_SYSROOT_DIR=$sysroot \
      PKG_CONFIG_LIBDIR=$sysroot/usr/lib/$triple/pkgconfig:$sysroot/usr/share/pkgconfig \
      ./configure --host=$triple --build="$(uname -m)-linux-gnu" --prefix=/usr/local \
      --with-build-python="/usr/bin/python$version" --without-ensurepip CC="$cc" \
      LDFLAGS="-L$sysroot/usr/lib/$triple" CPPFLAGS="-I$sysroot/usr/include/$triple" \
      CXX="${cc/gcc/g++}" AR=$triple-ar READELF=$triple-readelf >"$dir.configure.log" 2>&1 ||
      { tail -30 "$dir.configure.log" >&2; exit 1; }
    make -j2 >"$dir.make.log" 2>&1 || { tail -40 "$dir.make.log" >&2; exit 1; }
    sed -n '/necessary bits to build these optional modules/,/^$/p;/Failed to build/,/^$/p' \
      "$dir.make.log"
    make altinstall DESTDIR="$dir" >"$dir.install.log" 2>&1 ||
      { tail -40 "$dir.install.log" >&2; exit 1; }
  )
  rm -rf "$sysroot" "$build"

  step "checking the modules in the root (qemu-user)"
  in_root "$dir" "$check_modules
    ldd --version | sed -n 1p"  # sed reads to the end: no SIGPIPE under pipefail
}

# A root of this machine's own architecture: debootstrapped, CPython built inside it, then its
# build dependencies purged.
native_build() {  # DIR ORIG
  local dir=$1 orig=$2
  step "debootstrap $suite $arch into $dir"
  rm -rf "$dir"
  mkdir -p "$dir"
  debootstrap --variant=minbase --arch="$arch" --include=ca-certificates "$suite" "$dir" \
    "$mirror" >"$dir.log" 2>&1 || { tail -20 "$dir.log" >&2; exit 1; }
  echo "$arch" >"$dir/.eltwise-arch"

  step "installing the runtime libraries, then the build dependencies"
  in_root "$dir" "
    apt-get update -q >/dev/null
    apt-get install -q -y --no-install-recommends ${runtime//$'\n'/ } >/dev/null
    dpkg-query -W -f '\${Package}\n' | sort >/root/packages-before-build
    apt-get install -q -y --no-install-recommends ${build_deps//$'\n'/ } >/dev/null
    gcc --version | head -1"

  step "building CPython $version (configure, make -j2, make altinstall)"
  mkdir -p "$dir/usr/src/python"
  tar -xf "$orig" -C "$dir/usr/src/python" --strip-components=1
  in_root "$dir" "
    cd /usr/src/python
    ./configure --prefix=/usr/local >/usr/src/configure.log 2>&1 ||
      { tail -30 /usr/src/configure.log; exit 1; }
    make -j2 >/usr/src/make.log 2>&1 || { tail -40 /usr/src/make.log; exit 1; }
    # setup.py's summary of the extension modules it could not build.
    sed -n '/necessary bits to build these optional modules/,/^\$/p;/Failed to build/,/^\$/p' \
      /usr/src/make.log
    make altinstall >/usr/src/install.log 2>&1 || { tail -40 /usr/src/install.log; exit 1; }
    $check_modules"

  step "purging the build dependencies and the build tree"
  in_root "$dir" "
    rm -rf /usr/src/python
    dpkg-query -W -f '\${Package}\n' | sort >/root/packages-after-build
    comm -13 /root/packages-before-build /root/packages-after-build >/root/packages-build
    xargs apt-get purge -q -y </root/packages-build >/dev/null
    apt-get clean
    rm -rf /var/lib/apt/lists/* /root/packages-before-build /root/packages-after-build
    for tool in cc gcc g++ c++ cpp ld as; do
      if command -v \$tool >/dev/null; then echo \"old_glibc_root: \$tool left\" >&2; exit 1; fi
    done
    if [ -n \"\$(find /usr/include -name '*.h' 2>/dev/null | head -1)\" ]; then
      echo \"old_glibc_root: C headers left in /usr/include\" >&2; exit 1
    fi
    /usr/local/bin/python$version -c 'import ssl, ctypes, sqlite3, lzma, bz2, zlib, uuid'
    echo \"old_glibc_root: purged \$(wc -l </root/packages-build) packages; \$(ldd --version | head -1)\""
}

case "${1:-}" in
make)
  [ $# -eq 2 ] || [ $# -eq 3 ] || { echo "usage: $0 make DIR [amd64|arm64]" >&2; exit 2; }
  dir=$(realpath -m "$2")
  arch=${3:-amd64}
  case "$arch" in
  amd64 | arm64) ;;
  *) echo "old_glibc_root: ARCH is amd64 or arm64, not $arch" >&2; exit 2 ;;
  esac
  request="$suite $arch cpython-$version-from-$source_suite-$source_package"
  if [ "$(cat "$dir/.eltwise-root" 2>/dev/null)" = "$request" ]; then
    echo "old_glibc_root: $dir is $request"
    exit 0
  fi
  total_start=$SECONDS
  step "fetching and checking $source_package's source from $source_suite"
  fetch_source "$dir.sources"
  orig=$(compgen -G "$dir.sources/${source_package}_*.orig.tar.*" | head -1)
  if [ "$arch" != "$(dpkg --print-architecture)" ]; then
    cross_build "$dir" "$orig"
  else
    native_build "$dir" "$orig"
  fi
  for lib in libhwy libonnx libprotobuf; do
    if compgen -G "$dir/usr/lib/*/$lib.so*" >/dev/null; then
      echo "old_glibc_root: $dir has $lib" >&2
      exit 1
    fi
  done
  step ""
  echo "$request" >"$dir/.eltwise-root"
  echo "old_glibc_root: $dir ready in $((SECONDS - total_start)) s ($(du -sh "$dir" | cut -f1))"
  ;;
*)
  echo "usage: $0 make DIR [amd64|arm64]" >&2
  exit 2
  ;;
esac
