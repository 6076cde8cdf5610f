# What the command-line tests of record / play / bag share (sourced; tests/record-cli.cmake):
# $zcast (the first argument), a domain of their own, a temporary directory $tmpd, and on exit
# their background jobs killed and both removed.
set -euo pipefail
zcast=$1
export ZCAST_DOMAIN="trcli-$(basename "$0" _test.sh)-$$"
tmpd=$(mktemp -d)
rec_cli_cleanup() {
  for p in $(jobs -p); do kill -9 "$p" 2>/dev/null || true; done
  wait 2>/dev/null || true
  rm -f /dev/shm/zcast."$ZCAST_DOMAIN".*
  rm -rf "$tmpd"
}
trap rec_cli_cleanup EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }
# Runs a command, its exit status into $rc and its stderr into $err (never fails itself).
run_rc() { rc=0; "$@" 2>"$tmpd/stderr" || rc=$?; err=$(cat "$tmpd/stderr"); }
# The message count `zcast bag info` gives a recording.
bag_count() { "$zcast" bag info "$1" | grep -o '^Messages: *[0-9]*' | grep -o '[0-9]*$'; }
