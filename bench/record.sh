#!/usr/bin/env bash
# zcast record / play benchmark (docs/RECORDING.md), ratios from one run:
#  1. recorder sustained rate: zcast-rec-feed (bench/rec_feed.c: 2 publishers of 1 MiB messages,
#     16 slots each, payloads written once per slot, so a message costs the feeder a loan and a
#     publish) offers more than the recorder can write, and `zcast record --compression none
#     --duration SECONDS` records; the recorder's rate = bytes of its files / its own wall time
#     (from the moment the feeder starts publishing, which it does once the recorder has joined,
#     to the recorder's exit: the last file closed); against the filesystem's own sequential write
#     (dd, 4 MiB blocks) of the same total bytes into the same directory, both into the page cache
#     (no fsync in either); with the recorder's and dd's CPU time per MB and the drops;
#     ZCAST_RECORD_REPS rounds (default 5), dd after the recorder in odd rounds and before it in
#     even ones, medians of the ratios. (Before, `zcast pub --rate 0` fed it: a 1 MiB copy per
#     message, 474 MB/s, so the publisher's pace was measured, not the recorder's.)
#  2. replay timing: a 1 kHz stream of 16 B and a 30 Hz stream of 4 MiB recorded, each played
#     back ZCAST_PLAY_REPS times (default 5) while a second recorder records the replay;
#     |replayed - recorded| inter-message interval per message, p50 / p99 (record_timing.py),
#     beside the same-run floor of what the scheduler allows (zcast-play-floor);
#  3. the recorder during the Autoware-shaped container case (zcast-bench --case container, when
#     built): the case alone and with `zcast record` recording all its topics, same run; the
#     recorder's CPU per MB and drops (record_container.py).
# Same-run A/B: ZCAST_RECORD_BASELINE / ZCAST_PLAY_BASELINE name another zcast binary whose
# recorder (part 1) / player (part 2) is measured beside this one.
# ZCAST_RECORD_PARTS picks parts (default "1 2 3"); ZCAST_PLAY_STREAMS the streams of part 2
# (default "tick big": 1 kHz of 16 B, 30 Hz of 4 MiB), so that each fits one quiet slot.
# ZCAST_PLAY_SECS (default 5) how long each stream of part 2 is recorded and played (at 30 Hz,
# 5 s is 149 intervals, whose p99 is the second-worst).
# Usage: bench/record.sh BUILD_DIR [--quick]
set -euo pipefail
build=$1
quick=${2:-}
zcast="$build/tools/zcast"
secs=${ZCAST_PLAY_SECS:-5}; [ "$quick" = --quick ] && secs=2 # part 2: seconds per stream
feed="$build/bench/zcast-rec-feed"
rsecs=${ZCAST_RECORD_SECS:-3}; [ "$quick" = --quick ] && rsecs=1
dir=$(mktemp -d "${TMPDIR:-/tmp}/zcast-recbench-XXXXXX")
export ZCAST_DOMAIN="recbench-$$"
cleanup() {
  for p in $(jobs -p); do kill -9 "$p" 2>/dev/null || true; done
  wait 2>/dev/null || true
  rm -f /dev/shm/zcast."$ZCAST_DOMAIN".* /dev/shm/zcast.recbench2-$$.*
  rm -rf "$dir" "${shm_out:-}"
}
trap cleanup EXIT

