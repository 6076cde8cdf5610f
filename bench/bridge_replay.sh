#!/usr/bin/env bash
# Two-host replay of the bridge (docs/BENCHMARKS.md, "Bridge: two-host replay"): the container
# benchmark's graph (230 topics, 16 containers, seed 1) split over two network namespaces, containers
# 0-7 on host A, 8-15 on host B, each host with its own /dev/shm (a private tmpfs, as two machines
# have) and the same zcast domain name. The cross-host topics (bench/bridge_replay.c) go
#   cyclone: plain Cyclone DDS writers on the publisher's host, one reader per remote subscription
#            (DDS domain 1), then, in the same run,
#   zcast:   zcast publishers -> the publisher host's zcast-bridge (out) -> DDS -> the other host's
#            zcast-bridge (in) -> zcast subscriptions (reliable routes, FULL queues).
# Each for --duration seconds on the plan's schedule. Prints per size class the messages due,
# received, lost and duplicated, the latency p50/p90/p99/max (send -> receive, us), the bridges'
# CPU time per forwarded message, and the host processes' CPU time.
#   bench/bridge_replay.sh <build dir> [--duration S] [--topics T] [--seed N] [--drain S]
#                          [--only zcast|cyclone] [--test]
# Exit 1 if a reliable route lost, duplicated or mangled a message, or a step failed. Needs root
# and `ip netns`: prints "bridge_replay: skipped (...)" and exits 0 otherwise (--test: 77).
set -uo pipefail
BUILD=$(cd "$1" && pwd) || exit 2; shift # absolute: nsenter -m does not keep a relative path
DUR=60 PLAN=() DRAIN=10 ONLY="" TEST=""
while [ $# -gt 0 ]; do
  case $1 in
    --duration) DUR=$2; shift ;;
    --topics|--seed) PLAN+=("$1" "$2"); shift ;;
    --drain) DRAIN=$2; shift ;;
    --only) ONLY=$2; shift ;;
    --test) TEST=1 ;;
    *) echo "bridge_replay: unknown option $1" >&2; exit 2 ;;
  esac
  shift
done
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
BIN=$BUILD/bench/zcast-bench-bridge-replay BRIDGE=$BUILD/bridge/zcast-bridge
if [ "$(id -u)" -ne 0 ] || ! ip netns list >/dev/null 2>&1; then
  echo "bridge_replay: skipped (needs root and ip netns)"; [ -n "$TEST" ] && exit 77; exit 0
fi
. "$ROOT/tests/bridge/netns.sh"
W=$(mktemp -d /tmp/zcast-bridge-replay.XXXXXX) DOM=zbrp$$ FAILED=0
pids=()
cleanup() {
  for p in "${pids[@]}"; do kill -9 "$p" 2>/dev/null; done
  wait 2>/dev/null
  zb_netns_down
  [ -n "${ZB_KEEP:-}" ] && cp -r "$W" /tmp/zbrp-keep
  rm -rf "$W"
}
trap cleanup EXIT
trap "exit 1" INT TERM
fail() { echo "bridge_replay: FAILED: $*"; for f in "$W"/*.log; do echo "--- $f"; grep -v -e ': active$' -e ' remote ' "$f" | tail -n 20; done; exit 1; }
wait_line() { # file pattern seconds what
  local i
  for ((i = 0; i < $3 * 20; i++)); do grep -qE "$2" "$1" 2>/dev/null && return 0; sleep 0.05; done
  fail "timed out waiting for $4"
}
zb_netns_up $$ || fail "setting up the namespaces"
# A private /dev/shm per host, held by a sleeper; every program of the host enters its mounts.
for h in A B; do
  declare -n ns=in$h
  "${ns[@]}" unshare --mount --propagation private sh -c \
    'mount -t tmpfs tmpfs /dev/shm && touch /dev/shm/mounted && exec sleep 100000' &
  pids+=($!)
  for _ in $(seq 400); do [ -e "/proc/$!/root/dev/shm/mounted" ] && break; sleep 0.05; done
  [ -e "/proc/$!/root/dev/shm/mounted" ] || fail "no private /dev/shm on host $h"
  eval "on$h=(\"\${ns[@]}\" ZCAST_DOMAIN=$DOM ZB_DDS_DOMAIN=1 nsenter -t $! -m)"
  unset -n ns
done

echo "# bridge_replay: ${DUR} s, plan ${PLAN[*]:-(230 topics, seed 1)}; load average $(cut -d' ' -f1-3 /proc/loadavg)"
"$BIN" describe "${PLAN[@]}" | sed 's/^/# /'

# The bridges of one host: one, or as few as a bridge's route limit allows (said in the output).
BRIDGES=()
start_bridges() { # host
  local h=$1 routes k=0 n
  "$BIN" conf "$h" "${PLAN[@]}" > "$W/$h.routes"
  routes=$(wc -l < "$W/$h.routes")
  n=$routes
  if ! "$BRIDGE" --check "$W/$h.routes" > /dev/null 2> "$W/check.err"; then
    limit=$(sed -n 's/.*more than \([0-9]*\) routes.*/\1/p' "$W/check.err")
    [ -n "$limit" ] || fail "bridge config of $h: $(cat "$W/check.err")"
    k=$(((routes + limit - 1) / limit)) # as few bridges as the limit allows, evenly loaded
    n=$(((routes + k - 1) / k)) k=0
  fi
  split -l "$n" -d "$W/$h.routes" "$W/$h.part."
  local -n on=on$h
  for f in "$W/$h".part.*; do
    "${on[@]}" "$BRIDGE" "$f" > "$W/bridge$h$k.log" 2>&1 &
    pids+=($!); BRIDGES+=("$h:$!:$W/bridge$h$k.log:$(wc -l < "$f")")
    k=$((k + 1))
  done
  echo "# host $h: $routes routes in $k bridge(s)"
}
bridges_matched() { # every route of every bridge active and matched with its remote peer
  local b p log n
  for b in "${BRIDGES[@]}"; do
    IFS=: read -r _ p log n <<< "$b"
    for _ in $(seq 2400); do
      kill -0 "$p" 2>/dev/null || fail "a bridge exited ($log)"
      [ "$(grep -c ': active$' "$log")" -ge "$n" ] &&
        [ "$(grep -E ': [1-9][0-9]* remote' "$log" | awk '{print $3}' | sort -u | wc -l)" -ge "$n" ] &&
        continue 2
      sleep 0.05
    done
    fail "the routes of $log did not all match"
  done
}
bridge_cpu() { # host: CPU ticks of the host's bridges
  local b h p t=0
  for b in "${BRIDGES[@]}"; do
    IFS=: read -r h p _ _ <<< "$b"
    [ "$h" = "$1" ] && t=$((t + $(awk '{print $14 + $15}' "/proc/$p/stat")))
  done
  echo $t
}

