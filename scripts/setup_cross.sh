#!/usr/bin/env bash
# Installs what the cross builds need on Debian bookworm (run as root, or with sudo available);
# scripts/setup.sh installs the native build's dependencies. Safe to run again.
#   setup_cross.sh aarch64   g++-aarch64-linux-gnu, qemu-user and the arm64 multiarch libraries;
#                            for the aarch64 wheels (scripts/wheel.sh build-for/test-in-root) also
#                            debootstrap, mmdebstrap, qemu-user-static and uidmap
#   setup_cross.sh windows   mingw-w64 (POSIX threads), wine64, and a deb-src entry plus dpkg-dev
#                            so that scripts/ci_windows.sh can fetch Highway's Debian sources
#   setup_cross.sh s390x     g++-s390x-linux-gnu, qemu-user and the s390x multiarch libraries
#                            (big-endian; optional, scripts/ci_s390x.sh)
#   setup_cross.sh           aarch64 and windows
set -euo pipefail

want_aarch64=0
want_windows=0
want_s390x=0
case "${1:-all}" in
  aarch64) want_aarch64=1 ;;
  windows) want_windows=1 ;;
  s390x) want_s390x=1 ;;
  all) want_aarch64=1; want_windows=1 ;;
  *) echo "usage: $0 [aarch64|windows|s390x|all]" >&2; exit 2 ;;
esac

sudo_cmd=()
if [ "$(id -u)" -ne 0 ]; then sudo_cmd=(sudo); fi

need_update=0
packages=()
# A Debian architecture for multiarch libraries, and what to install for it.
add_multiarch() {
  if ! dpkg --print-foreign-architectures | grep -qx "$1"; then
    "${sudo_cmd[@]}" dpkg --add-architecture "$1"
    need_update=1
  fi
  shift
  packages+=("$@")
}
if [ $want_aarch64 = 1 ]; then
  # libc6:arm64 (pulled in by libhwy1:arm64) provides /lib/ld-linux-aarch64.so.1, which
  # qemu-aarch64 uses for the test programs (see cmake/toolchains/debian-multiarch.cmake).
  add_multiarch arm64 g++-aarch64-linux-gnu qemu-user libhwy-dev:arm64 libgtest-dev:arm64 \
    libgmock-dev:arm64 libcli11-dev libprotobuf-dev:arm64 debootstrap mmdebstrap qemu-user-static \
    uidmap
fi
if [ $want_s390x = 1 ]; then
  add_multiarch s390x g++-s390x-linux-gnu qemu-user libhwy-dev:s390x libgtest-dev:s390x \
    libgmock-dev:s390x libcli11-dev
fi
if [ $want_windows = 1 ]; then
  sources=/etc/apt/sources.list.d/eltwise-deb-src.sources
  if [ ! -f "$sources" ]; then
    "${sudo_cmd[@]}" tee "$sources" >/dev/null <<'SOURCES'
Types: deb-src
URIs: http://deb.debian.org/debian
Suites: bookworm bookworm-updates
Components: main
Signed-By: /usr/share/keyrings/debian-archive-keyring.gpg
SOURCES
    need_update=1
  fi
  packages+=(g++-mingw-w64-x86-64-posix wine64 wine dpkg-dev libcli11-dev googletest)
fi

missing=()
for p in "${packages[@]}"; do
  dpkg -s "$p" >/dev/null 2>&1 || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ] || [ $need_update = 1 ]; then
  "${sudo_cmd[@]}" apt-get update -qq
fi
if [ ${#missing[@]} -gt 0 ]; then
  echo "setup_cross: installing ${missing[*]}"
  DEBIAN_FRONTEND=noninteractive "${sudo_cmd[@]}" apt-get install -y -qq "${missing[@]}" >/dev/null
fi
echo "setup_cross: cross dependencies present"
