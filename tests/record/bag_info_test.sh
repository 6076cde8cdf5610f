#!/usr/bin/env bash
# `zcast bag info` on a recording that rosbag2 made (foreign_bag's Jazzy-style file: no "zcast"
# metadata) shows its drops as unknown, not as 0; on zcast's own recording the counted drops (0).
# `zcast bag info --json` says the same as one JSON object (drops unknown: null).
# Usage: bag_info_test.sh ZCAST FOREIGN_BAG LATE_PUB OUT_DIR
set -euo pipefail
zcast=$1 foreign=$2 late=$3 out=$4
. "$(dirname "$0")/../zt_scene.sh"
scene trbaginfo
fresh_dir "$out"
py=/usr/bin/python3

"$foreign" jazzy "$out/jazzy.mcap" || fail "foreign_bag"
info=$("$zcast" bag info "$out/jazzy.mcap")
for t in /chatter /other /odd; do
  grep -q "Topic: $t | .* | Count: 6 | Serialization Format: cdr | Dropped: unknown$" <<<"$info" ||
    fail "bag info, $t: $info"
done
"$zcast" bag info --json "$out/jazzy.mcap" >"$out/jazzy.json" || fail "bag info --json"
$py - "$out/jazzy.json" <<'PY' || fail "bag info --json: $(cat "$out/jazzy.json")"
import json, sys
j = json.load(open(sys.argv[1]))
assert j["files"] == ["jazzy.mcap"] and j["messages"] == 18 and j["complete"] is True, j
assert j["duration_ns"] == 5000000 and j["start_ns"] == 1700000000001000000, j
t = {x["topic"]: x for x in j["topics"]}
assert t["/chatter"] == {"topic": "/chatter", "type": "std_msgs/msg/String", "count": 6,
                         "serialization_format": "cdr", "dropped": None}, t
assert t["/odd"]["type"] == "my_pkg/msg/Odd" and t["/odd"]["dropped"] is None, t
PY

# zcast's own recording counts its drops: 0 here, in text and JSON.
mkfifo "$out/ready"
"$late" /info/topic 5 hold >"$out/ready" &
pub=$!
read -r line <"$out/ready" || fail "late_pub did not start"
"$zcast" record -q -o "$out/rec" --duration 0.5 '/info/*' || fail "record"
kill "$pub"
info=$("$zcast" bag info "$out/rec")
grep -q "Topic: /info/topic | Type: (untyped) | Count: 5 | .* | Dropped: 0$" <<<"$info" ||
  fail "bag info of zcast's recording: $info"
"$zcast" bag info --json "$out/rec" >"$out/rec.json" || fail "bag info --json"
$py - "$out/rec.json" <<'PY' || fail "bag info --json: $(cat "$out/rec.json")"
import json, sys
j = json.load(open(sys.argv[1]))
assert j["topics"] == [{"topic": "/info/topic", "type": None, "count": 5,
                        "serialization_format": "zcast.raw", "dropped": 0}], j
PY
echo "bag_info: drops unknown for rosbag2's file, counted for zcast's; --json alike"
