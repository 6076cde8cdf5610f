#!/usr/bin/env bash
# Messages of several topics are written in publish-time order (docs/RECORDING.md, "Order"):
# three topics burst-publishing into one recorder (order_pub: one thread, bursts of 16 messages a
# topic in turn), lossless and not, split and not, uncompressed, zstd and lz4. order_check reads
# every piece and counts the messages whose log time goes back from the one before it in file
# order (must be 0), and checks that no message is lost or duplicated (lossless: all of them;
# otherwise recorded + dropped == published, per topic).
# Usage: record_order_test.sh ZCAST ORDER_CHECK ORDER_PUB
set -euo pipefail
zcast=$1
check=$2
pub=$3
. "$(dirname "$0")/../zt_scene.sh"
scene torder
n=1000

# run NAME MODE PAUSE_US MIN_PIECES RECORD_ARGS...: $n messages a topic, PAUSE_US between rounds
# of bursts (DROP_OLD recorders get pauses they can mostly keep up with).
run() {
  local name=$1 mode=$2 pause=$3 min=$4 out="$tmpd/$1" rec
  shift 4
  "$zcast" record -q -o "$out" "$@" '/order/*' &
  rec=$!
  "$pub" /order $n 16 "$pause" || fail "$name: the publisher failed"
  sleep 0.2
  kill -INT $rec
  wait $rec || fail "$name: the recorder failed"
  local got
  got=$("$check" "$mode" $n 3 "$min" $(pieces "$out")) || fail "$name: $got"
  echo "$name: $got"
  rm -rf "$out"
  rm -f /dev/shm/zcast."$ZCAST_DOMAIN".*
}

run lossless_none lossless 0 1 --lossless --compression none
run lossless_split_zstd lossless 0 2 --lossless --max-bytes 30000 --chunk-size 8192
run lossless_split_lz4_q1 lossless 0 2 --lossless --queue 1 --max-bytes 30000 --chunk-size 8192 \
  --compression lz4
run drops_zstd drops 2000 1 --queue 64
run drops_split_none drops 2000 2 --queue 64 --max-bytes 60000 --compression none
echo "PASS"
