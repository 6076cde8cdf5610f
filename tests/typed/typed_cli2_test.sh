#!/usr/bin/env bash
# The typed command line, part 2 (issue 25): `zcast interface list | show TYPE` (shipped types and
# those of a type library on $ZCAST_TYPE_PATH: .msg text, constants, RIHS01 hash) and
# `zcast list --type T`; bad values exit 2 naming the argument.
set -euo pipefail
zcast=$1 libdir=$2
. "$(dirname "$0")/../zt_scene.sh"
scene tcli2

# ---- interface list: shipped types always, library types only with their library on the path
expect_rc 0 env ZCAST_TYPE_PATH= "$zcast" interface list
grep -qE '^std_msgs/msg/String +\(shipped\)$' <<<"$out" || fail "interface list: no String: $out"
grep -q 'zcast_test/msg/Fixed' <<<"$out" && fail "interface list without the library: $out"
expect_rc 0 env ZCAST_TYPE_PATH=$libdir "$zcast" interface list
grep -qE '^sensor_msgs/msg/Imu +\(shipped\)$' <<<"$out" || fail "interface list: no Imu: $out"
grep -qE "^zcast_test/msg/Fixed +$libdir/.*zcast_test_types.so$" <<<"$out" ||
  fail "interface list: no library type: $out"
[ "$(grep -c '^std_msgs/msg/String ' <<<"$out")" = 1 ] || fail "interface list: String twice: $out"
expect_rc 0 env ZCAST_TYPE_PATH=$libdir "$zcast" interface list --json
/usr/bin/python3 -c '
import json, sys
v = {t["type"]: t for t in json.loads(sys.argv[1])}
assert v["std_msgs/msg/String"]["library"] is None, v
assert v["zcast_test/msg/Nested"]["library"].endswith("zcast_test_types.so"), v
assert v["zcast_test/msg/Nested"]["hash"].startswith("RIHS01_"), v' "$out" ||
  fail "interface list --json: $out"

# ---- interface show: hash, constants and the .msg text, of a shipped and of a library type
expect_rc 0 "$zcast" interface show std_msgs/String
grep -qx 'type: std_msgs/msg/String' <<<"$out" || fail "show String: $out"
grep -qE '^hash: RIHS01_[0-9a-f]{64}$' <<<"$out" || fail "show String: no hash: $out"
grep -qx 'string data' <<<"$out" || fail "show String: no .msg text: $out"
grep -qx '  (none)' <<<"$out" || fail "show String: constants: $out"
expect_rc 0 env ZCAST_TYPE_PATH=$libdir "$zcast" interface show zcast_test/msg/Defaults
for want in '  int64 I64_MAX = 9223372036854775807' '  uint64 U64_MAX = 18446744073709551615' \
  '  string TEXT = "café"' 'int8 a -5' 'string[] more ['"'"'a,b'"'"', '"'"'c'"'"']'; do
  grep -qxF -- "$want" <<<"$out" || fail "show Defaults: no '$want' in: $out"
done
grep -qE "^from: $libdir/.*zcast_test_types.so$" <<<"$out" || fail "show Defaults: from: $out"
expect_rc 0 env ZCAST_TYPE_PATH=$libdir "$zcast" interface show zcast_test/Nested --json
/usr/bin/python3 -c '
import json, sys
m = json.loads(sys.argv[1])
assert m["type"] == "zcast_test/msg/Nested" and m["hash"].startswith("RIHS01_"), m
assert m["constants"] == [] and "MSG: " in m["text"], m' "$out" || fail "show --json: $out"
# the hash is the one the generator computes
here=$(dirname "$0")
want=$(/usr/bin/python3 "$here/../../tools/zcast-msggen" -I "$here/../../msg" -I "$here/msg" --hash \
  zcast_test/Fixed | cut -f2)
expect_rc 0 env ZCAST_TYPE_PATH=$libdir "$zcast" interface show zcast_test/Fixed
grep -qx "hash: $want" <<<"$out" || fail "show Fixed: hash is not '$want': $out"

# ---- bad values: exit 2, `argument: what`
expect_rc 2 "$zcast" interface show no_pkg/msg/Nothing
grep -q '^zcast interface: type: .*no_pkg/msg/Nothing' <<<"$out" || fail "show unknown: $out"
expect_rc 2 "$zcast" interface show
grep -q '^zcast interface: show: needs TYPE' <<<"$out" || fail "show without type: $out"
expect_rc 2 "$zcast" interface frobnicate
grep -q "^zcast interface: verb: 'frobnicate'" <<<"$out" || fail "bad verb: $out"
expect_rc 2 "$zcast" interface list extra
expect_rc 2 "$zcast" list --type String
grep -q "^zcast list: --type: 'String' is not pkg/msg/Name" <<<"$out" || fail "list --type: $out"

