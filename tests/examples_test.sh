#!/usr/bin/env bash
# Runs one example the way its header comment says (subscribers first, in the background, then the
# publisher) and checks what it printed. Usage: examples_test.sh NAME DIR_OF_EXAMPLE_PROGRAMS
set -euo pipefail
name=$1 bin=$2
export ZCAST_DOMAIN="tex-$name-$$"
out=$(mktemp -d)
cleanup() { kill $(jobs -p) 2>/dev/null || true; rm -rf "$out"; rm -f /dev/shm/zcast."$ZCAST_DOMAIN".*; }
trap cleanup EXIT
fail() { echo "FAIL: $*"; for f in "$out"/*; do echo "--- $f"; cat "$f"; done; exit 1; }
run_bg() { local tag=$1; shift; timeout 30 "$@" >"$out/$tag" 2>&1 & }
finish() { for p in $(jobs -p); do wait "$p" || fail "a background program failed"; done; }
count() { grep -c -- "$1" "$out/$2" || true; }

case $name in
subscriber)
  run_bg sub "$bin/example_subscriber"
  timeout 30 "$bin/example_publisher" >"$out/pub" 2>&1 || fail "publisher"
  finish
  [ "$(count 'hello' sub)" -eq 10 ] || fail "10 messages expected"
  for i in $(seq 0 9); do grep -q "^#$((i + 1)): hello $i$" "$out/sub" || fail "message $i"; done ;;
waitset)
  run_bg sub "$bin/example_waitset"
  run_bg p1 "$bin/example_publisher" /example/temperature 5
  run_bg p2 "$bin/example_publisher" /example/pressure 7
  finish
  [ "$(count '^/example/temperature: hello' sub)" -eq 5 ] || fail "5 temperature messages expected"
  [ "$(count '^/example/pressure: hello' sub)" -eq 7 ] || fail "7 pressure messages expected" ;;
executor | epoll)
  run_bg sub "$bin/example_$name"
  timeout 30 "$bin/example_publisher" /example/chatter 12 >"$out/pub" 2>&1 || fail "publisher"
  finish
  [ "$(count 'hello' sub)" -eq 12 ] || fail "12 messages expected"
  grep -q '^received 12 messages$' "$out/sub" || fail "summary line" ;;
history)
  timeout 30 "$bin/example_history" publish >"$out/pub" 2>&1 || fail "publisher"
  timeout 30 "$bin/example_history" >"$out/sub" 2>&1 || fail "late joiner"
  [ "$(count 'late joiner got' sub)" -eq 5 ] || fail "5 history messages expected"
  grep -q '^late joiner got #6: reading 6$' "$out/sub" || fail "oldest first, from 6"
  grep -q '^late joiner got #10: reading 10$' "$out/sub" || fail "newest last"
  [ -z "$(ls /dev/shm | grep "zcast.$ZCAST_DOMAIN." || true)" ] || fail "the retained topic was not removed" ;;
workers)
  run_bg a "$bin/example_workers" alpha
  run_bg b "$bin/example_workers" beta
  timeout 30 "$bin/example_publisher" /example/jobs 20 2 >"$out/pub" 2>&1 || fail "publisher"
  finish
  cat "$out/a" "$out/b" >"$out/all"
  for i in $(seq 0 19); do [ "$(count ": hello $i$" all)" -eq 1 ] || fail "job $i not done exactly once"; done
  [ "$(count 'hello' a)" -gt 0 ] && [ "$(count 'hello' b)" -gt 0 ] || fail "both workers should get jobs" ;;
cpp)
  run_bg sub "$bin/example_cpp"
  timeout 30 "$bin/example_cpp" publish >"$out/pub" 2>&1 || fail "publisher"
  finish
  grep -q '^reading 0: 20.0 C (#1)$' "$out/sub" || fail "first reading"
  grep -q '^reading 9: 24.5 C (#10)$' "$out/sub" || fail "last reading"
  grep -q '^received 10 readings$' "$out/sub" || fail "summary line" ;;
cpp_typed)
  run_bg sub "$bin/example_cpp_typed"
  timeout 30 "$bin/example_cpp_typed" publish >"$out/pub" 2>&1 || fail "publisher"
  finish
  for i in 0 1 2 3 4; do
    grep -qx "image $((100 + i)): 64x48 rgb8 from cam0, 9216 bytes, first pixel $i (#$((i + 1)))" \
      "$out/sub" || fail "image $i"
  done
  grep -qx 'received 5 images' "$out/sub" || fail "summary line" ;;
service)
  timeout 30 "$bin/example_service" call 1 1 >"$out/early" 2>&1 && fail "a call without server should fail"
  run_bg srv "$bin/example_service" serve 5
  for i in 1 2 3 4 5; do
    timeout 30 "$bin/example_service" call "$i" 10 >"$out/c$i" 2>&1 || fail "call $i"
    grep -q "^$i + 10 = $((i + 10))$" "$out/c$i" || fail "sum $i"
  done
  finish
  [ -z "$(ls /dev/shm | grep "zcast.$ZCAST_DOMAIN." || true)" ] || fail "files left in /dev/shm" ;;
*) echo "unknown example $name"; exit 2 ;;
esac
echo "example $name: ok"
