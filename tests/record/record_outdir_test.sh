#!/usr/bin/env bash
# The pieces of a recording are named after the last component of the output directory's real
# path, as rosbag2 names them: `-o run1/` (a trailing slash, as shell completion writes it) gives
# run1/run1_0.mcap (it failed: "run1//run1/_0.mcap: cannot create"), `-o .` in a directory `here`
# gives here_0.mcap (not a hidden ._0.mcap), and a symbolic link the name of what it points to.
# Usage: record_outdir_test.sh ZCAST
zcast=$1
. "$(dirname "$0")/../zt_scene.sh"
scene trcli
"$zcast" pub /od/t hello --rate 50 --history 20 >/dev/null &

# record_into WORKDIR DIR_ARG: records /od/t with -o DIR_ARG from WORKDIR
record_into() {
  (cd "$1" && "$zcast" record -q -o "$2" --duration 0.4 /od/t) || fail "-o $2 in $1: exit $?"
}
# pieces_are DIR NAME: DIR holds NAME (and metadata.yaml) only, and it has messages
pieces_are() {
  [ "$(ls -A "$1" | LC_ALL=C sort | tr '\n' ' ')" = "$(printf '%s\n' "$2" metadata.yaml |
    LC_ALL=C sort | tr '\n' ' ')" ] ||
    fail "$1 holds $(ls -A "$1"), wanted $2"
  grep -qx "    - $2" "$1/metadata.yaml" || fail "$1/metadata.yaml: $(cat "$1/metadata.yaml")"
  [ "$(bag_count "$1")" -gt 0 ] || fail "$1: no messages"
}

record_into "$tmpd" run1/
pieces_are "$tmpd/run1" run1_0.mcap
record_into "$tmpd" run2//
pieces_are "$tmpd/run2" run2_0.mcap
mkdir "$tmpd/here"
record_into "$tmpd/here" .
pieces_are "$tmpd/here" here_0.mcap
mkdir "$tmpd/real"
ln -s real "$tmpd/link"
record_into "$tmpd" link/
pieces_are "$tmpd/real" real_0.mcap
echo PASS
