#!/usr/bin/env bash
# Services over DDS through the bridge (docs/BRIDGE.md "Services"), between two network namespaces
# A and B (netns.sh), example_interfaces/srv/AddTwoInts checked byte for byte at both ends:
#   zcast       zcast client on A -> bridge A (dds_to_zcast) -> DDS -> bridge B (zcast_to_dds) ->
#               zcast server on B: 200 calls, 8 in flight. Then B's zcast server killed: A's calls
#               fail with ZCAST_ESRVGONE at A's timeout_ms; then bridge B stopped: they fail at once
#               (no DDS server left)
#   ros_server  zcast client on A -> bridge A -> a plain Cyclone DDS server in ROS 2's form on B:
#               100 calls, 8 in flight; then a server that never answers, stopped while 4 calls
#               wait: they fail with ZCAST_ESRVGONE
#   ros_client  a plain Cyclone DDS client in ROS 2's form on A -> bridge B (zcast_to_dds) -> zcast
#               server on B: 100 calls, its header in each reply
#   bad         malformed requests (short, not plain CDR, another type hash, cut) to bridge B and
#               malformed replies (unknown seq, short) to bridge A: refused, each kind reported
#               once per route and counted; the valid calls around them are answered
# Usage: svc_test.sh <zcast-bridge> <svc_zpeer> <svc_ros_peer> <svc_raw_peer> <scenario>. Root and
# `ip netns` (else 77).
set -uo pipefail
BRIDGE=$1 ZP=$2 ROS=$3 RAW=$4 SCEN=$5
. "$(dirname "$0")/netns.sh"
. "$(dirname "$0")/harness.sh"
zbh_init "svc-$SCEN"
T=example_interfaces/srv/AddTwoInts

# svc_bridge <name> <A|B> <config lines...>: starts a bridge, waits until its services are active.
svc_bridge() {
  local name=$1 host=$2
  shift 2
  { echo "zcast_domain $([ "$host" = A ] && echo "$DA" || echo "$DB")"; printf '%s\n' "$@"; } \
    > "$W/$name.conf"
  zbh_bridge "$name" "$host" "$W/$name.conf"
}
remote() { # log what n [k]: waits until the service route sees n remote DDS endpoints (the k-th
  # time it says so, default the first: a later server is not matched by an earlier one's line)
  local k=${4:-1} c
  for _ in $(seq 400); do
    c=$(grep -c "$2: $3 remote" "$1" 2>/dev/null)
    [ "${c:-0}" -ge "$k" ] && return 0
    sleep 0.05
  done
  fail "timed out waiting for $2 to match $3 (time $k)"
}
stop_bridge() { # name: SIGINT, waits for its counters
  local -n p=pid_$1
  kill -INT "$p"; wait "$p" 2>/dev/null
}

zcast() {
  svc_bridge a A "service /add $T dds_to_zcast timeout_ms=1500"
  svc_bridge b B "service /add $T zcast_to_dds"
  "${inB[@]}" "$ZP" serve /add > "$W/server.log" 2>&1 & srv=$!; pids+=($srv)
  wait_for "$W/server.log" ready "B's zcast server"
  remote "$W/a.log" "service /add dds_to_zcast" 1
  remote "$W/b.log" "service /add zcast_to_dds" 1
  "${inA[@]}" "$ZP" call /add 200 8 > "$W/call.log" 2>&1 || fail "200 calls: $(cat "$W/call.log")"
  cat "$W/call.log"
  kill -9 "$srv"
  "${inA[@]}" "$ZP" call /add 3 3 gone > "$W/gone.log" 2>&1 ||
    fail "calls after B's server died: $(cat "$W/gone.log")"
  echo "server killed: $(cat "$W/gone.log")"
  kill -TERM "$pid_b" # a killed one goes when its DDS lease (10 s) expires: the same, slower
  wait_for "$W/a.log" "service /add dds_to_zcast: 0 remote" "A to lose bridge B"
  "${inA[@]}" "$ZP" call /add 2 2 gone 5 > "$W/gone2.log" 2>&1 ||
    fail "calls after bridge B died: $(cat "$W/gone2.log")"
  echo "bridge B stopped: $(cat "$W/gone2.log")"
  stop_bridge a
  # the last 2 fail before they are written to DDS: not counted as calls
  grep -q "calls 203, answered 200, failed 5, dropped 0" "$W/a.log" || fail "bridge A's counters"
}

