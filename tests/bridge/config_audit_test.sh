#!/usr/bin/env bash
# zcast-bridge's config file, found by the audit of issue 26: a `dds_domain` line takes what
# ROS_DOMAIN_ID takes (0..232: Cyclone runs domains 231 and 232, the line refused them), and two
# routes that ros_name= brings onto one DDS topic must agree on the type (one DDS topic of two types
# was accepted: neither type's remote endpoints would match it). No root needed.
# Usage: config_audit_test.sh <zcast-bridge>
set -uo pipefail
BRIDGE=$1
W=$(mktemp -d)
trap 'rm -rf "$W"' EXIT
fail() { echo "FAIL: $*"; exit 1; }
S='std_msgs/msg/String' I='sensor_msgs/msg/Image'
. "$(dirname "$0")/config_helpers.sh"
# the DDS domain: one range for the line and the variable
for d in 0 230 231 232; do good "dds_domain $d" "out /a $S reliable"; done
bad '1: dds_domain=233: expected a number from 0 to 232' "dds_domain 233" "out /a $S reliable"
# one DDS topic, one type, whichever routes ros_name= brings onto it
bad "2: DDS topic rt/x has type $S on line 1" "out /a $S reliable ros_name=/x" \
  "out /b $I reliable ros_name=/x"
bad "2: DDS topic rt/b has type $S on line 1" "out /a $S reliable ros_name=/b" "in /b $I reliable"
bad "2: DDS topic rt/a has type $S on line 1" "in /a $S reliable" "out /b $I reliable ros_name=/a"
# the same type may share a DDS topic (two local topics into one ROS 2 topic, or fanned out)
good "out /a $S reliable ros_name=/x" "out /b $S reliable ros_name=/x" "in /c $S reliable ros_name=/x"
good "out /a $S reliable ros_name=/x" "in /a $S reliable ros_name=/y"
echo PASS
