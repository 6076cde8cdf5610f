#!/usr/bin/env bash
# zcast echo --csv (issue 25): a header row of member paths, then one row per message; fixed arrays
# one column per element, sequences one cell (or <sequence, length: N> with --no-arr); strings
# quoted as RFC 4180 says (quotes doubled); bad combinations exit 2 naming the flag.
set -euo pipefail
zcast=$1
export ZCAST_DOMAIN="tcsv-$$"
cleanup() { kill $(jobs -p) 2>/dev/null || true; wait 2>/dev/null || true; rm -f /dev/shm/zcast.$ZCAST_DOMAIN.*; }
trap cleanup EXIT
fail() { echo "FAIL: $*"; exit 1; }
expect_rc() {
  local want=$1 rc=0; shift
  out=$("$@" 2>&1) || rc=$?
  [ "$rc" = "$want" ] || fail "$* exited $rc, not $want: $out"
}
wait_typed() {
  for _ in $(seq 200); do
    "$zcast" info "$1" 2>/dev/null | grep -q "^type: *$2" && return 0
    sleep 0.05
  done
  fail "no $2 publisher on $1"
}
"$zcast" pub /tcsv/str std_msgs/msg/String "{data: 'say \"hi\", twice'}" --rate 20 >/dev/null &
"$zcast" pub /tcsv/imu sensor_msgs/msg/Imu \
  '{header: {frame_id: base}, orientation: {x: 0.5}, orientation_covariance: [1, 2, 3, 4, 5, 6, 7, 8, 9]}' \
  --rate 20 >/dev/null &
"$zcast" pub /tcsv/pc sensor_msgs/msg/PointCloud2 '{data: [1, 2, 3, 4, 5], height: 2}' --rate 20 >/dev/null &
wait_typed /tcsv/str std_msgs/msg/String
wait_typed /tcsv/imu sensor_msgs/msg/Imu
wait_typed /tcsv/pc sensor_msgs/msg/PointCloud2

expect_rc 0 timeout 10 "$zcast" echo /tcsv/str --csv -n 2
[ "$out" = $'data\n"say ""hi"", twice"\n"say ""hi"", twice"' ] || fail "csv String: $out"
# the rows parse back as CSV (Python's csv module) to the header and the values
expect_rc 0 timeout 10 "$zcast" echo /tcsv/imu --csv -n 2
/usr/bin/python3 -c '
import csv, io, sys
rows = list(csv.reader(io.StringIO(sys.argv[1])))
assert len(rows) == 3, rows
h = rows[0]
assert h[:4] == ["header.stamp.sec", "header.stamp.nanosec", "header.frame_id", "orientation.x"], h
assert "orientation_covariance[8]" in h and "orientation.w" in h, h
for r in rows[1:]:
    v = dict(zip(h, r))
    assert len(r) == len(h), (h, r)
    assert v["header.frame_id"] == "base" and float(v["orientation.x"]) == 0.5, v
    assert float(v["orientation.w"]) == 1 and float(v["orientation_covariance[8]"]) == 9, v
' "$out" || fail "csv Imu: $out"
expect_rc 0 timeout 10 "$zcast" echo /tcsv/imu --csv -n 1 --no-arr
head -1 <<<"$out" | grep -q ',orientation_covariance,' || fail "csv --no-arr header: $out"
grep -qF ',"<array, length: 9>",' <<<"$out" || fail "csv --no-arr row: $out"
expect_rc 0 timeout 10 "$zcast" echo /tcsv/pc --csv -n 1
/usr/bin/python3 -c '
import csv, io, sys
h, r = list(csv.reader(io.StringIO(sys.argv[1])))
v = dict(zip(h, r))
assert v["data"] == "1,2,3,4,5" and v["height"] == "2" and v["fields"] == "[0 sensor_msgs/msg/PointField]", v
' "$out" || fail "csv PointCloud2: $out"
expect_rc 0 timeout 10 "$zcast" echo /tcsv/pc --csv -n 1 --no-arr
grep -qF ',"<sequence, length: 5>",' <<<"$out" || fail "csv --no-arr sequence: $out"

# bad combinations: exit 2, the flag named
for other in --json --hex '--field data'; do
  expect_rc 2 timeout 10 "$zcast" echo /tcsv/str --csv $other
  grep -q '^zcast echo: --csv: not with' <<<"$out" || fail "--csv $other: $out"
done
echo "typed3 csv: ok"
