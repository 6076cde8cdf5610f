#!/usr/bin/env bash
# zcast-bridge's "cpu_latency_us N" line (docs/BRIDGE.md, "Cost and latency"), as parsed: accepted
# from 0 to 10000 and printed by --check; given twice, out of range, not a number or without its
# value: exit 1 with "file:line: what". No root, no network (the request itself: cpu_latency_test.sh).
# Usage: cpu_latency_config_test.sh <zcast-bridge>
set -uo pipefail
BRIDGE=$1 R=sensor_msgs/msg/Image W=$(mktemp -d)
trap 'rm -rf "$W"' EXIT
fail() { echo "FAIL: $*"; exit 1; }

. "$(dirname "$0")/config_helpers.sh"
for v in 0 1 50 10000; do
  good "cpu_latency_us $v" "out /a $R reliable"
  grep -qx "cpu_latency_us $v: held on /dev/cpu_dma_latency while the bridge runs" "$W/out" ||
    fail "--check with cpu_latency_us $v printed: $(cat "$W/out")"
done
good "out /a $R reliable" # without the line: no request, and --check says none
grep -q cpu_latency "$W/out" && fail "--check without the line printed: $(cat "$W/out")"
bad '3: cpu_latency_us given twice (first on line 1)' 'cpu_latency_us 0' "out /a $R reliable" 'cpu_latency_us 5'
bad '1: cpu_latency_us=10001: expected a number from 0 to 10000' 'cpu_latency_us 10001' "out /a $R reliable"
bad '1: cpu_latency_us=99999999999999999999: expected a number from 0 to 10000' \
  'cpu_latency_us 99999999999999999999' "out /a $R reliable"
bad '2: cpu_latency_us=-1: not a number' "out /a $R reliable" 'cpu_latency_us -1'
bad '2: cpu_latency_us=fast: not a number' "out /a $R reliable" 'cpu_latency_us fast'
bad '1: cpu_latency_us=5us: expected a number from 0 to 10000' 'cpu_latency_us 5us' "out /a $R reliable"
bad '1: expected: cpu_latency_us <0..10000>' 'cpu_latency_us' "out /a $R reliable"
bad '1: expected: cpu_latency_us <0..10000>' 'cpu_latency_us 1 2' "out /a $R reliable"
echo PASS