# ---- 1. sustained rate (of $zcast, and of $ZCAST_RECORD_BASELINE too when set: a same-run A/B) ----
# $reps rounds; each round records, then runs dd (even rounds: dd first), both timed and their CPU
# taken; record_rate.py prints each round and the medians of the ratios.
reps=${ZCAST_RECORD_REPS:-5}; [ "$quick" = --quick ] && reps=1
rates="$dir/rates.tsv"
: >"$rates"
last_bytes=$(( (rsecs * 1000) << 20 )) # what dd writes when it goes first: the last recording's size
# ZCAST_RECORD_FLUSH=1: both are timed until their bytes are on the disk (the recorder's wall time
# ends after a sync, dd runs with conv=fdatasync): the sustained rate of a recording longer than the
# page cache takes, where the default compares writes into the page cache, whose speed varies
# several-fold from one dd to the next on this VM (writeback and the discard mount option).
flush=${ZCAST_RECORD_FLUSH:-0}
ddflush=""; [ "$flush" = 1 ] && ddflush=conv=fdatasync
dd_round() { # prints: bytes t0 t1 user sys
  local blocks=$(( ($1 + 4194303) / 4194304 )) t0 t1
  sync
  t0=$(date +%s.%N)
  /usr/bin/time -f '%U %S' -o "$dir/ddcpu" dd if=/dev/zero of="$dir/dd.bin" bs=4M \
    count=$blocks status=none $ddflush
  t1=$(date +%s.%N)
  rm -f "$dir/dd.bin"
  sync
  echo "$((blocks * 4194304)) $t0 $t1 $(cat "$dir/ddcpu")"
}
rate_test() { # recorder label round dd_first
  local recorder=$1 label=$2 round=$3 ddfirst=$4 ddt="" pub bytes info drops count t0 t1
  [ "$ddfirst" = 1 ] && ddt=$(dd_round "$last_bytes")
  "$feed" /bench/big $((1 << 20)) 2 16 $((rsecs + 3)) >"$dir/feed" &
  pub=$!
  /usr/bin/time -f "%U %S" -o "$dir/cpu" "$recorder" record -q -o "$dir/rate" --compression none --lossless \
    --duration "$rsecs" /bench/big
  [ "$flush" = 1 ] && sync # ZCAST_RECORD_FLUSH: until its bytes are on the disk (dd: conv=fdatasync)
  t1=$(date +%s.%N)
  kill $pub 2>/dev/null || true; wait $pub 2>/dev/null || true # it ends itself when the recorder leaves
  t0=$(grep -o '^start [0-9.]*' "$dir/feed" | grep -o '[0-9.]*$')
  bytes=$(cat "$dir"/rate/*.mcap | wc -c)
  info=$("$zcast" bag info "$dir/rate")
  drops=$(grep -o 'Dropped: [0-9]*' <<<"$info" | grep -o '[0-9]*$' || echo 0)
  count=$(grep -o 'Count: [0-9]*' <<<"$info" | grep -o '[0-9]*$' || echo 0)
  sync
  rm -rf "$dir/rate"
  last_bytes=$bytes
  [ "$ddfirst" = 1 ] || ddt=$(dd_round "$bytes")
  echo "recorder$label	$round	$bytes $(python3 -c "print($t1 - $t0)") $(cat "$dir/cpu") $count $drops	$ddt" >>"$rates"
}
HERE_RB=$(cd "$(dirname "$0")" && pwd)
echo "load average at the start: $(cut -d' ' -f1-3 /proc/loadavg)"
for ((r = 1; r <= reps; r++)); do
  [[ " ${ZCAST_RECORD_PARTS:-1 2 3} " == *" 1 "* ]] || break
  rate_test "$zcast" "" "$r" $(( r % 2 == 0 ))
  [ -z "${ZCAST_RECORD_BASELINE:-}" ] || rate_test "$ZCAST_RECORD_BASELINE" " (baseline)" "$r" $(( r % 2 == 0 ))
done
[ ! -s "$rates" ] || /usr/bin/python3 "$HERE_RB/record_rate.py" "$rates"

# ---- 2. replay timing: 1 kHz of 16 B, and 4 MiB messages at 30 Hz ----
# replay TAG NAME RATE PUB_ARGS...: topic /bench/TAG at RATE Hz recorded for SECONDS, then played
# $preps times into another domain while a second recorder records the replay (record_timing.py
# compares the two recordings). Each round, interleaved: the floor (zcast-play-floor: the player's
# wait doing nothing else) plain (a bare clock_nanosleep loop), with the player's settings, and at
# SCHED_FIFO; the player as it plays by default (--spin-us auto), with a fixed 50 us spin (the
# default before auto) and with --realtime; and $ZCAST_PLAY_BASELINE's player when set. The
# summary: medians over the rounds of each one's p50 / p99 and CPU (% of a core), and the player's
# p99 against the floor's of the same settings.
floor="$build/bench/zcast-play-floor"
preps=${ZCAST_PLAY_REPS:-5}; [ "$quick" = --quick ] && preps=2
timing="$dir/timing.tsv"
: >"$timing"
# The player gets $slots slots (a second of messages, at most 256): the measuring recorder, a FULL
# subscriber that the loaded machine starves now and then, would otherwise hold the default 16 and
# make the player wait for a loan, which is the recorder's timing, not the player's.
# The measuring recorder writes into a tmpfs (/dev/shm when there is one), so its 4 MiB writes
# leave no dirty pages for the kernel's writeback threads to flush on the player's core.
shm_out=""
[ -d /dev/shm ] && shm_out=$(mktemp -d /dev/shm/recbench-XXXXXX)
# PLAY_PIN="PLAYER_CPU RECORDER_CPU" (environment): the player and the measuring recorder pinned
# to two different cores, so the recorder, woken on the player's core by each publish (and
# copying 4 MiB there), cannot preempt the player's wait.
play_once() { # label player args...
  local label=$1 player=$2 out="${shm_out:-$dir}/$tag-replay" pp=() rp=() pcpu rcpu
  shift 2
  if [ -n "${PLAY_PIN:-}" ]; then
    read -r pcpu rcpu <<<"$PLAY_PIN"
    pp=(taskset -c "$pcpu"); rp=(taskset -c "$rcpu")
  fi
  ZCAST_DOMAIN=recbench2-$$ "${rp[@]}" "$zcast" record -q -o "$out" --compression none --lossless \
    "/bench/$tag" &
  local rec=$!
  local TIMEFORMAT='%U %S %R' cpu # the player's CPU: (user + system) / wall, % of one core
  { time ZCAST_DOMAIN=recbench2-$$ "${pp[@]}" "$player" play -q "$dir/$tag" \
      --wait-for-subscribers 1 --slots "$slots" "$@" 2>&3; } 3>&2 2>"$dir/play-time"
  cpu=$(tail -1 "$dir/play-time" | awk '{printf "%.0f", 100 * ($1 + $2) / $3}')
  sleep 0.3
  kill -INT $rec; wait $rec
  /usr/bin/python3 "$HERE_RB/record_timing.py" "$name: $label" "$rate" "$dir/$tag" "$out" "$timing" \
    "$cpu"
  rm -rf "$out"
}
floor_once() { # label args...
  local label=$1 r
  shift
  [ -x "$floor" ] || return 0
  r=$("$floor" "$rate" "$secs" "$@")
  echo "play $name: $label: $r"
  sed -E 's/n=([0-9.]+) p50_us=([0-9.]+) p99_us=([0-9.]+) max_us=([0-9.]+) cpu=([0-9.]+)%.*/\2\t\3\t\4\t\5/' <<<"$r" |
    sed "s|^|$name: $label\t|" >>"$timing"
}
replay() {
  tag=$1 name=$2 rate=$3 slots=$(( $3 < 256 ? $3 : 256 ))
  shift 3
  [[ " ${ZCAST_RECORD_PARTS:-1 2 3} " == *" 2 "* ]] || return 0
  [[ " ${ZCAST_PLAY_STREAMS:-tick big} " == *" $tag "* ]] || return 0
  "$zcast" pub "/bench/$tag" "$@" --rate "$rate" >/dev/null 2>&1 &
  local pub=$!
  sleep 0.3
  "$zcast" record -q -o "$dir/$tag" --compression none --lossless --duration "$secs" "/bench/$tag"
  kill $pub; wait $pub 2>/dev/null || true
  echo "load average before $name: $(cut -d' ' -f1-3 /proc/loadavg)"
  for ((r = 1; r <= preps; r++)); do
    floor_once "floor, bare clock_nanosleep" --plain
    floor_once "floor, player's wait" --spin-us auto
    play_once "player" "$zcast"
    play_once "player --spin-us 50" "$zcast" --spin-us 50
    floor_once "floor, player's wait, SCHED_FIFO" --spin-us auto --realtime
    play_once "player --realtime" "$zcast" --realtime
    [ -z "${ZCAST_PLAY_BASELINE:-}" ] || play_once "baseline player" "$ZCAST_PLAY_BASELINE"
  done
  echo "load average after $name: $(cut -d' ' -f1-3 /proc/loadavg)"
  rm -rf "$dir/$tag"
}
replay tick "1 kHz, 16 B" 1000 "0123456789abcdef"
head -c $((4 << 20)) /dev/urandom >"$dir/payload4m"
replay big "30 Hz, 4 MiB" 30 --file "$dir/payload4m"
[ ! -s "$timing" ] || /usr/bin/python3 "$HERE_RB/record_timing.py" --summary "$timing"

# ---- 3. the recorder during the Autoware-shaped container case (bench/case_container.c) ----
# The case alone, then again with `zcast record` (default: DROP_OLD, zstd) recording every topic of
# its domain: the recorder's CPU per MB recorded and its drops, and what the case itself saw in
# both runs (deliveries lost, latency). The case's domain is ZB_RUN_ID + the bench's pid.
bench="$build/bench/zcast-bench"
[[ " ${ZCAST_RECORD_PARTS:-1 2 3} " == *" 3 "* ]] || exit 0
if [ ! -x "$bench" ]; then
  echo "container: skipped ($bench not built)"
  exit 0
fi
ct_secs=10; [ "$quick" = --quick ] && ct_secs=3
mkdir -p "$dir/ct-alone" "$dir/ct-rec"
ZB_RUN_ID=rbalone "$bench" --system zcast --case container --cap-s "$ct_secs" --name ct_alone \
  --out "$dir/ct-alone" >/dev/null 2>&1
ZB_RUN_ID=rbrec "$bench" --system zcast --case container --cap-s "$ct_secs" --name ct_recorded \
  --out "$dir/ct-rec" >/dev/null 2>&1 &
bp=$!
"$zcast" record -q -d "rbrec$bp" -o "$dir/ct" &
rp=$!
wait $bp
read -r ut st < <(awk '{print $14, $15}' /proc/$rp/stat) # the recorder's CPU (all its threads)
kill -INT $rp; wait $rp
info=$("$zcast" bag info "$dir/ct")
/usr/bin/python3 "$HERE_RB/record_container.py" "$dir/ct-alone" "$dir/ct-rec" \
  "$(( (ut + st) * 1000 / $(getconf CLK_TCK) ))" "$info"
