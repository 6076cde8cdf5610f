# Sourced by the recorder's test scripts (`. rec_env.sh NAME`): a
# domain and a directory of the test's own, removed at exit with every job left running; fail;
# pieces DIR (a recording's *.mcap in their numbered order).
export ZCAST_DOMAIN="$1-$$"
tmpd=$(mktemp -d)
cleanup() {
  for p in $(jobs -p); do kill -9 "$p" 2>/dev/null || true; done
  wait 2>/dev/null || true
  rm -f /dev/shm/zcast."$ZCAST_DOMAIN".*
  rm -rf "$tmpd"
}
trap cleanup EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }
pieces() { ls "$1"/*.mcap | sed 's/.*_\([0-9]*\)\.mcap$/\1 &/' | sort -n | cut -d' ' -f2; }
