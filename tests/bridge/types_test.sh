#!/usr/bin/env bash
# Any type through run-time type libraries (docs/BRIDGE.md, "Types"): a user's package library
# (geometry_msgs/Twist, which zcast does not ship, and a type of its own) on ZCAST_TYPE_PATH, and
# the bridge, not rebuilt, bridges both between network namespaces A and B:
#   zcast pub on A -> zcast echo --json on B (both types), and a plain Cyclone reader of Twist on B
#   (its writer's USER_DATA carries the type's RIHS01 hash, as zcast interface show computes it);
#   a route whose type's hash differs from the local topic's is refused, naming both hashes.
# Usage: types_test.sh <zcast-bridge> <zcast> <twist_peer> <user lib dir> <other lib dir>.
set -uo pipefail
BRIDGE=$1 ZCAST=$2 PEER=$3 LIB=$4 OTHER=$5
. "$(dirname "$0")/netns.sh"
. "$(dirname "$0")/harness.sh"
zbh_init types
inA=("${inA[@]}" ZCAST_TYPE_PATH="$LIB")
inB=("${inB[@]}" ZCAST_TYPE_PATH="$LIB")

for side in A B; do
  dir=out; [ $side = B ] && dir=in
  printf '%s\n' "$dir /cmd_vel geometry_msgs/msg/Twist reliable" \
    "$dir /tt/reading zcast_bridge_test/Reading reliable" > "$W/$side.conf"
done
zbh_bridge a A "$W/A.conf"
zbh_bridge b B "$W/B.conf"

"${inB[@]}" timeout 30 "$ZCAST" echo /cmd_vel --count 3 --json > "$W/echo_twist.out" 2>"$W/echo_twist.log" &
e1=$!; pids+=($e1)
"${inB[@]}" timeout 30 "$ZCAST" echo /tt/reading --count 2 --json > "$W/echo_reading.out" 2>"$W/echo_reading.log" &
e2=$!; pids+=($e2)
"${inB[@]}" "$PEER" sub rt/cmd_vel 3 30 > "$W/twist.out" 2>"$W/twist.log" &
t1=$!; pids+=($t1)
wait_for "$W/twist.out" '^ready' "the Cyclone reader"
# DDS discovery done (a reliable in route has two readers, one for catch-up; plus the Cyclone
# reader), and both echoes subscribed on B: the routes are volatile
wait_for "$W/a.log" "out /cmd_vel: 3 remote reader" "A's writer of /cmd_vel to match"
wait_for "$W/a.log" "out /tt/reading: 2 remote reader" "A's writer of /tt/reading to match"
wait_for "$W/b.log" "in /cmd_vel: 1 remote writer" "B's reader of /cmd_vel to match"
wait_for "$W/b.log" "in /tt/reading: 1 remote writer" "B's reader of /tt/reading to match"
subscribed() { # topic: waits until B's topic has a subscriber (the echo)
  for _ in $(seq 400); do
    "${inB[@]}" "$ZCAST" info "$1" 2>/dev/null | grep -qE '^subscribers: +1 ' && return 0
    sleep 0.05
  done
  fail "zcast echo $1 on B did not subscribe"
}
subscribed /cmd_vel
subscribed /tt/reading
"${inA[@]}" timeout 30 "$ZCAST" pub /cmd_vel geometry_msgs/msg/Twist \
  '{linear: {x: 1.5}, angular: {z: -0.25}}' --times 3 --rate 5 --wait-matching 1 \
  > "$W/pub_twist.log" 2>&1 || fail "zcast pub Twist on A"
"${inA[@]}" timeout 30 "$ZCAST" pub /tt/reading zcast_bridge_test/msg/Reading \
  "{stamp: {sec: 7}, label: 'a b', values: [1, 2.5]}" --times 2 --rate 5 --wait-matching 1 \
  > "$W/pub_reading.log" 2>&1 || fail "zcast pub Reading on A"
wait $e1 || fail "zcast echo /cmd_vel on B"
wait $e2 || fail "zcast echo /tt/reading on B"
wait $t1 || fail "the Cyclone reader of rt/cmd_vel on B"

/usr/bin/python3 - "$W" <<'PY' || fail "what B received"
import json, sys
w = sys.argv[1]
tw = [json.loads(l) for l in open(w + "/echo_twist.out")]
assert len(tw) == 3, tw
for m in tw:
    assert m["value"] == {"linear": {"x": 1.5, "y": 0.0, "z": 0.0},
                          "angular": {"x": 0.0, "y": 0.0, "z": -0.25}}, m
