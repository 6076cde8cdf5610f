#!/usr/bin/env bash
# zcast play of a split recording (docs/RECORDING.md "Replay"): every piece is opened and checked
# before the first message is published, and only once.
#  1. a recording in many pieces plays whole: a lossless recorder of the replay gets every message,
#     in order; with strace (when installed), the player opened each piece exactly once;
#  2. its last piece corrupted inside a chunk: zcast play fails with "zcast play: FILE: OFFSET: what"
#     naming that piece, and publishes nothing (the topic is never created in the replay's domain,
#     a recorder there records nothing).
# Usage: record_play_split_test.sh ZCAST SPLIT_CHECK
set -euo pipefail
zcast=$1
check=$2
. "$(dirname "$0")/../zt_scene.sh"
scene tpsplit
head -c 1000 /dev/urandom >"$tmpd/payload"
n=1500

"$zcast" record -q -o "$tmpd/rec" --lossless --max-bytes 8000 --chunk-size 4096 /split/t &
rec=$!
"$zcast" pub /split/t --file "$tmpd/payload" --rate 3000 --count $n --wait-matching 1 \
  --timeout 30 >/dev/null
sleep 0.2
kill -INT $rec
wait $rec || fail "the recorder failed"
np=$(pieces "$tmpd/rec" | wc -l)
[ "$np" -ge 5 ] || fail "only $np pieces"

# ---- 1. the whole recording, played into another domain and recorded there ----
ZCAST_DOMAIN=$other "$zcast" record -q -o "$tmpd/replay" --lossless /split/t &
rec=$!
player=("$zcast" play -q "$tmpd/rec" --rate 20 --wait-for-subscribers 1)
if command -v strace >/dev/null; then
  # (LeakSanitizer cannot run under ptrace: off for this run of an ASan build, a no-op otherwise)
  ZCAST_DOMAIN=$other ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0" \
    strace -f -qq -e trace=openat -o "$tmpd/trace" "${player[@]}"
  opened=$(grep -c '\.mcap", O_RDONLY' "$tmpd/trace" || true)
  [ "$opened" = "$np" ] || fail "the player opened $np pieces $opened times"
else
  ZCAST_DOMAIN=$other "${player[@]}"
fi
sleep 0.2
kill -INT $rec
wait $rec || fail "the replay's recorder failed"
got=$("$check" lossless $n 1 /split/t $(pieces "$tmpd/replay")) || fail "replay: $got"
echo "replay: $got"

# ---- 2. the last piece corrupted: an error up front, nothing published ----
last=$(pieces "$tmpd/rec" | tail -1)
size=$(stat -c %s "$last")
# a byte in the middle of the file: inside a chunk's records (the summary is at the end)
printf '\xff' | dd of="$last" bs=1 seek=$((size / 3)) conv=notrunc status=none
ZCAST_DOMAIN=$other "$zcast" record -q -o "$tmpd/none" --lossless &
rec=$!
rc=0
ZCAST_DOMAIN=$other "$zcast" play -q "$tmpd/rec" --rate 20 2>"$tmpd/err" || rc=$?
[ "$rc" != 0 ] || fail "zcast play of a corrupted piece exited 0"
grep -q "^zcast play: $last: [0-9]*: " "$tmpd/err" || fail "not 'file: offset: what': $(cat "$tmpd/err")"
echo "corrupted: $(cat "$tmpd/err")"
sleep 0.3
kill -INT $rec
wait $rec || fail "the idle recorder failed"
! ZCAST_DOMAIN=$other "$zcast" list 2>/dev/null | grep -q /split/t ||
  fail "the topic was created: something was published"
[ "$(grep -o '^  message_count: [0-9]*' "$tmpd/none/metadata.yaml" | grep -o '[0-9]*$')" = 0 ] ||
  fail "messages were published before the bad piece was found"
echo "PASS"
