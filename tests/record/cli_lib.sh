# What the command-line tests of record / play / bag share (sourced; tests/record-cli.cmake):
# $zcast (the first argument), two domains of their own ($ZCAST_DOMAIN and $other), a temporary
# directory $tmpd, and on exit their background jobs killed and all of these removed.
set -euo pipefail
zcast=$1
export ZCAST_DOMAIN="trcli-$$"
other="trcli2-$$"
tmpd=$(mktemp -d)
rec_cli_cleanup() {
  for p in $(jobs -p); do kill -9 "$p" 2>/dev/null || true; done
  wait 2>/dev/null || true
  rm -f /dev/shm/zcast."$ZCAST_DOMAIN".* /dev/shm/zcast."$other".*
  rm -rf "$tmpd"
}
trap rec_cli_cleanup EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }
# Runs a command, its exit status into $rc and its stderr into $err (never fails itself).
run_rc() { rc=0; "$@" 2>"$tmpd/stderr" || rc=$?; err=$(cat "$tmpd/stderr"); }
# The message count `zcast bag info` gives a recording.
bag_count() { "$zcast" bag info "$1" | grep -o '^Messages: *[0-9]*' | grep -o '[0-9]*$'; }
# Waits (up to 30 s) until a command succeeds.
wait_for() {
  local what=$1; shift
  for _ in $(seq 600); do "$@" >/dev/null 2>&1 && return 0; sleep 0.05; done
  fail "timed out waiting for $what"
}
