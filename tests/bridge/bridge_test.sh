#!/usr/bin/env bash
# The bridge between two "hosts": network namespaces A and B joined by a veth pair, each with its own
# zcast domain and zcast-bridge, Cyclone DDS over the veth only. Publishers on A, subscribers on B:
# every message intact and in order (64 B, 64 KiB, 4 MiB), QoS mapping (late joiner gets the
# transient-local history; a stalled reliable reader loses nothing, a best-effort keep-last one keeps
# the newest), bridge kill -9 with a standby taking over and a restart resuming, and interop with a
# plain Cyclone DDS program both ways. Needs root and `ip netns` (exit 77 otherwise). The config
# file's errors are tested by config_test.sh.
# Usage: bridge_test.sh <zcast-bridge> <zb_peer> <cyc_peer> <zcast tool>
# ZB_KEEP=1 copies the logs to /tmp/zbkeep before cleaning up.
set -uo pipefail
BRIDGE=$1 PEER=$2 CYC=$3 ZCAST=$4
. "$(dirname "$0")/netns.sh"
zb_netns_check
id=$$
DA=zbA$id DB=zbB$id
W=$(mktemp -d /tmp/zcast-bridge-test.XXXXXX)
pids=()
cleanup() {
  for p in "${pids[@]}"; do kill -9 "$p" 2>/dev/null; done
  wait 2>/dev/null
  zb_netns_down
  rm -f /dev/shm/zcast."$DA".* /dev/shm/zcast."$DB".* /dev/shm/zcast-bridge."$DA".* \
    /dev/shm/zcast-bridge."$DB".*
  rm -rf "$W"
}
trap cleanup EXIT
[ -n "${ZB_KEEP:-}" ] && trap "cp -r $W /tmp/zbkeep; cleanup" EXIT
trap "exit 1" INT TERM
fail() { echo "FAIL: $*"; for f in "$W"/*.log; do echo "--- $f"; grep -v ": active$" "$f" | tail -n 30; done; exit 1; }
wait_for() { # file pattern what: waits up to 20 s for a line matching pattern
  for _ in $(seq 400); do grep -qE "$2" "$1" 2>/dev/null && return 0; sleep 0.05; done
  fail "timed out waiting for $3"
}

zb_netns_up "$id" || fail "setting up the namespaces and the veth pair"
inA=("${inA[@]}" ZCAST_DOMAIN="$DA")
inB=("${inB[@]}" ZCAST_DOMAIN="$DB")

# Routes: A sends the sized topics, the QoS topics and /kr; B sends /back (a Cyclone program on B to
# zcast on A).
cat > "$W/a.conf" <<CONF
# host A
zcast_domain $DA
out /s64   sensor_msgs/msg/Image reliable
out /s64k  sensor_msgs/msg/Image reliable max_size=128K
out /s4m   sensor_msgs/msg/Image reliable max_size=5M depth=4
out /late  sensor_msgs/msg/Image reliable history=4
out /rel   sensor_msgs/msg/Image reliable depth=4
out /be    sensor_msgs/msg/Image best_effort depth=1
out /kr    sensor_msgs/msg/Image reliable history=64
in  /back  sensor_msgs/msg/Image reliable max_size=128K
CONF
cat > "$W/b.conf" <<CONF
# host B
zcast_domain $DB
in  /s64   sensor_msgs/msg/Image reliable
in  /s64k  sensor_msgs/msg/Image reliable max_size=128K
in  /s4m   sensor_msgs/msg/Image reliable max_size=5M depth=4
in  /late  sensor_msgs/msg/Image reliable history=4
in  /rel   sensor_msgs/msg/Image reliable depth=4
in  /be    sensor_msgs/msg/Image best_effort depth=1
in  /kr    sensor_msgs/msg/Image reliable history=64 slots=96
CONF

start() { # name A|B conf: starts a bridge, waits until every route is active
  local name=$1 conf=$3 n
  local -n ns=in$2
  n=$(grep -cE '^(in|out) ' "$conf")
  "${ns[@]}" "$BRIDGE" "$conf" > "$W/$name.log" 2>&1 &
  pids+=($!); eval "pid_$name=$!"
  for _ in $(seq 200); do
    [ "$(cat "$W/$name.log" 2>/dev/null | grep -c ': active$')" -ge "$n" ] && return 0
    sleep 0.05
  done
  fail "bridge $name did not become active"
}
start a1 A "$W/a.conf"
start b1 B "$W/b.conf"
# DDS discovery done: every writer of A has B's reader (volatile routes would lose what is sent
# before), and B's readers have A's writers.
# (a reliable IN route without history has two readers: the second gets what bridges keep for a
# receiver that restarts, docs/BRIDGE.md)
for t in s64:2 s64k:2 s4m:2 late:1 rel:2 be:1 kr:1; do
  n=${t#*:} t=${t%:*}
  wait_for "$W/a1.log" "out /$t: $n remote reader" "A's writer of /$t to match"
  wait_for "$W/b1.log" "in /$t: 1 remote writer" "B's reader of /$t to match"
done
echo "bridges up and matched"

# 1. Sizes: every message intact, in order, on B; a plain Cyclone reader on B reads /s64k too.
run_size() { # topic bytes count
  "${inB[@]}" "$PEER" sub "$1" "$3" --timeout-s 30 > "$W/sub${1#/}.log" 2>&1 & local s=$!; pids+=($s)
  local c=""
  if [ "$1" = /s64k ]; then
    "${inB[@]}" "$CYC" sub rt/s64k "$3" 30 > "$W/cyc_sub.log" 2>&1 & c=$!; pids+=($c)
    wait_for "$W/a1.log" "out /s64k: 3 remote reader" "A's writer of /s64k to match the Cyclone reader"
  fi
  wait_for "$W/sub${1#/}.log" subscribed "the subscriber of $1"
  "${inA[@]}" "$PEER" pub "$1" "$2" "$3" --subs 1 > "$W/pub${1#/}.log" 2>&1 || fail "publisher $1"
  wait "$s" || fail "subscriber $1: $(cat "$W/sub${1#/}.log")"
  if [ -n "$c" ]; then wait "$c" || fail "Cyclone reader of rt/s64k: $(cat "$W/cyc_sub.log")"; fi
  echo "size $2: $(tail -n 1 "$W/sub${1#/}.log")"
}
run_size /s64 64 2000
run_size /s64k 65536 300
run_size /s4m 4194304 16
echo "interop zcast(A) -> Cyclone(B): $(tail -n 1 "$W/cyc_sub.log")"

# 2. Interop the other way: a plain Cyclone writer on B, a zcast subscriber on A.
"${inA[@]}" "$PEER" sub /back 100 > "$W/back.log" 2>&1 & s=$!; pids+=($s)
wait_for "$W/back.log" subscribed "the subscriber of /back"
"${inB[@]}" "$CYC" pub rt/back 65536 100 > "$W/cyc_pub.log" 2>&1 || fail "Cyclone writer on B"
wait "$s" || fail "zcast subscriber on A of rt/back: $(cat "$W/back.log")"
echo "interop Cyclone(B) -> zcast(A): $(tail -n 1 "$W/back.log")"

# 3. Late joiner: 10 published on A with nobody on B; a subscriber joining B afterwards asks for
# history and gets exactly the newest 4 (A's transient-local history, kept on B as zcast history).
"${inA[@]}" "$PEER" pub /late 1024 10 --subs 1 > "$W/late_pub.log" 2>&1 || fail "publisher /late"
"${inB[@]}" "$PEER" sub /late 10 --after-seq 10 --history 4 --first 7 --timeout-s 5 > "$W/late.log" 2>&1 ||
  fail "late joiner: $(cat "$W/late.log")"
echo "late joiner: $(tail -n 1 "$W/late.log")"

# 4. Stalled readers on B for 3 s while A publishes 300: the reliable one (FULL, depth 4) gets all
# 300 in order; the best-effort keep-last one (DROP_OLD, depth 1) gets the newest and few others.
"${inB[@]}" "$PEER" sub /rel 300 --depth 4 --stall-ms 3000 --timeout-s 30 > "$W/rel.log" 2>&1 &
s1=$!; pids+=($s1)
"${inB[@]}" "$PEER" sub /be 300 --drop --depth 1 --stall-ms 3000 --timeout-s 30 > "$W/be.log" 2>&1 &
s2=$!; pids+=($s2)
wait_for "$W/rel.log" subscribed "the subscriber of /rel"
wait_for "$W/be.log" subscribed "the subscriber of /be"
"${inA[@]}" "$PEER" pub /rel 4096 300 --subs 1 > "$W/relpub.log" 2>&1 &
p1=$!; pids+=($p1)
"${inA[@]}" "$PEER" pub /be 4096 300 --subs 1 --interval-us 2000 > "$W/bepub.log" 2>&1 || fail "pub /be"
wait "$p1" || fail "pub /rel"
wait "$s1" || fail "stalled reliable reader: $(cat "$W/rel.log")"
wait "$s2" || fail "stalled best-effort reader: $(cat "$W/be.log")"
be_n=$(awk '/^received/{print $2}' "$W/be.log")
[ "$be_n" -lt 300 ] || fail "the best-effort depth-1 reader kept everything ($be_n)"
echo "stalled reliable: $(tail -n 1 "$W/rel.log")"
echo "stalled best-effort keep-last 1: $(tail -n 1 "$W/be.log")"

# 5. kill -9 mid-stream. A second bridge on A stands by (duplicates nothing); kill -9 of the active
# one hands /kr to it, which resumes after what was forwarded. Then B's bridge is killed and
# restarted: A's transient-local history refills the gap and what B had delivered is skipped. The
# subscriber on B sees 1..300 exactly once.
start_standby() {
  "${inA[@]}" "$BRIDGE" "$W/a.conf" > "$W/a2.log" 2>&1 &
  pids+=($!); pid_a2=$!
  for _ in $(seq 100); do grep -q ': standby$' "$W/a2.log" && return 0; sleep 0.05; done
  fail "second bridge on A did not stand by"
}
start_standby
"${inB[@]}" "$PEER" sub /kr 300 --depth 64 --timeout-s 40 > "$W/kr.log" 2>&1 & s=$!; pids+=($s)
wait_for "$W/kr.log" subscribed "the subscriber of /kr"
# 15 ms apart: the 64 messages of history cover a takeover or restart of up to ~1 s
"${inA[@]}" "$PEER" pub /kr 2048 300 --subs 1 --history 64 --interval-us 15000 > "$W/krpub.log" 2>&1 &
p=$!; pids+=($p)
sleep 1.2
kill -9 "$pid_a1"
for _ in $(seq 100); do grep -q 'out /kr: active$' "$W/a2.log" && break; sleep 0.05; done
grep -q 'out /kr: active$' "$W/a2.log" || fail "the standby bridge did not take over"
sleep 0.7
kill -9 "$pid_b1"
sleep 0.2
start b2 B "$W/b.conf"
wait "$p" || fail "publisher /kr"
wait "$s" || fail "subscriber through kill -9 and restart: $(cat "$W/kr.log")"
echo "kill -9 and restart: $(tail -n 1 "$W/kr.log")"
# The killed bridges were members like any other: their records, loans and slots are reclaimed (by
# the death watchers of the processes that share the topics), so no dead member is left.
for h in A B; do
  if [ $h = A ]; then pre=("${inA[@]}"); else pre=("${inB[@]}"); fi
  for _ in $(seq 100); do "${pre[@]}" "$ZCAST" gc --all --dry-run > "$W/gc$h.log" 2>&1 && break; sleep 0.1; done
  "${pre[@]}" "$ZCAST" gc --all --dry-run > "$W/gc$h.log" 2>&1 || fail "dead members left on $h: $(cat "$W/gc$h.log")"
done
echo "killed bridges reclaimed: no dead member on A or B"
# A clean stop (SIGTERM) ends with the counters and exit status 0.
kill -TERM "$pid_a2" "$pid_b2"
wait "$pid_a2" || fail "bridge a2 did not stop cleanly"
wait "$pid_b2" || fail "bridge b2 did not stop cleanly"
grep 'in /kr: forwarded' "$W/b2.log"
echo "PASS"
