#!/usr/bin/env bash
# zcast echo marks "(history)" only messages published before it joined: live messages that arrive
# while its open is still running (held open by ZCAST_PAUSE_AT, test builds) are not history.
set -euo pipefail
zcast=$1
. "$(dirname "$0")/zt_scene.sh"
scene tlabel
publisher() { # topic, pub options: waits until it publishes
  "$zcast" pub "$@" &
  for _ in $(seq 200); do
    "$zcast" info "$1" 2>/dev/null | grep -qE '^sequence: *[1-9]' && return 0
    sleep 0.05
  done
  fail "no publisher on $1: $("$zcast" info "$1" 2>&1)"
}
publisher /label/live live --rate 20
out=$(ZCAST_PAUSE_AT=sub:opened:1000 timeout 20 "$zcast" echo /label/live --count 2)
grep -q '(history)' <<<"$out" && fail "live messages marked (history): $out"
publisher /label/kept kept --rate 1 --history 1
out=$(timeout 20 "$zcast" echo /label/kept --history 1 --count 1)
grep -q '(history)' <<<"$out" || fail "the history message is not marked: $out"
echo "echo history label: ok"
