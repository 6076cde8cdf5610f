#!/usr/bin/env bash
# Any number of positional arguments: zcast record with 10 topic patterns records the topics the
# first and the last match, zcast bag reindex rewrites 6 files (the parser took at most 4: record
# took 4 patterns, bag reindex 3 files). A command of a fixed count still refuses one more.
# Usage: record_many_args_test.sh ZCAST
zcast=$1
. "$(dirname "$0")/../zt_scene.sh"
scene trcli
"$zcast" pub /many/a hello --rate 50 --history 20 >/dev/null &
"$zcast" pub /many/j hello --rate 50 --history 20 >/dev/null &

patterns=(/many/a /many/b /many/c /many/d /many/e /many/f /many/g /many/h /many/i '/many/[j]')
run_rc "$zcast" record -q -o "$tmpd/r" --duration 0.5 "${patterns[@]}"
[ "$rc" = 0 ] || fail "record with 10 patterns: exit $rc: $err"
info=$("$zcast" bag info "$tmpd/r")
for t in /many/a /many/j; do
  grep -q "Topic: $t | .* | Count: [1-9]" <<<"$info" || fail "$t not recorded: $info"
done

files=()
for i in 1 2 3 4 5 6; do
  cp "$tmpd/r/r_0.mcap" "$tmpd/f$i.mcap"
  files+=("$tmpd/f$i.mcap")
done
run_rc "$zcast" bag reindex "${files[@]}" >"$tmpd/out"
[ "$rc" = 0 ] && [ "$(grep -c ': reindexed$' "$tmpd/out")" = 6 ] ||
  fail "reindex of 6 files: exit $rc: $err $(cat "$tmpd/out")"
for f in "${files[@]}"; do
  [ "$(bag_count "$f")" = "$(bag_count "$tmpd/r")" ] || fail "$f after reindex"
done

run_rc "$zcast" play "$tmpd/r" "$tmpd/r"
[ "$rc" = 2 ] && grep -q "unexpected argument" <<<"$err" || fail "play with two: exit $rc: $err"
echo PASS
