#!/usr/bin/env bash
# A receiving bridge killed at one step of delivering a sample (docs/BRIDGE.md, "Exactly once: a
# receiving bridge killed inside a publish"), then restarted: B's zcast subscriber gets every
# message exactly once, in order. The kill is exact, not a race: ZCAST_CRASH_AT=<point>:500 makes
# the bridge SIGKILL itself at the 500th delivery's step (test builds), one of
#   in:before-loan    in:after-loan (the sample copied, not published)
#   publish:after-intent / publish:after-state (inside zcast_publish, before the message is queued)
#   publish:after-push (inside, queued: zcast's repair keeps it)
#   publish:before-wake (the topic unlocked, the call not returned)   in:after-publish (not recorded)
# 1 kHz from A; what was sent while B's bridge was down comes from what A's bridge keeps for a
# restarting receiver (catchup). With `standby`, a second bridge on B stands by and takes over at
# the kill instead of a restart. Usage: in_kill_test.sh <zcast-bridge> <zb_peer> <point> [standby].
# Root and `ip netns` (else 77).
set -uo pipefail
BRIDGE=$1 PEER=$2 POINT=$3 MODE=${4:-restart}
. "$(dirname "$0")/netns.sh"
. "$(dirname "$0")/harness.sh"
zbh_init "inkill"
R=sensor_msgs/msg/Image n=1200 # after the kill 700: all within what A keeps (catchup 1024)
printf 'zcast_domain %s\nout /ik %s reliable\n' "$DA" "$R" > "$W/a.conf"
printf 'zcast_domain %s\nin /ik %s reliable\n' "$DB" "$R" > "$W/b.conf"
zbh_bridge a A "$W/a.conf"
zbh_bridge b1 B "$W/b.conf" env ZCAST_CRASH_AT="$POINT:500"
if [ "$MODE" = standby ]; then
  "${inB[@]}" "$BRIDGE" "$W/b.conf" > "$W/b2.log" 2>&1 & pids+=($!)
  wait_for "$W/b2.log" "in /ik: standby$" "the second bridge on B to stand by"
fi
wait_for "$W/a.log" "out /ik: 2 remote" "A's route to match B's readers"
"${inB[@]}" "$PEER" sub /ik $n --depth 64 --timeout-s 60 > "$W/sub.log" 2>&1 & s=$!; pids+=($s)
wait_for "$W/sub.log" subscribed "B's subscriber"
"${inA[@]}" "$PEER" pub /ik 64 $n --subs 1 --interval-us 1000 > "$W/pub.log" 2>&1 & p=$!; pids+=($p)
for _ in $(seq 400); do kill -0 "$pid_b1" 2>/dev/null || break; sleep 0.05; done
kill -0 "$pid_b1" 2>/dev/null && fail "B's bridge was not killed at $POINT:500 within 20 s"
wait "$pid_b1"; rc=$?
[ $rc -eq 137 ] || fail "B's bridge was to be killed at $POINT:500, it ended with $rc"
if [ "$MODE" = standby ]; then
  wait_for "$W/b2.log" "in /ik: active$" "the standby to take over"
else
  zbh_bridge b2 B "$W/b.conf"
fi
wait "$p" || fail "publisher"
wait "$s" || fail "B's subscriber across the kill at $POINT: $(cat "$W/sub.log")"
echo "killed at $POINT:500 ($MODE); zcast: $(tail -n 1 "$W/sub.log")"
echo PASS
