#!/usr/bin/env bash
# The demo's subscriber counts each dropped frame once: a subscriber stopped for a second (its
# DROP_OLD queue of 4 overflows at 30 frames/s) never reports more drops per second than in total.
set -euo pipefail
demo=$1
export ZCAST_DOMAIN="tdemodrops-$$"
tmp=$(mktemp -d)
cleanup() { kill $(jobs -p) 2>/dev/null || true; wait 2>/dev/null || true; rm -rf "$tmp"; rm -f /dev/shm/zcast.$ZCAST_DOMAIN.*; }
trap cleanup EXIT
"$demo" sub 1 4 >"$tmp/sub" &
sub=$!
for _ in $(seq 200); do grep -qs '^@ready' "$tmp/sub" && break; sleep 0.05; done
"$demo" pub 0 4 >"$tmp/pub" &
pub=$!
sleep 1
kill -STOP $sub
sleep 1
kill -CONT $sub
wait $pub || true
wait $sub || true
final=$(sed -n 's/^@done subscriber 1: [0-9]* frames received, \([0-9]*\) dropped.*/\1/p' "$tmp/sub")
[ -n "$final" ] || { echo "FAIL: no @done line: $(cat "$tmp/sub")"; exit 1; }
max=$(sed -n 's/^  subscriber 1: *[0-9]* frames received, \([0-9]*\) dropped.*/\1/p' "$tmp/sub" | sort -n | tail -1)
[ "${max:-0}" -le "$final" ] || { echo "FAIL: a second reported $max drops, the total is $final: $(cat "$tmp/sub")"; exit 1; }
echo "demo drops: ok ($final dropped, at most $max reported in a second)"
