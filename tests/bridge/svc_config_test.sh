#!/usr/bin/env bash
# The "service" lines of the bridge's config file (docs/BRIDGE.md "Services"): accepted ones as
# --check prints them, refused ones with file:line and why.
# Usage: svc_config_test.sh <zcast-bridge>
set -uo pipefail
BRIDGE=$1
W=$(mktemp -d /tmp/zcast-svc-config.XXXXXX)
trap 'rm -rf "$W"' EXIT
fail() { echo "FAIL: $*"; exit 1; }
T=example_interfaces/srv/AddTwoInts
printf '%s\n' "service /add $T zcast_to_dds" \
  "service /set std_srvs/SetBool dds_to_zcast timeout_ms=2000 pending=32 max_size=4K ros_name=/robot/set" \
  > "$W/ok.conf"
out=$("$BRIDGE" --check "$W/ok.conf") || fail "valid config refused: $out"
grep -qF "line 1: service /add $T zcast_to_dds max_size=65536 pending=8 timeout_ms=10000 parked=256" <<<"$out" ||
  fail "line 1: $out"
grep -qF "line 2: service /set std_srvs/srv/SetBool dds_to_zcast max_size=4096 pending=32 timeout_ms=2000" <<<"$out" ||
  fail "line 2: $out"
bad() { # expected message, then config lines
  local want=$1 msg rc=0
  shift
  printf '%s\n' "$@" > "$W/bad.conf"
  msg=$("$BRIDGE" --check "$W/bad.conf" 2>&1) || rc=$?
  [ "$rc" -eq 1 ] || fail "exit status $rc (want 1) for: $* -> $msg"
  grep -qF "$W/bad.conf:$want" <<<"$msg" || fail "want \"$want\", got \"$msg\""
}
bad '1: expected: service <name> <pkg/srv/Type> zcast_to_dds|dds_to_zcast' "service /a $T"
bad '1: unknown direction "both" (zcast_to_dds, dds_to_zcast)' "service /a $T both"
bad '1: unknown service type "foo/srv/Bar"' "service /a foo/srv/Bar zcast_to_dds"
bad '1: bad service name "a"' "service a $T zcast_to_dds"
bad '2: service /a repeats line 1' "service /a $T zcast_to_dds" "service /a $T dds_to_zcast"
bad '1: pending=0: expected a number from 1 to 1024' "service /a $T zcast_to_dds pending=0"
bad '1: timeout_ms=x: expected a number' "service /a $T dds_to_zcast timeout_ms=x"
bad '1: pending given twice' "service /a $T zcast_to_dds pending=2 pending=3"
bad '1: "fast": expected max_size=, pending=, timeout_ms=, parked= or ros_name=' "service /a $T zcast_to_dds fast"
bad '1: parked=0: expected a number from 1 to 4096' "service /a $T zcast_to_dds parked=0"
bad '1: parked= is for zcast_to_dds' "service /a $T dds_to_zcast parked=4"
bad '1: ros_name=x: bad service name' "service /a $T zcast_to_dds ros_name=x"
# zcast_to_dds: the bridge's zcast client has 2 x pending calls, a zcast client at most 512
bad '1: pending=257: at most 256 for zcast_to_dds' "service /a $T zcast_to_dds pending=257"
echo "service /a $T dds_to_zcast pending=1024" > "$W/many.conf"
"$BRIDGE" --check "$W/many.conf" > /dev/null || fail "dds_to_zcast pending=1024 refused"
echo PASS
