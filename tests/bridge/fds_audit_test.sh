#!/usr/bin/env bash
# zcast-bridge with 600 routes under the usual soft limit of 1024 descriptors (systemd's services,
# most shells): every route opens two files, so the bridge raises its soft limit toward the hard
# one (docs/BRIDGE.md, "Threads"). Found by the audit of issue 26: routes beyond about 500 failed
# with "Too many open files" and the program exited 1. No root needed: Cyclone on the loopback
# interface (no multicast there, so no peer is found and nothing reaches other tests).
# Usage: fds_audit_test.sh <zcast-bridge>
set -uo pipefail
BRIDGE=$1
W=$(mktemp -d)
D=zbfds$$
pid=
trap '[ -n "$pid" ] && kill -9 "$pid" 2>/dev/null; rm -rf "$W" /dev/shm/zcast.$D.* /dev/shm/zcast-bridge.$D.*' EXIT
fail() { echo "FAIL: $*"; grep -v ': active$' "$W/b.log" | head -n 5; exit 1; }
n=600
{ echo "zcast_domain $D"; echo "dds_domain 229"
  for i in $(seq $n); do echo "out /fds/t$i std_msgs/msg/String reliable"; done; } > "$W/b.conf"
(ulimit -Sn 1024 && ulimit -Hn 4096 &&
  exec env CYCLONEDDS_URI='<CycloneDDS><Domain><General><Interfaces><NetworkInterface name="lo"/></Interfaces></General></Domain></CycloneDDS>' \
    "$BRIDGE" "$W/b.conf") > "$W/b.log" 2>&1 &
pid=$!
for _ in $(seq 600); do
  [ "$(grep -c ': active$' "$W/b.log")" -ge $n ] && break
  kill -0 "$pid" 2>/dev/null || fail "the bridge exited"
  sleep 0.1
done
[ "$(grep -c ': active$' "$W/b.log")" -ge $n ] || fail "$(grep -c ': active$' "$W/b.log") of $n routes active"
kill -TERM "$pid"; wait "$pid"; rc=$?; pid=
[ $rc -eq 0 ] || fail "exit status $rc after SIGTERM"
grep -q 'Too many open files' "$W/b.log" && fail "a route ran out of descriptors"
echo PASS
