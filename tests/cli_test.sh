#!/usr/bin/env bash
# The zcast command-line tool end to end: every command and option path, JSON validity, exit codes,
# a stopped FULL subscriber shown as refusing, the no-publisher warning, pub's refusal of a typed
# topic, top through tmux, gc/doctor after a crash.
# Usage: cli_test.sh ZCAST CLI_PEER
set -euo pipefail
zcast=$1
peer=$2
. "$(dirname "$0")/zt_scene.sh"
scene tcli
# One tmux server per live view: a new server on the socket of one that is exiting fails with
# "server exited unexpectedly".
tmux_sock="zcast-cli-$$"
tmux_sock2="zcast-cli2-$$"
cleanup() {
  for s in "$tmux_sock" "$tmux_sock2"; do
    tmux -L "$s" kill-server 2>/dev/null || true
    rm -f "${TMUX_TMPDIR:-/tmp}/tmux-$(id -u)/$s"
  done
  scene_cleanup
}
trap cleanup EXIT
json() { /usr/bin/python3 -m json.tool >/dev/null || fail "not valid JSON: $1"; }
json_lines() { /usr/bin/python3 -m json.tool --json-lines >/dev/null || fail "not valid JSON lines: $1"; }
# Reads a field of `zcast info --json TOPIC`.
info_field() {
  "$zcast" info --json "$1" | /usr/bin/python3 -c "import json,sys; print(json.load(sys.stdin)['$2'])"
}
has_subscribers() { [ "$(info_field "$1" subscribers)" -ge "$2" ]; }
seq_at_least() { [ "$(info_field "$1" last_sequence)" -ge "$2" ]; }

commands="list info echo hz bw delay pub top gc rm doctor interface"

# ---- help, version, usage errors (exit 2) ----
expect_rc 0 "$zcast" --version; grep -q '^zcast [0-9]' <<<"$out" || fail "--version: $out"
expect_rc 0 "$zcast" --help; grep -q 'exit status' <<<"$out" || fail "--help lacks exit codes"
for c in $commands; do
  expect_rc 0 "$zcast" "$c" --help; grep -q "^usage: zcast $c" <<<"$out" || fail "$c --help: $out"
  expect_rc 0 "$zcast" "$c" -h
  expect_rc 2 "$zcast" "$c" --no-such-option; grep -q "unknown option '--no-such-option'" <<<"$out" || fail "$c: $out"
  expect_rc 2 "$zcast" "$c" -d; grep -q "needs a value" <<<"$out" || fail "$c -d without value: $out"
  expect_rc 2 "$zcast" "$c" -d 'bad.domain' /x; grep -q "invalid domain" <<<"$out" || fail "$c bad domain: $out"
done
# The man page documents every command and every long option.
man=$(dirname "$0")/../docs/man/zcast.1
for c in $commands; do
  grep -q "^\.B $c\b" "$man" || fail "zcast.1 does not document $c"
  for o in $("$zcast" "$c" --help | grep -o '^  \(-., \|    \)--[a-z-]*' | grep -o -- '--[a-z-]*'); do
    grep -qF -- "$(sed 's/-/\\-/g' <<<"$o")" "$man" || fail "zcast.1 does not mention $c $o"
  done
done
grep -q 'rate (default 1 Hz)' <<<"$("$zcast" pub --help)$("$zcast" --help)" || fail "pub --help shows no rate"
expect_rc 2 "$zcast"
expect_rc 2 "$zcast" frobnicate; grep -q "unknown command" <<<"$out" || fail "unknown command: $out"
expect_rc 2 "$zcast" --frob list
expect_rc 2 "$zcast" info; grep -q "missing argument" <<<"$out" || fail "info without topic: $out"
expect_rc 2 "$zcast" info /a /b; grep -q "unexpected argument" <<<"$out" || fail "extra argument: $out"
expect_rc 2 "$zcast" echo /a -n abc; grep -q "whole number" <<<"$out" || fail "bad number: $out"
expect_rc 2 "$zcast" echo /a --count=-1
expect_rc 2 "$zcast" hz /a --interval 0
expect_rc 2 "$zcast" pub /a x --json          # pub prints no data: no --json
expect_rc 2 "$zcast" pub /a --once --hex=1
expect_rc 2 "$zcast" list --domains=yes; grep -q "takes no value" <<<"$out" || fail "flag with value: $out"
expect_rc 2 "$zcast" pub /a; grep -q "either TEXT or --file" <<<"$out" || fail "pub without data: $out"
expect_rc 2 "$zcast" pub /a x --file /dev/null
expect_rc 2 "$zcast" info 'bad name'; grep -q "invalid topic name" <<<"$out" || fail "bad name: $out"
expect_rc 2 "$zcast" echo 'bad name'
expect_rc 2 "$zcast" gc; grep -q "TOPIC or --all" <<<"$out" || fail "gc without target: $out"
expect_rc 3 "$zcast" info /nope; grep -q "no such topic" <<<"$out" || fail "info /nope: $out"
expect_rc 3 "$zcast" rm /nope
expect_rc 3 "$zcast" gc /nope

