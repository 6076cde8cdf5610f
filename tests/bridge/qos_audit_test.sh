#!/usr/bin/env bash
# Incompatible QoS is reported, as ROS 2 warns of it (found by the audit of issue 26: the bridge
# said nothing, and a route whose peers can never match looked like a route without peers). On B a
# plain Cyclone best-effort writer into A's reliable in route, and a reader asking for a deadline of
# A's out route (its writer offers none): A prints, per route, "refused N remote writer(s)|reader(s)
# so far: incompatible QoS (RELIABILITY|DEADLINE)".
# Usage: qos_audit_test.sh <zcast-bridge> <qos_peer>. Root and `ip netns` (else 77).
set -uo pipefail
BRIDGE=$1 PEER=$2
. "$(dirname "$0")/netns.sh"
. "$(dirname "$0")/harness.sh"
zbh_init qos-audit
R=sensor_msgs/msg/Image
printf 'zcast_domain %s\nin /qin %s reliable\nout /qout %s reliable\n' "$DA" $R $R > "$W/a.conf"
zbh_bridge a A "$W/a.conf"
"${inB[@]}" "$PEER" writer rt/qin best_effort > "$W/w.log" 2>&1 || fail "B's writer saw no incompatible reader"
"${inB[@]}" "$PEER" reader rt/qout deadline > "$W/r.log" 2>&1 || fail "B's reader saw no incompatible writer"
wait_for "$W/a.log" "in /qin: refused 1 remote writer\(s\) so far: incompatible QoS \(RELIABILITY\)" \
  "A to report the best-effort writer"
wait_for "$W/a.log" "out /qout: refused 1 remote reader\(s\) so far: incompatible QoS \(DEADLINE\)" \
  "A to report the reader asking for a deadline"
echo PASS
