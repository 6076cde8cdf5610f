#!/usr/bin/env bash
# zcast-bridge's `service` lines, found by the audit of issue 26: two lines whose DDS service name
# is one (both given by ros_name=, or one's ros_name= the other's name) were accepted, and a DDS
# client of two bridge servers of one name got two replies per call. One line per DDS name now.
# No root needed.
# Usage: svc_config_audit_test.sh <zcast-bridge>
set -uo pipefail
BRIDGE=$1
W=$(mktemp -d)
trap 'rm -rf "$W"' EXIT
fail() { echo "FAIL: $*"; exit 1; }
T=example_interfaces/srv/AddTwoInts
. "$(dirname "$0")/config_helpers.sh"
bad "2: DDS service /x is also on line 1" "service /a $T zcast_to_dds ros_name=/x" \
  "service /b $T zcast_to_dds ros_name=/x"
bad "2: DDS service /b is also on line 1" "service /a $T zcast_to_dds ros_name=/b" \
  "service /b $T zcast_to_dds"
bad "3: DDS service /a is also on line 1" "service /a $T zcast_to_dds" \
  "service /c $T dds_to_zcast" "service /b $T dds_to_zcast ros_name=/a"
# distinct DDS names stay accepted, remapped or not
good "service /a $T zcast_to_dds ros_name=/b" "service /b $T dds_to_zcast ros_name=/a"
echo PASS