phase() { # system
  local sys=$1 h
  rm -f "$W/sync" "$W/sync.done"
  local -a run=()
  for h in A B; do
    local -n on=on$h
    "${on[@]}" "$BIN" run "$sys" "$h" "$W/sync" "$W/lat.$sys.$h" "${PLAN[@]}" --duration "$DUR" \
      --drain "$DRAIN" > "$W/run.$sys.$h.log" 2>&1 &
    run+=($!); pids+=($!)
    unset -n on
  done
  for h in A B; do wait_line "$W/run.$sys.$h.log" '^ready' 300 "$sys on $h to be ready (matched)"; done
  local t0A t0B
  [ "$sys" = zcast ] && t0A=$(bridge_cpu A) t0B=$(bridge_cpu B)
  echo $(($("$BIN" now) + 500000000)) > "$W/sync.tmp" && mv "$W/sync.tmp" "$W/sync"
  # a loaded machine sends the minute late (nothing is dropped at the source): a generous bound
  for h in A B; do wait_line "$W/run.$sys.$h.log" '^done' $((10 * DUR + DRAIN + 300)) "$sys on $h to finish"; done
  if [ "$sys" = zcast ]; then
    CPU_A=$(($(bridge_cpu A) - t0A)) CPU_B=$(($(bridge_cpu B) - t0B))
  fi
  echo 1 > "$W/sync.done"
  for h in 0 1; do
    wait "${run[h]}"; local rc=$?
    [ $rc -eq 0 ] || FAILED=1
    [ $rc -eq 0 ] || [ $rc -eq 3 ] || fail "$sys on host $([ $h = 0 ] && echo A || echo B) exited $rc"
  done
  grep -hE "^$sys " "$W/run.$sys.A.log" "$W/run.$sys.B.log"
  "$BIN" report "$sys" "$W/lat.$sys.A" "$W/lat.$sys.B" | tee "$W/lat.$sys"
}

if [ "$ONLY" != zcast ]; then phase cyclone; fi
if [ "$ONLY" != cyclone ]; then
  start_bridges A; start_bridges B
  bridges_matched
  phase zcast
  for b in "${BRIDGES[@]}"; do IFS=: read -r _ p _ _ <<< "$b"; kill -TERM "$p"; done
  for b in "${BRIDGES[@]}"; do IFS=: read -r _ p _ _ <<< "$b"; wait "$p" || fail "a bridge exited $?"; done
  tck=$(getconf CLK_TCK)
  for h in A B; do
    fw=$(cat "$W/bridge$h"*.log | sed -n 's/.*: forwarded \([0-9]*\), resent \([0-9]*\), skipped \([0-9]*\), dropped \([0-9]*\)$/\1 \2 \3 \4/p' |
      awk '{f += $1; r += $2; s += $3; d += $4} END {print f + 0, r + 0, s + 0, d + 0}')
    read -r f r s d <<< "$fw"
    cpu=$([ $h = A ] && echo "$CPU_A" || echo "$CPU_B")
    awk -v h=$h -v c="$cpu" -v t="$tck" -v f="$f" -v r="$r" -v s="$s" -v d="$d" 'BEGIN {
      printf "bridges %s: forwarded %d (resent %d skipped %d dropped %d), cpu_s %.2f, us per message %.1f\n",
        h, f, r, s, d, c / t, f ? c / t / f * 1e6 : 0 }'
    [ "$d" -eq 0 ] || FAILED=1
  done
fi
if [ -s "$W/lat.cyclone" ] && [ -s "$W/lat.zcast" ]; then
  cat "$W/lat.cyclone" "$W/lat.zcast" | awk '
    { p50[$2, $3] = $7; p99[$2, $3] = $11; cls[$3] = 1 }
    END { for (c in cls) if (p50["cyclone", c] > 0)
      printf "ratio %-6s zcast/cyclone p50 %.2f p99 %.2f\n", c, p50["zcast", c] / p50["cyclone", c],
        p99["zcast", c] / p99["cyclone", c] }' | sort
fi
echo "# load average at the end $(cut -d' ' -f1-3 /proc/loadavg)"
[ "$FAILED" -eq 0 ] || { echo "bridge_replay: messages lost, duplicated or bad on reliable routes (above)"; exit 1; }
