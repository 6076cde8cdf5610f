#!/usr/bin/env bash
# zcast record names its directory as written, joined to its files with one '/': `-o run1/` and
# `-o run1//` say "into run1/" (they said "into run1//" and "into run1///").
# Usage: record_into_test.sh ZCAST
zcast=$1
. "$(dirname "$0")/../zt_scene.sh"
scene trinto
"$zcast" pub /into/t hello --rate 50 >/dev/null &
for arg in run1/ run2// run3; do
  want="into ${arg%%/*}/ ("
  (cd "$tmpd" && "$zcast" record -o "$arg" --duration 0.3 /into/t 2>"$tmpd/err") ||
    fail "-o $arg: exit $?: $(cat "$tmpd/err")"
  grep -qF "$want" "$tmpd/err" || fail "-o $arg: no '$want' in: $(cat "$tmpd/err")"
  ! grep -q '//' "$tmpd/err" || fail "-o $arg: a doubled '/': $(cat "$tmpd/err")"
done
echo PASS
