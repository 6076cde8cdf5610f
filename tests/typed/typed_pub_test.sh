#!/usr/bin/env bash
# zcast pub TOPIC TYPE VALUES: YAML flow values (nested, arrays, quoted strings), defaults for the
# members not given, a user's type from a type library, --wait-matching with --once and --times,
# and bad values (exit 2, "VALUES: member path: what").
set -euo pipefail
zcast=$1 libdir=$2
. "$(dirname "$0")/../zt_scene.sh"
scene tpub

# Publishes "$@" (--wait-matching 1: the echo started first is there) and prints what echo --json
# received, one JSON object per line.
pub_echo() {
  local topic=$1 n=$2; shift 2
  local out; out=$(mktemp)
  timeout 20 "$zcast" echo "$topic" --count "$n" --json >"$out" &
  local echo_pid=$!
  timeout 20 "$zcast" pub "$topic" "$@" --wait-matching 1 --rate 5 || fail "pub $topic $*"
  wait $echo_pid || fail "echo $topic"
  cat "$out"; rm -f "$out"
}
check() { # python assertion over the JSON lines in $out
  /usr/bin/python3 -c "
import json, sys
msgs = [json.loads(l) for l in sys.argv[1].splitlines()]
v = msgs[0]['value']
$1" "$out" || fail "$2: $out"
}

out=$(pub_echo /tp/q 1 geometry_msgs/msg/Quaternion '{x: 0.5}' --once)
check "assert v == {'x': 0.5, 'y': 0.0, 'z': 0.0, 'w': 1.0}, v" "Quaternion with defaults"

out=$(pub_echo /tp/imu 3 sensor_msgs/Imu "header: {stamp: {sec: 5}, frame_id: 'it''s é'},
  orientation: {z: -2.5e1}, angular_velocity_covariance: [1, 2, 3, 4, 5, 6, 7, 8, 9]" --times 3)
check "assert len(msgs) == 3, msgs
assert v['header'] == {'stamp': {'sec': 5, 'nanosec': 0}, 'frame_id': 'it\\'s \u00e9'}, v
assert v['orientation'] == {'x': 0.0, 'y': 0.0, 'z': -25.0, 'w': 1.0}, v
assert v['angular_velocity_covariance'] == [float(i) for i in range(1, 10)], v" "Imu nested"

out=$(ZCAST_TYPE_PATH=$libdir pub_echo /tp/user 1 zcast_test/Defaults \
  '{a: -128, huge: 18446744073709551615, seq: [], more: ["x", "y, z"], qs: [{x: 1}, {}]}' --once)
check "assert v['a'] == -128 and v['huge'] == 2**64 - 1 and v['name'] == 'hi', v
assert v['seq'] == [] and v['more'] == ['x', 'y, z'] and v['names'] == ['x', 'yz'], v
assert v['qs'] == [{'x': 1.0, 'y': 0.0, 'z': 0.0, 'w': 1.0}, {'x': 0.0, 'y': 0.0, 'z': 0.0, 'w': 1.0}], v
assert v['q']['w'] == 1.0 and v['arr'] == [1, 2, 3], v" "a user's type with defaults"

bad() { # values, expected message
  local err rc=0
  err=$(ZCAST_TYPE_PATH=$libdir "$zcast" pub /tp/bad "$1" "$2" --once 2>&1) || rc=$?
  [ $rc -eq 2 ] || fail "pub $1 '$2': exit $rc, want 2: $err"
  grep -qF -- "$3" <<<"$err" || fail "pub $1 '$2': no '$3' in: $err"
}
bad geometry_msgs/msg/Quaternion '{x: abc}' "VALUES: member x: 'abc' is not a float64"
bad sensor_msgs/msg/Imu '{orientation: {w: [1]}}' "VALUES: member orientation.w: a float64, not a sequence"
bad sensor_msgs/msg/Imu '{orientation: {v: 1}}' "VALUES: member orientation.v: geometry_msgs/msg/Quaternion has no such member"
bad zcast_test/Defaults '{a: 128}' "VALUES: member a: '128' is not a int8 (-128 .. 127)"
bad zcast_test/Defaults '{huge: -1}' "VALUES: member huge: '-1' is not a uint64"
bad zcast_test/Defaults '{tag: abcde}' "VALUES: member tag: 5 bytes, its bound is 4"
bad zcast_test/Defaults '{arr: [1, 2]}' "VALUES: member arr: 2 values, the array has 3"
bad zcast_test/Defaults '{qs: [{x: 1}, {y: no}]}' "VALUES: member qs[1].y: 'no' is not a float64"
bad zcast_test/Defaults '{flag: maybe}' "VALUES: member flag: 'maybe' is not a bool"
bad zcast_test/Defaults '{a: 1' "VALUES: '}' is missing at the end"
bad nope/Missing '{}' "TYPE: nope/Missing is not a type zcast ships (type nope/Missing: in no type library on $libdir:"
echo "typed pub: ok"
