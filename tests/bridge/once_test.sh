#!/usr/bin/env bash
# Exactly once through the bridge (docs/BRIDGE.md, "Exactly once"): the failures of issue 26, each a
# scenario between two network namespaces A and B (netns.sh), checked message by message.
#   two_pubs   two zcast publishers on one topic on A, at full speed: B's subscriber gets both
#              streams whole, each in order
#   two_shm    two senders in A with the same boot id and zcast domain name, each with its own
#              /dev/shm (a private tmpfs): B gets both streams whole
#   bidi       a topic bridged both ways, messages from B sit in A's history; A's bridge is killed
#              and restarted: nothing comes back to B
#   takeover   1 kHz from A, a standby bridge on A, the active one killed twice: B's zcast subscriber
#              gets every message once; a plain Cyclone reader on B gets every message (and again
#              what a successor sent again: reported), with source timestamps on the wall clock
#   restart_in 1 kHz from A; B's bridge (a volatile IN route) killed after 1000, 500 sent while
#              it is down, then it is restarted: B's subscriber gets every message once (the 500
#              come from the 1024 messages A's bridge keeps for a restarting receiver, the default
#              catchup; in_kill_test.sh kills it at each step)
#   lenient    a raw DDS writer on B sends big-endian samples and samples padded to 4 without saying
#              so (as rmw_cyclonedds): A's subscriber gets every one, at its CDR size
#   invalid    malformed samples on two routes: each route reports them (once) and counts them; a
#              valid sample sent after them reaches A's subscriber (so they went through first)
# Usage: once_test.sh <zcast-bridge> <zb_peer> <cyc_peer> <scenario>. Root and `ip netns` (else 77).
set -uo pipefail
BRIDGE=$1 PEER=$2 CYC=$3 SCEN=$4
. "$(dirname "$0")/netns.sh"
. "$(dirname "$0")/harness.sh"
zbh_init "once-$SCEN"
R=sensor_msgs/msg/Image

conf() { # file zcast-domain lines...
  local f=$1 d=$2; shift 2
  { echo "zcast_domain $d"; printf '%s\n' "$@"; } > "$f"
}
matched() { # log route-text n: waits for the route to see n remote endpoints
  wait_for "$1" "$2: $3 remote" "$2 to match $3"
}

two_pubs() {
  conf "$W/a.conf" "$DA" "out /two $R reliable"
  conf "$W/b.conf" "$DB" "in /two $R reliable"
  zbh_bridge a A "$W/a.conf"; zbh_bridge b B "$W/b.conf"
  matched "$W/a.log" "out /two" 2 # B: a reader and a catch-up reader
  "${inB[@]}" "$PEER" sub /two 5000 --tags 2 --timeout-s 60 > "$W/sub.log" 2>&1 & s=$!; pids+=($s)
  wait_for "$W/sub.log" subscribed "the subscriber"
  "${inA[@]}" "$PEER" pub /two 64 5000 --subs 1 --tag 1 > "$W/p1.log" 2>&1 & p1=$!; pids+=($p1)
  "${inA[@]}" "$PEER" pub /two 64 5000 --subs 1 --tag 2 > "$W/p2.log" 2>&1 || fail "publisher 2"
  wait "$p1" || fail "publisher 1"
  wait "$s" || fail "B's subscriber: $(cat "$W/sub.log")"
  cat "$W/sub.log"
}

two_shm() {
  conf "$W/a.conf" "$DA" "out /same $R reliable"
  conf "$W/b.conf" "$DB" "in /same $R reliable"
  zbh_bridge b B "$W/b.conf"
  "${inB[@]}" "$PEER" sub /same 3000 --tags 2 --timeout-s 60 > "$W/sub.log" 2>&1 & s=$!; pids+=($s)
  wait_for "$W/sub.log" subscribed "the subscriber"
  local k holders=() p=()
  for k in 1 2; do # a mount namespace with its own /dev/shm, held open by a sleeper
    "${inA[@]}" unshare --mount --propagation private sh -c \
      'mount -t tmpfs tmpfs /dev/shm && touch /dev/shm/mounted && exec sleep 600' &
    holders+=($!); pids+=($!)
    # the marker is in the private /dev/shm only (the host's is a tmpfs too: its mount line would
    # not tell the two apart)
    for _ in $(seq 400); do
      [ -e "/proc/${holders[-1]}/root/dev/shm/mounted" ] && break
      sleep 0.05
    done
    [ -e "/proc/${holders[-1]}/root/dev/shm/mounted" ] || fail "no private /dev/shm for sender $k"
    zbh_bridge a$k A "$W/a.conf" nsenter -t "${holders[-1]}" -m
  done
  matched "$W/b.log" "in /same" 2
  for k in 1 2; do
    "${inA[@]}" nsenter -t "${holders[k-1]}" -m "$PEER" pub /same 64 3000 --subs 1 --tag $k \
      --interval-us 200 > "$W/p$k.log" 2>&1 & p+=($!); pids+=($!)
  done
  wait "${p[0]}" || fail "publisher 1"; wait "${p[1]}" || fail "publisher 2"
  wait "$s" || fail "B's subscriber: $(cat "$W/sub.log")"
  cat "$W/sub.log"
}