# ---- a live publisher: list, info, echo, hz, bw, delay ----
"$zcast" pub /cli/chatter "hello zcast" -r 100 --history 4 >/dev/null &
pub=$!
wait_for "the publisher" seq_at_least /cli/chatter 5
expect_rc 0 "$zcast" list
grep -q '^/cli/chatter .*(untyped) .* 1 *0 ' <<<"$out" || fail "list row: $out"
grep -q 'NO PUBLISHER' <<<"$out" && fail "list flags a published topic: $out"
rate=$(awk '/^\/cli\/chatter/ {print $5}' <<<"$out")
awk -v r="$rate" 'BEGIN {exit !(r > 0)}' || fail "list shows no rate: $out"
"$zcast" list --json | json "list --json"
"$zcast" list --json -w 0 | /usr/bin/python3 -c '
import json, sys
t = json.load(sys.stdin)["topics"]
assert t[0]["topic"] == "/cli/chatter" and t[0]["publishers"] == 1 and t[0]["no_publisher"] is False, t
assert t[0]["rate_hz"] is None, t' || fail "list --json fields"
# -d before the command, after it, and as --domain=; options after the subcommand.
listed=$("$zcast" -d "$other" list -w 0)
grep -q chatter <<<"$listed" && fail "another domain shows our topic"
env -u ZCAST_DOMAIN "$zcast" list -w 0 -d "$ZCAST_DOMAIN" | grep -q '^/cli/chatter' || fail "list -d after the command"
env -u ZCAST_DOMAIN "$zcast" list --domain="$ZCAST_DOMAIN" -w 0 | grep -q '^/cli/chatter' || fail "--domain="
env -u ZCAST_DOMAIN "$zcast" -d "$ZCAST_DOMAIN" info /cli/chatter >/dev/null || fail "-d before the command"
"$zcast" list --domains | grep -q "^$ZCAST_DOMAIN .*1 topic" || fail "list --domains"
"$zcast" list --domains --json | json "list --domains --json"

expect_rc 0 "$zcast" info /cli/chatter
grep -q 'publishers:   1 of 16' <<<"$out" || fail "info: publisher count: $out"
grep -Eq "^  pub +$pub zcast .* alive" <<<"$out" || fail "info: publisher row (pid $pub, process zcast): $out"
"$zcast" info --json /cli/chatter | json "info --json"
"$zcast" info /cli/chatter --json | /usr/bin/python3 -c '
import json, sys
t = json.load(sys.stdin)
m = [x for x in t["members"] if x["role"] == "pub"]
assert len(m) == 1 and m[0]["alive"] and m[0]["process"] == "zcast" and m[0]["slots"] == 12, t' ||
  fail "info --json members"

out=$(timeout 10 "$zcast" echo /cli/chatter -n 3)
[ "$(grep -c '"hello zcast"' <<<"$out")" -eq 3 ] || fail "echo -n 3: $out"
grep -q 'latency .* age ' <<<"$out" || fail "echo shows no latency/age: $out"
out=$(timeout 10 "$zcast" echo /cli/chatter --once)
[ "$(wc -l <<<"$out")" -eq 1 ] || fail "echo --once: $out"
out=$(timeout 10 "$zcast" echo /cli/chatter --once -x)
grep -q '68 65 6c 6c 6f 20 7a 63  *61 73 74 00' <<<"$out" || grep -q '68 65 6c 6c 6f 20 7a 63 61 73 74 00' <<<"$out" ||
  fail "echo --hex: $out"
