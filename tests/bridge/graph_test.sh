#!/usr/bin/env bash
# The bridge as a node of the ROS 2 graph (docs/BRIDGE.md): a bridge on A, started with
# ROS_DOMAIN_ID=7 and no dds_domain line, a node name, ROS 2 QoS presets and a remapped topic; a plain
# Cyclone reader of ros_discovery_info on B, on domain 7, finds the node "/zb_graph_node" with its
# 3 readers (an in route's reader and catch-up reader, one without: catchup=0) and 2 writers, every
# GID a discovered endpoint, a writer on the remapped DDS topic, and the participant's USER_DATA
# "enclave=/;".
# Usage: graph_test.sh <zcast-bridge> <graph_peer>. Root and `ip netns` (else 77).
set -uo pipefail
BRIDGE=$1 GRAPH=$2
. "$(dirname "$0")/netns.sh"
. "$(dirname "$0")/harness.sh"
zbh_init graph
R=sensor_msgs/msg/Image
cat > "$W/a.conf" <<CONF
zcast_domain $DA
node zb_graph_node
out /g1 $R default
in  /g2 $R reliable
out /g3 $R sensor_data ros_name=/remote/g3
in  /g4 $R reliable catchup=0
CONF
inA=("${inA[@]}" ROS_DOMAIN_ID=7)
zbh_bridge a A "$W/a.conf"
"${inB[@]}" ZB_DDS_DOMAIN=7 "$GRAPH" zb_graph_node 3 2 rt/remote/g3 > "$W/graph.log" 2>&1 ||
  fail "ros_discovery_info: $(cat "$W/graph.log")"
cat "$W/graph.log"
echo PASS
