#!/usr/bin/env bash
# A bridge that is alive must not be dropped by its peers, however loaded the machine (issue 26,
# docs/BRIDGE.md "Under CPU load"). Two network namespaces A and B (netns.sh), a reliable route
# from A's zcast publisher to a zcast subscriber on B, beside 4 busy loops. B's bridge is stopped
# (SIGSTOP) twice while the topic is quiet, as a process at load 45 went unscheduled for seconds:
# then only B's participant announcements tell A that B lives. Cyclone announced a participant 2 s
# before its 10 s lease ended, so A dropped the live B: its writer lost both readers, and B came
# back with a later announcement (at load 45, tens of seconds without a message). The first stop
# (8 s) covers one announcement, so B's next one is sent as it resumes; the second (7.5 s, 4 s
# later) outlasts the 10 s after it, and 3000 messages of <bytes> are written at full speed in its
# last half second: A sends them to B, or (A having dropped B) into the void, and B then finds
# only the newest `catchup` of them. Checked: neither bridge lost its match with the other, and
# B's subscriber gets 1..3000 in order, once, within 60 s (a hang detector, not a timing
# threshold).
# Usage: load_test.sh <zcast-bridge> <zb_peer> <bytes>. Root and `ip netns` (else 77).
set -uo pipefail
BRIDGE=$1 PEER=$2 BYTES=$3 COUNT=3000
. "$(dirname "$0")/netns.sh"
. "$(dirname "$0")/harness.sh"
zbh_init "load-$BYTES"
loads=()
stop_load() { # the busy loops, by PID; B's bridge running again (the cleanup kills it)
  for l in "${loads[@]}"; do kill "$l" 2>/dev/null; done
  loads=()
  [ -n "${pid_b:-}" ] && kill -CONT "$pid_b" 2>/dev/null
}
trap 'stop_load; zbh_cleanup' EXIT
R=sensor_msgs/msg/Image
printf 'zcast_domain %s\nout /ld %s reliable\n' "$DA" $R > "$W/a.conf"
printf 'zcast_domain %s\nin /ld %s reliable\n' "$DB" $R > "$W/b.conf"
zbh_bridge a A "$W/a.conf"; zbh_bridge b B "$W/b.conf"
wait_for "$W/a.log" "out /ld: 2 remote" "A's writer to match B's reader and catch-up reader"
for _ in 1 2 3 4; do nice -n 0 bash -c 'while :; do :; done' & loads+=($!); done
"${inB[@]}" "$PEER" sub /ld $COUNT --depth 64 --timeout-s 60 --gaps-ms 1000 > "$W/sub.log" 2>&1 &
s=$!; pids+=($s)
wait_for "$W/sub.log" subscribed "B's subscriber"
kill -STOP "$pid_b"; sleep 8; kill -CONT "$pid_b"
sleep 4
kill -STOP "$pid_b"; sleep 7
"${inA[@]}" "$PEER" pub /ld "$BYTES" $COUNT --subs 1 > "$W/pub.log" 2>&1 &
p=$!; pids+=($p)
sleep 0.5; kill -CONT "$pid_b"
wait "$s" || fail "B's subscriber: $(grep -v '^gap' "$W/sub.log" | tail -n 3 | tr '\n' ' ')"
wait "$p" || fail "A's publisher"
stop_load
! grep -q " 0 remote" "$W/a.log" "$W/b.log" ||
  fail "a bridge lost its match with the other one (a live participant dropped)"
# the longest pause B's subscriber saw (from the second stop): reported
echo "zcast: $(tail -n 1 "$W/sub.log"); $(grep max_gap "$W/sub.log")"
echo PASS
