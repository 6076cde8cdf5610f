#!/usr/bin/env bash
# zcast bag reindex DIR after kill -9 (docs/RECORDING.md "Repairing a recording"): a recorder
# splitting two topics into pieces is killed mid-run; its metadata.yaml is whatever it wrote last.
# Reindexing the directory gives every piece a summary and rewrites metadata.yaml from the
# pieces: its total, per-file and per-topic counts equal the messages in the pieces, as
# `zcast bag info DIR` counts them, and the messages themselves (bag_dump) are those of the
# pieces as the recorder left them; `zcast play DIR` publishes exactly them (recorded again in
# another domain).
# Usage: record_reindex_dir_test.sh ZCAST BAG_DUMP
zcast=$1
dump=$2
. "$(dirname "$0")/../zt_scene.sh"
scene trdir
head -c 300 /dev/urandom >"$tmpd/payload"
out="$tmpd/rdir"
"$zcast" record -q --lossless -o "$out" --chunk-size 4096 --max-bytes 60000 \
  --compression none &
rec=$!
pubs=()
for t in a b; do
  "$zcast" pub /rdir/$t --file "$tmpd/payload" --rate 100 --count 100000 >/dev/null &
  pubs+=($!)
done
# Killed once the second piece has a complete chunk: a whole piece and a cut one (a piece is ~1 s
# of the two topics: the kill comes long before it is full, unless the machine stalls the test).
for _ in $(seq 600); do
  [ "$(stat -c %s "$out/rdir_1.mcap" 2>/dev/null || echo 0)" -gt 3000 ] && break
  kill -0 $rec 2>/dev/null || fail "the recorder ended"
  sleep 0.05
done
kill -9 $rec
wait $rec 2>/dev/null || true
kill "${pubs[@]}"
wait "${pubs[@]}" 2>/dev/null || true
[ -f "$out/rdir_1.mcap" ] || fail "the recorder split into no second piece: $(ls "$out")"
"$dump" $(pieces "$out") >"$tmpd/before.txt" || fail "the pieces do not read as they are"
n=$(wc -l <"$tmpd/before.txt")
[ "$n" -gt 0 ] || fail "no messages in the pieces"
info=$("$zcast" bag info "$out" 2>&1) || fail "bag info of the killed recording failed: $info"
# A recorder killed between closing a piece and taking the next has no cut piece: then there is
# nothing to reindex, but metadata.yaml is still stale and is checked below.
cut=1
grep -q 'Complete: *no' <<<"$info" || { cut=0; echo "note: killed between two pieces"; }

"$zcast" bag reindex "$out" >"$tmpd/reindex.txt" || fail "bag reindex DIR failed"
cat "$tmpd/reindex.txt"
ls "$out" | grep -q 'reindex-' && fail "reindex left a file behind: $(ls "$out")"
"$dump" $(pieces "$out") >"$tmpd/after.txt" || fail "the reindexed pieces do not read"
cmp -s "$tmpd/before.txt" "$tmpd/after.txt" || fail "reindex changed the messages"
info=$("$zcast" bag info "$out")
grep -q 'Complete' <<<"$info" && fail "still incomplete after reindex: $info"
grep -q "^Messages: *$n\$" <<<"$info" || fail "bag info counts other than the $n messages: $info"
yaml="$out/metadata.yaml"
grep -q "^  message_count: $n\$" "$yaml" || fail "metadata.yaml counts other than $n: $(cat "$yaml")"
# per topic: metadata.yaml and bag info agree with the messages
for t in a b; do
  k=$(grep -c "^/rdir/$t	" "$tmpd/after.txt")
  grep -q "Topic: /rdir/$t |.*| Count: $k |" <<<"$info" || fail "bag info: /rdir/$t not $k: $info"
  grep -A5 "name: /rdir/$t\$" "$yaml" | grep -q "^      message_count: $k\$" ||
    fail "metadata.yaml: /rdir/$t not $k: $(cat "$yaml")"
done
# per file: listed in order, each with its own count
for p in $(pieces "$out"); do
  k=$("$dump" "$p" | wc -l)
  grep -A6 "^    - path: $(basename "$p")\$" "$yaml" | grep -q "^      message_count: $k\$" ||
    fail "metadata.yaml: $(basename "$p") not $k: $(cat "$yaml")"
done
[ $cut = 0 ] || grep -q ' [1-9][0-9]* of [0-9]* pieces reindexed' "$tmpd/reindex.txt" ||
  fail "the cut piece was not reindexed"
# Reindexing again changes no piece (all have summaries) and writes the same index.
cp "$yaml" "$tmpd/yaml1"
"$zcast" bag reindex "$out" | grep -q ' 0 of [0-9]* pieces reindexed' || fail "a second reindex rewrote pieces"
cmp -s "$yaml" "$tmpd/yaml1" || fail "a second reindex wrote another metadata.yaml"
# The player agrees: the repaired recording played into another domain and recorded there.
ZCAST_DOMAIN=$other "$zcast" record -q --lossless -o "$tmpd/replayed" &
rec2=$!
ZCAST_DOMAIN=$other "$zcast" play -q "$out" --wait-for-subscribers 1 --rate 4 || fail "play failed"
kill -INT $rec2
wait $rec2 || fail "the second recorder failed"
"$dump" $(pieces "$tmpd/replayed") | sort -s -t"$(printf '\t')" -k1,1 >"$tmpd/replayed.txt"
sort -s -t"$(printf '\t')" -k1,1 "$tmpd/after.txt" >"$tmpd/after-by-topic.txt"
cmp -s "$tmpd/after-by-topic.txt" "$tmpd/replayed.txt" ||
  fail "play published other messages: $(diff "$tmpd/after-by-topic.txt" "$tmpd/replayed.txt" | head -5)"
echo "PASS ($n messages)"
