#!/usr/bin/env bash
# Replies the bridge cannot hand over at once (docs/BRIDGE.md "Services"), between two network
# namespaces A and B (netns.sh). First, to DDS clients whose reply reader is not matched ("A reply
# whose client's reader is not matched"): svc_reply_peer on A (clients X and Y) -> bridge B
# (zcast_to_dds) -> a zcast server on B. X sends k calls with no reply reader, then Y makes n calls
# one after the other.
#   readerless  Y's 20 calls are all answered while X's 4 replies wait; then X opens its reader
#               and gets all 4 (before: the route waited up to 1 s per reply of X, then dropped it:
#               X got none)
#   full        parked=2: X's 5 replies are more than the route keeps aside (parked): the 3
#               oldest are dropped, X gets 2 when its reader comes; Y's 10 are answered
#   leave       X leaves without a reader: its 3 replies are dropped at once, counted failed
#   stay        timeout_ms=500: X stays without a reader: its reply is dropped at timeout_ms
# Then to zcast clients whose response pool at the bridge is full ("A reply whose zcast client has
# no room"): two zcast clients on A -> bridge A (dds_to_zcast, 8 response slots per client) -> a
# DDS server in ROS 2's form on B.
#   room        each client makes 200 calls, 16 in flight, taking its responses in bursts: all 400
#               answered (before: 20 of 400 failed, answered by DDS but with no room for the
#               response, and 12 of them never ended: their failure found no room either)
# And requests no zcast server has queue room for ("A request no zcast server has room for"): DDS
# clients on A -> bridge B (zcast_to_dds) -> a zcast server on B, stopped (SIGSTOP) with its queue
# (16) filled by two local zcast clients, then resumed (SIGCONT):
#   queue_full  24 of 24 DDS calls answered (before: the route waited 1 s in each send, then
#               dropped the request)
# Usage: svc_reply_test.sh <zcast-bridge> <svc_zpeer> <svc_reply_peer> <svc_ros_peer>
# <svc_many_peer> <scenario>. Root and
# `ip netns` (else 77).
set -uo pipefail
BRIDGE=$1 ZP=$2 PEER=$3 ROS=$4 MANY=$5 SCEN=$6
. "$(dirname "$0")/netns.sh"
. "$(dirname "$0")/harness.sh"
zbh_init "svcr-$SCEN"
T=example_interfaces/srv/AddTwoInts

start() { # config options of B's route: bridge B and its zcast server
  { echo "zcast_domain $DB"; echo "service /add $T zcast_to_dds $*"; } > "$W/b.conf"
  zbh_bridge b B "$W/b.conf"
  "${inB[@]}" "$ZP" serve /add > "$W/server.log" 2>&1 & srv=$!; pids+=($srv)
  wait_for "$W/server.log" ready "B's zcast server"
}
peer() { # args of svc_reply_peer after the name; its output in peer.log
  "${inA[@]}" "$PEER" /add "$@" > "$W/peer.log" 2>&1 || fail "the clients: $(cat "$W/peer.log")"
  cat "$W/peer.log"
}
stop_all() { # ends the server and the bridge (their counters); $1: the bridge's expected counters
  kill -TERM "$srv"; wait "$srv" || fail "B's server saw bad requests: $(cat "$W/server.log")"
  kill -INT "$pid_b"; wait "$pid_b" 2>/dev/null
  grep -q "service /add zcast_to_dds: $1" "$W/b.log" || fail "bridge B's counters: want $1"
  grep "service /add" "$W/b.log" | grep -v ": active$"
}

readerless() {
  start timeout_ms=30000
  peer 4 20 reader
  stop_all "calls 24, answered 24, failed 0, dropped 0"
}

full() {
  start parked=2 timeout_ms=30000
  peer 5 10 reader 2
  grep -q "service /add: failing responses kept for a DDS client.*more than parked=2" "$W/b.log" ||
    fail "B reports the replies it could not keep"
  stop_all "calls 15, answered 12, failed 3, dropped 0"
}

leave() {
  start timeout_ms=30000
  peer 3 10 leave
  wait_for "$W/b.log" "failing responses whose DDS client is gone: its request writer left" \
    "B to drop X's replies"
  stop_all "calls 13, answered 10, failed 3, dropped 0"
}

stay() {
  start timeout_ms=500
  "${inA[@]}" "$PEER" /add 1 5 stay > "$W/peer.log" 2>&1 & p=$!; pids+=($p)
  wait_for "$W/peer.log" ready "the clients"
  wait_for "$W/b.log" "failing responses whose DDS client is gone: its reply reader was not matched within timeout_ms" \
    "B to give X's reply up"
  kill -TERM "$p"; wait "$p" || fail "the clients: $(cat "$W/peer.log")"
  cat "$W/peer.log"
  stop_all "calls 6, answered 5, failed 1, dropped 0"
}

room() {
  { echo "zcast_domain $DA"; echo "service /add $T dds_to_zcast timeout_ms=30000"; } > "$W/a.conf"
  zbh_bridge a A "$W/a.conf"
  "${inB[@]}" "$ROS" server /add > "$W/ros.log" 2>&1 & ros=$!; pids+=($ros)
  wait_for "$W/a.log" "service /add dds_to_zcast: 1 remote" "A to match the DDS server"
  "${inA[@]}" "$ZP" call /add 200 16 > "$W/c1.log" 2>&1 & c1=$!; pids+=($c1)
  "${inA[@]}" "$ZP" call /add 200 16 > "$W/c2.log" 2>&1 & c2=$!; pids+=($c2)
  wait "$c1" || fail "client 1: $(cat "$W/c1.log")"
  wait "$c2" || fail "client 2: $(cat "$W/c2.log")"
  cat "$W/c1.log" "$W/c2.log"
  kill -TERM "$ros"; wait "$ros" || fail "the DDS server saw bad requests: $(cat "$W/ros.log")"
  kill -INT "$pid_a"; wait "$pid_a" 2>/dev/null
  grep -q "service /add dds_to_zcast: calls 400, answered 400, failed 0, dropped 0" "$W/a.log" ||
    fail "bridge A's counters"
}

queue_full() {
  start timeout_ms=30000
  kill -STOP "$srv"
  local k
  for k in 1 2; do # 16 requests fill the stopped server's queue
    "${inB[@]}" "$ZP" call /add 8 8 > "$W/local$k.log" 2>&1 & local_pid[$k]=$!; pids+=($!)
  done
  for k in 1 2; do
    wait_for "$W/local$k.log" "^sent 8$" "local client $k's 8 requests in the server's queue"
  done
  "${inA[@]}" "$MANY" clients /add 24 > "$W/many.log" 2>&1 & many=$!; pids+=($many)
  sleep 3 # the DDS requests find the queue full (the route's old wait: 1 s per request)
  kill -CONT "$srv"
  wait "$many" || fail "the DDS clients: $(cat "$W/many.log")"
  for k in 1 2; do
    wait "${local_pid[$k]}" || fail "local client $k: $(cat "$W/local$k.log")"
  done
  cat "$W/many.log" "$W/local1.log" "$W/local2.log"
  stop_all "calls 24, answered 24, failed 0, dropped 0"
}

case "$SCEN" in
  readerless|full|leave|stay|room|queue_full) "$SCEN" ;;
  *) echo "unknown scenario $SCEN"; exit 2 ;;
esac
echo PASS
