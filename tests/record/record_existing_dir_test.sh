#!/usr/bin/env bash
# zcast record -o DIR into a directory that holds a recording already is refused (exit 1, "DIR:
# already exists and is not empty") and leaves the old recording byte for byte as it was; the
# second run used to overwrite its first pieces and leave the rest, two runs in one recording. An
# existing empty directory is fine; a file is not a directory.
# Usage: record_existing_dir_test.sh ZCAST
zcast=$1
. "$(dirname "$0")/../zt_scene.sh"
scene trcli
sums() { (cd "$1" && find . -type f | sort | xargs sha256sum); }

# a publisher with history: a recorder records it from its history on
"$zcast" pub /ex/t hello --rate 50 --history 20 >/dev/null &
"$zcast" record -q -o "$tmpd/run1" --duration 0.5 /ex/t
[ "$(bag_count "$tmpd/run1")" -gt 0 ] || fail "no first recording: $("$zcast" bag info "$tmpd/run1")"
before=$(sums "$tmpd/run1")

run_rc "$zcast" record -q -o "$tmpd/run1" --duration 0.3 /ex/t
[ "$rc" = 1 ] || fail "record into a recording exited $rc, wanted 1: $err"
grep -q "run1: already exists and is not empty" <<<"$err" || fail "message: $err"
[ "$(sums "$tmpd/run1")" = "$before" ] || fail "the old recording changed"

# a directory holding anything at all, even a hidden file
mkdir "$tmpd/other" && touch "$tmpd/other/.keep"
run_rc "$zcast" record -q -o "$tmpd/other" --duration 0.1
[ "$rc" = 1 ] && grep -q "other: already exists and is not empty" <<<"$err" ||
  fail "a directory with a hidden file: exit $rc: $err"
[ "$(ls -A "$tmpd/other")" = ".keep" ] || fail "wrote into it: $(ls -A "$tmpd/other")"

# an existing empty directory is fine
mkdir "$tmpd/empty"
"$zcast" record -q -o "$tmpd/empty" --duration 0.5 /ex/t
[ "$(bag_count "$tmpd/empty")" -gt 0 ] ||
  fail "the empty directory's recording: $("$zcast" bag info "$tmpd/empty")"

# a file is not a directory
touch "$tmpd/file"
run_rc "$zcast" record -q -o "$tmpd/file" --duration 0.1
[ "$rc" = 1 ] && grep -q "file: cannot create: Not a directory" <<<"$err" ||
  fail "a file: exit $rc: $err"
echo PASS
