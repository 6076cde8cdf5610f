#!/usr/bin/env bash
# New topics without polling (docs/RECORDING.md, "How the recorder records"):
#  1. a topic that appears while `zcast record` runs is recorded from its first message: a
#     publisher creates it with history and publishes half its messages before anyone can have
#     joined, the rest once the recorder is matched; the recording has all of them, in order;
#  2. an idle recorder does not list /dev/shm again and again: over 3 s without topic changes it
#     opens the directory twice (its wait set's doorbell sweep and its first scan; polling every
#     250 ms opened it a dozen times more).
# Usage: record_discovery_test.sh ZCAST LATE_PUB BAG_DUMP OUT_DIR
set -euo pipefail
zcast=$1 late=$2 dump=$3 out=$4
. "$(dirname "$0")/../zt_scene.sh"
scene trdisc
fresh_dir "$out"

# 1. a late topic, recorded from its first message
"$zcast" record -q --lossless -o "$out/late" '/late/*' &
rec=$!
sleep 0.5 # the recorder is up and idle (not a condition of the test: it only makes the topic late)
"$late" /late/topic 20 || fail "late_pub failed"
kill -INT "$rec"
wait "$rec" || fail "the recorder exited $?"
got=$("$dump" "$out"/late/*.mcap | awk -F'\t' '$1 == "/late/topic" { printf "%s ", $2 }')
[ "$got" = "$(seq -s' ' 1 40) " ] || fail "recorded /late/topic messages (by size): $got"

# 2. no polling: the idle recorder lists /dev/shm only as it starts
command -v strace >/dev/null || { echo "SKIP: no strace"; exit 77; }
# (LeakSanitizer cannot run under ptrace: off for this run; part 1 had it)
ASAN_OPTIONS=${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0 \
  strace -f -qq -e trace=openat -o "$out/trace" "$zcast" record -q -o "$out/idle" --duration 3 '/none/*' ||
  fail "record under strace failed"
opens=$(grep -c 'openat(.*"/dev/shm", O_RDONLY|O_NONBLOCK|O_CLOEXEC|O_DIRECTORY' "$out/trace" || true)
[ "$opens" -le 2 ] || fail "the idle recorder opened /dev/shm $opens times in 3 s (polling)"
