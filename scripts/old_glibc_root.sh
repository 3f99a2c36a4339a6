#!/usr/bin/env bash
# A Debian root with an old glibc and a CPython built there, where the manylinux_2_28 wheels are
# tested (scripts/wheel.sh test-in-old-root): the proof that they install and run on a glibc older
# than the build machine's. Run as root.
#   bash scripts/old_glibc_root.sh make DIR [amd64|arm64] [3.11|3.12]
#       debootstrap --variant=minbase of bullseye (glibc 2.31, the oldest suite deb.debian.org
#       serves) for amd64 into DIR, then CPython 3.11 (the default) or 3.12 built in it
#       (bullseye's own is 3.9) from the upstream tarball of a source package: for 3.11 Debian's
#       python3.11 (bookworm's, 3.11.2); for 3.12, which no Debian suite has any more, Ubuntu's
#       python3.12 (noble-updates', 3.12.3; Ubuntu 24.04's system Python). The distribution's
#       patches are not applied: they adapt CPython to its file layout, which an interpreter in
#       /usr/local does not need, and backport security fixes, which a test root does not need.
#       The files are checked along the archive's chain of trust: InRelease's signature (gpgv
#       with the host's debian-archive-keyring; for Ubuntu's archive its key from Debian's
#       ubuntu-keyring package, itself checked along Debian's chain), Sources.xz's SHA-256 from
#       it, the source package's files' SHA-256 from Sources. Configured with
#       --prefix=/usr/local (no PGO or LTO), built with make -j2, installed with make altinstall
#       (python3.X and its pip: /usr/local/bin/python3.X).
#       The build fails unless the modules pip and the wheels' test dependencies import were
#       built (_ssl, _ctypes, zlib, _bz2, _lzma, _sqlite3, _uuid, _hashlib, ...). Then every
#       package installed for the build (compiler, headers, -dev packages) is purged, so the
#       root has no compiler and no Highway, ONNX or protobuf, and apt's lists are dropped. Each
#       step is timed. Does nothing when DIR holds a finished root of the same request.
#       For arm64 the same, but unpacked (mmdebstrap --variant=extract, as debian_root.sh makes
#       foreign roots) and its CPython cross-compiled on this machine against a sysroot of
#       bullseye's arm64 -dev packages (see cross_build), then checked in the root under qemu-user.
# Needs debootstrap, curl, gpgv and debian-archive-keyring on the host, and
# scripts/debian_root.sh (its `run` namespace for the chroot); for arm64 also mmdebstrap,
# qemu-user-static, the aarch64 cross compiler (scripts/setup_cross.sh aarch64) and Debian's
# python3.11 (3.11's build interpreter; 3.12's is built here from the same source).
set -euo pipefail
cd "$(dirname "$0")/.."