ros_server() {
  svc_bridge a A "service /add $T dds_to_zcast"
  "${inB[@]}" "$ROS" server /add > "$W/ros.log" 2>&1 & ros=$!; pids+=($ros)
  wait_for "$W/ros.log" ready "the ROS 2 form server"
  remote "$W/a.log" "service /add dds_to_zcast" 1
  "${inA[@]}" "$ZP" call /add 100 8 > "$W/call.log" 2>&1 || fail "100 calls: $(cat "$W/call.log")"
  cat "$W/call.log"
  kill -TERM "$ros"; wait "$ros" || fail "the server saw bad requests: $(cat "$W/ros.log")"
  grep -q "served 100 bad 0" "$W/ros.log" || fail "server: $(cat "$W/ros.log")"
  wait_for "$W/a.log" "service /add dds_to_zcast: 0 remote" "A to lose the server"
  "${inB[@]}" "$ROS" server /add mute > "$W/mute.log" 2>&1 & ros=$!; pids+=($ros)
  remote "$W/a.log" "service /add dds_to_zcast" 1 2
  "${inA[@]}" "$ZP" call /add 4 4 gone > "$W/gone.log" 2>&1 & c=$!; pids+=($c)
  wait_for "$W/gone.log" "^sent 4$" "the 4 calls made while the server is there"
  kill -TERM "$ros"
  wait "$c" || fail "calls to a server that left: $(cat "$W/gone.log")"
  echo "server left: $(cat "$W/gone.log")"
}

ros_client() {
  svc_bridge b B "service /add $T zcast_to_dds pending=4"
  "${inB[@]}" "$ZP" serve /add > "$W/server.log" 2>&1 & srv=$!; pids+=($srv)
  wait_for "$W/server.log" ready "B's zcast server"
  "${inA[@]}" "$ROS" client /add 100 > "$W/ros.log" 2>&1 || fail "ROS 2 form client: $(cat "$W/ros.log")"
  cat "$W/ros.log"
  kill -TERM "$srv"; wait "$srv" || fail "B's server saw bad requests: $(cat "$W/server.log")"
  grep -q "served 100 bad 0" "$W/server.log" || fail "B's server: $(cat "$W/server.log")"
}

bad() {
  svc_bridge a A "service /sub $T dds_to_zcast"
  svc_bridge b B "service /add $T zcast_to_dds"
  "${inB[@]}" "$ZP" serve /add > "$W/server.log" 2>&1 & srv=$!; pids+=($srv)
  wait_for "$W/server.log" ready "B's zcast server"
  "${inA[@]}" "$RAW" badclient /add > "$W/raw.log" 2>&1 || fail "bad client: $(cat "$W/raw.log")"
  cat "$W/raw.log"
  "${inB[@]}" "$RAW" badserver /sub > "$W/rawsrv.log" 2>&1 & rs=$!; pids+=($rs)
  wait_for "$W/rawsrv.log" ready "the bad server"
  remote "$W/a.log" "service /sub dds_to_zcast" 1
  "${inA[@]}" "$ZP" call /sub 5 1 > "$W/call.log" 2>&1 || fail "calls to the bad server: $(cat "$W/call.log")"
  cat "$W/call.log"
  stop_bridge a; stop_bridge b
  local k
  for k in "dropping requests without a request header" "dropping requests of a client of another type" \
    "dropping invalid requests"; do
    [ "$(grep -c "service /add: $k" "$W/b.log")" -eq 1 ] || fail "B reports \"$k\" once"
  done
  for k in "dropping replies to no call in flight" "dropping replies without a request header"; do
    [ "$(grep -c "service /sub: $k" "$W/a.log")" -eq 1 ] || fail "A reports \"$k\" once"
  done
  grep -q "service /add zcast_to_dds: calls 2, answered 2, failed 0, dropped 8" "$W/b.log" ||
    fail "bridge B's counters"
  grep -q "service /sub dds_to_zcast: calls 5, answered 5, failed 0, dropped 10" "$W/a.log" ||
    fail "bridge A's counters"
  grep "service" "$W/a.log" "$W/b.log" | grep -v ": active$"
}

case "$SCEN" in
  zcast|ros_server|ros_client|bad) "$SCEN" ;;
  *) echo "unknown scenario $SCEN"; exit 2 ;;
esac
echo PASS
