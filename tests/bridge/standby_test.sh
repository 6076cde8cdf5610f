#!/usr/bin/env bash
# A bridge standing by for 200 topics (docs/BRIDGE.md, "One bridge per topic"): two bridges on A
# with the same 200 out routes (`threads 4`), one active, one standing by, and B's bridge with the
# 200 in routes. The standby waits for the other bridge, not for each topic: it runs at most
# 2 x 4 + 16 threads (as an active bridge, bridge_pool) plus one per bridge it waits for, counted in
# /proc/<pid>/task once all its routes stand by. Then the active bridge is killed (-9): the standby
# takes over every route (woken by the kernel releasing the dead bridge's locks, no poll), and 20
# messages on each of the 200 topics reach B's subscriber exactly once, in order, intact.
# Scenarios: plain (as above); pidns (the active bridge runs in a PID namespace of its own: the
# standby cannot see its process); chain (two bridges stand by: after the kill each takes some
# topics, waiting for the other for the rest; the one with more is killed too, and the last one
# takes over everything); nomarker (the topics are held the way an older bridge holds them, by the
# claim lock alone: the standby waits in each topic's lock, and takes over when that holder dies).
# Usage: standby_test.sh <zcast-bridge> <pool_peer> <scenario>. Root and `ip netns` (else 77).
set -uo pipefail
BRIDGE=$1 PEER=$2 SCEN=$3
. "$(dirname "$0")/netns.sh"
. "$(dirname "$0")/harness.sh"
. "$(dirname "$0")/many_routes.sh"
zbh_init standby_$SCEN
N=200 COUNT=20 K=4 # routes, messages per route, worker threads
MAX=$((2 * K + 16 + 1)) # bridge_pool's bound, and one thread for the one bridge waited for

zbh_many_routes /s $N $K
count() { grep -c ": $2\$" "$W/$1.log" 2>/dev/null; }
threads() { # name pid most: the bridge's threads, at most `most`
  local t
  t=$(ls "/proc/$2/task" | wc -l)
  echo "bridge $1: $t threads ($(count "$1" standby) routes stood by, $(count "$1" active) active)"
  [ "$t" -le "$3" ] || fail "bridge $1 runs $t threads for $N routes (at most $3)"
}
standby() { # name: starts a second bridge on A, waits until all its routes stand by
  "${inA[@]}" "$BRIDGE" "$W/a.conf" > "$W/$1.log" 2>&1 &
  pids+=($!); eval "pid_$1=$!"
  for _ in $(seq 400); do [ "$(count "$1" standby)" -ge $N ] && break; sleep 0.05; done
  [ "$(count "$1" standby)" -eq $N ] || fail "bridge $1: $(count "$1" standby) of $N routes stand by"
  [ "$(count "$1" active)" -eq 0 ] || fail "bridge $1 took $(count "$1" active) routes of a live one"
}
kill_bridge() { # name: kill -9, the bridge itself (in its PID namespace: the namespace's first process)
  local -n p=pid_$1
  local victim=$p
  [ "$1" = a1 ] && [ "$SCEN" = pidns ] && victim=$(cat "/proc/$p/task/$p/children")
  kill -9 "$victim"
  t0=$(date +%s%N)
}
wait_active() { # total names...: until the bridges' active routes add up to total
  local total=$1 sum b
  shift
  for _ in $(seq 400); do
    sum=0
    for b in "$@"; do sum=$((sum + $(count "$b" active))); done
    [ "$sum" -ge "$total" ] && break
    sleep 0.02
  done
  echo "$* active on $sum routes $((($(date +%s%N) - t0) / 1000000)) ms after the kill (as printed)"
  [ "$sum" -eq "$total" ] || fail "after the kill: $sum of $total routes active in $*"
}
if [ "$SCEN" = pidns ]; then
  zbh_bridge a1 A "$W/a.conf" unshare --pid --fork --kill-child
elif [ "$SCEN" = nomarker ]; then
  zbh_bridge a0 A "$W/a.conf" # makes the claim files
  kill -TERM "$pid_a0"
  wait "$pid_a0" || fail "bridge a0 exited with $?"
  /usr/bin/python3 -c '
import fcntl, struct, sys, time
held = [open(f, "r+b") for f in sys.argv[1:]]
for f in held:  # byte 0 only: no marker
    fcntl.fcntl(f, fcntl.F_OFD_SETLK, struct.pack("hhqqi", fcntl.F_WRLCK, 0, 0, 1, 0))
print("held", flush=True)
time.sleep(600)' $(for t in $(seq 0 $((N - 1))); do echo "/dev/shm/zcast-bridge.$DA.s.t$t"; done) \
    > "$W/a1.log" 2>&1 &
  pid_a1=$!; pids+=($pid_a1)
  wait_for "$W/a1.log" held "the old-style holder"
else
  zbh_bridge a1 A "$W/a.conf"
fi
standby a2
if [ "$SCEN" = nomarker ]; then # no holder to wait for: a thread in each topic's lock
  t=$(ls "/proc/$pid_a2/task" | wc -l)
  echo "bridge a2: $t threads waiting in the claim locks of $N topics"
  [ "$t" -gt $N ] || fail "bridge a2 runs $t threads: not waiting in each topic's lock?"
else
  threads a2 "$pid_a2" $MAX
fi
last=a2
if [ "$SCEN" = chain ]; then
  standby a3
  threads a3 "$pid_a3" $MAX
fi
zbh_bridge b B "$W/b.conf"
kill_bridge a1
if [ "$SCEN" = chain ]; then
  wait_active $N a2 a3
  # each topic in one of them, never both
  dup=$(grep -h ': active$' "$W/a2.log" "$W/a3.log" | sed 's/: active$//' | sort | uniq -d | wc -l)
  [ "$dup" -eq 0 ] || fail "$dup topics active in both a2 and a3"
  victim=a2 last=a3
  [ "$(count a3 active)" -gt "$(count a2 active)" ] && victim=a3 last=a2
  threads $last "$(eval echo \$pid_$last)" $((MAX + 1))
  kill_bridge $victim
fi
wait_active $N $last
pid_last=$(eval echo \$pid_$last)
threads $last "$pid_last" $MAX
for _ in $(seq 400); do
  [ "$(grep -c ': 2 remote reader' "$W/$last.log")" -ge $N ] && break
  sleep 0.05
done
[ "$(grep -c ': 2 remote reader' "$W/$last.log")" -ge $N ] || fail "A's routes not matched by B"
"${inB[@]}" "$PEER" sub /s $N $COUNT --timeout-s 60 > "$W/sub.log" 2>&1 & s=$!; pids+=($s)
wait_for "$W/sub.log" subscribed "the subscriber"
"${inA[@]}" "$PEER" pub /s $N $COUNT > "$W/pub.log" 2>&1 || fail "publisher: $(cat "$W/pub.log")"
wait "$s" || fail "B's subscriber: $(cat "$W/sub.log")"
cat "$W/sub.log"
kill -TERM "$pid_last"
wait "$pid_last" || fail "the bridge that took over exited with $?"
f=$(grep -c 'forwarded 20, resent 0, skipped 0, dropped 0' "$W/$last.log")
[ "$f" -eq $N ] || fail "counters: $f of $N routes forwarded 20"
echo "PASS ($SCEN): $N routes stood by on at most $MAX threads, taken over, $COUNT messages each exactly once"
