#!/usr/bin/env bash
# The bridge's pool of workers (docs/BRIDGE.md, "Threads"): bridges of 200 routes each between two
# network namespaces, `threads 4`. A's bridge sends 200 topics to B's; a process on A publishes 20
# messages on every topic, one on B checks that every topic delivers 1..20 exactly once, in order,
# intact, on its own topic. Each bridge runs with at most 2 x 4 threads of its own (a worker and an
# acknowledgment thread per group) plus a constant (main, Cyclone's threads, zcast's): counted in
# /proc/<pid>/task once every route is active, and again after the traffic.
# Usage: pool_test.sh <zcast-bridge> <pool_peer>. Root and `ip netns` (else 77).
set -uo pipefail
BRIDGE=$1 PEER=$2
. "$(dirname "$0")/netns.sh"
. "$(dirname "$0")/harness.sh"
. "$(dirname "$0")/many_routes.sh"
zbh_init pool
N=200 COUNT=20 K=4
MAX=$((2 * K + 16)) # the constant: main, Cyclone DDS 0.10's threads (9 here), zcast's helpers

zbh_many_routes /p $N $K
threads() { ls "/proc/$1/task" | wc -l; }
check_threads() { # when
  local t
  for b in a b; do
    local -n p=pid_$b
    t=$(threads "$p")
    echo "bridge $b: $t threads ($1)"
    [ "$t" -le "$MAX" ] || fail "bridge $b runs $t threads $1 (at most $MAX)"
  done
}
zbh_bridge a A "$W/a.conf"
zbh_bridge b B "$W/b.conf"
# every route of A matched by B's reader and catch-up reader
for _ in $(seq 400); do
  [ "$(grep -c ': 2 remote reader' "$W/a.log")" -ge $N ] && break
  sleep 0.05
done
[ "$(grep -c ': 2 remote reader' "$W/a.log")" -ge $N ] || fail "A's routes not matched"
check_threads "all routes active"
"${inB[@]}" "$PEER" sub /p $N $COUNT --timeout-s 60 > "$W/sub.log" 2>&1 & s=$!; pids+=($s)
wait_for "$W/sub.log" subscribed "the subscriber"
"${inA[@]}" "$PEER" pub /p $N $COUNT > "$W/pub.log" 2>&1 || fail "publisher: $(cat "$W/pub.log")"
wait "$s" || fail "B's subscriber: $(cat "$W/sub.log")"
cat "$W/sub.log"
check_threads "after the traffic"
for b in a b; do
  local_pid=pid_$b
  kill -TERM "${!local_pid}"
  wait "${!local_pid}" || fail "bridge $b exited with $?"
done
f=$(grep -c 'forwarded 20, resent 0, skipped 0, dropped 0' "$W/a.log")
[ "$f" -eq $N ] || fail "A's counters: $f of $N routes forwarded 20"
echo "PASS: $N routes, $COUNT messages each, exactly once; at most $MAX threads per bridge"
