#!/usr/bin/env bash
# zcast record / play / bag end to end (docs/RECORDING.md):
#  1. record (lossless, split by size) a raw, a typed Image and a typed String topic with history;
#     play it into another domain while a second recorder runs: per topic the same messages,
#     bytes and order, across split files; the String topic is transient local again on replay;
#  2. a DROP_OLD recorder with a tiny queue: recorded + dropped (bag info, file metadata) equals
#     published, for every topic;
#  3. a recorder killed with kill -9: its files read as they are (complete chunks), bag reindex
#     rebuilds the summary, and the messages are the same;
#  4. bad input (cut in the header, corrupted chunk, foreign file): "zcast bag: file: offset: what".
# Usage: record_test.sh ZCAST REC_PEER BAG_DUMP OUT_DIR (recordings are left in OUT_DIR for the
# independent reader test, record_mcap_js).
set -euo pipefail
zcast=$1
peer=$2
dump=$3
keep=$4 # (not $out: expect_rc sets that)
. "$(dirname "$0")/../zt_scene.sh"
scene trec
fresh_dir "$keep"
per_topic() { "$dump" $(pieces "$1") | sort -s -t"$(printf '\t')" -k1,1; }
bigger_than() { [ "$(stat -c %s "$1" 2>/dev/null || echo 0)" -gt "$2" ]; }
count_of() { grep -o "Topic: $2 |.*| Count: [0-9]*" <<<"$1" | grep -o '[0-9]*$'; }
dropped_of() { grep -o "Topic: $2 |.*| Dropped: [0-9]*" <<<"$1" | grep -o '[0-9]*$'; }

for c in record play bag; do
  expect_rc 0 "$zcast" "$c" --help; grep -q "^usage: zcast $c" <<<"$out" || fail "$c --help"
done
# zcast(1) documents the commands and every long option (as tests/cli_test.sh checks the others).
man=$(dirname "$0")/../../docs/man/zcast.1
for c in record play bag; do
  grep -q "^\.B $c\b" "$man" || fail "zcast.1 does not document $c"
  for o in $("$zcast" "$c" --help | grep -o '^  \(-., \|    \)--[a-z-]*' | grep -o -- '--[a-z-]*'); do
    grep -qF -- "$(sed 's/-/\\-/g' <<<"$o")" "$man" || fail "zcast.1 does not mention $c $o"
  done
done
expect_rc 2 "$zcast" record --compression brotli
expect_rc 2 "$zcast" bag frobnicate x

