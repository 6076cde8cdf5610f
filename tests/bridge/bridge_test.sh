#!/usr/bin/env bash
# The bridge between two "hosts": network namespaces A and B joined by a veth pair, each with its own
# zcast domain and zcast-bridge, Cyclone DDS over the veth only. Publishers on A, subscribers on B:
# every message intact and in order (64 B, 64 KiB, 4 MiB), QoS mapping (late joiner gets the
# transient-local history; a stalled reliable reader loses nothing, a best-effort keep-last one keeps
# the newest), bridge kill -9 with a standby taking over and a restart resuming, and interop with a
# plain Cyclone DDS program both ways. Needs root and `ip netns` (exit 77 otherwise).
# Usage: bridge_test.sh <zcast-bridge> <zb_peer> <cyc_peer>
set -uo pipefail
BRIDGE=$1 PEER=$2 CYC=$3
if [ "$(id -u)" -ne 0 ]; then
  echo "SKIP: the bridge test needs root (it creates network namespaces)"; exit 77
fi
if ! command -v ip >/dev/null || ! ip netns list >/dev/null 2>&1; then
  echo "SKIP: 'ip netns' is unavailable (Debian package iproute2)"; exit 77
fi
id=$$
NA=zbA$id NB=zbB$id VA=zbva$id VB=zbvb$id DA=zbA$id DB=zbB$id
W=$(mktemp -d /tmp/zcast-bridge-test.XXXXXX)
pids=()
cleanup() {
  for p in "${pids[@]}"; do kill -9 "$p" 2>/dev/null; done
  wait 2>/dev/null
  ip netns del "$NA" 2>/dev/null; ip netns del "$NB" 2>/dev/null
  rm -f /dev/shm/zcast."$DA".* /dev/shm/zcast."$DB".* /dev/shm/zcast-bridge."$DA".* \
    /dev/shm/zcast-bridge."$DB".*
  rm -rf "$W"
}
trap cleanup EXIT
fail() { echo "FAIL: $*"; for f in "$W"/*.log; do echo "--- $f"; tail -n 20 "$f"; done; exit 1; }

ip netns add "$NA" && ip netns add "$NB" || fail "ip netns add"
ip link add "$VA" netns "$NA" type veth peer name "$VB" netns "$NB" || fail "veth pair"
ip -n "$NA" addr add 10.77.0.1/24 dev "$VA" && ip -n "$NB" addr add 10.77.0.2/24 dev "$VB" ||
  fail "addresses"
for n in "$NA:$VA" "$NB:$VB"; do
  ip -n "${n%%:*}" link set lo up && ip -n "${n%%:*}" link set "${n#*:}" up &&
    ip -n "${n%%:*}" route add 224.0.0.0/4 dev "${n#*:}" || fail "link up / multicast route"
done
# Cyclone on the veth only (discovery by multicast over it).
uri() { echo "<CycloneDDS><Domain id=\"any\"><General><Interfaces><NetworkInterface name=\"$1\"/></Interfaces></General></Domain></CycloneDDS>"; }
# Arrays, not functions: "${inA[@]}" cmd & is one process (ip netns exec and env exec in place), so
# $! is the program itself and kill -9 reaches it.
inA=(ip netns exec "$NA" env ZCAST_DOMAIN="$DA" CYCLONEDDS_URI="$(uri "$VA")")
inB=(ip netns exec "$NB" env ZCAST_DOMAIN="$DB" CYCLONEDDS_URI="$(uri "$VB")")

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

# A bad line is an error naming file:line.
printf 'zcast_domain x\nout /a sensor_msgs/msg/Image sideways\n' > "$W/bad.conf"
msg=$("$BRIDGE" "$W/bad.conf" 2>&1) && fail "a bad config was accepted"
grep -q "bad.conf:2: unknown QoS \"sideways\"" <<<"$msg" || fail "bad config message: $msg"

start() { # name A|B conf: starts a bridge, waits until every route is active
  local name=$1 conf=$3 n
  local -n ns=in$2
  n=$(grep -cE '^(in|out) ' "$conf")
  "${ns[@]}" "$BRIDGE" "$conf" > "$W/$name.log" 2>&1 &
  pids+=($!); eval "pid_$name=$!"
  for _ in $(seq 200); do
    [ "$(grep -c ': active$' "$W/$name.log")" -ge "$n" ] && return 0
    sleep 0.05
  done
  fail "bridge $name did not become active"
}
start a1 A "$W/a.conf"
start b1 B "$W/b.conf"
echo "bridges up"

# 1. Sizes: every message intact, in order, on B; a plain Cyclone reader on B reads /s64k too.
run_size() { # topic bytes count
  "${inB[@]}" "$PEER" sub "$1" "$3" --timeout-s 30 > "$W/sub${1#/}.log" 2>&1 & local s=$!; pids+=($s)
  local c=""
  if [ "$1" = /s64k ]; then
    "${inB[@]}" "$CYC" sub rt/s64k "$3" 30 > "$W/cyc_sub.log" 2>&1 & c=$!; pids+=($c)
  fi
  sleep 0.3
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
sleep 0.3
"${inB[@]}" "$CYC" pub rt/back 65536 100 > "$W/cyc_pub.log" 2>&1 || fail "Cyclone writer on B"
wait "$s" || fail "zcast subscriber on A of rt/back: $(cat "$W/back.log")"
echo "interop Cyclone(B) -> zcast(A): $(tail -n 1 "$W/back.log")"

# 3. Late joiner: 10 published on A with nobody on B; a subscriber joining B afterwards asks for
# history and gets exactly the newest 4 (A's transient-local history, kept on B as zcast history).
"${inA[@]}" "$PEER" pub /late 1024 10 --subs 1 > "$W/late_pub.log" 2>&1 || fail "publisher /late"
sleep 0.5
"${inB[@]}" "$PEER" sub /late 10 --history 4 --first 7 --timeout-s 5 > "$W/late.log" 2>&1 ||
  fail "late joiner: $(cat "$W/late.log")"
echo "late joiner: $(tail -n 1 "$W/late.log")"

# 4. Stalled readers on B for 3 s while A publishes 300: the reliable one (FULL, depth 4) gets all
# 300 in order; the best-effort keep-last one (DROP_OLD, depth 1) gets the newest and few others.
"${inB[@]}" "$PEER" sub /rel 300 --depth 4 --stall-ms 3000 --timeout-s 30 > "$W/rel.log" 2>&1 &
s1=$!; pids+=($s1)
"${inB[@]}" "$PEER" sub /be 300 --drop --depth 1 --stall-ms 3000 --timeout-s 30 > "$W/be.log" 2>&1 &
s2=$!; pids+=($s2)
sleep 0.5
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
# subscriber on B sees 1..500 exactly once.
start_standby() {
  "${inA[@]}" "$BRIDGE" "$W/a.conf" > "$W/a2.log" 2>&1 &
  pids+=($!); pid_a2=$!
  for _ in $(seq 100); do grep -q ': standby$' "$W/a2.log" && return 0; sleep 0.05; done
  fail "second bridge on A did not stand by"
}
start_standby
"${inB[@]}" "$PEER" sub /kr 500 --depth 64 --timeout-s 40 > "$W/kr.log" 2>&1 & s=$!; pids+=($s)
sleep 0.3
"${inA[@]}" "$PEER" pub /kr 2048 500 --subs 1 --history 64 --interval-us 8000 > "$W/krpub.log" 2>&1 &
p=$!; pids+=($p)
sleep 1
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
# The killed bridges' zcast members are reclaimed like any member's: no dead member stays.
sleep 1
echo "PASS"
