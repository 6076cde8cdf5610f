#!/usr/bin/env bash
# An out route sends only messages of its type (found by the audit of issue 26: a zcast publisher's
# bytes, shared memory, went to DDS unchecked; the receiving bridge dropped them, a ROS 2 reader
# would have got them). A's zcast publisher writes a String whose length runs past the message, a
# valid one, 3 bytes, a valid one: A forwards the 2 valid, drops 2 and reports it once; B's bridge
# delivers the 2 and sees nothing invalid.
# Usage: out_invalid_audit_test.sh <zcast-bridge> <bad_zpub>. Root and `ip netns` (else 77).
set -uo pipefail
BRIDGE=$1 PUB=$2
. "$(dirname "$0")/netns.sh"
. "$(dirname "$0")/harness.sh"
zbh_init out-invalid
S=std_msgs/msg/String
printf 'zcast_domain %s\nout /bad %s reliable\n' "$DA" $S > "$W/a.conf"
printf 'zcast_domain %s\nin /bad %s reliable\n' "$DB" $S > "$W/b.conf"
zbh_bridge a A "$W/a.conf"
zbh_bridge b B "$W/b.conf"
wait_for "$W/a.log" "out /bad: 2 remote" "A's writer to match B's readers"
"${inA[@]}" timeout 20 "$PUB" /bad > "$W/pub.log" 2>&1 || fail "the publisher on A"
sleep 2 # for the valid two to cross (B's counters, printed at exit, say whether they did)
kill -TERM "$pid_a" "$pid_b"
wait "$pid_a" "$pid_b"
grep -q "out /bad: forwarded 2, resent 0, skipped 0, dropped 2" "$W/a.log" || fail "A's counters"
grep -q "out /bad: dropping messages that are not a $S: .*string length" "$W/a.log" ||
  fail "A did not report the invalid message"
[ "$(grep -c 'dropping' "$W/a.log")" -eq 1 ] || fail "reported more than once"
grep -q "in /bad: forwarded 2, resent 0, skipped 0, dropped 0" "$W/b.log" || fail "B's counters"
echo PASS
