#!/usr/bin/env bash
# Services in zcast list, top and doctor (issue 23, "Tools"): list shows one line per service and
# hides the topics it is made of unless --all (--json: a "services" array); top shows per-service
# rows (calls/s, pending, servers, clients); doctor finds a client without a server, a type hash
# other than the installed definition's, the response topic of a killed client (with a fix that
# works), and not that of a client that left while a live server still holds it. Members come from
# tests/svc_tools/svc_tools_peer.c.
# Usage: svc_tools_test.sh ZCAST PEER
set -euo pipefail
zcast=$1 peer=$2
. "$(dirname "$0")/../zt_scene.sh"
scene tsvc-tools
# start NAME ARGS...: a peer in the background, until it says ready; its pid in $pid.
start() {
  local log=$tmpd/$1.out
  shift
  "$peer" "$@" >"$log" 2>&1 &
  pid=$!
  for _ in $(seq 400); do grep -qs ready "$log" && return 0; sleep 0.05; done
  fail "peer $* not ready: $(cat "$log")"
}
# stop_peer PID: SIGSTOP, returned once every thread of PID is stopped (kill only queues the stop;
# a thread still running could sweep a dead client's topic away before the check).
stop_peer() {
  kill -STOP "$1"
  for _ in $(seq 400); do
    local running=0 t
    for t in /proc/"$1"/task/*/stat; do
      [ "$(sed 's/.*) //' "$t" 2>/dev/null | cut -c1)" = T ] || running=1
    done
    [ "$running" -eq 0 ] && return 0
    sleep 0.01
  done
  fail "peer $1 did not stop"
}
py() { /usr/bin/python3 -c "$1" "$out" || fail "$2: $out"; }

# ---- list: one line per service, its topics only with --all ----
start srv_echo server /st/echo answer
srv_echo=$pid
start cli_echo client /st/echo loop
cli_echo=$pid
start srv_slow server /st/slow hold
srv_slow=$pid
start cli_slow client /st/slow 3
cli_slow=$pid
expect_rc 0 "$zcast" list -w 0
grep -qE '^/st/echo +\(untyped\) +1 +1 *$' <<<"$out" || fail "list: no service row for /st/echo: $out"
grep -q '^SERVICE ' <<<"$out" || fail "list: no services header: $out"
grep -q '_rq\|_rs/' <<<"$out" && fail "list shows a service's own topics: $out"
expect_rc 0 "$zcast" list -w 0 --all
grep -q '^/st/echo/_rq ' <<<"$out" && grep -q '^/st/echo/_rs/c' <<<"$out" ||
  fail "list --all lacks the service's topics: $out"
expect_rc 0 "$zcast" list -w 0 --json
py '
import json, sys
d = json.loads(sys.argv[1])
assert d["topics"] == [], d
s = {x["service"]: x for x in d["services"]}
assert sorted(s) == ["/st/echo", "/st/slow"], s
assert s["/st/echo"]["servers"] == 1 and s["/st/echo"]["clients"] == 1, s
assert s["/st/slow"]["pending"] == 3 and s["/st/slow"]["no_server"] is False, s' "list --json"
expect_rc 0 "$zcast" list -w 0 --json --all
py '
import json, sys
d = json.loads(sys.argv[1])
t = {x["topic"]: x for x in d["topics"]}
assert t["/st/echo/_rq"]["service_part"] == "requests", t
assert len(d["services"]) == 2, d' "list --json --all"

# ---- top: per-service rows ----
expect_rc 0 "$zcast" top --once -i 0.3 --json
py '
import json, sys
d = json.loads(sys.argv[1])
assert d["topics"] == [], d
s = {x["service"]: x for x in d["services"]}
assert s["/st/echo"]["calls_per_s"] > 0 and s["/st/echo"]["servers"] == 1, s
assert s["/st/echo"]["clients"] == 1, s
assert s["/st/slow"]["pending"] == 3 and s["/st/slow"]["calls_per_s"] == 0, s' "top --json"
expect_rc 0 "$zcast" top -n 1 -i 0.3
grep -qE '^/st/slow +\(untyped\) +0\.0 +3 +1 +1 *$' <<<"$out" || fail "top: /st/slow row: $out"
grep -qE '^SERVICE +TYPE +CALLS/s +PENDING +SERVERS +CLIENTS' <<<"$out" || fail "top: header: $out"
grep -q '_rq' <<<"$out" && fail "top shows a service's own topics: $out"
expect_rc 0 "$zcast" top -n 1 -i 0.1 --all
grep -q '^/st/echo/_rq ' <<<"$out" || fail "top --all lacks /st/echo/_rq: $out"

# ---- doctor: all well so far ----
expect_rc 0 "$zcast" doctor
grep -q '^ok  *services  *2 in domain' <<<"$out" || fail "doctor: services ok line: $out"

# ---- doctor: the response topic of a killed client, and its fix ----
# A live server removes a killed client's response topic at once (server_sweep.c): stopped, it
# cannot, as when every server of the service died with the client.
rs=$("$zcast" list -w 0 --all | awk '$1 ~ /^\/st\/slow\/_rs\// {print $1}')
[ -n "$rs" ] || fail "no response topic of /st/slow"
stop_peer "$srv_slow"
kill -9 "$cli_slow"
wait "$cli_slow" 2>/dev/null || true
expect_rc 6 "$zcast" doctor
grep -q "^PROBLEM $ZCAST_DOMAIN $rs .*response topic of a client of /st/slow that died" <<<"$out" ||
  fail "doctor: no finding for $rs: $out"
fix=$(grep -A1 "^PROBLEM $ZCAST_DOMAIN $rs" <<<"$out" | sed -n 's/^ *fix: //p')
[ "$fix" = "zcast -d $ZCAST_DOMAIN gc $rs" ] || fail "doctor: fix for $rs is '$fix': $out"
grep -c "$rs" <<<"$out" | grep -qx 2 || fail "doctor reports $rs more than once: $out"
${fix/#zcast/$zcast} >/dev/null # the fix as doctor wrote it
kill -CONT "$srv_slow" # its death watcher reclaims the client's record on /st/slow/_rq
for _ in $(seq 100); do "$zcast" doctor >/dev/null 2>&1 && break; sleep 0.1; done
expect_rc 0 "$zcast" doctor
grep -q "$rs" <<<"$out" && fail "doctor after the fix: $out"

# ---- doctor: a client that left, whose server still holds its response topic ----
# A live process that uses the topic (here a stopped server's route publisher) makes it a live
# service's state, not a finding (zcast_topic_stat.in_use); once the server runs again its sweep
# removes the topic (server_sweep.c).
rs=$("$zcast" list -w 0 --all | awk '$1 ~ /^\/st\/echo\/_rs\// {print $1}')
stop_peer "$srv_echo"
kill -TERM "$cli_echo"
wait "$cli_echo" || fail "the looping client did not close cleanly"
expect_rc 0 "$zcast" -d "$ZCAST_DOMAIN" info "$rs" # still there: held by the server
expect_rc 0 "$zcast" doctor
grep -q "$rs" <<<"$out" && fail "doctor reports $rs, which a live server holds: $out"
kill -CONT "$srv_echo"
for _ in $(seq 100); do "$zcast" info "$rs" >/dev/null 2>&1 || break; sleep 0.1; done
expect_rc 0 "$zcast" doctor
grep -q "$rs" <<<"$out" && fail "doctor after the server removed $rs: $out"

# ---- doctor: clients without a server; a type hash other than the installed one ----
start cli_none client /st/none 0
start srv_typed server /st/typed hold std_srvs/srv/SetBool 11
expect_rc 0 "$zcast" doctor --json
py '
import json, sys
d = json.loads(sys.argv[1])
c = {x["check"]: x for x in d["checks"]}
dom = "'"$ZCAST_DOMAIN"'"
n = c[dom + " service /st/none"]
assert n["status"] == "warn" and "no server" in n["detail"], n
t = c[dom + " service /st/typed"]
assert t["status"] == "warn" and "RIHS01_" + "11" * 32 in t["detail"], t
assert "RIHS01_abe9e4bb6b41b40e6789712c00ec8871923e089af3f667a79992a428cff2da0a" in t["detail"], t
assert "services" not in c and d["problems"] == 0, d' "doctor --json"
expect_rc 0 "$zcast" list -w 0
grep -qE '^/st/none +\(untyped\) +0 +1 +NO SERVER$' <<<"$out" || fail "list: NO SERVER flag: $out"
echo "svc_tools: ok"
