#!/usr/bin/env bash
# zcast play of a recording cut shorter (truncate) by another process while it plays
# (docs/RECORDING.md "Replay"): the player stops with "zcast play: FILE: OFFSET: ... cut while
# being read" and a failing exit status, never killed by a signal (SIGBUS: rc 135). The cut comes
# at a set point of the replay, not by luck of timing: a FULL subscriber with a queue of 1 cuts the
# file (past message 1) while the player waits to publish message 1 and has not yet read message 2
# (play_shrink_peer.c), for an uncompressed recording and a zstd one.
# Usage: record_play_shrink_test.sh ZCAST PLAY_SHRINK_PEER
set -euo pipefail
zcast=$1
peer=$2
. "$(dirname "$0")/../zt_scene.sh"
scene tpshrink

for comp in none zstd; do
  f="$tmpd/$comp.mcap"
  "$peer" write "$f" "$comp"
  mkfifo "$tmpd/ready"
  "$peer" cut "$f" 40960 >"$tmpd/ready" 2>"$tmpd/peer.err" &
  p=$!
  read -r line <"$tmpd/ready" || fail "$comp: the peer did not start: $(cat "$tmpd/peer.err")"
  [ "$line" = ready ] || fail "$comp: peer said '$line'"
  rc=0
  "$zcast" play -q --wait-for-subscribers 1 "$f" 2>"$tmpd/play.err" || rc=$?
  wait $p || fail "$comp: the peer failed: $(cat "$tmpd/peer.err")"
  rm -f "$tmpd/ready"
  [ "$rc" -ne 0 ] || fail "$comp: zcast play played a file cut to 40960 bytes to its end"
  [ "$rc" -lt 128 ] || fail "$comp: zcast play killed by signal $((rc - 128)): $(cat "$tmpd/play.err")"
  grep -Eq "^zcast play: $f: [0-9]+: .*cut while being read" "$tmpd/play.err" ||
    fail "$comp: not 'FILE: OFFSET: what': $(cat "$tmpd/play.err")"
  echo "$comp: $(cat "$tmpd/play.err")"
done
echo "record_play_shrink: a recording cut while it plays: an error exit, no signal: ok"
