#!/usr/bin/env bash
# Each bridge host is one node of its own name in the ROS 2 graph (found by the audit of issue 26:
# every bridge was the node /zcast_bridge unless `node` was set, so one bridge per host, or an
# active bridge and its standby, were several nodes of one name in ros_discovery_info). With no
# `node` line the name is zcast_bridge_<host name>, and a bridge that holds none of its topics (a
# standby) is <name>_standby until it takes one over. A runs an active bridge and a standby of the
# same config, B (host name "host-b.lan", a UTS namespace of its own) one bridge; a plain reader of
# ros_discovery_info on B must list exactly the nodes /zcast_bridge_<A's host>, its _standby and
# /zcast_bridge_host_b_lan, and after the active bridge on A was killed and the standby took over,
# /zcast_bridge_<A's host> (the standby's participant) and B's.
# Usage: graph_names_audit_test.sh <zcast-bridge> <graph_names_peer>. Root, `ip netns` and
# `unshare` (else 77).
set -uo pipefail
BRIDGE=$1 PEER=$2
. "$(dirname "$0")/netns.sh"
. "$(dirname "$0")/harness.sh"
unshare -u true 2>/dev/null || exit 77
zbh_init graph-names
printf '%s\n' "zcast_domain $DA" "out /gn1 std_msgs/msg/String reliable" \
  "in /gn2 std_msgs/msg/String reliable" > "$W/a.conf"
printf '%s\n' "zcast_domain $DB" "in /gn1 std_msgs/msg/String reliable" \
  "out /gn2 std_msgs/msg/String reliable" > "$W/b.conf"
want_a=/zcast_bridge_$(hostname | tr -c 'A-Za-z0-9\n' _)
want=$(printf '%s\n' "$want_a" "${want_a}_standby" /zcast_bridge_host_b_lan | sort)
zbh_bridge a A "$W/a.conf"
"${inA[@]}" "$BRIDGE" "$W/a.conf" > "$W/s.log" 2>&1 & pid_s=$!; pids+=($pid_s)
wait_for "$W/s.log" ': standby$' "the standby bridge"
zbh_bridge b B "$W/b.conf" unshare -u sh -c 'hostname host-b.lan && exec "$0" "$1"'
nodes() { "${inB[@]}" "$PEER" 3 | sort; }
got=$(nodes)
[ "$got" = "$want" ] || fail "nodes: $(echo $got) (want $(echo $want))"
kill -9 "$pid_a"
for _ in $(seq 200); do
  [ "$(grep -c ': active$' "$W/s.log")" -ge 2 ] && break
  sleep 0.05
done
[ "$(grep -c ': active$' "$W/s.log")" -ge 2 ] || fail "the standby did not take over"
got=$(nodes)
want=$(printf '%s\n' "$want_a" /zcast_bridge_host_b_lan | sort)
[ "$got" = "$want" ] || fail "nodes after the takeover: $(echo $got) (want $(echo $want))"
echo "PASS: $(echo $got)"
