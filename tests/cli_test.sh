#!/usr/bin/env bash
# The zcast command-line tool against a live publisher: list, info, echo, hz, gc, rm.
set -euo pipefail
zcast=$1
export ZCAST_DOMAIN="tcli-$$"
cleanup() { kill $(jobs -p) 2>/dev/null || true; rm -f /dev/shm/zcast.$ZCAST_DOMAIN.*; }
trap cleanup EXIT
fail() { echo "FAIL: $*"; exit 1; }

"$zcast" pub /cli/chatter "hello zcast" -r 200 -n 2000 >/dev/null &
pub=$!
for _ in $(seq 100); do "$zcast" list | grep -q '^/cli/chatter$' && break; sleep 0.05; done
"$zcast" list | grep -qx '/cli/chatter' || fail "list does not show the topic"
"$zcast" info /cli/chatter | grep -q 'publishers:   1 of 16' || fail "info: publisher count"
out=$(timeout 10 "$zcast" echo /cli/chatter -n 3)
[ "$(grep -c 'hello zcast' <<<"$out")" -eq 3 ] || fail "echo did not print 3 messages: $out"
hz=$(timeout -s INT 3 "$zcast" hz /cli/chatter -w 1 || true)
grep -q 'msg/s' <<<"$hz" || fail "hz printed no rate"
"$zcast" gc /cli/chatter | grep -q 'reclaimed' || fail "gc"
expect_error() { # pattern command...
  local pat=$1; shift
  local out; out=$("$@" 2>&1) && fail "$* succeeded"
  grep -q "$pat" <<<"$out" || fail "$*: wanted '$pat', got: $out"
}
expect_error 'live members' "$zcast" rm /cli/chatter
expect_error 'no such topic' "$zcast" info /nope
expect_error 'invalid topic name' "$zcast" info 'bad name'
kill -9 $pub; wait $pub 2>/dev/null || true
"$zcast" gc /cli/chatter | grep -q '1 dead member' || fail "gc after SIGKILL"
"$zcast" list | grep -q chatter && fail "topic remains after its only member died and gc ran"
echo "cli: ok"
