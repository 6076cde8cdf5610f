#!/usr/bin/env bash
# Every ros_discovery_info sample a bridge writes is well formed while its routes open (found by the
# audit of issue 26: the reader and writer counts were taken in one pass over the routes and the
# GIDs in another, so a route opening between the two, on another pool worker, made a count that
# did not match its list: 19 of 1166 samples malformed for 800 routes, e.g. "writers 624955393").
# A's bridge opens 200 out and 200 in routes on 4 workers; a raw reader on B checks the layout of
# every sample until one lists all 400 readers (two per in route) and 200 writers.
# Usage: graph_race_audit_test.sh <zcast-bridge> <graph_raw_peer>. Root and `ip netns` (else 77).
set -uo pipefail
BRIDGE=$1 PEER=$2
. "$(dirname "$0")/netns.sh"
. "$(dirname "$0")/harness.sh"
zbh_init graph-race
{ echo "zcast_domain $DA"; echo "threads 4"
  for i in $(seq 200); do
    echo "out /gr/o$i std_msgs/msg/String reliable"; echo "in /gr/i$i std_msgs/msg/String reliable"
  done; } > "$W/a.conf"
"${inB[@]}" "$PEER" 400 200 60 > "$W/peer.log" 2>&1 & g=$!; pids+=($g)
wait_for "$W/peer.log" ready "the raw reader"
"${inA[@]}" "$BRIDGE" "$W/a.conf" > "$W/a.log" 2>&1 & pids+=($!)
wait "$g" || fail "ros_discovery_info: $(tail -n 1 "$W/peer.log")"
cat "$W/peer.log" | tail -n 1
echo PASS
