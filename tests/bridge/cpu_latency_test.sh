#!/usr/bin/env bash
# "cpu_latency_us N" held while the bridge runs (docs/BRIDGE.md, "Cost and latency"): reading
# /dev/cpu_dma_latency gives the host's current constraint (the smallest request held, a binary
# s32). With a bridge of `cpu_latency_us 37` running it reads 37; after the bridge stopped with
# SIGTERM, and after one killed with -9, it reads what it read before (the kernel drops a request
# when its file is closed). A bridge that cannot make the request refuses to start, exit 1, naming
# the file and the reason: as a user other than root (Permission denied) and without the file (a
# private /dev: No such file or directory); the constraint is unchanged meanwhile.
# Usage: cpu_latency_test.sh <zcast-bridge>. Root, `ip netns` and /dev/cpu_dma_latency (else 77).
set -uo pipefail
BRIDGE=$1
F=/dev/cpu_dma_latency
. "$(dirname "$0")/netns.sh"
. "$(dirname "$0")/harness.sh"
zb_netns_check
[ -r $F ] || { echo "SKIP: no readable $F"; exit 77; }
now() { od -An -td4 -N4 $F | tr -d ' '; }
before=$(now) want=37
# our request shows only when it is below every other request held on the host
[ "$before" -gt $want ] || { echo "SKIP: another request holds the constraint at $before us"; exit 77; }
zbh_init cpu-latency
printf 'zcast_domain %s\ncpu_latency_us %d\nout /lat sensor_msgs/msg/Image reliable\n' "$DA" $want > "$W/a.conf"

zbh_bridge a A "$W/a.conf"
[ "$(now)" = $want ] || fail "running bridge of cpu_latency_us $want: $F reads $(now)"
grep -q "cpu_latency_us $want: held on $F" "$W/a.log" || fail "no line saying the request is held"
kill -TERM "$pid_a"; rc=0; wait "$pid_a" || rc=$?
[ $rc -eq 0 ] || fail "bridge stopped with SIGTERM: exit $rc"
[ "$(now)" = "$before" ] || fail "after SIGTERM: $F reads $(now), $before before"

zbh_bridge b A "$W/a.conf"
[ "$(now)" = $want ] || fail "second bridge: $F reads $(now)"
kill -9 "$pid_b"; wait "$pid_b" 2>/dev/null
[ "$(now)" = "$before" ] || fail "after kill -9: $F reads $(now), $before before"

refused() { # why prefix...: the bridge, after the prefix, exits 1 naming the file and why
  local why=$1 rc=0 msg; shift
  msg=$("${inA[@]}" timeout 20 "$@" "$BRIDGE" "$W/a.conf" 2>&1) || rc=$?
  [ $rc -eq 1 ] || fail "$why: exit $rc (want 1): $msg"
  grep -qF "line 2: cpu_latency_us $want: $F: $why" <<<"$msg" || fail "$why: said: $msg"
  [ "$(now)" = "$before" ] || fail "$why: $F reads $(now), $before before"
}
chmod 755 "$W"; chmod 644 "$W/a.conf"
refused "Permission denied" setpriv --reuid=65534 --regid=65534 --clear-groups
refused "No such file or directory" unshare -m sh -c 'mount -t tmpfs zcast-test /dev && exec "$@"' sh
echo PASS