out=$(timeout 10 "$zcast" echo /cli/chatter --once --bytes 5)
grep -q '"hello" ... (7 more bytes)' <<<"$out" || fail "echo --bytes: $out"
timeout 10 "$zcast" echo /cli/chatter --json -n 2 | json_lines "echo --json"
timeout 10 "$zcast" echo /cli/chatter --once --json | /usr/bin/python3 -c '
import json, sys
m = json.load(sys.stdin)
assert m["text"] == "hello zcast" and m["size"] == 12 and m["latency_ns"] >= 0 and m["sequence"] > 0, m' ||
  fail "echo --json fields"
# History: the 4 kept messages come first, marked as such, oldest first.
timeout 10 "$zcast" echo /cli/chatter --history 4 -n 4 --json | /usr/bin/python3 -c '
import json, sys
ms = [json.loads(l) for l in sys.stdin]
assert len(ms) == 4 and all(m["history"] for m in ms), ms
seqs = [m["sequence"] for m in ms]
assert seqs == sorted(seqs) and seqs[-1] - seqs[0] == 3, seqs' || fail "echo --history"
grep -q '(history)' <<<"$(timeout 10 "$zcast" echo /cli/chatter --history 1 --once)" || fail "history not marked"
# "Up to N": more than the topic keeps (and than its history capacity, 64) prints what it keeps.
timeout 10 "$zcast" echo /cli/chatter --history 100 -n 4 --json | /usr/bin/python3 -c '
import json, sys
ms = [json.loads(l) for l in sys.stdin]
assert len(ms) == 4 and all(m["history"] for m in ms), ms' || fail "echo --history above what is kept"

out=$(timeout 20 "$zcast" hz /cli/chatter -n 1 -i 0.5)
grep -Eq '^rate [0-9.]+ Hz  period min [0-9.]+ s  max [0-9.]+ s  std dev [0-9.]+ s' <<<"$out" || fail "hz: $out"
timeout 20 "$zcast" hz /cli/chatter -n 2 -i 0.3 --window 10 --json | json_lines "hz --json"
timeout 20 "$zcast" hz /cli/chatter -n 1 -i 0.5 --window 10 --json | /usr/bin/python3 -c '
import json, sys
r = json.load(sys.stdin)
assert r["rate_hz"] > 0 and r["periods"] <= 9 and r["period_min_s"] <= r["period_max_s"], r' || fail "hz --window"
out=$(timeout 20 "$zcast" bw /cli/chatter -n 1 -i 0.3)
grep -Eq '/s  message mean 12 B  min 12 B  max 12 B' <<<"$out" || fail "bw: $out"
timeout 20 "$zcast" bw /cli/chatter -n 1 -i 0.3 --json | json "bw --json"
out=$(timeout 20 "$zcast" delay /cli/chatter -n 1 -i 0.3)
grep -q '^delay p50 .* p90 .* p99 .* min .* max ' <<<"$out" || fail "delay: $out"
timeout 20 "$zcast" delay /cli/chatter -n 1 -i 0.3 --json | /usr/bin/python3 -c '
import json, sys
r = json.load(sys.stdin)
assert 0 <= r["min_ns"] <= r["p50_ns"] <= r["p90_ns"] <= r["p99_ns"] <= r["max_ns"], r' || fail "delay --json"
# A publisher that comes and goes: hz says so, reports only news, and --timeout (inactivity) ends it.
"$zcast" hz /cli/short -i 0.3 -t 2.5 >"$tmpd/short" 2>&1 &
hz_pid=$!
wait_for "hz on /cli/short" has_subscribers /cli/short 1
"$zcast" pub /cli/short x -n 30 -r 20 || fail "pub to /cli/short"  # 1.5 s: hz looks once a second
rc=0; wait $hz_pid || rc=$?
[ $rc -eq 4 ] || fail "hz after its publisher stopped exited $rc: $(cat "$tmpd/short")"
grep -q '^rate ' "$tmpd/short" || fail "hz: no rate: $(cat "$tmpd/short")"
grep -q '^no new messages' "$tmpd/short" || fail "hz: no 'no new messages': $(cat "$tmpd/short")"
sed -n '/^no new messages/,$p' "$tmpd/short" | grep -q '^rate ' && fail "hz reported a stale window again: $(cat "$tmpd/short")"
grep -q 'a publisher joined /cli/short' "$tmpd/short" || fail "hz: publisher join not said: $(cat "$tmpd/short")"
grep -q '/cli/short has no publisher in domain .* any more' "$tmpd/short" || fail "hz: publisher gone not said: $(cat "$tmpd/short")"
grep -q 'nothing received on /cli/short for 2.5 s' "$tmpd/short" || fail "hz inactivity: $(cat "$tmpd/short")"
# Ctrl-C ends a stream cleanly (exit 0).
timeout --preserve-status -s INT 2 "$zcast" hz /cli/chatter >/dev/null || fail "hz after SIGINT exited $?"

