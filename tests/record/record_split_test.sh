#!/usr/bin/env bash
# Split files under a steady load (docs/RECORDING.md "Split files"): one topic at a steady rate,
# recorded into pieces split by size or by duration many times a second; split_check reads every
# piece and checks that, lossless, every message is in exactly one piece, and otherwise that
# recorded + dropped (the file's metadata) == published. No piece is empty, none is left
# half-open (*.next), metadata.yaml counts every message.
# Usage: record_split_test.sh ZCAST SPLIT_CHECK
set -euo pipefail
zcast=$1
check=$2
. "$(dirname "$0")/../zt_scene.sh"
scene tsplit
head -c 1000 /dev/urandom >"$tmpd/payload" # incompressible: pieces split by size even with zstd
n=3000

# run NAME MODE MIN_PIECES RECORD_ARGS...: $n messages of 1000 B at 3 kHz into a recorder.
run() {
  local name=$1 mode=$2 min=$3 out="$tmpd/$1" rec
  shift 3
  "$zcast" record -q -o "$out" "$@" /split/t &
  rec=$!
  # --wait-matching: the recorder has joined; --timeout: a lossless recorder may hold us a while
  "$zcast" pub /split/t --file "$tmpd/payload" --rate 3000 --count $n --wait-matching 1 \
    --timeout 30 >/dev/null
  sleep 0.2
  kill -INT $rec
  wait $rec || fail "$name: the recorder failed"
  ! ls "$out"/*.next >/dev/null 2>&1 || fail "$name: a piece opened ahead was left: $(ls "$out")"
  local got
  got=$("$check" "$mode" $n "$min" /split/t $(pieces "$out")) || fail "$name: $got"
  echo "$name: $got"
  local total
  total=$(grep -o '^  message_count: [0-9]*' "$out/metadata.yaml" | grep -o '[0-9]*$')
  [ "$total" = "$(grep -o 'messages [0-9]*' <<<"$got" | grep -o '[0-9]*$')" ] ||
    fail "$name: metadata.yaml counts $total messages"
  rm -rf "$out"
  rm -f /dev/shm/zcast."$ZCAST_DOMAIN".*
}

# lossless, by size, zstd (pieces closed behind wait for the compressing writer thread; the
# payload repeats, so a 4 KiB chunk compresses to about a message: ~30 messages a piece)
run size_zstd lossless 10 --lossless --max-bytes 8000 --chunk-size 4096
# lossless, by duration, uncompressed (streamed chunks)
run time_none lossless 10 --lossless --max-duration 0.05 --compression none
# DROP_OLD with a short queue, by size, uncompressed (a piece per 8 messages recorded): whatever
# is lost is counted (how many pieces depends on how much a slow build on a loaded machine loses)
run size_drops drops 2 --queue 32 --max-bytes 8000 --compression none
echo "PASS"
