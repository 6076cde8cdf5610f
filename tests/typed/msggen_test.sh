#!/usr/bin/env bash
# zcast-msggen: reproduces every RIHS01 vector of tests/data/rihs01.tsv, and reports invalid
# definitions as file:line with exit status 1.
set -uo pipefail
src=$1
gen="/usr/bin/python3 $src/tools/zcast-msggen -I $src/msg"
fail=0
vectors=$(grep -v '^#' "$src/tests/data/rihs01.tsv")
got=$($gen --hash $(cut -f1 <<<"$vectors"))
if [ "$got" != "$vectors" ]; then
  echo "FAIL: RIHS01 hashes differ:"; diff <(echo "$vectors") <(echo "$got"); fail=1
fi
[ "$(wc -l <<<"$vectors")" -ge 19 ] || { echo "FAIL: vectors missing"; fail=1; }

out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
bad=$src/tests/typed/bad/bad_msgs/msg
expect() { # file line text
  msg=$($gen -o "$out" "$bad/$1.msg" 2>&1)
  rc=$?
  if [ $rc -ne 1 ] || ! grep -qF "$bad/$1.msg:$2: " <<<"$msg" || ! grep -qF "$3" <<<"$msg"; then
    echo "FAIL: $1.msg: rc=$rc, got: $msg (want line $2 and '$3')"; fail=1
  fi
  [ "$(wc -l <<<"$msg")" -eq 1 ] || { echo "FAIL: $1.msg: more than one line: $msg"; fail=1; }
}
expect Syntax 2 "can not be converted"
expect Missing 3 "bad_msgs/msg/MissingType not found"
expect BadName 1 "invalid field name"
expect Duplicate 2 "duplicate names"
expect Wide 2 "wstring is not supported"
expect Self 2 "contains itself"
expect Constant 2 "can not be converted to type 'uint8'"
expect ZeroBound 2 "size of array"
[ -z "$(ls "$out")" ] || { echo "FAIL: headers written for invalid definitions"; fail=1; }
[ $fail -eq 0 ] && echo "msggen: ok"
exit $fail
