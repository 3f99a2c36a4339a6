#!/usr/bin/env bash
# Minimal Debian roots with one distribution's CPython, the interpreters the wheels are built for
# and tested on (scripts/wheel.sh). Run as root.
#   bash scripts/debian_root.sh make SUITE ARCH DIR PYTHON...
#       debootstrap --variant=minbase of SUITE (bookworm, trixie, sid) for ARCH (amd64, arm64) into
#       DIR with, for each PYTHON (3.11, 3.13, ...), python3.X, its venv module and its headers
#       (libpython3.X-dev), plus ca-certificates for pip. Nothing else: no compiler, no Highway,
#       ONNX or protobuf. A root of this machine's architecture is made by debootstrap and fully
#       configured. A root of another architecture is only unpacked (mmdebstrap --variant=extract:
#       the packages named here and their dependencies, in seconds): configuring it would run every
#       maintainer script under qemu-user, which takes from 20 minutes to an hour on 2 cores, and
#       nothing the wheels' tests use needs it (Debian's loader finds the multiarch library folders
#       without ld.so.cache; the CA bundle is the host's, mounted by `run`). Its extra packages are
#       the tools the test runs in it (bash, coreutils, findutils, grep, sed, ldd) and libstdc++6,
#       which every Debian system with a C++ program has and a manylinux wheel may not bundle.
#       Does nothing when DIR holds a finished root of the same request; remakes it otherwise.
#   bash scripts/debian_root.sh run DIR COMMAND [ARGS...]
#       COMMAND in a private user and mount namespace: /proc, /dev, /sys, the host's resolv.conf
#       and CA certificates (/etc/ssl/certs/ca-certificates.crt) mounted into DIR, and, for a
#       foreign root, qemu-aarch64-static registered with binfmt_misc there only (the host's
#       binfmt_misc is not touched; Linux 6.7 or newer gives each user namespace its own).
#       COMMAND runs on the host, so it can `chroot DIR ...`; $ROOT_DIR names DIR. Extra
#       read-only bind mounts: ROOT_BINDS="HOST_PATH:PATH_IN_ROOT ...".
# Needs debootstrap, and for arm64 mmdebstrap, qemu-user-static and uidmap (scripts/setup_cross.sh
# aarch64).
set -euo pipefail

