#!/usr/bin/env bash
# Hundreds of routes in one bridge with a fixed number of threads (docs/BRIDGE.md, "Threads"): A
# and B each run one bridge of 300 routes (150 out, 150 in, the other's mirror); every route
# becomes active, each bridge's thread count (/proc/<pid>/task) stays within a bound that does not
# grow with the routes, and messages flow both ways on a sample of the routes.
# Usage: many_test.sh <zcast-bridge> <zb_peer>. Root and `ip netns` (else 77).
set -uo pipefail
BRIDGE=$1 PEER=$2
. "$(dirname "$0")/netns.sh"
. "$(dirname "$0")/harness.sh"
zbh_init many
R=sensor_msgs/msg/Image N=150
# Cyclone's own threads (about 10) and the bridge's: claim watcher, out loop, ack thread, a pool of
# 4. One thread per route would be hundreds.
BOUND=32
{
  echo "zcast_domain $DA"
  for i in $(seq 0 $((N - 1))); do
    echo "out /m/o$i $R reliable max_size=1K depth=4"
    echo "in /m/i$i $R reliable max_size=1K depth=4 catchup=0"
  done
} > "$W/a.conf"
{
  echo "zcast_domain $DB"
  for i in $(seq 0 $((N - 1))); do
    echo "in /m/o$i $R reliable max_size=1K depth=4 catchup=0"
    echo "out /m/i$i $R reliable max_size=1K depth=4"
  done
} > "$W/b.conf"
zbh_bridge a A "$W/a.conf"; zbh_bridge b B "$W/b.conf"
threads() { ls "/proc/$1/task" | wc -l; }
ta=$(threads "$pid_a") tb=$(threads "$pid_b")
echo "threads: A $ta, B $tb (bound $BOUND, $((2 * N)) routes each)"
[ "$ta" -le $BOUND ] && [ "$tb" -le $BOUND ] || fail "a bridge runs more than $BOUND threads"
# A -> B and B -> A on a sample of the routes, all at once
ps=() ss=()
for i in 0 77 $((N - 1)); do
  wait_for "$W/a.log" "out /m/o$i: 1 remote reader" "A's writer of /m/o$i to match"
  wait_for "$W/b.log" "out /m/i$i: 1 remote reader" "B's writer of /m/i$i to match"
  "${inB[@]}" "$PEER" sub /m/o$i 200 --timeout-s 30 > "$W/subo$i.log" 2>&1 & ss+=($!); pids+=($!)
  "${inA[@]}" "$PEER" sub /m/i$i 200 --timeout-s 30 > "$W/subi$i.log" 2>&1 & ss+=($!); pids+=($!)
  wait_for "$W/subo$i.log" subscribed "B's subscriber of /m/o$i"
  wait_for "$W/subi$i.log" subscribed "A's subscriber of /m/i$i"
  "${inA[@]}" "$PEER" pub /m/o$i 64 200 --subs 1 --interval-us 500 > "$W/pubo$i.log" 2>&1 & ps+=($!); pids+=($!)
  "${inB[@]}" "$PEER" pub /m/i$i 64 200 --subs 1 --interval-us 500 > "$W/pubi$i.log" 2>&1 & ps+=($!); pids+=($!)
done
for p in "${ps[@]}"; do wait "$p" || fail "a publisher"; done
for p in "${ss[@]}"; do wait "$p" || fail "a subscriber"; done
for f in "$W"/sub*.log; do echo "$(basename "$f" .log): $(tail -n 1 "$f")"; done
ta=$(threads "$pid_a") tb=$(threads "$pid_b")
echo "threads after the traffic: A $ta, B $tb"
[ "$ta" -le $BOUND ] && [ "$tb" -le $BOUND ] || fail "a bridge runs more than $BOUND threads"
echo PASS
