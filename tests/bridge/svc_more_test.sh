#!/usr/bin/env bash
# More services over DDS through the bridge (docs/BRIDGE.md "Services"), between two network
# namespaces A and B (netns.sh), example_interfaces/srv/AddTwoInts:
#   many_clients  240 DDS clients in ROS 2's form on A (svc_many_peer: 240 request writers and reply
#                 readers, each its own clientid) -> bridge B (zcast_to_dds) -> a zcast server on B:
#                 one call each, 240 of 240 answered; the bridge's table of DDS clients has no
#                 fixed size. Then those clients leave and 240 others come: all answered again
#   unanswered    DDS client on A -> bridge B (zcast_to_dds pending=2 timeout_ms=300) -> a zcast
#                 server on B that keeps its first 2 requests and never answers them: the bridge
#                 gives both calls up at timeout_ms (its zcast client forgets them) and the other
#                 18 are answered (before: both entries held for good, nothing else served).
#                 The other way: a zcast client on B (2 calls in flight) -> bridge B (dds_to_zcast
#                 timeout_ms=300) -> a DDS server in ROS 2's form on A that never answers: 4 of 4
#                 calls end with ZCAST_ESRVGONE (the first 2 free the client's slots for the others)
#   burst         DDS client on A -> bridge B (zcast_to_dds, default pending) -> a zcast server on B
#                 that works on every request it has at once (loans all responses, then sends): it
#                 has 8 response slots per client (the zcast default), so the bridge must not have
#                 more calls in flight: 40 of 40 answered, no response loan fails
# Usage: svc_more_test.sh <zcast-bridge> <svc_zpeer> <svc_ros_peer> <svc_many_peer> <scenario>.
# Root and `ip netns` (else 77).
set -uo pipefail
BRIDGE=$1 ZP=$2 ROS=$3 MANY=$4 SCEN=$5
. "$(dirname "$0")/netns.sh"
. "$(dirname "$0")/harness.sh"
zbh_init "svcm-$SCEN"
T=example_interfaces/srv/AddTwoInts

svc_bridge() { # name A|B config lines...: starts a bridge, waits until its services are active
  local name=$1 host=$2
  shift 2
  { echo "zcast_domain $([ "$host" = A ] && echo "$DA" || echo "$DB")"; printf '%s\n' "$@"; } \
    > "$W/$name.conf"
  zbh_bridge "$name" "$host" "$W/$name.conf"
}
zserver() { # args...: B's zcast server, waits until it is open
  "${inB[@]}" "$ZP" serve /add "$@" > "$W/server.log" 2>&1 & srv=$!; pids+=($srv)
  wait_for "$W/server.log" ready "B's zcast server"
}
stop_all() { # ends the server (its counters) and the bridge (its counters)
  kill -TERM "$srv"; wait "$srv" || fail "B's server saw bad requests: $(cat "$W/server.log")"
  kill -INT "$pid_b"; wait "$pid_b" 2>/dev/null
}

many_clients() {
  svc_bridge b B "service /add $T zcast_to_dds"
  zserver
  local round
  for round in 1 2; do
    "${inA[@]}" "$MANY" clients /add 240 > "$W/many$round.log" 2>&1 ||
      fail "round $round: $(cat "$W/many$round.log")"
    echo "round $round: $(cat "$W/many$round.log")"
  done
  stop_all
  grep -q "served 480 bad 0" "$W/server.log" || fail "B's server: $(cat "$W/server.log")"
  grep -q "service /add zcast_to_dds: calls 480, answered 480, failed 0" "$W/b.log" ||
    fail "bridge B's counters"
}

unanswered() {
  svc_bridge b B "service /add $T zcast_to_dds pending=2 timeout_ms=300" \
    "service /mute $T dds_to_zcast timeout_ms=300"
  zserver hold 2
  "${inA[@]}" "$MANY" clients /add 20 18 > "$W/calls.log" 2>&1 || fail "$(cat "$W/calls.log")"
  cat "$W/calls.log"
  "${inA[@]}" "$ROS" server /mute mute > "$W/mute.log" 2>&1 & mute=$!; pids+=($mute)
  wait_for "$W/b.log" "service /mute dds_to_zcast: 1 remote" "B to match the mute server"
  "${inB[@]}" "$ZP" call /mute 4 2 gone 10 > "$W/gone.log" 2>&1 ||
    fail "calls to a DDS server that never answers: $(cat "$W/gone.log")"
  echo "DDS server never answers: $(cat "$W/gone.log")"
  stop_all
  grep -q "service /mute dds_to_zcast: calls 4, answered 0, failed 4" "$W/b.log" ||
    fail "bridge B's counters (dds_to_zcast)"
  grep -q "served 18 bad 0 held 2" "$W/server.log" || fail "B's server: $(cat "$W/server.log")"
  grep -q "service /add: failing calls the zcast server did not answer: timeout_ms passed" \
    "$W/b.log" || fail "bridge B reports the timeout"
  grep -q "service /add zcast_to_dds: calls 20, answered 18, failed 2" "$W/b.log" ||
    fail "bridge B's counters"
}

burst() {
  svc_bridge b B "service /add $T zcast_to_dds"
  zserver batch
  "${inA[@]}" "$MANY" clients /add 40 > "$W/calls.log" 2>&1 || fail "$(cat "$W/calls.log")"
  cat "$W/calls.log"
  stop_all
  grep -q "served 40 bad 0 held 0 noloan 0" "$W/server.log" ||
    fail "B's server: $(cat "$W/server.log")"
}

case "$SCEN" in
  many_clients|unanswered|burst) "$SCEN" ;;
  *) echo "unknown scenario $SCEN"; exit 2 ;;
esac
echo PASS
