#!/usr/bin/env bash
# zcast-bridge's config file, the mistakes that used to pass in silence: a line for the whole bridge
# given twice (the second silently won), catchup= on a best-effort route (nothing is ever resent),
# ROS_DOMAIN_ID out of 0..232 or not a number (ROS 2 refuses it; the bridge used domain 0), and the
# ones reported before (a NUL byte, a directory, an option given twice). Each: exit 1 and the message.
# Usage: config_strict_test.sh <zcast-bridge>
set -uo pipefail
BRIDGE=$1
W=$(mktemp -d)
trap 'rm -rf "$W"' EXIT
fail() { echo "FAIL: $*"; exit 1; }
R='sensor_msgs/msg/Image'

. "$(dirname "$0")/config_helpers.sh"
bad '3: dds_domain given twice (first on line 1)' 'dds_domain 1' "out /a $R reliable" 'dds_domain 2'
bad '2: zcast_domain given twice (first on line 1)' 'zcast_domain x' 'zcast_domain x' "out /a $R reliable"
bad '2: threads given twice (first on line 1)' 'threads 2' 'threads 4' "out /a $R reliable"
bad '3: node given twice (first on line 1)' 'node a' "out /a $R reliable" 'node b'
bad '1: catchup=8: only a reliable route resends (this one is best_effort)' "out /a $R best_effort catchup=8"
bad '1: catchup=8: only a reliable route resends (this one is sensor_data)' "in /a $R sensor_data catchup=8"
good "out /a $R best_effort catchup=0" "out /b $R reliable catchup=8" "in /b $R default catchup=0"
# ROS_DOMAIN_ID, used when there is no dds_domain line
good "out /a $R reliable"
for v in 0 7 232 0x10 010; do # numbers as rcl reads them (strtoul base 0)
  ROS_DOMAIN_ID=$v "$BRIDGE" --check "$W/good.conf" > "$W/out" 2>&1 || fail "ROS_DOMAIN_ID=$v: $(cat "$W/out")"
done
ROS_DOMAIN_ID= "$BRIDGE" --check "$W/good.conf" > "$W/out" 2>&1 || fail "empty ROS_DOMAIN_ID: $(cat "$W/out")"
for v in 233 -1 abc 7x ' 7' 0x 09 99999999999999999999999; do
  rc=0
  msg=$(ROS_DOMAIN_ID=$v "$BRIDGE" --check "$W/good.conf" 2>&1) || rc=$?
  [ "$rc" -eq 1 ] || fail "ROS_DOMAIN_ID=\"$v\": exit status $rc (want 1): $msg"
  grep -qF "ROS_DOMAIN_ID=\"$v\": expected a number from 0 to 232" <<<"$msg" ||
    fail "ROS_DOMAIN_ID=\"$v\": $msg"
done
# the bridge itself refuses it too, before it opens anything
rc=0
msg=$(ROS_DOMAIN_ID=233 timeout 20 "$BRIDGE" "$W/good.conf" 2>&1) || rc=$?
[ "$rc" -eq 1 ] && grep -qF 'ROS_DOMAIN_ID="233"' <<<"$msg" || fail "ROS_DOMAIN_ID=233, running: $rc $msg"
# a dds_domain line wins over ROS_DOMAIN_ID (as documented): no error then
printf 'dds_domain 3\nout /a %s reliable\n' $R > "$W/dom.conf"
ROS_DOMAIN_ID=abc "$BRIDGE" --check "$W/dom.conf" > "$W/out" 2>&1 || fail "dds_domain + bad ROS_DOMAIN_ID: $(cat "$W/out")"
# reported before: a NUL byte, a directory, an option given twice
printf 'out /a %s reliable\nout /b %s rel\0iable\n' $R $R > "$W/nul.conf"
msg=$("$BRIDGE" --check "$W/nul.conf" 2>&1) && fail "a NUL byte was accepted: $msg"
grep -qF "$W/nul.conf:2: NUL byte" <<<"$msg" || fail "NUL byte: $msg"
mkdir "$W/dir.conf"
rc=0
msg=$("$BRIDGE" --check "$W/dir.conf" 2>&1) || rc=$?
[ "$rc" -eq 1 ] && grep -qF "$W/dir.conf: Is a directory" <<<"$msg" || fail "directory: $rc $msg"
bad '1: depth given twice' "out /a $R reliable depth=3 depth=5"
echo PASS
