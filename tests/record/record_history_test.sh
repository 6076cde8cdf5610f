#!/usr/bin/env bash
# A late-joining recorder gets all of a topic's history, even when it is deeper than --queue: a
# publisher with history 40 publishes messages 1..40 before the recorder starts with --queue 16
# (DROP_OLD); the recording has all 40, in order, and counts no drop (its subscriber's queue is
# at least the history; it was 16, and 1..24 were neither recorded nor counted as dropped). Where
# the topic's max_queue_depth is 16, the last 16 are recorded and the recorder says so.
# Usage: record_history_test.sh ZCAST LATE_PUB BAG_DUMP OUT_DIR
set -euo pipefail
zcast=$1 late=$2 dump=$3 out=$4
. "$(dirname "$0")/../zt_scene.sh"
scene trhist
fresh_dir "$out"

mkfifo "$out/ready"
"$late" /hist/topic 40 hold >"$out/ready" &
pub=$!
read -r line <"$out/ready" || fail "late_pub did not start"
[ "$line" = ready ] || fail "late_pub: $line"

"$zcast" record -q --queue 16 -o "$out/rec" --duration 1 '/hist/*' 2>"$out/err" ||
  fail "record failed: $(cat "$out/err")"
kill "$pub"
wait "$pub" || fail "late_pub exited $?"
got=$("$dump" "$out"/rec/*.mcap | awk -F'\t' '$1 == "/hist/topic" { printf "%s ", $2 }')
[ "$got" = "$(seq -s' ' 1 40) " ] || fail "recorded /hist/topic messages (by size): $got"
"$zcast" bag info "$out/rec" | grep -q "Topic: /hist/topic .*| Dropped: 0$" ||
  fail "bag info: $("$zcast" bag info "$out/rec")"
[ ! -s "$out/err" ] || fail "record said: $(cat "$out/err")"

# The topic's max_queue_depth (16) bounds the queue: the recorder says what it cannot record.
"$late" /cut/topic 40 hold 16 >"$out/ready" &
pub=$!
read -r line <"$out/ready" || fail "late_pub did not start"
"$zcast" record -q -o "$out/cut" --duration 1 '/cut/*' 2>"$out/err" ||
  fail "record failed: $(cat "$out/err")"
kill "$pub"
wait "$pub" || fail "late_pub exited $?"
got=$("$dump" "$out"/cut/*.mcap | awk -F'\t' '$1 == "/cut/topic" { printf "%s ", $2 }')
[ "$got" = "$(seq -s' ' 25 40) " ] || fail "recorded /cut/topic messages (by size): $got"
grep -qx "zcast record: /cut/topic: its history of 40 is deeper than the topic's queues (at most 16): its oldest 24 are not recorded" \
  "$out/err" || fail "record said: $(cat "$out/err")"
echo "record_history: all 40 of the history recorded with --queue 16; 16 and said so where the topic allows 16"