bidi() {
  conf "$W/a.conf" "$DA" "out /bi $R reliable history=8" "in /bi $R reliable history=8"
  conf "$W/b.conf" "$DB" "out /bi $R reliable history=8" "in /bi $R reliable history=8"
  zbh_bridge a1 A "$W/a.conf"; zbh_bridge b B "$W/b.conf"
  matched "$W/a1.log" "out /bi" 1; matched "$W/b.log" "out /bi" 1
  # B's own 50 messages reach its subscriber locally; anything more came back from A
  "${inB[@]}" "$PEER" sub /bi 50 --settle-ms 5000 --timeout-s 60 > "$W/sub.log" 2>&1 & s=$!; pids+=($s)
  "${inA[@]}" "$PEER" sub /bi 50 --timeout-s 30 > "$W/suba.log" 2>&1 & sa=$!; pids+=($sa)
  wait_for "$W/sub.log" subscribed "B's subscriber"; wait_for "$W/suba.log" subscribed "A's subscriber"
  "${inB[@]}" "$PEER" pub /bi 64 50 --subs 2 --history 8 --interval-us 2000 > "$W/pub.log" 2>&1 || fail "B's publisher"
  wait "$sa" || fail "A's subscriber: $(cat "$W/suba.log")"
  kill -9 "$pid_a1"; sleep 0.3
  zbh_bridge a2 A "$W/a.conf"
  matched "$W/a2.log" "out /bi" 1
  wait "$s" || fail "B's subscriber got its own messages back: $(cat "$W/sub.log")"
  cat "$W/sub.log"
}

takeover() {
  local n=3000
  conf "$W/a.conf" "$DA" "out /tk $R reliable"
  conf "$W/b.conf" "$DB" "in /tk $R reliable"
  zbh_bridge b B "$W/b.conf"
  zbh_bridge a1 A "$W/a.conf"
  "${inA[@]}" "$BRIDGE" "$W/a.conf" > "$W/a2.log" 2>&1 & pid_a2=$!; pids+=($pid_a2)
  wait_for "$W/a2.log" ": standby$" "the second bridge on A to stand by"
  matched "$W/b.log" "in /tk" 2
  "${inB[@]}" "$PEER" sub /tk $n --depth 64 --settle-ms 1000 --timeout-s 60 > "$W/sub.log" 2>&1 & s=$!; pids+=($s)
  "${inB[@]}" "$CYC" sub rt/tk $n 60 dups-ok > "$W/cyc.log" 2>&1 & c=$!; pids+=($c)
  wait_for "$W/sub.log" subscribed "B's subscriber"; wait_for "$W/cyc.log" subscribed "the Cyclone reader"
  matched "$W/a1.log" "out /tk" 3; matched "$W/a2.log" "out /tk" 3
  "${inA[@]}" "$PEER" pub /tk 64 $n --subs 2 --interval-us 1000 > "$W/pub.log" 2>&1 & p=$!; pids+=($p)
  sleep 1
  kill -9 "$pid_a1"
  wait_for "$W/a2.log" "out /tk: active$" "the standby to take over"
  "${inA[@]}" "$BRIDGE" "$W/a.conf" > "$W/a3.log" 2>&1 & pid_a3=$!; pids+=($pid_a3)
  wait_for "$W/a3.log" ": standby$" "the third bridge on A to stand by"
  matched "$W/a3.log" "out /tk" 3
  kill -9 "$pid_a2"
  wait_for "$W/a3.log" "out /tk: active$" "the third bridge to take over"
  wait "$p" || fail "publisher"
  wait "$s" || fail "B's zcast subscriber: $(cat "$W/sub.log")"
  wait "$c" || fail "the Cyclone reader lost messages: $(cat "$W/cyc.log")"
  kill -TERM "$pid_a3"; wait "$pid_a3"
  local resent
  resent=$(sed -n 's/.*out \/tk: forwarded [0-9]*, resent \([0-9]*\),.*/\1/p' "$W/a3.log")
  # A plain reader has no filter of ours: it may get again what a successor sent again (what the
  # killed bridge wrote in its last acknowledgment round trip). Reported, not asserted: it depends
  # on timing.
  echo "zcast: $(tail -n 1 "$W/sub.log"); Cyclone: $(tail -n 1 "$W/cyc.log"); last successor resent ${resent:-?}"
  # the longest pause B's subscriber saw (two takeovers, at 1 ms per message): reported
  grep max_gap "$W/sub.log"
  # source timestamps are the wall clock at publish: none before the publisher started (the
  # Cyclone reader checked that none is after its reception)
  local start min
  start=$(sed -n 's/^start_ns //p' "$W/pub.log"); min=$(sed -n 's/.* min_ts \(-*[0-9]*\)$/\1/p' "$W/cyc.log")
  [ -n "$start" ] && [ -n "$min" ] && [ "$min" -ge "$start" ] ||
    fail "source timestamp $min before the publisher started ($start)"
}

