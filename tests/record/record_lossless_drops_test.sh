#!/usr/bin/env bash
# A --lossless recorder counts as dropped only what it lost. A publish its full queue refused is
# delivered to no one (and takes no sequence number): the publisher retries it (zcast pub
# --timeout: zcast_publish_wait) and it is recorded. The "dropped" metadata counted those refusals:
# every message recorded and 'Dropped: 1' or more beside them.
# Usage: record_lossless_drops_test.sh ZCAST
zcast=$1
. "$(dirname "$0")/../zt_scene.sh"
scene trlossless
n=20
"$zcast" record -q --lossless --queue 1 -o "$tmpd/rec" /ll/t &
rec=$!
# the topic, and the recorder on it (it takes this first message at once)
"$zcast" pub /ll/t first --count 1 --wait-matching 1 --timeout 30 >/dev/null ||
  fail "no recorder joined"
kill -STOP $rec
"$zcast" pub /ll/t more --count $n --rate 1000 --timeout 60 >"$tmpd/pub" 2>&1 &
pub=$!
# its queue is full and refuses: the publisher waits
refused() { "$zcast" info --json /ll/t | grep -Eq '"rejected":[1-9]'; }
wait_for "a publish refused by the stopped recorder" refused
kill -CONT $rec
wait $pub || fail "zcast pub failed: $(cat "$tmpd/pub")"
kill -INT $rec
wait $rec || fail "the recorder failed"
info=$("$zcast" bag info "$tmpd/rec")
grep -q "^Messages: *$((n + 1))\$" <<<"$info" || fail "not every message recorded: $info"
grep -Eq 'Topic: /ll/t \|.*\| Dropped: 0$' <<<"$info" || fail "refusals counted as drops: $info"
echo PASS
