#!/usr/bin/env bash
# A receiving bridge whose claim announcement came late, killed and restarted, must not hold the
# sending bridge back (docs/BRIDGE.md, "A bridge that restarts, and its dead participant"). As
# restart_test.sh recv (3000 x 1 KiB at 1 kHz, out on A, in on B, B's bridges announcing a 600 s
# lease), but B's first bridge has its discovery thread held for 4 s at its first wake
# (ZCAST_BRIDGE_DELAY=peers:wake:4000, test builds), as a thread not scheduled under load. It is
# killed 1 s into the stream, before that announcement could go out. A drops a dead bridge only
# when it has seen it announce the claim its successor announces anew: if A matched the dead
# bridge's readers without having seen it, its writer stayed held by them (B's subscriber stopped
# at the ~470 messages A's writer buffers past the kill). Checked: B's subscriber gets 1..3000 once,
# A's publisher gets through, A says it dropped the dead participant.
# Usage: late_claim_test.sh <zcast-bridge> <zb_peer>. Root and `ip netns` (else 77).
set -uo pipefail
BRIDGE=$1 PEER=$2
. "$(dirname "$0")/netns.sh"
. "$(dirname "$0")/harness.sh"
zbh_init "late-claim"
R=sensor_msgs/msg/Image
LONG="<CycloneDDS><Domain id=\"any\"><General><Interfaces><NetworkInterface name=\"$VB\"/></Interfaces></General><Discovery><LeaseDuration>600 s</LeaseDuration></Discovery>${ZB_CYCLONE_XML:-}</Domain></CycloneDDS>"
printf 'zcast_domain %s\nout /lc %s reliable\n' "$DA" "$R" > "$W/a.conf"
printf 'zcast_domain %s\nin /lc %s reliable\n' "$DB" "$R" > "$W/b.conf"
zbh_bridge a A "$W/a.conf"
zbh_bridge b1 B "$W/b.conf" env CYCLONEDDS_URI="$LONG" ZCAST_BRIDGE_DELAY=peers:wake:4000
wait_for "$W/a.log" "out /lc: 2 remote" "A's writer to match B's reader and catch-up reader"
"${inB[@]}" "$PEER" sub /lc 3000 --depth 64 --settle-ms 1000 --timeout-s 60 > "$W/sub.log" 2>&1 &
s=$!; pids+=($s)
wait_for "$W/sub.log" subscribed "B's subscriber"
"${inA[@]}" "$PEER" pub /lc 1024 3000 --subs 1 --interval-us 1000 > "$W/pub.log" 2>&1 & p=$!; pids+=($p)
sleep 1 # mid-stream; the 4 s hold of b1's discovery thread began before the stream
kill -9 "$pid_b1"
zbh_bridge b2 B "$W/b.conf" env CYCLONEDDS_URI="$LONG"
wait "$s" || fail "B's subscriber across the kill: $(cat "$W/sub.log")"
wait "$p" || fail "A's publisher"
grep -q "replaced participant .*: dropped it" "$W/a.log" ||
  fail "the dead bridge's participant was not dropped"
echo "zcast: $(tail -n 1 "$W/sub.log"); $(grep max_gap "$W/sub.log")"
echo PASS