rd = [json.loads(l) for l in open(w + "/echo_reading.out")]
assert len(rd) == 2, rd
for m in rd:
    assert m["value"] == {"stamp": {"sec": 7, "nanosec": 0}, "label": "a b",
                          "values": [1.0, 2.5]}, m
PY
grep -c '^1.5 -0.25$' "$W/twist.out" | grep -qx 3 || fail "the Cyclone reader's samples"
want=$(ZCAST_TYPE_PATH="$LIB" "$ZCAST" interface show geometry_msgs/msg/Twist | sed -n 's/^hash: //p')
[ -n "$want" ] || fail "zcast interface show geometry_msgs/msg/Twist"
grep -q "^user_data typehash=$want;" "$W/twist.out" || fail "the writer's USER_DATA is not typehash=$want"
echo "Twist and Reading bridged; USER_DATA typehash=$want"

# A DDS writer of another Twist (its USER_DATA hash differs): B refuses its samples, naming both
# hashes; a writer announcing no hash (plain DDS, ROS 2 before Iron) is read. (Each waits for
# B's reader: a volatile writer does not match the catch-up reader.)
bad=RIHS01_$(printf '%064d' 7)
"${inB[@]}" timeout 30 "$ZCAST" echo /cmd_vel --count 2 --json > "$W/echo_twist2.out" 2>"$W/echo_twist2.log" &
e3=$!; pids+=($e3)
subscribed /cmd_vel
"${inA[@]}" timeout 30 "$PEER" pub rt/cmd_vel 1 3 9 "typehash=$bad;" > "$W/bad_pub.log" 2>&1 ||
  fail "the DDS writer of another hash"
wait_for "$W/b.log" "in /cmd_vel: dropping samples of a writer of another type hash: the writer announces $bad, geometry_msgs/msg/Twist is $want" "B to refuse the other hash"
"${inA[@]}" timeout 30 "$PEER" pub rt/cmd_vel 1 2 2 "" > "$W/plain_pub.log" 2>&1 ||
  fail "the DDS writer without a hash"
wait $e3 || fail "zcast echo /cmd_vel on B (second round)"
/usr/bin/python3 -c "
import json, sys
xs = [json.loads(l)['value']['linear']['x'] for l in open(sys.argv[1])]
assert xs == [2.0, 2.0], xs" "$W/echo_twist2.out" || fail "B got a refused sample"
echo "another hash refused: $(grep -m1 'another type hash' "$W/b.log")"

# A topic made with another definition of the type: the bridge refuses the route, naming both hashes.
"${inA[@]}" env ZCAST_TYPE_PATH="$OTHER" timeout 30 "$ZCAST" pub /tt/clash \
  zcast_bridge_test/msg/Reading "{label: x}" --times 100 --rate 10 > "$W/pub_clash.log" 2>&1 &
pids+=($!)
mine=$(ZCAST_TYPE_PATH="$LIB" "$ZCAST" interface show zcast_bridge_test/msg/Reading | sed -n 's/^hash: //p')
theirs=$(ZCAST_TYPE_PATH="$OTHER" "$ZCAST" interface show zcast_bridge_test/msg/Reading | sed -n 's/^hash: //p')
[ -n "$mine" ] && [ -n "$theirs" ] && [ "$mine" != "$theirs" ] || fail "the two hashes: '$mine' '$theirs'"
for _ in $(seq 400); do
  "${inA[@]}" "$ZCAST" info /tt/clash 2>/dev/null | grep -qE '^publishers: +1 ' && break
  sleep 0.05
done
echo "out /tt/clash zcast_bridge_test/msg/Reading reliable" > "$W/clash.conf"
rc=0
"${inA[@]}" timeout 30 "$BRIDGE" "$W/clash.conf" > "$W/clash.log" 2>&1 || rc=$?
[ $rc -eq 1 ] || fail "the bridge of a clashing type exited $rc, want 1"
grep -q "$theirs" "$W/clash.log" && grep -q "$mine" "$W/clash.log" ||
  fail "the refusal does not name both hashes ($theirs, $mine)"
echo "clash refused: $(grep -m1 RIHS01 "$W/clash.log")"
echo PASS
