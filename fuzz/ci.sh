#!/usr/bin/env bash
# CI: builds the fuzzers with clang (ASan + UBSan) and runs each briefly (12 s each, about 60 s in
# all). Installs clang when missing (Debian: apt-get install clang).
#   usage: bash fuzz/ci.sh [SECONDS_EACH] [BUILD_DIR]
set -euo pipefail
cd "$(dirname "$0")/.."
if ! command -v clang++ >/dev/null 2>&1; then
  sudo_cmd=()
  if [ "$(id -u)" -ne 0 ]; then sudo_cmd=(sudo); fi
  "${sudo_cmd[@]}" apt-get update -qq
  DEBIAN_FRONTEND=noninteractive "${sudo_cmd[@]}" apt-get install -y -qq clang >/dev/null
fi
exec bash fuzz/run.sh "${1:-12}" "${2:-build/fuzz}"