# ---- a watcher that stops reading never holds up a publisher: its short DROP_OLD queue (a quarter
# of the pool) keeps few of the publisher's slots (a 16-deep queue took all 8 of zcast pub's) ----
("$zcast" echo /cli/stall 2>/dev/null | sleep 60) &
stalled=$!
wait_for "the stalled echo" has_subscribers /cli/stall 1
"$zcast" pub /cli/stall "0123456789abcdef" -n 20000 -r 0 --timeout 0.5 || fail "a stalled echo held up pub"
"$zcast" info --json /cli/stall | /usr/bin/python3 -c '
import json, sys
s = [m for m in json.load(sys.stdin)["members"] if m["role"] == "sub"][0]
assert s["policy"] == "DROP_OLD" and s["depth"] == 2 and s["held"] <= 1 and s["dropped"] > 0, s' ||
  fail "the stalled echo's queue"
pkill -P $stalled || true; kill $stalled 2>/dev/null || true; wait $stalled 2>/dev/null || true

# ---- a misspelled topic: said on stderr, with similar names; --timeout exits 4 ----
expect_rc 4 "$zcast" echo /cli/chater --timeout 0.5
grep -q 'topic /cli/chater has no publisher in domain .* (the topic does not exist yet); waiting' <<<"$out" ||
  fail "no-publisher warning: $out"
grep -q 'did you mean: */cli/chatter' <<<"$out" || fail "similar topics: $out"
grep -q 'nothing received on /cli/chater for 0.5 s' <<<"$out" || fail "timeout message: $out"
expect_rc 4 "$zcast" hz /cli/nothing_here -t 0.3
grep -q 'has no publisher' <<<"$out" || fail "hz no-publisher warning: $out"
"$zcast" list -w 0 | grep -q chater && fail "a timed-out echo left its topic behind"
# A subscriber-created topic is flagged in list.
"$peer" sub /cli/lonely drop 4 >"$tmpd/lonely" &
lonely=$!
wait_for "the lonely subscriber" grep -q ready "$tmpd/lonely"
"$zcast" list -w 0 | grep -q '^/cli/lonely .*NO PUBLISHER' || fail "list does not flag a topic without publisher"
"$zcast" list --json -w 0 | /usr/bin/python3 -c '
import json, sys
t = {x["topic"]: x for x in json.load(sys.stdin)["topics"]}
assert t["/cli/lonely"]["no_publisher"] is True and t["/cli/lonely"]["subscribers"] == 1, t' || fail "list --json no_publisher"
kill $lonely; wait $lonely 2>/dev/null || true  # SIGTERM: dies without leaving, a dead member
expect_rc 0 "$zcast" rm /cli/lonely
"$zcast" list -w 0 | grep -q lonely && fail "rm left the topic"

# ---- pub: files, stdin, counts; echo receives exactly that ----
"$zcast" echo /cli/bin --once --json --timeout 20 >"$tmpd/bin.json" 2>"$tmpd/bin.err" &
echo_pid=$!
wait_for "echo on /cli/bin" has_subscribers /cli/bin 1
printf '\000\001\002\377' >"$tmpd/bin"
"$zcast" pub /cli/bin --file "$tmpd/bin" --once || fail "pub --file"
wait $echo_pid || fail "echo of the file exited $?"
grep -q '"data_hex":"000102ff"' "$tmpd/bin.json" || fail "pub --file bytes: $(cat "$tmpd/bin.json")"
grep -q '"text"' "$tmpd/bin.json" && fail "binary payload shown as text"
"$zcast" echo /cli/stdin -n 3 --json --timeout 20 >"$tmpd/stdin.json" 2>"$tmpd/stdin.err" &
echo_pid=$!
wait_for "echo on /cli/stdin" has_subscribers /cli/stdin 1
printf 'abc' | "$zcast" pub /cli/stdin --file - -n 3 -r 10 || fail "pub --file -"
wait $echo_pid || fail "echo of stdin exited $?"
[ "$(grep -c '"data_hex":"616263"' "$tmpd/stdin.json")" -eq 3 ] || fail "pub -n 3 from stdin: $(cat "$tmpd/stdin.json")"
expect_rc 1 "$zcast" pub /cli/bin --file "$tmpd/missing" --once; grep -q "cannot open" <<<"$out" || fail "missing file: $out"

