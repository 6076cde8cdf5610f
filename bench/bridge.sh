#!/usr/bin/env bash
# Bridge benchmark (docs/BENCHMARKS.md, "Bridge"): host A -> host B over a veth pair between two
# network namespaces, the same sensor_msgs/Image (a) through a plain Cyclone DDS writer/reader pair
# and (b) zcast publisher -> zcast-bridge -> DDS -> zcast-bridge -> zcast subscriber, in the same run.
# Latency: ping-pong, one-way = RTT/2 (p50/p90/p99); throughput: reliable, as fast as allowed.
#   bench/bridge.sh <build dir> [--quick] [--lat64] [--second-reader] [--no-catchup]
#                   [--threads=N] [--idle=N] [--idle-poll] [--bridge-latency=N] [--cyclone-xml=XML]
#                   [--wakes] [--pin-a=CPU] [--pin-b=CPU]
# --lat64: only the 64 B latency; --second-reader: a second receiving bridge on B (its own zcast
# domain) reads /ping too, so A's writer serves two bridges; --no-catchup: in routes without their
# catch-up reader (catchup=0); --threads=N: "threads N" in both bridges' configs (docs/BRIDGE.md,
# "Threads"; absent: the bridge's default); --idle=N: N more routes A -> B that carry nothing (a
# bridge of many routes); --idle-poll: idle CPUs poll instead of halting while the script runs (a
# PM QoS request of 0 us on /dev/cpu_dma_latency: both systems, to see what the wake-ups of idle
# CPUs cost); --bridge-latency=N: "cpu_latency_us N" in every bridge's config (docs/BRIDGE.md, "Cost
# and latency": each bridge holds that request while it runs); the plain pair's latency is then
# measured before the bridges start, so without any request, and again after they started, under
# their request ("cyclone@req", the same time of warm-up for the bridges as without the option; its
# throughput, after, with it);
# --cyclone-xml=XML: added inside <Domain> of every peer's CYCLONEDDS_URI (bridges and
# the plain pair alike). With --second-reader the plain pair is also measured with a second plain
# Cyclone reader on B ("cyclone2"), next to the pair alone ("cyclone"). --wakes: after each latency
# line, the voluntary context switches (sleeps, so wake-ups) per round trip of each thread of B's
# echo and of the bridges that had at least 0.05. --pin-a=CPU / --pin-b=CPU: every process of host A
# / B (bridges and applications, both systems alike) runs on that CPU only (taskset).
# Needs root and `ip netns`; prints "bridge: skipped (...)" otherwise.
set -uo pipefail
BUILD=$1 QUICK="" LAT64="" SECOND="" INOPT="" THREADS="" IDLE=0 POLL="" WAKES="" BLAT="" PIN_A="" PIN_B=""
for a in "${@:2}"; do
  case $a in --quick) QUICK=$a ;; --lat64) LAT64=1 ;; --second-reader) SECOND=1 ;; --no-catchup) INOPT=" catchup=0" ;;
    --threads=*) THREADS=${a#--threads=} ;; --idle=*) IDLE=${a#--idle=} ;; --idle-poll) POLL=1 ;; --bridge-latency=*) BLAT=${a#--bridge-latency=} ;;
    --cyclone-xml=*) export ZB_CYCLONE_XML=${a#--cyclone-xml=} ;; --wakes) WAKES=1 ;;
    --pin-a=*) PIN_A=${a#--pin-a=} ;; --pin-b=*) PIN_B=${a#--pin-b=} ;; esac
done
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
BIN=$BUILD/bench/zcast-bench-bridge BRIDGE=$BUILD/bridge/zcast-bridge
if [ "$(id -u)" -ne 0 ] || ! ip netns list >/dev/null 2>&1; then
  echo "bridge: skipped (needs root and ip netns)"; exit 0
fi
. "$ROOT/tests/bridge/netns.sh"
id=$$ W=$(mktemp -d /tmp/zcast-bench-bridge.XXXXXX) DA=zbbA$$ DB=zbbB$$
pids=()
cleanup() {
  for p in "${pids[@]}"; do kill "$p" 2>/dev/null; done
  wait 2>/dev/null
  zb_netns_down
  rm -f /dev/shm/zcast."$DA".* /dev/shm/zcast."$DB".* /dev/shm/zcast-bridge."$DA".* \
    /dev/shm/zcast-bridge."$DB".* /dev/shm/zcast."$DB"x.* /dev/shm/zcast-bridge."$DB"x.*
  rm -rf "$W"
}
trap cleanup EXIT
trap "exit 1" INT TERM
if [ -n "$POLL" ]; then # held while fd 9 is open: until the script ends
  exec 9>/dev/cpu_dma_latency && printf 0 >&9 || { echo "bridge: --idle-poll: no /dev/cpu_dma_latency"; exit 1; }
fi
zb_netns_up "$id" || { echo "bridge: namespaces could not be set up"; exit 1; }
# The bridges on DDS domain 0, the Cyclone-only pair on domain 1: neither sees the other's traffic.
zA=("${inA[@]}" ZCAST_DOMAIN="$DA") zB=("${inB[@]}" ZCAST_DOMAIN="$DB")
cA=("${inA[@]}" ZB_DDS_DOMAIN=1) cB=("${inB[@]}" ZB_DDS_DOMAIN=1)
if [ -n "$PIN_A" ]; then zA+=(taskset -c "$PIN_A") cA+=(taskset -c "$PIN_A"); fi
if [ -n "$PIN_B" ]; then zB+=(taskset -c "$PIN_B") cB+=(taskset -c "$PIN_B"); fi
for h in A B; do
  other=$([ $h = A ] && echo in || echo out) mine=$([ $h = A ] && echo out || echo in)
  {
    echo "zcast_domain $([ $h = A ] && echo "$DA" || echo "$DB")"
    echo "$mine /ping sensor_msgs/msg/Image reliable max_size=5M depth=4$INOPT"
    echo "$other /pong sensor_msgs/msg/Image reliable max_size=5M depth=4$INOPT"
    echo "$mine /thr sensor_msgs/msg/Image reliable max_size=5M depth=8$INOPT"
    [ -n "$THREADS" ] && echo "threads $THREADS"
    [ -n "$BLAT" ] && echo "cpu_latency_us $BLAT"
    for i in $(seq 1 "$IDLE"); do echo "$mine /idle/t$i sensor_msgs/msg/Image reliable$INOPT"; done
  } > "$W/$h.conf"
done
start_bridges() { # A's, B's and with --second-reader B's second; until their routes are active
  "${zA[@]}" "$BRIDGE" "$W/A.conf" > "$W/bridgeA.log" 2>&1 & pids+=($!) bpids+=($!)
  "${zB[@]}" "$BRIDGE" "$W/B.conf" > "$W/bridgeB.log" 2>&1 & pids+=($!) bpids+=($!)
  local n_active=$((6 + 2 * IDLE))
  if [ -n "$SECOND" ]; then
    printf 'zcast_domain %sx\nin /ping sensor_msgs/msg/Image reliable max_size=5M depth=4%s\n' "$DB" "$INOPT" > "$W/B2.conf"
    [ -n "$BLAT" ] && echo "cpu_latency_us $BLAT" >> "$W/B2.conf"
    "${zB[@]}" "$BRIDGE" "$W/B2.conf" > "$W/bridgeB2.log" 2>&1 & pids+=($!) bpids+=($!)
    n_active=$((7 + 2 * IDLE))
  fi
  for _ in $(seq 400); do
    [ "$(cat "$W"/bridge*.log | grep -c ': active$')" -ge $n_active ] && break
    sleep 0.05
  done
  echo "# bridge threads (/proc/<pid>/task): A $(ls /proc/${bpids[0]}/task | wc -l), B $(ls /proc/${bpids[1]}/task | wc -l)"
}
bpids=()

switches() { # label=pid ...: "label/tid comm voluntary-switches" of each thread
  local lp t
  for lp in "$@"; do for t in /proc/${lp#*=}/task/*; do
    echo "${lp%=*}/${t##*/} $(cat "$t/comm" 2>/dev/null) $(awk '/^voluntary/ {print $2}' "$t/status" 2>/dev/null)"
  done; done
}
lat() { # system A-prefix B-prefix bytes count [sink: a second plain reader on B]
  local sys=$1 bytes=$4 count=$5 sink=${6:-} s=""
  local -n a=$2 b=$3
  timeout 300 "${b[@]}" "$BIN" "$sys" echo "$count" > /dev/null 2>"$W/echo.err" & local e=$!; pids+=($e)
  if [ -n "$sink" ]; then
    timeout 300 "${b[@]}" "$BIN" "$sys" sink "$count" > /dev/null 2>"$W/sink.err" & s=$!; pids+=($s)
  fi
  local out procs=() before
  if [ -n "$WAKES" ]; then # the echo (a child of timeout) is up before the ping's round trips
    sleep 0.4
    procs=("B.echo=$(pgrep -P "$e")")
    [ ${#bpids[@]} -gt 0 ] && procs+=("A.bridge=${bpids[0]}" "B.bridge=${bpids[1]}")
    [ -n "$SECOND" ] && [ ${#bpids[@]} -gt 2 ] && procs+=("B2.bridge=${bpids[2]}")
    before=$(switches "${procs[@]}")
  fi
  out=$(ZB_READERS=$([ -n "$sink" ] && echo 2 || echo 1) timeout 300 "${a[@]}" "$BIN" "$sys" ping "$bytes" "$count" 2>"$W/ping.err") || out="failed: $(cat "$W/ping.err")"
  echo "$sys${sink:+2}${TAG:-} $out"
  if [ -n "$WAKES" ]; then # the echo waits 0.5 s before it exits
    join <(echo "$before" | sort) <(switches "${procs[@]}" | sort) |
      awk -v n="$count" '{ r = ($5 - $3) / (n + 10); if (r >= 0.05) printf "# wakes %s %-4s %-14s %.2f\n", s, $1, $2, r }' s="$sys${sink:+2}" |
      sed 's#/[0-9]* # #'
  fi
  wait "$e" $s 2>/dev/null
}
thr() { # system A-prefix B-prefix bytes count
  local sys=$1 bytes=$4 count=$5
  local -n a=$2 b=$3
  timeout 300 "${b[@]}" "$BIN" "$sys" recv "$count" > "$W/recv.out" 2>"$W/recv.err" & local r=$!; pids+=($r)
  for _ in $(seq 100); do grep -qs ready "$W/recv.out" && break; sleep 0.05; done
  timeout 300 "${a[@]}" "$BIN" "$sys" send "$bytes" "$count" 2>"$W/send.err" || echo "$sys send failed"
  wait "$r"
  echo "$sys $(grep thr "$W/recv.out" || echo "failed: $(cat "$W/recv.err")")"
}
N64=2000 N64K=1000 N4M=100 T64K=5000 T4M=200
[ "$QUICK" = --quick ] && N64=300 N64K=200 N4M=20 T64K=1000 T4M=40
echo "# bridge: one-way latency us (p50 p90 p99) and throughput (msgs/s MiB/s), A -> B over veth${SECOND:+, a second receiving bridge on /ping}"
sizes=("64 $N64" "65536 $N64K" "4194304 $N4M")
[ -n "$LAT64" ] && sizes=("64 $N64")
if [ -n "$BLAT" ]; then # the plain pair first: no bridge holds its request yet
  for s in "${sizes[@]}"; do
    set -- $s
    lat cyclone cA cB "$1" "$2"
    [ -n "$SECOND" ] && lat cyclone cA cB "$1" "$2" sink
  done
  start_bridges
  TAG=@req # the plain pair again, now under the bridges' request (also the bridges' warm-up)
  for s in "${sizes[@]}"; do
    set -- $s
    lat cyclone cA cB "$1" "$2"
    [ -n "$SECOND" ] && lat cyclone cA cB "$1" "$2" sink
    TAG="" lat zcast zA zB "$1" "$2"
  done
else
  start_bridges
  for s in "${sizes[@]}"; do
    set -- $s
    lat cyclone cA cB "$1" "$2"
    [ -n "$SECOND" ] && lat cyclone cA cB "$1" "$2" sink
    lat zcast zA zB "$1" "$2"
  done
fi
[ -n "$LAT64" ] && exit 0
for s in "65536 $T64K" "4194304 $T4M"; do
  set -- $s
  thr cyclone cA cB "$1" "$2"
  thr zcast zA zB "$1" "$2"
done
