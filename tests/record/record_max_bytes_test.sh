#!/usr/bin/env bash
# --max-bytes counts the bytes a piece takes compressed (docs/RECORDING.md, "Split files"): zstd
# pieces of messages that compress to about a quarter, split at 30000 bytes, are each within 15 %
# of that (all but the last), and split_check finds every message in exactly one piece (lossless).
# Usage: record_max_bytes_test.sh ZCAST SPLIT_CHECK MAXB_PUB
set -euo pipefail
zcast=$1
check=$2
pub=$3
. "$(dirname "$0")/../zt_scene.sh"
scene tmaxb
n=1000 limit=30000 out="$tmpd/rec"

# A short queue: the recorder looks at the size between a few messages, not a deep queue's worth.
"$zcast" record -q -o "$out" --lossless --queue 8 --compression zstd --max-bytes $limit /maxb/t &
rec=$!
"$pub" /maxb/t $n || fail "the publisher failed"
sleep 0.2
kill -INT $rec
wait $rec || fail "the recorder failed"
got=$("$check" lossless $n 3 /maxb/t $(pieces "$out")) || fail "$got"
echo "$got"
files=($(pieces "$out"))
for f in "${files[@]:0:${#files[@]}-1}"; do
  size=$(stat -c %s "$f")
  echo "$(basename "$f"): $size bytes"
  ((size >= limit * 85 / 100 && size <= limit * 115 / 100)) ||
    fail "$(basename "$f") is $size bytes, not within 15 % of $limit"
done
echo "PASS"