# ---- list --type: only the topics of that type
"$zcast" pub /tcli2/str std_msgs/msg/String '{data: hi}' --rate 20 >/dev/null &
"$zcast" pub /tcli2/int std_msgs/msg/Int32 '{data: 3}' --rate 20 >/dev/null &
# wait_typed TOPIC TYPE: the type is set by the publisher's join a moment after the segment exists.
wait_typed() {
  for _ in $(seq 200); do
    "$zcast" info "$1" 2>/dev/null | grep -q "^type: *$2" && return 0
    sleep 0.05
  done
  fail "no $2 publisher on $1"
}
wait_typed /tcli2/str std_msgs/msg/String
wait_typed /tcli2/int std_msgs/msg/Int32
for type in std_msgs/msg/String std_msgs/String; do
  expect_rc 0 "$zcast" list --type $type -w 0
  grep -q '^/tcli2/str ' <<<"$out" && ! grep -q '/tcli2/int' <<<"$out" ||
    fail "list --type $type: $out"
done
expect_rc 0 "$zcast" list -t std_msgs/msg/Int32 -w 0 --json
/usr/bin/python3 -c '
import json, sys
assert [t["topic"] for t in json.loads(sys.argv[1])["topics"]] == ["/tcli2/int"], sys.argv[1]' "$out" ||
  fail "list --type --json: $out"
expect_rc 0 "$zcast" list --type sensor_msgs/msg/Image -w 0
[ "$(wc -l <<<"$out")" = 1 ] || fail "list --type with no such topic: $out"

# ---- echo --field (member paths as the typed layer's errors name them) and --no-arr
"$zcast" pub /tcli2/pc sensor_msgs/msg/PointCloud2 \
  '{fields: [{name: x}, {name: y, offset: 4}], data: [1, 2, 3, 4, 5], height: 2}' --rate 20 >/dev/null &
"$zcast" pub /tcli2/imu sensor_msgs/msg/Imu '{orientation: {x: 0.5}}' --rate 20 >/dev/null &
wait_typed /tcli2/pc sensor_msgs/msg/PointCloud2
wait_typed /tcli2/imu sensor_msgs/msg/Imu
members() { grep '^  ' <<<"$out" || true; }
expect_rc 0 timeout 10 "$zcast" echo /tcli2/imu --once --field orientation.x
[ "$(members)" = '  orientation.x: 0.5' ] || fail "echo --field orientation.x: $out"
expect_rc 0 timeout 10 "$zcast" echo /tcli2/imu --once --field orientation
[ "$(members | tr '\n' ' ')" = '  orientation.x: 0.5   orientation.y: 0   orientation.z: 0   orientation.w: 1 ' ] ||
  fail "echo --field orientation: $out"
expect_rc 0 timeout 10 "$zcast" echo /tcli2/pc --once --field 'fields[1].name'
[ "$(members)" = '  fields[1].name: "y"' ] || fail "echo --field fields[1].name: $out"
expect_rc 0 timeout 10 "$zcast" echo /tcli2/pc --once --field fields
members | grep -qx '  fields\[1\].offset: 4' && members | grep -qx '  fields\[0\].name: "x"' ||
  fail "echo --field fields: $out"
expect_rc 0 timeout 10 "$zcast" echo /tcli2/pc --once --no-arr
members | grep -qx '  data: <sequence, length: 5>' && members | grep -qx '  height: 2' ||
  fail "echo --no-arr: $out"
expect_rc 0 timeout 10 "$zcast" echo /tcli2/pc --once
members | grep -qx '  data: \[1, 2, 3, 4, 5\]' || fail "echo without --no-arr: $out"
for bad in orientation.q 'orientation[0]' 'angular_velocity_covariance.x' 'x..y' ''; do
  expect_rc 2 timeout 10 "$zcast" echo /tcli2/imu --once --field "$bad"
  grep -q "^zcast echo: --field: " <<<"$out" || fail "echo --field '$bad': $out"
done
expect_rc 2 timeout 10 "$zcast" echo /tcli2/imu --once --field orientation.x --json
grep -q "^zcast echo: --field: " <<<"$out" || fail "echo --field --json: $out"
echo "typed cli2: ok"