# ---- 1. record -> play -> record ----
rounds=600
"$zcast" record -q -o "$keep/first" --lossless --max-bytes 300000 --chunk-size 65536 --compression none &
rec=$!
"$peer" $rounds 1 >"$tmpd/peer1"
kill -INT $rec; wait $rec || fail "recorder exited $?"
n_first=$(ls "$keep"/first/*.mcap | wc -l)
[ "$n_first" -ge 3 ] || fail "expected split files, got $n_first"
grep -q 'relative_file_paths' "$keep/first/metadata.yaml" || fail "no index of the pieces"
info=$("$zcast" bag info "$keep/first")
[ "$(count_of "$info" /rec/raw)" = $rounds ] || fail "raw count: $info"
[ "$(count_of "$info" /rec/image)" = $rounds ] || fail "image count: $info"
[ "$(count_of "$info" /rec/text)" = $((rounds / 3)) ] || fail "text count: $info"
grep -q 'Topic: /rec/image | Type: sensor_msgs/msg/Image | .*Serialization Format: cdr' <<<"$info" || fail "image type: $info"
grep -q 'Topic: /rec/raw | Type: (untyped) | .*Serialization Format: zcast.raw' <<<"$info" || fail "raw type: $info"

ZCAST_DOMAIN=$other "$zcast" record -q -o "$keep/second" --lossless --max-bytes 20000 --chunk-size 16384 --compression lz4 &
rec2=$!
ZCAST_DOMAIN=$other "$zcast" play -q "$keep/first" --wait-for-subscribers 1 --rate 4
# The String topic had history: its replay keeps the last 8 for late joiners.
"$zcast" -d "$other" info /rec/text >"$tmpd/text_info"
grep -Eq 'history +8/' "$tmpd/text_info" || grep -Eq 'history.*8' "$tmpd/text_info" || fail "replayed /rec/text keeps no history: $(cat "$tmpd/text_info")"
kill -INT $rec2; wait $rec2 || fail "second recorder exited $?"
per_topic "$keep/first" >"$tmpd/first.txt"
per_topic "$keep/second" >"$tmpd/second.txt"
[ "$(wc -l <"$tmpd/first.txt")" -eq $((2 * rounds + rounds / 3)) ] || fail "first dump: $(wc -l <"$tmpd/first.txt") lines"
cmp -s "$tmpd/first.txt" "$tmpd/second.txt" || fail "replayed recording differs: $(diff "$tmpd/first.txt" "$tmpd/second.txt" | head -5)"

# --topics, --remap, --start-offset
ZCAST_DOMAIN=$other "$zcast" record -q -o "$keep/remapped" --lossless '/copy/*' &
rec3=$!
ZCAST_DOMAIN=$other "$zcast" play -q "$keep/first" --topics /rec/raw --remap /rec/raw:=/copy/raw --wait-for-subscribers 1 --rate 4
kill -INT $rec3; wait $rec3
info=$("$zcast" bag info "$keep/remapped")
[ "$(count_of "$info" /copy/raw)" = $rounds ] || fail "remapped: $info"
grep -q '/rec/' <<<"$info" && fail "--topics let other topics through: $info"

# A late joiner gets the topic's history first: at 2 Hz, 0.4 s of recording holds at most one live
# message, so 4 or more means the 4 kept ones came first.
"$zcast" pub /hist/slow "kept" --rate 2 --history 4 >/dev/null &
pub=$!
seq_at_least() { [ "$("$zcast" info --json "$1" | /usr/bin/python3 -c 'import json,sys; print(json.load(sys.stdin)["last_sequence"])')" -ge "$2" ]; }
wait_for "5 slow messages" seq_at_least /hist/slow 5
"$zcast" record -q -o "$tmpd/late" --duration 0.4 /hist/slow
kill $pub; wait $pub 2>/dev/null || true
n=$(count_of "$("$zcast" bag info "$tmpd/late")" /hist/slow)
[ "$n" -ge 4 ] || fail "a late recorder got $n messages, not the topic's history of 4 first"

# Split by time: a piece opens with its first message, so none is left empty (not even the last,
# after a quiet second before the recorder stops).
"$zcast" record -q -o "$tmpd/timed" --max-duration 0.2 /gap/x &
rec=$!
"$zcast" pub /gap/x "tick" --rate 3 -n 4 --history 4 >/dev/null
sleep 1
kill -INT $rec; wait $rec
total=0
for f in "$tmpd"/timed/*.mcap; do
  n=$("$dump" "$f" | wc -l)
  [ "$n" -gt 0 ] || fail "empty piece $f"
  total=$((total + n))
done
[ "$total" -eq 4 ] && [ "$(ls "$tmpd"/timed/*.mcap | wc -l)" -ge 2 ] || fail "timed split: $total messages in $(ls "$tmpd"/timed)"

# ---- 2. drops are counted: recorded + dropped == published ----
"$zcast" record -q -o "$tmpd/drops" --queue 2 &
rec=$!
"$peer" $rounds 1 >/dev/null
kill -INT $rec; wait $rec
info=$("$zcast" bag info "$tmpd/drops")
for t in raw image; do
  got=$(( $(count_of "$info" /rec/$t) + $(dropped_of "$info" /rec/$t) ))
  [ "$got" = $rounds ] || fail "/rec/$t: recorded + dropped = $got, published $rounds: $info"
done

# ---- 3. kill -9 ----
"$peer" 0 1 >"$tmpd/peer3" &
pub=$!
"$zcast" record -q -o "$tmpd/killed" --chunk-size 8192 --compression none &
rec=$!
wait_for "the recorder's first chunks" bigger_than "$tmpd/killed/killed_0.mcap" 50000
sleep 1.2
kill -9 $rec; wait $rec 2>/dev/null || true
kill $pub; wait $pub 2>/dev/null || true
cut="$tmpd/killed/killed_0.mcap"
cp "$cut" "$keep/killed-as-is.mcap"
info=$("$zcast" bag info "$cut") || fail "a killed recorder's file does not read: $info"
grep -q 'Complete: *no' <<<"$info" || fail "no footer not reported: $info"
"$dump" "$cut" >"$tmpd/asis.txt"
[ "$(wc -l <"$tmpd/asis.txt")" -gt 100 ] || fail "too few messages in the killed file"
expect_rc 0 "$zcast" bag reindex "$cut"
info=$("$zcast" bag info "$cut")
grep -q 'Complete' <<<"$info" && fail "still incomplete after reindex: $info"
"$dump" "$cut" >"$tmpd/reindexed.txt"
cmp -s "$tmpd/asis.txt" "$tmpd/reindexed.txt" || fail "reindex changed the messages"
cp "$cut" "$keep/killed-reindexed.mcap"
# As is, up to the end of its last complete chunk (what a reader without repair sees).
/usr/bin/python3 - "$keep/killed-as-is.mcap" "$keep/killed-to-last-chunk.mcap" <<'PY'
import struct, sys
data = open(sys.argv[1], 'rb').read()
at, end = 8, 8
while at + 9 <= len(data):
    op, n = data[at], struct.unpack_from('<Q', data, at + 1)[0]
    if at + 9 + n > len(data):
        break
    at += 9 + n
    if op in (0x01, 0x06, 0x07):
        end = at
open(sys.argv[2], 'wb').write(data[:end])
PY

# ---- 4. bad input ----
good=$(pieces "$keep/first" | head -1)
head -c 30 "$good" >"$tmpd/short.mcap"
expect_rc 1 "$zcast" bag info "$tmpd/short.mcap"
grep -Eq "^zcast bag: $tmpd/short.mcap: [0-9]+: " <<<"$out" || fail "cut header: $out"
cp "$good" "$tmpd/corrupt.mcap"
printf '\xff\xff\xff\xff' | dd of="$tmpd/corrupt.mcap" bs=1 seek=300 conv=notrunc status=none
expect_rc 1 "$zcast" bag info "$tmpd/corrupt.mcap"
grep -Eq "^zcast bag: $tmpd/corrupt.mcap: [0-9]+: " <<<"$out" || fail "corrupt: $out"
expect_rc 1 "$zcast" play "$tmpd/corrupt.mcap"
grep -Eq "^zcast play: $tmpd/corrupt.mcap: [0-9]+: " <<<"$out" || fail "play corrupt: $out"
echo 'just text' >"$tmpd/foreign.mcap"
expect_rc 1 "$zcast" bag info "$tmpd/foreign.mcap"
grep -q "^zcast bag: $tmpd/foreign.mcap: 0: not an MCAP file" <<<"$out" || fail "foreign: $out"
echo "record: round trip, splits, drops, kill -9 and reindex, bad input: ok"
