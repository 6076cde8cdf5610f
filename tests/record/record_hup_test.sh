#!/usr/bin/env bash
# SIGHUP (the terminal closed, the ssh session ended) ends zcast record and zcast play as SIGINT
# does: the recorder finishes its file (summary and footer: bag info reads it as complete) and
# exits 0; it used to die of it (exit 129) and leave its last piece without a summary. Under nohup
# (SIGHUP ignored when it starts) the recorder goes on recording.
# Usage: record_hup_test.sh ZCAST
zcast=$1
. "$(dirname "$0")/../zt_scene.sh"
scene trcli
"$zcast" pub /hup/t hello --rate 50 --history 20 >/dev/null &

# listed DOMAIN REGEX: a line of `zcast list` in DOMAIN matches
listed() { ZCAST_DOMAIN=$1 "$zcast" list | grep -Eq "$2"; }
# complete DIR: the recording has messages and every piece its summary
complete() {
  local info
  info=$("$zcast" bag info "$1") || fail "bag info $1"
  ! grep -q '^Complete: *no' <<<"$info" && [ "$(bag_count "$1")" -gt 0 ] ||
    fail "$1 is not a complete recording: $info"
}

# SIGHUP at its default (whatever this test inherited): a clean stop, exit 0
env --default-signal=HUP "$zcast" record -q -o "$tmpd/hup" /hup/t &
rec=$!
wait_for "the recorder's first piece" test -s "$tmpd/hup/metadata.yaml" # signals caught by then
kill -HUP $rec
rc=0
wait $rec || rc=$?
[ "$rc" = 0 ] || fail "the recorder exited $rc on SIGHUP, wanted 0"
complete "$tmpd/hup"

# ... the same for the player (--loop: it would play until stopped)
ZCAST_DOMAIN=$other env --default-signal=HUP "$zcast" play -q --loop "$tmpd/hup" &
play=$!
wait_for "the player's publisher" listed "$other" '^/hup/t ' 
kill -HUP $play
rc=0
wait $play || rc=$?
[ "$rc" = 0 ] || fail "the player exited $rc on SIGHUP, wanted 0"

# SIGHUP ignored (nohup): it goes on recording; a topic that appears after the SIGHUP is recorded
env --ignore-signal=HUP "$zcast" record -q -o "$tmpd/nohup" '/hup/*' &
rec=$!
wait_for "the recorder's first piece" test -s "$tmpd/nohup/metadata.yaml"
kill -HUP $rec
"$zcast" pub /hup/late hello --rate 50 --history 20 >/dev/null &
# joined after the SIGHUP: its history is in the recorder's queue, taken by the time it stops
wait_for "the recorder on /hup/late" listed "$ZCAST_DOMAIN" '^/hup/late +[^ ]+ +1 +1 ' 
kill -0 $rec || fail "the recorder under nohup died of SIGHUP"
kill -INT $rec
rc=0
wait $rec || rc=$?
[ "$rc" = 0 ] || fail "the recorder under nohup exited $rc"
complete "$tmpd/nohup"
"$zcast" bag info "$tmpd/nohup" | grep -q "Topic: /hup/late | .* | Count: [1-9]" ||
  fail "/hup/late not recorded: $("$zcast" bag info "$tmpd/nohup")"
echo PASS
