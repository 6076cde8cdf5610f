#!/usr/bin/env bash
# A bridge standing by for 200 topics (docs/BRIDGE.md, "One bridge per topic"): two bridges on A
# with the same 200 out routes (`threads 4`), one active, one standing by, and B's bridge with the
# 200 in routes. The standby waits for the other bridge, not for each topic: it runs at most
# 2 x 4 + 16 threads (as an active bridge, bridge_pool) plus one per bridge it waits for, counted in
# /proc/<pid>/task once all its routes stand by. Then the active bridge is killed (-9): the standby
# takes over every route (woken by the kernel releasing the dead bridge's locks, no poll), and 20
# messages on each of the 200 topics reach B's subscriber exactly once, in order, intact.
# Usage: standby_test.sh <zcast-bridge> <pool_peer>. Root and `ip netns` (else 77).
set -uo pipefail
BRIDGE=$1 PEER=$2
. "$(dirname "$0")/netns.sh"
. "$(dirname "$0")/harness.sh"
. "$(dirname "$0")/many_routes.sh"
zbh_init standby
N=200 COUNT=20 K=4 # routes, messages per route, worker threads
MAX=$((2 * K + 16 + 1)) # bridge_pool's bound, and one thread for the one bridge waited for

zbh_many_routes /s $N $K
count() { grep -c ": $2\$" "$W/$1.log" 2>/dev/null; }
zbh_bridge a1 A "$W/a.conf"
"${inA[@]}" "$BRIDGE" "$W/a.conf" > "$W/a2.log" 2>&1 & pid_a2=$!; pids+=($pid_a2)
for _ in $(seq 400); do [ "$(count a2 standby)" -ge $N ] && break; sleep 0.05; done
[ "$(count a2 standby)" -eq $N ] || fail "the second bridge: $(count a2 standby) of $N routes stand by"
[ "$(count a2 active)" -eq 0 ] || fail "the second bridge took $(count a2 active) routes of a live one"
t=$(ls "/proc/$pid_a2/task" | wc -l)
echo "standby bridge: $t threads for $N routes"
[ "$t" -le "$MAX" ] || fail "the standby bridge runs $t threads for $N routes (at most $MAX)"
zbh_bridge b B "$W/b.conf"
kill -9 "$pid_a1"
for _ in $(seq 400); do [ "$(count a2 active)" -ge $N ] && break; sleep 0.05; done
[ "$(count a2 active)" -eq $N ] || fail "after the kill: $(count a2 active) of $N routes active"
t=$(ls "/proc/$pid_a2/task" | wc -l)
echo "after the takeover: $t threads"
[ "$t" -le "$MAX" ] || fail "the bridge runs $t threads after the takeover (at most $MAX)"
for _ in $(seq 400); do
  [ "$(grep -c ': 2 remote reader' "$W/a2.log")" -ge $N ] && break
  sleep 0.05
done
[ "$(grep -c ': 2 remote reader' "$W/a2.log")" -ge $N ] || fail "A's routes not matched by B"
"${inB[@]}" "$PEER" sub /s $N $COUNT --timeout-s 60 > "$W/sub.log" 2>&1 & s=$!; pids+=($s)
wait_for "$W/sub.log" subscribed "the subscriber"
"${inA[@]}" "$PEER" pub /s $N $COUNT > "$W/pub.log" 2>&1 || fail "publisher: $(cat "$W/pub.log")"
wait "$s" || fail "B's subscriber: $(cat "$W/sub.log")"
cat "$W/sub.log"
kill -TERM "$pid_a2"
wait "$pid_a2" || fail "the bridge that took over exited with $?"
f=$(grep -c 'forwarded 20, resent 0, skipped 0, dropped 0' "$W/a2.log")
[ "$f" -eq $N ] || fail "counters: $f of $N routes forwarded 20"
echo "PASS: $N routes stood by on at most $MAX threads, taken over, $COUNT messages each exactly once"
