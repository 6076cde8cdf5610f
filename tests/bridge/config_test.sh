#!/usr/bin/env bash
# zcast-bridge's config file: a good file parses (--check prints the routes with their defaults);
# every kind of bad line stops the program with "file:line: what" and exit status 1.
# Usage: config_test.sh <zcast-bridge>
set -uo pipefail
BRIDGE=$1
W=$(mktemp -d)
trap 'rm -rf "$W"' EXIT
fail() { echo "FAIL: $*"; exit 1; }

cat > "$W/good.conf" <<'CONF'
# comment line
dds_domain 7
zcast_domain robot_1

out /camera/image sensor_msgs/msg/Image reliable history=4 max_size=8M   # trailing comment
in  /cmd          std_msgs/msg/String   best_effort
in  /camera/image sensor_msgs/msg/Image reliable depth=32 slots=40
CONF
out=$("$BRIDGE" --check "$W/good.conf" 2>&1) || fail "good config rejected: $out"
grep -q "line 5: out /camera/image sensor_msgs/msg/Image reliable depth=16 history=4 max_size=8388608" \
  <<<"$out" || fail "route of line 5: $out"
grep -q "line 6: in /cmd std_msgs/msg/String best_effort depth=1 history=0 max_size=65536" <<<"$out" ||
  fail "route of line 6: $out"

# ROS 2's QoS profiles by name, a node name and a remapped DDS name
cat > "$W/ros.conf" <<'CONF'
node my_bridge
out /a sensor_msgs/msg/Image default
out /b sensor_msgs/msg/Image sensor_data
out /c sensor_msgs/msg/Image transient_local ros_name=/remote/c
CONF
out=$("$BRIDGE" --check "$W/ros.conf" 2>&1) || fail "presets rejected: $out"
grep -q "line 2: out /a sensor_msgs/msg/Image reliable depth=10 history=0" <<<"$out" || fail "default: $out"
grep -q "line 3: out /b sensor_msgs/msg/Image best_effort depth=5 history=0" <<<"$out" || fail "sensor_data: $out"
grep -q "line 4: out /c sensor_msgs/msg/Image reliable depth=16 history=1" <<<"$out" || fail "transient_local: $out"

. "$(dirname "$0")/config_helpers.sh"
R='sensor_msgs/msg/Image'
bad '2: unknown QoS "sideways" (reliable, best_effort, default, sensor_data, transient_local)' '# x' "out /a $R sideways"
bad '1: unknown keyword "up" (in, out, service, dds_domain, zcast_domain, node, threads, cpu_latency_us)' "up /a $R reliable"
bad '1: bad topic name "a"' "out a $R reliable"
bad '1: unknown type "foo/msg/Bar"' "out /a foo/msg/Bar reliable"
bad '1: expected: in|out <topic>' "out /a $R"
bad '1: depth=0: expected a number from 1 to 1024' "out /a $R reliable depth=0"
bad '1: history=65: expected a number from 0 to 64' "out /a $R reliable history=65"
bad '1: max_size=1X: expected a number' "out /a $R reliable max_size=1X"
bad '1: unknown option "speed"' "out /a $R reliable speed=3"
bad '1: "fast": expected key=value' "out /a $R reliable fast"
bad '2: out /a repeats line 1' "out /a $R reliable" "out /a $R best_effort"
bad '2: /a has type sensor_msgs/msg/Image on line 1' "out /a $R reliable" "in /a std_msgs/msg/String reliable"
bad '1: expected: dds_domain <0..232>' "dds_domain"
bad '1: dds_domain=233: expected a number from 0 to 232' "dds_domain 233" "out /a $R reliable"
bad '1: expected: zcast_domain <name>' "zcast_domain bad/name"
bad '2: no routes' "dds_domain 1"
bad '1: depth given twice' "out /a $R reliable depth=3 depth=5"
bad '1: ros_name=x: bad topic name' "out /a $R reliable ros_name=x"
bad '1: expected: node <name>' "node 9lives"
# a NUL byte is an error on its line, not the end of the file (the route after it would be lost)
printf 'out /a %s reliable\nout /b %s rel\0iable\nout /c %s reliable\n' $R $R $R > "$W/nul.conf"
msg=$("$BRIDGE" --check "$W/nul.conf" 2>&1) && fail "a NUL byte was accepted: $msg"
grep -qF "$W/nul.conf:2: NUL byte" <<<"$msg" || fail "NUL byte: $msg"
mkdir "$W/dir.conf"
msg=$("$BRIDGE" --check "$W/dir.conf" 2>&1) && fail "a directory was accepted"
grep -qF "$W/dir.conf: Is a directory" <<<"$msg" || fail "directory: $msg"
msg=$("$BRIDGE" "$W/missing.conf" 2>&1) && fail "a missing file was accepted"
grep -q "missing.conf: No such file or directory" <<<"$msg" || fail "missing file: $msg"
echo PASS
