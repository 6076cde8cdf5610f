#!/usr/bin/env bash
# zcast service list / info / call against typed servers (tests/svc/svc_cli_server.c): typed
# requests from YAML flow values with defaults, the typed response printed, JSON of list and info,
# services marked in `zcast list --json --all`, a call waiting for its first server, `doctor` warning of
# a service with clients and no server, a server of another service type refusing the call with
# both hashes, bad arguments as `ARGUMENT: what` with exit status 2.
# Usage: svc_cli_test.sh ZCAST SERVER
set -euo pipefail
zcast=$1 server=$2
. "$(dirname "$0")/../zt_scene.sh"
scene tsvc-cli
has() { grep -qF -- "$1" <<<"$out" || fail "no '$1' in: $out"; }
# start_server NAME [setbool]: until `zcast service list` shows its server.
start_server() {
  "$server" "$@" >"$tmpd/server.out" &
  for _ in $(seq 400); do
    "$zcast" service list 2>/dev/null | grep -qE "^$1 .* 1 +[0-9]+ +[0-9]+\$" && return 0
    sleep 0.05
  done
  fail "no server of $1"
}

start_server /svc/add
expect_rc 0 "$zcast" service list
has "example_interfaces/srv/AddTwoInts"
expect_rc 0 "$zcast" service call /svc/add example_interfaces/srv/AddTwoInts '{a: 2, b: 40}'
[ "$out" = "  sum: 42" ] || fail "call printed: $out"
expect_rc 0 "$zcast" service call /svc/add example_interfaces/AddTwoInts 'b: -7' # a keeps 0
[ "$out" = "  sum: -7" ] || fail "call with a default printed: $out"

expect_rc 0 "$zcast" service info /svc/add
has "servers: 1"
has "example_interfaces/srv/AddTwoInts RIHS01_e118de6bf5eeb66a2491b5bda11202e7b68f198d6f67922cf30364858239c81a"
has "server  id"
expect_rc 0 "$zcast" service info /svc/add --json
/usr/bin/python3 -c '
import json, sys
s = json.loads(sys.argv[1])
assert s["service"] == "/svc/add" and s["servers"] == 1 and s["type"] == "example_interfaces/srv/AddTwoInts", s
assert [m["role"] for m in s["members"]] == ["server"], s' "$out" || fail "info --json: $out"
expect_rc 0 "$zcast" service list --json
/usr/bin/python3 -c '
import json, sys
v = json.loads(sys.argv[1])
assert [(s["service"], s["servers"]) for s in v] == [("/svc/add", 1)], v' "$out" || fail "list --json: $out"
expect_rc 0 "$zcast" list --json --window 0 --all
/usr/bin/python3 -c '
import json, sys
v = {t["topic"]: t for t in json.loads(sys.argv[1])["topics"]}
t = v["/svc/add/_rq"]
assert t["service"] == "/svc/add" and t["service_part"] == "requests", t
rs = [t for n, t in v.items() if n.startswith("/svc/add/_rs/")]
assert all(t["service_part"] == "responses" for t in rs), rs' "$out" || fail "list --json: $out"

# another service type: refused where client meets server, both hashes named
expect_rc 1 "$zcast" service call /svc/add std_srvs/srv/SetBool '{data: true}'
has "RIHS01_e118de6bf5eeb66a2491b5bda11202e7b68f198d6f67922cf30364858239c81a"
has "RIHS01_abe9e4bb6b41b40e6789712c00ec8871923e089af3f667a79992a428cff2da0a"

# bad arguments: `ARGUMENT: what`, exit 2
expect_rc 2 "$zcast" service call /svc/add example_interfaces/AddTwoInts '{a: x}'
has "VALUES: member a: 'x' is not a int64"
expect_rc 2 "$zcast" service call /svc/add example_interfaces/AddTwoInts '{c: 1}'
has "VALUES: "
has "c"
expect_rc 2 "$zcast" service call /svc/add nopkg/srv/Missing '{}'
has "TYPE: nopkg/srv/Missing is not a service type"
expect_rc 2 "$zcast" service call 'bad name' example_interfaces/AddTwoInts
has "NAME: 'bad name' is not a valid service name"
expect_rc 2 "$zcast" service call /svc/add
has "NAME and TYPE are required"
expect_rc 2 "$zcast" service frobnicate
has "'frobnicate': expected list, info or call"
expect_rc 2 "$zcast" service call /svc/add example_interfaces/AddTwoInts --timeout x
expect_rc 3 "$zcast" service info /svc/nothing
has "no service /svc/nothing"

# a call waits for its first server; meanwhile doctor warns of a client without a server
"$zcast" service call /svc/switch std_srvs/SetBool '{data: true}' --timeout 60 >"$tmpd/call.out" 2>&1 &
call=$!
for _ in $(seq 400); do
  "$zcast" service list | grep -qE '^/svc/switch .* 0 +1 +[0-9]+$' && break
  sleep 0.05
done
expect_rc 0 "$zcast" service info /svc/switch
has "clients: 1"
has "servers: 0"
expect_rc 0 "$zcast" doctor
has "service /svc/switch"
has "1 client(s), no server"
start_server /svc/switch setbool
wait "$call" || fail "the waiting call failed: $(cat "$tmpd/call.out")"
grep -qx "  success: true" "$tmpd/call.out" && grep -qx '  message: "on"' "$tmpd/call.out" ||
  fail "the waiting call printed: $(cat "$tmpd/call.out")"
echo "svc_cli: ok"
