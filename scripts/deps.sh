#!/usr/bin/env bash
# Installs the Debian packages a make target needs, only those missing (checked with dpkg-query).
# Usage: scripts/deps.sh build|test|docs|bench ...
set -euo pipefail
declare -A groups=(
  [build]="gcc make cmake pkg-config libzstd-dev liblz4-dev zlib1g-dev python3 python3-rosidl python3-empy python3-dev cyclonedds-dev"
  [test]="gcc g++ make cmake pkg-config libzstd-dev liblz4-dev zlib1g-dev nodejs doxygen clang libclang-rt-14-dev spin util-linux python3 python3-numpy python3-matplotlib tmux python3-rosidl python3-empy cyclonedds-dev cyclonedds-tools python3-dev python3-pytest python3-setuptools python3-wheel python3-venv iproute2 strace"
  [docs]="doxygen"
  [bench]="gcc make cmake pkg-config libzstd-dev liblz4-dev zlib1g-dev python3 python3-dev python3-matplotlib python3-numpy iceoryx libiceoryx-binding-c-dev python3-rosidl python3-empy cyclonedds-dev cyclonedds-tools iproute2"
)
want=()
for g in "$@"; do
  for p in ${groups[$g]:?unknown group $g}; do
    if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed"; then
      want+=("$p")
    fi
  done
done
[ ${#want[@]} -eq 0 ] && exit 0
if [ "$(id -u)" -ne 0 ]; then
  echo "missing packages: ${want[*]} (run as root or install them)" >&2
  exit 1
fi
echo "installing: ${want[*]}"
export DEBIAN_FRONTEND=noninteractive
apt-get update -qq
apt-get install -y -qq --no-install-recommends "${want[@]}" >/dev/null
