#!/usr/bin/env bash
# A receiving bridge killed with kill -9 and restarted must not hold the sending bridge back
# (docs/BRIDGE.md, "A bridge that restarts, and its dead participant"). Two network namespaces A
# and B (netns.sh); 3000 messages of 1 KiB at 1 kHz from A's zcast publisher to a zcast subscriber
# on B through a reliable route; 1 s in, B's bridge is killed with kill -9 and started again.
#   recv  the route is out on A, in on B
#   bidi  both bridges have the topic both ways
#   standby  (below) the topic both ways, a standby on A takes over from A's killed bridge
# The dead bridge's readers stay matched by A's writer until A drops its participant; what they
# did not acknowledge fills the writer's buffer within a second (Cyclone's WhcHigh, 500 kB), the
# writer waits, and so do A's route and publisher. B's bridges announce a participant lease of 600 s, so
# the lease cannot end that wait within the test: only the restarted bridge's announcement can (A
# drops the dead participant on it). Checked: B's subscriber gets 1..3000, in order, once, A's
# publisher gets through, and A's bridge says it dropped the dead participant.
# $ZB_CYCLONE_XML (netns.sh) goes into the 600 s configurations too, so a Cyclone trace set there
# covers every bridge. Usage: restart_test.sh <zcast-bridge> <zb_peer> <scenario>. Root and
# `ip netns` (else 77).
set -uo pipefail
BRIDGE=$1 PEER=$2 SCEN=$3
. "$(dirname "$0")/netns.sh"
. "$(dirname "$0")/harness.sh"
zbh_init "restart-$SCEN"
R=sensor_msgs/msg/Image
LONGA="<CycloneDDS><Domain id=\"any\"><General><Interfaces><NetworkInterface name=\"$VA\"/></Interfaces></General><Discovery><LeaseDuration>600 s</LeaseDuration></Discovery></Domain></CycloneDDS>"
LONG="<CycloneDDS><Domain id=\"any\"><General><Interfaces><NetworkInterface name=\"$VB\"/></Interfaces></General><Discovery><LeaseDuration>600 s</LeaseDuration></Discovery></Domain></CycloneDDS>"

conf() { # file zcast-domain lines...
  local f=$1 d=$2; shift 2
  { echo "zcast_domain $d"; printf '%s\n' "$@"; } > "$f"
}

# B's subscriber and A's publisher (3000 at 1 kHz), then a second of the stream: stream <subs of
# the topic on A> [sub options...]
stream() {
  local subs=$1; shift
  "${inB[@]}" "$PEER" sub /rs 3000 --depth 64 --settle-ms 1000 --timeout-s 60 "$@" \
    > "$W/sub.log" 2>&1 & s=$!; pids+=($s)
  wait_for "$W/sub.log" subscribed "B's subscriber"
  "${inA[@]}" "$PEER" pub /rs 1024 3000 --subs "$subs" --interval-us 1000 > "$W/pub.log" 2>&1 &
  p=$!; pids+=($p)
  sleep 1
}
# After the kill: finish <log of the bridge that must have dropped the dead one>
finish() {
  # the subscriber first: without its messages it ends (timeout), a held-back publisher does not
  wait "$s" || fail "B's subscriber across the kill: $(cat "$W/sub.log")"
  wait "$p" || fail "A's publisher"
  grep -q "replaced participant .*: dropped it" "$1" ||
    fail "$1: the dead bridge's participant was not dropped"
  # the longest pause B's subscriber saw (the kill and the restart included): reported
  echo "zcast: $(tail -n 1 "$W/sub.log"); $(grep max_gap "$W/sub.log")"
}

run() { # with the config lines of A's bridge in $a and B's in $b (arrays)
  conf "$W/a.conf" "$DA" "${a[@]}"; conf "$W/b.conf" "$DB" "${b[@]}"
  zbh_bridge a A "$W/a.conf"; zbh_bridge b1 B "$W/b.conf" env CYCLONEDDS_URI="$LONG"
  wait_for "$W/a.log" "out /rs: 2 remote" "A's writer to match B's reader and catch-up reader"
  stream 1
  kill -9 "$pid_b1"
  zbh_bridge b2 B "$W/b.conf" env CYCLONEDDS_URI="$LONG"
  finish "$W/a.log"
}

# A standby on A takes over from a killed bridge that had the topic both ways: the standby's writer
# was matched by the dead bridge's readers (another participant on the same host); the standby
# drops that participant itself (its own announcement is the newer). A's bridges announce 600 s.
standby() {
  local lines=("out /rs $R reliable" "in /rs $R reliable")
  conf "$W/a.conf" "$DA" "${lines[@]}"; conf "$W/b.conf" "$DB" "${lines[@]}"
  zbh_bridge b B "$W/b.conf"
  zbh_bridge a1 A "$W/a.conf" env CYCLONEDDS_URI="$LONGA"
  "${inA[@]}" env CYCLONEDDS_URI="$LONGA" "$BRIDGE" "$W/a.conf" > "$W/a2.log" 2>&1 &
  pid_a2=$!; pids+=($pid_a2)
  wait_for "$W/a2.log" "out /rs: standby$" "the second bridge on A to stand by"
  # B's two readers and the first bridge's in-route readers (reader and catch-up reader)
  wait_for "$W/a2.log" "out /rs: 4 remote" "the standby's writer to match 4 readers"
  stream 2
  kill -9 "$pid_a1"
  wait_for "$W/a2.log" "out /rs: active$" "the standby to take over"
  finish "$W/a2.log"
}

recv() { a=("out /rs $R reliable"); b=("in /rs $R reliable"); run; }
bidi() { a=("out /rs $R reliable" "in /rs $R reliable"); b=("${a[@]}"); run; }

"$SCEN"
echo PASS