mirror=${DEBIAN_MIRROR:-http://deb.debian.org/debian}
suite=bullseye
keyring=/usr/share/keyrings/debian-archive-keyring.gpg
# Where Debian's ubuntu-keyring package (Ubuntu's archive key, for 3.12's source) is taken from.
keyring_suite=sid
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

# Downloads MIRROR's INDEX (a path under dists/SUITE, such as main/source/Sources.xz) into DIR as
# FILE, checked against InRelease, whose signature KEYRING checks.
fetch_index() {  # MIRROR SUITE KEYRING INDEX DIR FILE
  local mirror=$1 suite=$2 keyring=$3 index=$4 dir=$5 file=$6 sha
  mkdir -p "$dir"
  curl -sSf -o "$dir/$suite.InRelease" "$mirror/dists/$suite/InRelease"
  gpgv --keyring "$keyring" "$dir/$suite.InRelease" 2>"$dir/gpgv.log" || {
    cat "$dir/gpgv.log" >&2; echo "old_glibc_root: bad InRelease signature ($mirror $suite)" >&2
    return 1; }
  sha=$(awk -v f="$index" '/^SHA256:/ {s = 1; next} /^[^ ]/ {s = 0} s && $3 == f {print $1}' \
    "$dir/$suite.InRelease")
  [ -n "$sha" ] || { echo "old_glibc_root: no $index in $suite's InRelease" >&2; return 1; }
  curl -sSf -o "$dir/$file" "$mirror/dists/$suite/$index"
  echo "$sha  $dir/$file" | sha256sum -c --quiet
}

# Prints the stanza of PACKAGE in the xz-compressed index INDEX.
# (awk reads to the end: an early exit would kill xz with SIGPIPE, a failure under pipefail.)
stanza_of() {  # INDEX PACKAGE
  xz -dc "$1" | awk -v p="$2" '
    /^Package: / {keep = (!done && $2 == p)} keep {print} keep && /^$/ {keep = 0; done = 1}'
}

# Ubuntu's archive keyring, from Debian's ubuntu-keyring package (checked along Debian's chain),
# unpacked into DIR; prints the keyring's path.
ubuntu_keyring() {  # DIR
  local dir=$1 filename sha
  fetch_index "$mirror" "$keyring_suite" "$keyring" main/binary-all/Packages.xz "$dir" \
    keyring-Packages.xz || return 1
  stanza_of "$dir/keyring-Packages.xz" ubuntu-keyring >"$dir/keyring-stanza"
  filename=$(sed -n 's/^Filename: //p' "$dir/keyring-stanza")
  sha=$(sed -n 's/^SHA256: //p' "$dir/keyring-stanza")
  [ -n "$filename" ] && [ -n "$sha" ] ||
    { echo "old_glibc_root: no ubuntu-keyring in $keyring_suite" >&2; return 1; }
  curl -sSf -o "$dir/ubuntu-keyring.deb" "$mirror/$filename"
  echo "$sha  $dir/ubuntu-keyring.deb" | sha256sum -c --quiet >&2 || return 1
  rm -rf "$dir/ubuntu-keyring" && dpkg -x "$dir/ubuntu-keyring.deb" "$dir/ubuntu-keyring"
  echo "$dir/ubuntu-keyring/usr/share/keyrings/ubuntu-archive-keyring.gpg"
}

# Downloads the source package's files into DIR (kept between runs), checked as described above.
fetch_source() {  # DIR
  local dir=$1 source_keyring=$keyring
  mkdir -p "$dir"
  if [ "$source_mirror" != "$mirror" ]; then
    source_keyring=$(ubuntu_keyring "$dir") || return 1
  fi
  fetch_index "$source_mirror" "$source_suite" "$source_keyring" main/source/Sources.xz "$dir" \
    Sources.xz || return 1
  # The package's stanza: its pool folder and its files' SHA-256 sums.
  stanza_of "$dir/Sources.xz" "$source_package" >"$dir/stanza"
  local directory
  directory=$(sed -n 's/^Directory: //p' "$dir/stanza")
  sed -n "s/^Version: /old_glibc_root: $source_package /p" "$dir/stanza"
  awk '/^Checksums-Sha256:/ {s = 1; next} /^[^ ]/ {s = 0} s && NF == 3 {print $1, $3}' \
    "$dir/stanza" >"$dir/files"
  [ -s "$dir/files" ] || { echo "old_glibc_root: no $source_package in Sources" >&2; return 1; }
  local sha name
  while read -r sha name; do
    if ! echo "$sha  $dir/$name" | sha256sum -c --quiet >/dev/null 2>&1; then
      curl -sSf -o "$dir/$name" "$source_mirror/$directory/$name"
      echo "$sha  $dir/$name" | sha256sum -c --quiet
    fi
    echo "old_glibc_root: $name sha256 $sha ok"
  done <"$dir/files"
}

in_root() {  # DIR SCRIPT: SCRIPT runs by bash in a chroot of DIR.
  bash scripts/debian_root.sh run "$1" env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin HOME=/root \
    LANG=C.UTF-8 DEBIAN_FRONTEND=noninteractive chroot "$1" bash -euo pipefail -c "$2"
}

# Prints a script that imports each of $modules with the installed python$version (in the root),
# and names it.
check_modules_script() {
  echo "/usr/local/bin/python$version -c '
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
}

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

  # A cross build needs an interpreter of the same version on the build machine: Debian's
  # python3.11, or for 3.12 (which Debian no longer has) one built here from the same source, used
  # from its build folder and removed afterwards.
  local build_python=/usr/bin/python$version
  if ! [ -x "$build_python" ]; then
    step "building CPython $version for this machine (the cross build's interpreter)"
    build_python=$dir.build-python/python
    rm -rf "$dir.build-python" && mkdir -p "$dir.build-python"
    tar -xf "$orig" -C "$dir.build-python" --strip-components=1
    (
      cd "$dir.build-python"
      ./configure >"$dir.build-python.log" 2>&1 && make -j2 >>"$dir.build-python.log" 2>&1
    ) || { tail -30 "$dir.build-python.log" >&2; return 1; }
  fi

  step "cross-building CPython $version (configure, make -j2, make altinstall)"
  mkdir -p "$build"
  tar -xf "$orig" -C "$build" --strip-components=1
  # 3.11's setup.py adds this machine's /usr/include/aarch64-linux-gnu and
  # /usr/lib/aarch64-linux-gnu (Debian multiarch, meant for native builds) before everything else;
  # there they would be the cross toolchain's newer glibc. The sysroot's own come from CC, and from
  # LDFLAGS and CPPFLAGS, where setup.py looks for libraries (libffi for _ctypes) and headers.
  # (3.12 has no setup.py: configure finds the modules' libraries through pkg-config.)
  if [ -e "$build/setup.py" ]; then
    sed -i 's/^    def add_multiarch_paths(self):$/&\n        if CROSS_COMPILING:\n            return/' \
      "$build/setup.py"
    grep -A1 'def add_multiarch_paths' "$build/setup.py" | grep -q CROSS_COMPILING ||
      { echo "old_glibc_root: setup.py's add_multiarch_paths not found" >&2; return 1; }
  fi
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
      --with-build-python="$build_python" --without-ensurepip CC="$cc" \
      LDFLAGS="-L$sysroot/usr/lib/$triple" CPPFLAGS="-I$sysroot/usr/include/$triple" \
      CXX="${cc/gcc/g++}" AR=$triple-ar READELF=$triple-readelf >"$dir.configure.log" 2>&1 ||
      { tail -30 "$dir.configure.log" >&2; exit 1; }
    make -j2 >"$dir.make.log" 2>&1 || { tail -40 "$dir.make.log" >&2; exit 1; }
    sed -n '/necessary bits to build these optional modules/,/^$/p;/Failed to build/,/^$/p' \
      "$dir.make.log"
    make altinstall DESTDIR="$dir" >"$dir.install.log" 2>&1 ||
      { tail -40 "$dir.install.log" >&2; exit 1; }
  )
  rm -rf "$sysroot" "$build" "$dir.build-python"

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
  [ $# -ge 2 ] && [ $# -le 4 ] || {
    echo "usage: $0 make DIR [amd64|arm64] [3.11|3.12]" >&2; exit 2; }
  dir=$(realpath -m "$2")
  arch=${3:-amd64}
  version=${4:-3.11}
  case "$arch" in
  amd64 | arm64) ;;
  *) echo "old_glibc_root: ARCH is amd64 or arm64, not $arch" >&2; exit 2 ;;
  esac
  source_package=python$version
  case "$version" in
  3.11) source_mirror=$mirror source_suite=bookworm ;;
  3.12)
    source_mirror=${UBUNTU_MIRROR:-http://archive.ubuntu.com/ubuntu}
    source_suite=noble-updates
    ;;
  *) echo "old_glibc_root: VERSION is 3.11 or 3.12, not $version" >&2; exit 2 ;;
  esac
  check_modules=$(check_modules_script)
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
  echo "usage: $0 make DIR [amd64|arm64] [3.11|3.12]" >&2
  exit 2
  ;;
esac
