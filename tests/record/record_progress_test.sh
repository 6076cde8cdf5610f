#!/usr/bin/env bash
# The recorder's progress line names at most 4 topics with drops and sums up the others as
# "… and N more topics (D dropped)"; it used to leave them out, drops and all. Six topics lose
# messages for sure: the recorder (queue 1, DROP_OLD) is stopped (SIGSTOP) while 5 messages are
# published on each.
# Usage: record_progress_test.sh ZCAST
zcast=$1
. "$(dirname "$0")/../zt_scene.sh"
scene trcli
topics=(/pg/t0 /pg/t1 /pg/t2 /pg/t3 /pg/t4 /pg/t5)
for t in "${topics[@]}"; do "$zcast" pub "$t" hello --rate 1 >/dev/null & done
"$zcast" record -o "$tmpd/rec" --queue 1 '/pg/*' 2>"$tmpd/progress" &
rec=$!
joined() { [ "$("$zcast" list | grep -Ec '^/pg/t[0-5] +[^ ]+ +1 +1 ')" = 6 ]; }
wait_for "the recorder on every topic" joined
kill -STOP $rec
for t in "${topics[@]}"; do "$zcast" pub "$t" hello --rate 0 --count 5 >/dev/null; done
kill -CONT $rec
kill -INT $rec
wait $rec || fail "the recorder failed: $(cat "$tmpd/progress")"
last=$(tail -1 "$tmpd/progress")
grep -Eq '; dropped: (/pg/t[0-5] [0-9]+, ){3}/pg/t[0-5] [0-9]+ … and 2 more topics \([0-9]+ dropped\)$' <<<"$last" ||
  fail "the last progress line: $last"
echo "$last"
echo PASS