restart_in() {
  local n=3000
  # The downtime is a count of messages, not a sleep: a fixed 1 s plus a restart that load
  # stretches outran what A keeps (at a load of 22 to 46, 5 of 20 runs missed 198 to 780 after a
  # downtime of 1.9 to 2.8 s with the default catchup). The publisher stops after 1000 (B's
  # subscriber has them), B's bridge is killed, the next 500 are sent while it is down, the
  # restarted bridge must deliver them from the 1024 A keeps (the default catchup: twice as
  # many), then the rest follows (with catchup=100 B's subscriber misses 1001..1400).
  conf "$W/a.conf" "$DA" "out /vr $R reliable"
  conf "$W/b.conf" "$DB" "in /vr $R reliable"
  zbh_bridge a A "$W/a.conf"; zbh_bridge b1 B "$W/b.conf"
  matched "$W/a.log" "out /vr" 2
  "${inB[@]}" "$PEER" sub /vr $n --depth 64 --settle-ms 1000 --timeout-s 60 --say-at 1000,1500 \
    > "$W/sub.log" 2>&1 & s=$!; pids+=($s)
  wait_for "$W/sub.log" subscribed "B's subscriber"
  "${inA[@]}" "$PEER" pub /vr 64 $n --subs 1 --interval-us 1000 --pause-at 1001,1501 \
    --go "$W/go" > "$W/pub.log" 2>&1 & p=$!; pids+=($p)
  wait_for "$W/sub.log" "^reached 1000$" "B's subscriber to get the first 1000"
  kill -9 "$pid_b1"; wait "$pid_b1" 2>/dev/null
  touch "$W/go.1"
  wait_for "$W/pub.log" "^paused before 1501$" "A's publisher to send 500 while B's bridge is down"
  zbh_bridge b2 B "$W/b.conf"
  wait_for "$W/sub.log" "^reached 1500$" "B's subscriber to get what was sent while its bridge was down"
  touch "$W/go.2"
  wait "$p" || fail "publisher"
  wait "$s" || fail "B's subscriber across B's restart: $(cat "$W/sub.log")"
  echo "zcast: $(tail -n 1 "$W/sub.log")"
}

lenient() {
  local raw; raw=$(dirname "$PEER")/raw_peer
  conf "$W/a.conf" "$DA" "in /len $R reliable"
  zbh_bridge a A "$W/a.conf"
  "${inA[@]}" "$PEER" sub /len 200 --timeout-s 30 > "$W/sub.log" 2>&1 & s=$!; pids+=($s)
  wait_for "$W/sub.log" subscribed "A's subscriber"
  "${inB[@]}" "$raw" rt/len 61 200 > "$W/raw.log" 2>&1 || fail "the raw writer"
  wait "$s" || fail "A's subscriber: $(cat "$W/sub.log")"
  echo "zcast: $(tail -n 1 "$W/sub.log")"
}

invalid() {
  local t raw subs=(); raw=$(dirname "$PEER")/raw_peer
  conf "$W/a.conf" "$DA" "in /inv1 $R reliable" "in /inv2 $R reliable"
  zbh_bridge a A "$W/a.conf"
  for t in inv1 inv2; do # the valid 4th sample, after the 3 invalid ones: a route is in order
    "${inA[@]}" "$PEER" sub /$t 4 --first 4 --timeout-s 30 > "$W/sub$t.log" 2>&1 & subs+=($!)
    pids+=($!)
    wait_for "$W/sub$t.log" subscribed "A's subscriber of /$t"
  done
  for t in inv1 inv2; do
    "${inB[@]}" "$raw" rt/$t 61 3 invalid > "$W/raw$t.log" 2>&1 || fail "the raw writer of $t"
  done
  for t in 0 1; do
    wait "${subs[$t]}" || fail "A's subscriber $t: $(cat "$W"/sub*.log)"
  done
  kill -TERM "$pid_a"; wait "$pid_a" || fail "bridge exit status"
  for t in inv1 inv2; do
    [ "$(grep -c "in /$t: dropping invalid samples" "$W/a.log")" -eq 1 ] || fail "/$t's report"
  done
  for t in inv1 inv2; do
    grep -q "in /$t: forwarded 1, resent 0, skipped 0, dropped 3" "$W/a.log" || fail "/$t's counters"
  done
  grep "dropping" "$W/a.log"
}

"$SCEN"
echo PASS
