#!/usr/bin/env bash
# A sending bridge whose reliable out route keeps nothing for restarting receivers (catchup=0: its
# DDS writer is volatile) and a receiving bridge with the default in route (a reader and a
# transient-local catch-up reader, docs/BRIDGE.md "Exactly once"): the catch-up reader never matches
# a volatile writer, so the route's first reader must deliver that bridge's samples. Before, it left
# them to the catch-up reader and B's subscriber got nothing. B's subscriber gets 1..1000 once, in
# order; then the same with the receiving route's catchup=0 too (no catch-up reader).
# Usage: volatile_out_test.sh <zcast-bridge> <zb_peer>. Root and `ip netns` (else 77).
set -uo pipefail
BRIDGE=$1 PEER=$2
. "$(dirname "$0")/netns.sh"
. "$(dirname "$0")/harness.sh"
zbh_init volatile-out
R=sensor_msgs/msg/Image n=1000

run() { # topic in-route-options
  local t=$1 inopt=$2 k=${1#/}
  printf 'zcast_domain %s\nout %s %s reliable catchup=0\n' "$DA" "$t" "$R" > "$W/a$k.conf"
  printf 'zcast_domain %s\nin %s %s reliable %s\n' "$DB" "$t" "$R" "$inopt" > "$W/b$k.conf"
  zbh_bridge "a$k" A "$W/a$k.conf"; zbh_bridge "b$k" B "$W/b$k.conf"
  wait_for "$W/a$k.log" "out $t: 1 remote" "A's writer of $t to match B's reader"
  "${inB[@]}" "$PEER" sub "$t" $n --settle-ms 500 --timeout-s 30 > "$W/sub$k.log" 2>&1 & s=$!; pids+=($s)
  wait_for "$W/sub$k.log" subscribed "B's subscriber of $t"
  "${inA[@]}" "$PEER" pub "$t" 64 $n --subs 1 > "$W/pub$k.log" 2>&1 || fail "A's publisher of $t"
  wait "$s" || fail "B's subscriber of $t ($inopt): $(cat "$W/sub$k.log")"
  echo "$t (in route: reliable $inopt): $(tail -n 1 "$W/sub$k.log")"
}
run /vo1 ""
run /vo2 "catchup=0"
echo PASS
