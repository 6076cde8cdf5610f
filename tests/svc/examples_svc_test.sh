#!/usr/bin/env bash
# The service examples as a user runs them: the server first, in the background, then the client.
# Usage: examples_svc_test.sh python EXAMPLES_DIR PYTHONPATH | cpp DIR_OF_example_cpp_service
set -euo pipefail
name=$1
export ZCAST_DOMAIN="tex-svc-$name-$$"
out=$(mktemp -d)
cleanup() { kill $(jobs -p) 2>/dev/null || true; rm -rf "$out"; rm -f /dev/shm/zcast."$ZCAST_DOMAIN".*; }
trap cleanup EXIT
fail() { echo "FAIL: $*"; for f in "$out"/*; do echo "--- $f"; cat "$f"; done; exit 1; }
case $name in
python)
  export PYTHONPATH=$3
  timeout 60 /usr/bin/python3 "$2/add_two_ints.py" serve 2 >"$out/srv" 2>&1 &
  timeout 60 /usr/bin/python3 "$2/add_two_ints.py" 2 40 >"$out/cli" 2>&1 || fail "client"
  wait %1 || fail "server"
  grep -qx '2 + 40 = 42' "$out/cli" || fail "blocking call"
  grep -qx 'awaited: 40 + 2 = 42' "$out/cli" || fail "awaited call"
  grep -qx 'served 2 requests' "$out/srv" || fail "server summary" ;;
cpp)
  timeout 60 "$2/example_cpp_service" serve 3 >"$out/srv" 2>&1 &
  timeout 60 "$2/example_cpp_service" 5 >"$out/cli" 2>&1 || fail "client"
  wait %1 || fail "server"
  grep -qx 'set true: success 1 (was off)' "$out/cli" || fail "first call"
  grep -qx 'future: success 1 (was on)' "$out/cli" || fail "future call"
  grep -qx 'callback: success 1 (was on)' "$out/cli" || fail "callback call"
  grep -qx 'served 3 requests' "$out/srv" || fail "server summary" ;;
*) echo "unknown example $name"; exit 2 ;;
esac
echo "example $name service: ok"