mirror=${DEBIAN_MIRROR:-http://deb.debian.org/debian}
command=${1:-}

# qemu-user-static's registration for aarch64 ELF executables (the pattern Debian's
# qemu-user-static package ships); F: the interpreter is opened now, so it works inside chroots.
aarch64_binfmt=:qemu-aarch64:M::
aarch64_binfmt+='\x7fELF\x02\x01\x01\x00\x00\x00\x00\x00\x00\x00\x00\x00\x02\x00\xb7\x00:'
aarch64_binfmt+='\xff\xff\xff\xff\xff\xff\xff\x00\xff\xff\xff\xff\xff\xff\xff\xff\xfe\xff\xff\xff:'
aarch64_binfmt+=/usr/bin/qemu-aarch64-static:F

run_in_root_namespace() {  # DIR COMMAND...
  local dir=$1
  shift
  local arch
  arch=$(cat "$dir/.eltwise-arch" 2>/dev/null || echo amd64)
  # Every uid and gid below 65536 maps to itself, so files in the root keep their owners. The map
  # is written from here (a process in the parent namespace with CAP_SETUID may map any range;
  # unshare --map-users would need /etc/subuid entries); the child waits for it.
  ROOT_DIR=$dir ROOT_ARCH=$arch BINFMT=$aarch64_binfmt \
    unshare --user --mount bash -euo pipefail -c '
    until grep -q . /proc/self/gid_map; do sleep 0.05; done
    mount --make-rprivate /
    if [ "$ROOT_ARCH" = arm64 ] && [ "$(uname -m)" != aarch64 ]; then
      mount -t binfmt_misc binfmt_misc /proc/sys/fs/binfmt_misc
      echo "$BINFMT" >/proc/sys/fs/binfmt_misc/register
    fi
    mount --rbind /proc "$ROOT_DIR/proc"
    mount --rbind /dev "$ROOT_DIR/dev"
    mount --rbind /sys "$ROOT_DIR/sys"
    # Name servers and trusted certificates (a proxy CA, where there is one) from the host.
    touch "$ROOT_DIR/etc/resolv.conf"
    mount --bind /etc/resolv.conf "$ROOT_DIR/etc/resolv.conf"
    if [ -f /etc/ssl/certs/ca-certificates.crt ]; then
      mkdir -p "$ROOT_DIR/etc/ssl/certs"
      touch "$ROOT_DIR/etc/ssl/certs/ca-certificates.crt"
      mount --bind /etc/ssl/certs/ca-certificates.crt "$ROOT_DIR/etc/ssl/certs/ca-certificates.crt"
    fi
    for bind in ${ROOT_BINDS:-}; do
      mkdir -p "$ROOT_DIR/${bind#*:}"
      mount --bind "${bind%%:*}" "$ROOT_DIR/${bind#*:}"
      mount -o remount,bind,ro "$ROOT_DIR/${bind#*:}"
    done
    exec "$@"' root "$@" &
  local child=$! self_namespace
  self_namespace=$(readlink /proc/self/ns/user)
  until [ "$(readlink "/proc/$child/ns/user")" != "$self_namespace" ]; do sleep 0.05; done
  echo "0 0 65536" >"/proc/$child/uid_map"
  echo "0 0 65536" >"/proc/$child/gid_map"
  wait "$child"
}

case "$command" in
make)
  [ $# -ge 5 ] || { echo "usage: $0 make SUITE ARCH DIR PYTHON..." >&2; exit 2; }
  suite=$2 arch=$3 dir=$(realpath -m "$4")
  shift 4
  include=ca-certificates
  for version in "$@"; do
    include+=",python$version,python$version-venv,libpython$version-dev"
    # Up to 3.11 the venv module needs distutils (python3-distutils), which debootstrap's
    # resolver leaves out.
    if [ "${version#3.}" -le 11 ]; then include+=",python3-distutils"; fi
  done
  foreign_extra=bash,coreutils,dash,findutils,grep,sed,libc-bin,libstdc++6
  request="$suite $arch $include"
  if [ "$arch" != "$(dpkg --print-architecture)" ]; then request+=" extract:$foreign_extra"; fi
  if [ "$(cat "$dir/.eltwise-root" 2>/dev/null)" = "$request" ]; then
    echo "debian_root: $dir is $request"
    exit 0
  fi
  rm -rf "$dir"
  mkdir -p "$dir"
  echo "debian_root: $suite $arch into $dir ($include)"
  if [ "$arch" = "$(dpkg --print-architecture)" ]; then
    debootstrap --variant=minbase --arch="$arch" --include="$include" "$suite" "$dir" "$mirror" \
      >"$dir.log" 2>&1 || { tail -20 "$dir.log" >&2; exit 1; }
  else
    rmdir "$dir"  # mmdebstrap makes it
    # Check-Valid-Until off, as debootstrap does: a mirror that is a snapshot of sid serves a
    # Release file past its Valid-Until date (its signature is still checked).
    mmdebstrap --variant=extract --mode=root --arch="$arch" \
      --aptopt='Acquire::Check-Valid-Until "false"' \
      --include="$include,$foreign_extra" "$suite" "$dir" "$mirror" \
      >"$dir.log" 2>&1 || { tail -20 "$dir.log" >&2; exit 1; }
  fi
  echo "$arch" >"$dir/.eltwise-arch"
  echo "$request" >"$dir/.eltwise-root"
  echo "debian_root: $dir ready ($(du -sh "$dir" | cut -f1))"
  ;;
run)
  [ $# -ge 3 ] || { echo "usage: $0 run DIR COMMAND [ARGS...]" >&2; exit 2; }
  dir=$(realpath "$2")
  shift 2
  run_in_root_namespace "$dir" "$@"
  ;;
*)
  echo "usage: $0 make SUITE ARCH DIR PYTHON... | run DIR COMMAND [ARGS...]" >&2
  exit 2
  ;;
esac
