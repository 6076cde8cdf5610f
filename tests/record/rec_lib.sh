# Sourced by record tests: `rec_setup PREFIX OUT` gives the test a domain of its own (PREFIX-PID),
# a fresh OUT directory, and at exit its background jobs ended and its shared memory removed;
# `fail WHAT` ends the test.
rec_cleanup() {
  for p in $(jobs -p); do kill "$p" 2>/dev/null || true; done
  wait 2>/dev/null || true
  rm -f /dev/shm/zcast."$ZCAST_DOMAIN".*
}
fail() { echo "FAIL: $*" >&2; exit 1; }
rec_setup() {
  export ZCAST_DOMAIN="$1-$$"
  trap rec_cleanup EXIT
  rm -rf "$2"
  mkdir -p "$2"
}
