#!/usr/bin/env bash
# zcast play with nothing to play (--topics matching no topic, a recording without messages,
# --start-offset past its end) says "nothing to play: WHY" before it opens any publisher and
# exits 0, as ros2 bag play does; with --loop it exits 1 (it used to loop over nothing, a core at
# 100 %, until killed).
# Usage: record_play_nothing_test.sh ZCAST
zcast=$1
. "$(dirname "$0")/../zt_scene.sh"
scene trcli
"$zcast" pub /pn/t hello --rate 50 --history 20 >/dev/null &
"$zcast" record -q -o "$tmpd/rec" --duration 0.5 /pn/t
[ "$(bag_count "$tmpd/rec")" -gt 0 ] || fail "no recording: $("$zcast" bag info "$tmpd/rec")"
"$zcast" record -q -o "$tmpd/empty" --duration 0.2 /pn/none
[ "$(bag_count "$tmpd/empty")" = 0 ] || fail "the empty recording has messages"

# nothing WHY PLAY_ARGS...: without --loop exit 0, with --loop exit 1, both saying WHY, and no
# topic created in the domain played into
nothing() {
  local why=$1 loop
  shift
  for loop in "" --loop; do
    run_rc timeout 10 env ZCAST_DOMAIN="$other" "$zcast" play $loop "$@"
    [ "$rc" = "$([ -n "$loop" ] && echo 1 || echo 0)" ] || fail "play $loop $*: exit $rc: $err"
    grep -q "^zcast play: nothing to play: $why" <<<"$err" || fail "play $loop $*: $err"
    [ -z "$(ls /dev/shm | grep -F "zcast.$other.")" ] || fail "play $loop $*: it opened a topic"
  done
}
nothing "--topics '/x' matches no topic of " --topics /x "$tmpd/rec"
nothing "--topics '/x,/y\*' matches no topic of " --topics '/x,/y*' "$tmpd/rec"
nothing "no messages in " "$tmpd/empty"
nothing "--start-offset 1000 is past the last message " --start-offset 1000 "$tmpd/rec"

# something to play still plays
run_rc env ZCAST_DOMAIN="$other" "$zcast" play --topics /pn/t "$tmpd/rec"
[ "$rc" = 0 ] && grep -q "published $(bag_count "$tmpd/rec") messages" <<<"$err" ||
  fail "play --topics /pn/t: exit $rc: $err"
echo PASS
