#!/usr/bin/env bash
# A recorder's piece is locked while it is written (docs/RECORDING.md "Repairing a recording"):
# `zcast bag reindex` of a piece a live recorder still writes, alone or through its directory,
# refuses ("FILE: is being written ...", exit 1) and leaves the file as it is (the same inode), and
# the recorder goes on into it: every message published is in the piece at the end.
# Usage: record_lock_test.sh ZCAST
zcast=$1
. "$(dirname "$0")/../zt_scene.sh"
scene tlock
n=350
head -c 200 /dev/urandom >"$tmpd/payload"
out="$tmpd/lock"
piece="$out/lock_0.mcap"
"$zcast" record -q --lossless -o "$out" --chunk-size 4096 --compression none /lock/t &
rec=$!
# A publisher that runs ~1.7 s (--wait-matching: from when the recorder has joined).
"$zcast" pub /lock/t --file "$tmpd/payload" --rate 200 --count $n --wait-matching 1 \
  --timeout 30 >/dev/null &
pub=$!
size() { stat -c %s "$piece" 2>/dev/null || echo 0; }
for _ in $(seq 600); do
  [ "$(size)" -gt 3000 ] && break
  kill -0 $rec 2>/dev/null || fail "the recorder ended"
  sleep 0.05
done
[ "$(size)" -gt 3000 ] || fail "the recorder wrote no chunk"
# (The piece is the recorder's until it closes it, whether or not the publisher is still going:
# on a quick machine the rest of its messages come after the reindex, on a slow one maybe not.)
ino=$(stat -c %i "$piece")
for target in "$piece" "$out"; do
  rc=0
  msg=$("$zcast" bag reindex "$target" 2>&1) || rc=$?
  [ $rc -eq 1 ] || fail "reindex $target of a piece being written exited $rc: $msg"
  grep -qF "$piece: is being written (a recorder has it open)" <<<"$msg" || fail "reindex said: $msg"
  [ "$(stat -c %i "$piece")" = "$ino" ] || fail "reindex $target replaced the piece"
done
ls "$out" | grep -q reindex && fail "reindex left a file behind: $(ls "$out")"
wait $pub || fail "the publisher failed"
sleep 0.2
kill -INT $rec
wait $rec || fail "the recorder failed"
[ "$(stat -c %i "$piece")" = "$ino" ] || fail "the piece was replaced"
info=$("$zcast" bag info "$out")
grep -q "Topic: /lock/t |.*| Count: $n |" <<<"$info" || fail "not all $n messages in the piece: $info"
# Once the recorder is done the lock is gone: reindex works.
"$zcast" bag reindex "$piece" >/dev/null || fail "reindex of a finished piece failed"
echo "PASS"
