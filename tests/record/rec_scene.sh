# Sourced by the record tests of tests/record-reindex.cmake: a domain of the test's own, a temporary
# directory, and a cleanup on exit that kills every job the test started and removes both.
# Sets ZCAST_DOMAIN (prefix $1; domains "$ZCAST_DOMAIN-..." are the test's too) and tmpd; defines
# fail.
set -euo pipefail
export ZCAST_DOMAIN="$1-$$"
tmpd=$(mktemp -d)
rec_scene_cleanup() {
  for p in $(jobs -p); do kill -9 "$p" 2>/dev/null || true; done
  wait 2>/dev/null || true
  rm -f /dev/shm/zcast."$ZCAST_DOMAIN".* /dev/shm/zcast."$ZCAST_DOMAIN"-*
  rm -rf "$tmpd"
}
trap rec_scene_cleanup EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }
