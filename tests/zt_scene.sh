# The scene a test script of the tools runs in (record / play / bag, the zcast CLI, services).
# Sourced: `. "$(dirname "$0")/../zt_scene.sh"` (or ./zt_scene.sh from tests/), then `scene PREFIX`.
# Each script reads its own arguments; bag_count needs $zcast.
set -euo pipefail

fail() { echo "FAIL: $*" >&2; exit 1; }

# scene PREFIX: two zcast domains of the test's own, $ZCAST_DOMAIN (exported, PREFIX-PID; domains
# "$ZCAST_DOMAIN-..." are the test's too) and $other (PREFIX2-PID), and a temporary directory
# $tmpd. At exit scene_cleanup runs (a test with more to undo traps its own function calling it).
scene() {
  export ZCAST_DOMAIN="$1-$$"
  other="${1}2-$$"
  tmpd=$(mktemp -d)
  trap scene_cleanup EXIT
}

# Every background job ended (resumed first: a stopped one would not die before `wait`), the
# domains' shared memory and $tmpd removed.
scene_cleanup() {
  for p in $(jobs -p); do kill -CONT "$p" 2>/dev/null || true; kill -9 "$p" 2>/dev/null || true; done
  wait 2>/dev/null || true
  rm -f /dev/shm/zcast."$ZCAST_DOMAIN".* /dev/shm/zcast."$ZCAST_DOMAIN"-* /dev/shm/zcast."$other".*
  rm -rf "$tmpd"
}

# fresh_dir DIR: DIR empty (a directory the test leaves behind for others to read, e.g. OUT_DIR).
fresh_dir() { rm -rf "$1"; mkdir -p "$1"; }

# expect_rc CODE command...: runs it, its stdout+stderr into $out, fails unless it exits CODE (a
# script using it keeps its directories in other names than $out).
expect_rc() {
  local want=$1 rc=0
  shift
  out=$("$@" 2>&1) || rc=$?
  [ "$rc" -eq "$want" ] || fail "$* exited $rc, wanted $want: $out"
}

# run_rc command...: runs it, its exit status into $rc and its stderr into $err (never fails).
run_rc() { rc=0; "$@" 2>"$tmpd/stderr" || rc=$?; err=$(cat "$tmpd/stderr"); }

# wait_for WHAT command...: polls (30 s) until the command succeeds.
wait_for() {
  local what=$1
  shift
  for _ in $(seq 600); do "$@" >/dev/null 2>&1 && return 0; sleep 0.05; done
  fail "timed out waiting for $what"
}

# pieces DIR: a recording's *.mcap files in their numbered order.
pieces() { ls "$1"/*.mcap | sed 's/.*_\([0-9]*\)\.mcap$/\1 &/' | sort -n | cut -d' ' -f2; }

# bag_count DIR|FILE: the message count `zcast bag info` gives a recording.
bag_count() { "$zcast" bag info "$1" | grep -o '^Messages: *[0-9]*' | grep -o '[0-9]*$'; }
