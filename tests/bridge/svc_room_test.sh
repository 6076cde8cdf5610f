#!/usr/bin/env bash
# Service calls whose outcome finds no room, and refused calls, through the bridge (docs/BRIDGE.md
# "Services"), between two network namespaces A and B (netns.sh), example_interfaces/srv/AddTwoInts:
#   fail_no_room  a zcast client on A (svc_room_peer hold) -> bridge A (dds_to_zcast
#                 timeout_ms=1000) -> a DDS server in ROS 2's form on B. The client keeps the
#                 responses of its first 8 calls (the bridge's 8 response slots for it), the DDS
#                 server is stopped (SIGSTOP), and a 9th call times out at the bridge: its failure
#                 finds no room. Then the client drops the 8 and waits with no timeout of its own:
#                 the call ends with ZCAST_ESRVGONE (before: the bridge dropped the failure, and the
#                 call never ended)
#   refused       DDS clients on A (4, one call each) -> bridge B (zcast_to_dds pending=1
#                 timeout_ms=60000) -> a zcast server on B that refuses every request
#                 (svc_room_peer refuse): each refusal frees the route's one place at once, so the
#                 server sees all 4 requests; no DDS client gets a reply (before: the first refused
#                 call kept the place until timeout_ms, the server saw 1)
# Usage: svc_room_test.sh <zcast-bridge> <svc_room_peer> <svc_ros_peer> <svc_many_peer>
# <scenario>. Root and `ip netns` (else 77).
set -uo pipefail
BRIDGE=$1 PEER=$2 ROS=$3 MANY=$4 SCEN=$5
. "$(dirname "$0")/netns.sh"
. "$(dirname "$0")/harness.sh"
zbh_init "svco-$SCEN"
T=example_interfaces/srv/AddTwoInts

fail_no_room() {
  { echo "zcast_domain $DA"; echo "service /add $T dds_to_zcast timeout_ms=1000"; } > "$W/a.conf"
  zbh_bridge a A "$W/a.conf"
  "${inB[@]}" "$ROS" server /add > "$W/ros.log" 2>&1 & ros=$!; pids+=($ros)
  wait_for "$W/a.log" "service /add dds_to_zcast: 1 remote" "A to match the DDS server"
  mkfifo "$W/gate"
  "${inA[@]}" timeout 60 "$PEER" hold /add < "$W/gate" > "$W/hold.log" 2>&1 & hold=$!; pids+=($hold)
  exec 3> "$W/gate"
  wait_for "$W/hold.log" "^held" "the client's 8 calls"
  kill -STOP "$ros"
  echo go >&3
  wait_for "$W/hold.log" "^sent" "the client's 9th call"
  wait_for "$W/a.log" "failing calls the DDS server did not answer" "the 9th call's timeout"
  echo go >&3
  exec 3>&-
  local t=0
  while kill -0 "$hold" 2>/dev/null && [ $t -lt 200 ]; do sleep 0.05; t=$((t + 1)); done
  kill -0 "$hold" 2>/dev/null && fail "the 9th call did not end within 10 s of the drop"
  wait "$hold" || fail "the client: $(cat "$W/hold.log")"
  cat "$W/hold.log"
  kill -CONT "$ros"
  kill -TERM "$ros"; wait "$ros"
  kill -INT "$pid_a"; wait "$pid_a" 2>/dev/null
  grep -q "service /add dds_to_zcast: calls 9, answered 8, failed 1" "$W/a.log" ||
    fail "bridge A's counters"
}

refused() {
  { echo "zcast_domain $DB"; echo "service /add $T zcast_to_dds pending=1 timeout_ms=60000"; } \
    > "$W/b.conf"
  zbh_bridge b B "$W/b.conf"
  "${inB[@]}" "$PEER" refuse /add > "$W/server.log" 2>&1 & srv=$!; pids+=($srv)
  wait_for "$W/server.log" ready "B's zcast server"
  "${inA[@]}" "$MANY" clients /add 4 > "$W/many.log" 2>&1 & many=$!; pids+=($many)
  wait_for "$W/server.log" "^refused 4" "4 requests at the refusing server"
  kill -TERM "$many"; wait "$many" 2>/dev/null
  kill -TERM "$srv"; wait "$srv" || fail "B's server: $(cat "$W/server.log")"
  kill -INT "$pid_b"; wait "$pid_b" 2>/dev/null
  grep "service /add" "$W/b.log" | grep -v ": active$"
  grep -q "service /add: failing calls the zcast server refused" "$W/b.log" ||
    fail "bridge B reports the refusals"
  grep -q "service /add zcast_to_dds: calls 4, answered 0, failed 4" "$W/b.log" ||
    fail "bridge B's counters"
}

case "$SCEN" in
  fail_no_room|refused) "$SCEN" ;;
  *) echo "unknown scenario $SCEN"; exit 2 ;;
esac
echo PASS
