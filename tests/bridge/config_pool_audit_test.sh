#!/usr/bin/env bash
# An in route's zcast pool is slots x max_size of /dev/shm, taken at start (found by the audit of
# issue 26: `in /big std_msgs/msg/String reliable max_size=1G` was accepted and the bridge
# fallocated 20 x 1 GiB, the host's memory, for a minute). At most 4G per in route now; an out
# route has no pool. Only --check runs here: nothing is allocated. No root needed.
# Usage: config_pool_audit_test.sh <zcast-bridge>
set -uo pipefail
BRIDGE=$1
W=$(mktemp -d)
trap 'rm -rf "$W"' EXIT
fail() { echo "FAIL: $*"; exit 1; }
S='std_msgs/msg/String'
. "$(dirname "$0")/config_helpers.sh"
bad "1: slots x max_size = 20 x 1073741824 bytes: an in route's pool is at most 4G" \
  "in /big $S reliable max_size=1G"
bad "1: slots x max_size = 20 x 268435456 bytes" "in /big $S reliable max_size=256M"
bad "1: slots x max_size = 4096 x 1048577 bytes" "in /big $S reliable slots=4096 max_size=1048577"
good "in /big $S reliable slots=4 max_size=1G"       # 4 GiB, the bound
good "in /big $S reliable max_size=200M"             # 20 x 200 MiB
good "in /big $S reliable slots=4096 max_size=1M"    # 4 GiB
good "out /big $S reliable max_size=1G"              # no pool
echo PASS