# ---- pub refuses a typed topic unless --force ----
"$peer" typed-pub /cli/typed demo/Point >"$tmpd/typed" &
typed=$!
wait_for "the typed publisher" grep -q ready "$tmpd/typed"
expect_rc 5 "$zcast" pub /cli/typed x --once
grep -q 'has type demo/Point.*--force' <<<"$out" || fail "typed refusal message: $out"
expect_rc 0 "$zcast" pub /cli/typed x --once --force
"$zcast" list -w 0 | grep -q '^/cli/typed  *demo/Point' || fail "list shows no type"
grep -Eq '^RIHS01_0{64}$' <<<"$(info_field /cli/typed type_hash)" || fail "info type hash" # untyped hash: all zero
kill $typed; wait $typed 2>/dev/null || true

# ---- a stopped FULL subscriber refuses publishes: info names it, top counts it ----
"$peer" sub /cli/full full 2 >"$tmpd/full" &
full=$!
wait_for "the FULL subscriber" grep -q ready "$tmpd/full"
"$zcast" pub /cli/full x -n 2 -r 0 || fail "publishing to a taking FULL subscriber"
queue_empty() { "$zcast" info --json "$1" | /usr/bin/python3 -c '
import json, sys
assert all(m["queued"] == 0 for m in json.load(sys.stdin)["members"] if m["role"] == "sub")'; }
wait_for "the FULL subscriber to take both" queue_empty /cli/full
kill -STOP $full
expect_rc 1 "$zcast" pub /cli/full x -n 4 -r 0 --timeout 0.2
grep -q 'publish refused' <<<"$out" || fail "pub into a full FULL queue: $out"
grep -q '2 of 4 publishes refused' <<<"$out" || fail "refusal count: $out"
expect_rc 0 "$zcast" info /cli/full
grep -Eq "^  sub +$full cli_peer +FULL +2/2 .* alive +REFUSING" <<<"$out" || fail "info does not show the refusing subscriber: $out"
grep -q '1 subscriber is refusing publishes now (queue full' <<<"$out" || fail "info refusal summary: $out"
"$zcast" info /cli/full --json | /usr/bin/python3 -c '
import json, sys
t = json.load(sys.stdin)
s = [m for m in t["members"] if m["role"] == "sub"][0]
assert t["refusing"] == 1 and s["refusing"] and s["queued"] == 2 and s["depth"] == 2, t
assert s["policy"] == "FULL" and s["rejected"] >= 2 and s["pid"] == '"$full"', t' || fail "info --json refusing"
"$zcast" top --once -i 0.2 --json | /usr/bin/python3 -c '
import json, sys
t = {x["topic"]: x for x in json.load(sys.stdin)["topics"]}
assert t["/cli/full"]["refusing"] == 1 and t["/cli/full"]["fill"] == 1.0, t' || fail "top --json refusing"
kill -CONT $full
wait_for "the FULL subscriber to drain" sh -c "! '$zcast' info /cli/full | grep -q REFUSING"

# ---- top: snapshots for scripts, and the live view through a terminal (tmux) ----
out=$("$zcast" top --iterations 2 -i 0.2)
[ "$(grep -c '^zcast top - domain' <<<"$out")" -eq 2 ] || fail "top --iterations 2: $out"
grep -q '^/cli/chatter ' <<<"$out" || fail "top lacks a topic: $out"
"$zcast" top -n 2 -i 0.2 --json | json_lines "top --json"
tmux -L "$tmux_sock" new-session -d -s top -x 160 -y 40 \
  "env ZCAST_DOMAIN=$ZCAST_DOMAIN $zcast top -i 0.2; echo top-exited-\$?; sleep 30"
screen() { tmux -L "$tmux_sock" capture-pane -p -t top; }
wait_for "top to draw" sh -c "tmux -L '$tmux_sock' capture-pane -p -t top | grep -q '^/cli/chatter .* 1 '"
screen | grep -q 'q quits' || fail "top in a terminal: $(screen)"
tmux -L "$tmux_sock" send-keys -t top q
wait_for "top to quit on q" sh -c "tmux -L '$tmux_sock' capture-pane -p -t top | grep -q top-exited-0"
tmux -L "$tmux_sock2" new-session -d -s top2 -x 160 -y 40 \
  "env ZCAST_DOMAIN=$ZCAST_DOMAIN $zcast top -i 0.2; echo top-exited-\$?; sleep 30"
wait_for "top to draw" sh -c "tmux -L '$tmux_sock2' capture-pane -p -t top2 | grep -q 'zcast top'"
tmux -L "$tmux_sock2" send-keys -t top2 C-c
wait_for "top to quit on Ctrl-C" sh -c "tmux -L '$tmux_sock2' capture-pane -p -t top2 | grep -q top-exited-0"

# ---- rm refuses live members; gc and doctor after crashes ----
expect_rc 5 "$zcast" rm /cli/chatter; grep -q 'live members' <<<"$out" || fail "rm with live members: $out"
expect_rc 0 "$zcast" gc --dry-run /cli/chatter; grep -q 'nothing to reclaim' <<<"$out" || fail "gc --dry-run: $out"
# The peers killed above (SIGTERM, no close) left dead members: gc --all reclaims them.
expect_rc 0 "$zcast" gc --all
grep -q '/cli/typed: reclaimed 1 dead member' <<<"$out" || fail "gc --all after the typed peer died: $out"
expect_rc 0 "$zcast" doctor
grep -q '^ok *futex_waitv\|^WARN *futex_waitv' <<<"$out" || fail "doctor: no futex_waitv check: $out"
grep -q 'pidfd_open' <<<"$out" || fail "doctor: no pidfd check: $out"
grep -q '^ok *leftovers' <<<"$out" || fail "doctor: leftovers: $out"
"$zcast" doctor --json | json "doctor --json"
kill -9 $pub; wait $pub 2>/dev/null || true
kill -9 $full; wait $full 2>/dev/null || true
expect_rc 6 "$zcast" gc --dry-run --all
grep -q "/cli/chatter: dead pub pid $pub .*process gone" <<<"$out" || fail "gc --dry-run names the dead publisher: $out"
grep -q "/cli/full: dead sub pid $full" <<<"$out" || fail "gc --dry-run names the dead subscriber: $out"
grep -q '2 dead member(s) would be reclaimed' <<<"$out" || fail "gc --dry-run count: $out"
out=$("$zcast" gc --dry-run --all --json) && fail "gc --dry-run --json found nothing"
json "gc --json" <<<"$out"
expect_rc 6 "$zcast" doctor
grep -q "PROBLEM.*/cli/chatter.*leftover: 1 dead member" <<<"$out" || fail "doctor: leftover: $out"
grep -q "fix: zcast -d $ZCAST_DOMAIN gc --all" <<<"$out" || fail "doctor: fix: $out"
out=$("$zcast" doctor --json) && fail "doctor --json exited 0 with leftovers"
/usr/bin/python3 -c '
import json, sys
d = json.load(sys.stdin)
assert d["problems"] == 2 and any(c["status"] == "problem" and c["fix"] for c in d["checks"]), d' <<<"$out" || fail "doctor --json"
"$zcast" info /cli/chatter | grep -Eq "^  pub +$pub .* dead" || fail "info shows the dead publisher"
expect_rc 0 "$zcast" gc /cli/chatter; grep -q 'reclaimed 1 dead member' <<<"$out" || fail "gc TOPIC: $out"
# Its history (--history 4) is kept for the next subscriber after the publisher died; rm removes it.
"$zcast" list -w 0 | grep -q chatter || fail "gc removed a topic whose history was to be kept"
expect_rc 0 "$zcast" rm /cli/chatter
"$zcast" list -w 0 | grep -q chatter && fail "topic remains after rm"
out=$("$zcast" gc --all --json) || fail "gc --all --json"
/usr/bin/python3 -c '
import json, sys
g = json.load(sys.stdin)
assert g["reclaimed"] == 1 and g["dead"][0]["topic"] == "/cli/full" and g["dead"][0]["role"] == "sub", g' <<<"$out" ||
  fail "gc --all --json: $out"
expect_rc 0 "$zcast" doctor
[ -z "$(ls /dev/shm | grep "zcast.$ZCAST_DOMAIN\." || true)" ] || fail "segments left: $(ls /dev/shm | grep "$ZCAST_DOMAIN")"
echo "cli: ok"
