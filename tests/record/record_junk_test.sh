#!/usr/bin/env bash
# A file in /dev/shm named like one of the domain's topics that is no topic (junk, or left by a
# crashed creator) does not keep an idle recorder listing /dev/shm again and again: it is looked at
# again with a backoff (20 ms doubling to 1 s: at most 8 looks in 3 s, plus the recorder's start),
# and named on stderr once. It used to be looked at every wake-up of the idle recorder (dozens of
# listings in 3 s), silently.
# Usage: record_junk_test.sh ZCAST OUT_DIR
set -euo pipefail
zcast=$1 out=$2
. "$(dirname "$0")/../zt_scene.sh"
scene trjunk
fresh_dir "$out"
command -v strace >/dev/null || { echo "SKIP: no strace"; exit 77; }

printf 'not a topic' >/dev/shm/zcast."$ZCAST_DOMAIN".junk
# (LeakSanitizer cannot run under ptrace: off for this run)
ASAN_OPTIONS=${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0 \
  strace -f -qq -e trace=openat -o "$out/trace" "$zcast" record -q -o "$out/rec" --duration 3 \
  2>"$out/err" || fail "record under strace failed: $(cat "$out/err")"
opens=$(grep -c 'openat(.*"/dev/shm", O_RDONLY|O_NONBLOCK|O_CLOEXEC|O_DIRECTORY' "$out/trace" || true)
[ "$opens" -le 12 ] || fail "the idle recorder listed /dev/shm $opens times in 3 s"
said=$(grep -c "^zcast record: /junk: not a readable topic (.*)$" "$out/err" || true)
[ "$said" -eq 1 ] || fail "the junk file named $said times: $(cat "$out/err")"
echo "record_junk: /dev/shm listed $opens times in 3 s; said: $(cat "$out/err")"
