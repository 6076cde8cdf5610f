#!/usr/bin/env bash
# A topic of a user's type (zcast_test/Fixed, known to the tool only from a type library on
# $ZCAST_TYPE_PATH) recorded with its full ros2msg schema text (its .msg and geometry_msgs/Vector3's),
# shown by `zcast bag info`, played back with its type and history, and every message decoded
# against the stored schema text by the independent reader (mcap_check.cjs; that part skips, 77,
# only when npm cannot fetch it).
# Usage: record_types_test.sh ZCAST TYPED_USER_PUB TYPE_LIB_DIR OUT_DIR NPM_DIR
set -euo pipefail
zcast=$1 pub=$2 libdir=$3 out=$4 mods=$5
here=$(cd "$(dirname "$0")" && pwd)
. "$(dirname "$0")/../zt_scene.sh"
scene trtypes
fresh_dir "$out"

"$pub" fixed &
for _ in $(seq 200); do
  "$zcast" info /typed/user 2>/dev/null | grep -q "^type: *zcast_test/msg/Fixed" && break
  sleep 0.05
done
"$zcast" info /typed/user 2>/dev/null | grep -q "^type: *zcast_test/msg/Fixed" || fail "no publisher"

ZCAST_TYPE_PATH=$libdir "$zcast" record -q -o "$out/rec" --duration 1.5 /typed/user 2>"$out/err"
[ ! -s "$out/err" ] || fail "record warned: $(cat "$out/err")"

info=$("$zcast" bag info "$out/rec")
n=$(grep -o "Topic: /typed/user | Type: zcast_test/msg/Fixed | Count: [0-9]*" <<<"$info" | grep -o '[0-9]*$') ||
  fail "bag info: $info"
[ "$n" -gt 0 ] || fail "bag info counts no message: $info"

# Play into another domain: a late subscriber of the user's type gets the history and the values.
ZCAST_DOMAIN=$other "$zcast" play -q --loop "$out/rec" &
got=""
for _ in $(seq 100); do
  got=$(ZCAST_DOMAIN=$other ZCAST_TYPE_PATH=$libdir timeout 10 "$zcast" echo /typed/user --count 1 2>&1) && break
  sleep 0.1
done
for want in 'zcast_test/msg/Fixed' '  a: 7' '  b: 2.5' '  c: 300' '  v.x: 1.5'; do
  grep -qF -- "$want" <<<"$got" || fail "echo of the replay: no '$want' in: $got"
done

rc=0
"$here/mcap_js_modules.sh" "$mods" || rc=$?
[ "$rc" -eq 0 ] || exit "$rc"
node "$here/mcap_check.cjs" "$mods/node_modules" "$out"/rec/*.mcap
