#!/usr/bin/env bash
# Types at run time: `zcast echo` prints a user's type (zcast_test/Fixed) it was not built with,
# found in a type library on $ZCAST_TYPE_PATH, and refuses a type whose RIHS01 hash differs from
# the topic's, naming both hashes (a library type and a shipped one).
set -euo pipefail
zcast=$1 pub=$2 libdir=$3
. "$(dirname "$0")/../zt_scene.sh"
scene ttypes

# The topic's type is set by the publisher's join a moment after the segment exists: wait for it.
start() {
  "$pub" "$1" &
  for _ in $(seq 200); do
    "$zcast" info /typed/user 2>/dev/null | grep -q "^type: *$2" && return 0
    sleep 0.05
  done
  fail "no $2 publisher"
}
stop() { kill $(jobs -p); wait 2>/dev/null || true; rm -f /dev/shm/zcast.$ZCAST_DOMAIN.*; }

start fixed zcast_test/msg/Fixed
out=$(ZCAST_TYPE_PATH=/nonexistent:$libdir timeout 10 "$zcast" echo /typed/user --count 1)
for want in 'zcast_test/msg/Fixed' '  a: 7' '  b: 2.5' '  c: 300' '  v.x: 1.5' '  v.y: -1'; do
  grep -qF -- "$want" <<<"$out" || fail "echo with the type library: no '$want' in: $out"
done
out=$(ZCAST_TYPE_PATH= timeout 10 "$zcast" echo /typed/user --count 1)
grep -qF '  a: 7' <<<"$out" && fail "echo knew the user's type without its library: $out"
# --json: the values by member name, not hex
out=$(ZCAST_TYPE_PATH=$libdir timeout 10 "$zcast" echo /typed/user --count 1 --json)
/usr/bin/python3 -c '
import json, sys
m = json.loads(sys.argv[1])
assert m["type"] == "zcast_test/msg/Fixed", m
assert m["value"] == {"a": 7, "b": 2.5, "c": 300, "v": {"x": 1.5, "y": -1.0, "z": 0.0}}, m
assert "data_hex" not in m, m' "$out" || fail "echo --json of a library type: $out"
stop

# JSON strings keep UTF-8 as it is and escape quotes and control characters
start string std_msgs/msg/String
out=$(timeout 10 "$zcast" echo /typed/user --count 1 --json)
grep -qF '"value":{"data":"café ☕ \"q\" \u0001"}' <<<"$out" || fail "echo --json of UTF-8: $out"
/usr/bin/python3 -c '
import json, sys
assert json.loads(sys.argv[1])["value"]["data"] == "caf\u00e9 \u2615 \"q\" \x01"' "$out" ||
  fail "echo --json of UTF-8 is no JSON: $out"
stop

start wronghash zcast_test/msg/Fixed
err=$(ZCAST_TYPE_PATH=$libdir timeout 10 "$zcast" echo /typed/user --count 1 2>&1 >/dev/null)
ab=RIHS01_$(printf 'ab%.0s' $(seq 32))
grep -qF "refused: type zcast_test/msg/Fixed: the topic has $ab, $libdir/" <<<"$err" &&
  grep -qE "zcast_test_types.so has RIHS01_[0-9a-f]{64}" <<<"$err" ||
  fail "echo of another version of a library type: $err"
stop

start wrongimage sensor_msgs/msg/Image
err=$(timeout 10 "$zcast" echo /typed/user --count 1 2>&1 >/dev/null)
grep -qF "refused: type sensor_msgs/msg/Image: the topic has $ab, zcast ships RIHS01_d31d41a9a4c4bc8eae9be757b0beed306564f7526c88ea6a4588fb9582527d47" \
  <<<"$err" || fail "echo of another version of a shipped type: $err"
echo "typed types: ok"
