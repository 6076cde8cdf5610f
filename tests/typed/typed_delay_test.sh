#!/usr/bin/env bash
# zcast delay from a std_msgs/Header stamp (issue 25), as `ros2 topic delay`: a type with a Header
# is measured as CLOCK_REALTIME at receive minus header.stamp; messages with a zero stamp are
# skipped and counted; other types, and --publish-time, use zcast's publish time. Checks which
# source each report names and that the values are those of the stamps sent (a stamp one hour old
# gives a delay of about an hour), never a timing threshold of the machine.
set -euo pipefail
zcast=$1
. "$(dirname "$0")/../zt_scene.sh"
scene tdelay
# delay_json TOPIC TYPE VALUES [FLAGS...]: one JSON report of zcast delay while TYPE is published
delay_json() {
  local topic=$1 type=$2 values=$3; shift 3
  "$zcast" pub "$topic" "$type" "$values" --rate 50 >/dev/null 2>&1 &
  local p=$!
  out=$("$zcast" delay "$topic" --json -n 1 --interval 0.5 --timeout 20 "$@") || fail "delay $topic: $out"
  kill $p; wait $p 2>/dev/null || true
}
hour_ago=$(( $(date +%s) - 3600 ))
delay_json /imu sensor_msgs/Imu "{header: {stamp: {sec: $hour_ago, nanosec: 5}, frame_id: imu}}"
/usr/bin/python3 -c '
import json, sys
r = json.loads(sys.argv[1])
assert r["from"] == "header.stamp" and r["unstamped"] == 0, r
assert 3590e9 < r["p50_ns"] < 3900e9, r   # an hour, as stamped (the clock is CLOCK_REALTIME)' "$out" ||
  fail "Imu by stamp: $out"

delay_json /imu2 sensor_msgs/Imu "{header: {stamp: {sec: $hour_ago}}}" --publish-time
/usr/bin/python3 -c '
import json, sys
r = json.loads(sys.argv[1])
assert r["from"] == "publish_time" and 0 <= r["p50_ns"] < 600e9, r' "$out" || fail "--publish-time: $out"

delay_json /s std_msgs/String '{data: x}'
/usr/bin/python3 -c '
import json, sys
r = json.loads(sys.argv[1])
assert r["from"] == "publish_time", r' "$out" || fail "String: $out"

# a zero stamp (never set) is not a delay of 56 years: skipped and counted
"$zcast" pub /zero sensor_msgs/Imu '{}' --rate 50 >/dev/null 2>&1 &
zp=$!
"$zcast" pub /zero sensor_msgs/Imu "{header: {stamp: {sec: $hour_ago}}}" --rate 50 >/dev/null 2>&1 &
out=$("$zcast" delay /zero --json -n 1 --interval 0.5 --timeout 20) || fail "delay /zero: $out"
/usr/bin/python3 -c '
import json, sys
r = json.loads(sys.argv[1])
assert r["from"] == "header.stamp" and r["unstamped"] > 0 and r["p50_ns"] < 3900e9, r' "$out" ||
  fail "zero stamps: $out"
# the text report names its source and the skipped messages
out=$("$zcast" delay /zero -n 1 --interval 0.5 --timeout 20) || fail "delay text: $out"
grep -qE 'from header.stamp, CLOCK_REALTIME; [0-9]+ unstamped skipped' <<<"$out" || fail "text: $out"
kill $zp
echo PASS
