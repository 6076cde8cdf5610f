# Helpers of the bridge scenario tests (sourced after netns.sh, with BRIDGE set): a work directory,
# cleanup of the namespaces, processes and /dev/shm files, failure with the logs, waiting for a log
# line, and starting a bridge until all its routes are active.
#   zbh_init <name>   sets id, DA, DB, W and the traps; brings the namespaces up (inA / inB)
zbh_init() {
  zb_netns_check
  id=$$ DA=zbA$$ DB=zbB$$
  W=$(mktemp -d "/tmp/zcast-$1.XXXXXX")
  pids=()
  trap zbh_cleanup EXIT
  [ -n "${ZB_KEEP:-}" ] && trap "cp -r $W /tmp/zbkeep; zbh_cleanup" EXIT
  trap "exit 1" INT TERM
  zb_netns_up "$id" || fail "setting up the namespaces and the veth pair"
  inA=("${inA[@]}" ZCAST_DOMAIN="$DA")
  inB=("${inB[@]}" ZCAST_DOMAIN="$DB")
}
zbh_cleanup() {
  for p in "${pids[@]}"; do kill -9 "$p" 2>/dev/null; done
  wait 2>/dev/null
  zb_netns_down
  rm -f /dev/shm/zcast."$DA".* /dev/shm/zcast."$DB".* /dev/shm/zcast-bridge."$DA".* \
    /dev/shm/zcast-bridge."$DB".*
  rm -rf "$W"
}
fail() { echo "FAIL: $*"; for f in "$W"/*.log; do echo "--- $f"; grep -v ": active$" "$f" | tail -n 30; done; exit 1; }
wait_for() { # file pattern what: waits up to 20 s for a line matching pattern
  for _ in $(seq 400); do grep -qE "$2" "$1" 2>/dev/null && return 0; sleep 0.05; done
  fail "timed out waiting for $3"
}
# zbh_bridge <name> <A|B> <conf> [prefix...]: starts a bridge (after the namespace prefix, an optional
# command prefix, e.g. a private /dev/shm), sets pid_<name>, waits until every route is active.
zbh_bridge() {
  local name=$1 conf=$3 n
  local -n ns=in$2
  shift 3
  [ -r "$conf" ] || fail "bridge $name: no config file $conf"
  n=$(grep -cE '^(in|out|service) ' "$conf")
  # The log exists before the wait below reads it: the background job creates it only when it
  # gets to run, and a count of a missing file is empty ("[: : integer expression expected").
  : > "$W/$name.log"
  "${ns[@]}" "$@" "$BRIDGE" "$conf" >> "$W/$name.log" 2>&1 &
  pids+=($!); eval "pid_$name=$!"
  for _ in $(seq 200); do
    [ "$(grep -c ': active$' "$W/$name.log" 2>/dev/null)" -ge "$n" ] && return 0
    sleep 0.05
  done
  fail "bridge $name did not become active"
}
