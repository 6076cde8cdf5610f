#!/usr/bin/env bash
# zcast echo --csv (issue 25): a header row of member paths, then one RFC 4180 row per message,
# parsed back with Python's csv module: strings with commas, quotes and line breaks survive, arrays
# are JSON arrays in one cell (or "<array, length: N>" with --no-arr), a type of a type library
# works; an untyped topic and --csv with --json/--hex/--field exit 2 naming the flag.
set -euo pipefail
zcast=$1 libdir=$2
. "$(dirname "$0")/../zt_scene.sh"
scene tcsv
export ZCAST_TYPE_PATH=$libdir
# echo_csv TOPIC N FLAGS... -- TYPE VALUES: echoes N messages of TOPIC as CSV into $tmpd/out
echo_csv() {
  local topic=$1 n=$2; shift 2
  local flags=(); while [ "$1" != -- ]; do flags+=("$1"); shift; done; shift
  "$zcast" echo "$topic" --csv -n "$n" --timeout 20 "${flags[@]}" >"$tmpd/out" 2>"$tmpd/err" &
  local e=$!
  "$zcast" pub "$topic" "$1" "$2" --times "$n" --rate 50 --wait-matching 1 >/dev/null ||
    fail "pub $topic"
  wait $e || fail "echo --csv $topic: $(cat "$tmpd/err")"
}

echo_csv /s 2 -- std_msgs/String '{data: "a,b \"q\"\nnext"}'
/usr/bin/python3 - "$tmpd/out" <<'PY' || fail "String rows: $(cat "$tmpd/out")"
import csv, sys
rows = list(csv.reader(open(sys.argv[1], newline="")))
assert rows[0] == ["sequence", "publish_time_ns", "latency_ns", "data"], rows
assert len(rows) == 3, rows
for i, r in enumerate(rows[1:], 1):
    assert int(r[0]) == i and int(r[1]) > 0 and int(r[2]) >= 0, r
    assert r[3] == 'a,b "q"\nnext', r
PY

echo_csv /imu 1 -- sensor_msgs/Imu '{header: {frame_id: imu}, orientation: {x: 0.5}, orientation_covariance: [1, 2, 3, 4, 5, 6, 7, 8, 9.5]}'
/usr/bin/python3 - "$tmpd/out" <<'PY' || fail "Imu rows: $(cat "$tmpd/out")"
import csv, json, sys
h, r = list(csv.reader(open(sys.argv[1], newline="")))
v = dict(zip(h, r))
assert len(h) == len(r), (h, r)
assert v["header.frame_id"] == "imu" and v["header.stamp.sec"] == "0", v
assert float(v["orientation.x"]) == 0.5 and float(v["orientation.w"]) == 1.0, v  # the default
assert json.loads(v["orientation_covariance"]) == [1, 2, 3, 4, 5, 6, 7, 8, 9.5], v
PY
echo_csv /imu2 1 --no-arr -- sensor_msgs/Imu '{orientation_covariance: [1, 2, 3, 4, 5, 6, 7, 8, 9]}'
grep -q '"<array, length: 9>"' "$tmpd/out" || fail "--no-arr: $(cat "$tmpd/out")"

# a type of a type library (the tool was not built with it)
echo_csv /nested 1 -- zcast_test/msg/Fixed '{}'
head -1 "$tmpd/out" | grep -q '^sequence,publish_time_ns,latency_ns,' || fail "library type: $(cat "$tmpd/out")"
[ "$(wc -l <"$tmpd/out")" = 2 ] || fail "library type rows: $(cat "$tmpd/out")"

# bad uses
for f in --json --hex "--field data"; do
  expect_rc 2 "$zcast" echo /s --csv $f
  grep -q -- '--csv' <<<"$out" || fail "--csv $f: $out"
done
head -c 8 /dev/zero >"$tmpd/raw"
"$zcast" pub /raw --file "$tmpd/raw" --rate 20 >/dev/null 2>&1 &
expect_rc 2 "$zcast" echo /raw --csv -n 1 --timeout 20
grep -q -- '--csv: /raw is untyped' <<<"$out" || fail "untyped: $out"
echo PASS
