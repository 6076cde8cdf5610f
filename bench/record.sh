#!/usr/bin/env bash
# zcast record / play benchmark (docs/RECORDING.md), ratios from one run:
#  1. recorder sustained rate: `zcast pub` publishes 1 MiB messages as fast as it can for SECONDS
#     while `zcast record --compression none` records them; the bytes it wrote per second against
#     the filesystem's own sequential write (dd, 4 MiB blocks) of the same total bytes into the same
#     directory (after the recording is deleted and synced), both into the page cache; with the
#     recorder's CPU time per MB and its drops. With no drops the publisher set the pace: the
#     recorder kept up with all it was offered;
#  2. replay timing: a 1 kHz stream of 16 B and a 30 Hz stream of 4 MiB recorded, each played
#     back while a second recorder records the replay; |replayed - recorded| inter-message
#     interval per message, p50 / p99 (record_timing.py);
#  3. the recorder during the Autoware-shaped container case (zcast-bench --case container, when
#     built): the case alone and with `zcast record` recording all its topics, same run; the
#     recorder's CPU per MB and drops (record_container.py).
# Same-run A/B: ZCAST_RECORD_BASELINE / ZCAST_PLAY_BASELINE name another zcast binary whose
# recorder (part 1) / player (part 2) is measured beside this one.
# Usage: bench/record.sh BUILD_DIR [--quick]
set -euo pipefail
build=$1
quick=${2:-}
zcast="$build/tools/zcast"
secs=5; [ "$quick" = --quick ] && secs=2
dir=$(mktemp -d "${TMPDIR:-/tmp}/zcast-recbench-XXXXXX")
export ZCAST_DOMAIN="recbench-$$"
cleanup() {
  for p in $(jobs -p); do kill -9 "$p" 2>/dev/null || true; done
  wait 2>/dev/null || true
  rm -f /dev/shm/zcast."$ZCAST_DOMAIN".* /dev/shm/zcast.recbench2-$$.*
  rm -rf "$dir"
}
trap cleanup EXIT

# ---- 1. sustained rate (of $zcast, and of $ZCAST_RECORD_BASELINE too when set: a same-run A/B) ----
head -c $((1 << 20)) /dev/urandom >"$dir/payload"
rate_test() {
local recorder=$1 label=$2
"$zcast" pub /bench/big --file "$dir/payload" --rate 0 >/dev/null 2>&1 &
pub=$!
sleep 0.5
/usr/bin/time -f '%U %S' -o "$dir/cpu" "$recorder" record -q -o "$dir/rate" --compression none \
  --duration "$secs" /bench/big
kill $pub; wait $pub 2>/dev/null || true
bytes=$(cat "$dir"/rate/*.mcap | wc -c)
info=$("$zcast" bag info "$dir/rate")
drops=$(grep -o 'Dropped: [0-9]*' <<<"$info" | grep -o '[0-9]*$' || echo 0)
count=$(grep -o 'Count: [0-9]*' <<<"$info" | grep -o '[0-9]*$' || echo 0)
sync
rm -rf "$dir/rate"
sync
t0=$(date +%s.%N)
dd if=/dev/zero of="$dir/dd.bin" bs=4M count=$(( (bytes + 4194303) / 4194304 )) status=none
t1=$(date +%s.%N)
rm -f "$dir/dd.bin"
/usr/bin/python3 - "$bytes" "$secs" "$t0" "$t1" "$(cat "$dir/cpu")" "$count" "$drops" "$label" <<'PY'
import sys
b, secs, t0, t1 = int(sys.argv[1]), float(sys.argv[2]), float(sys.argv[3]), float(sys.argv[4])
user, sys_ = map(float, sys.argv[5].split())
count, drops, label = int(sys.argv[6]), int(sys.argv[7]), sys.argv[8]
rec = b / secs / 1e6
fs = b / (t1 - t0) / 1e6
print(f"record{label}: {count} messages of 1 MiB in {secs:.0f} s, {drops} dropped")
print(f"record{label}: recorder {rec:.0f} MB/s, filesystem (dd, same {b/1e6:.0f} MB) {fs:.0f} MB/s, "
      f"ratio {rec/fs:.2f}; recorder CPU {(user + sys_) * 1e3 / (b / 1e6):.2f} ms per MB")
PY
}
rate_test "$zcast" ""
[ -z "${ZCAST_RECORD_BASELINE:-}" ] || rate_test "$ZCAST_RECORD_BASELINE" " (baseline recorder)"

# ---- 2. replay timing: 1 kHz of 16 B, and 4 MiB messages at 30 Hz ----
# replay TAG NAME RATE PUB_ARGS...: topic /bench/TAG at RATE Hz recorded for SECONDS, then played
# (by $zcast, and by $ZCAST_PLAY_BASELINE too when set: a same-run A/B of two players) into another
# domain while a second recorder records the replay; record_timing.py compares the two recordings.
replay() {
  local tag=$1 name=$2 rate=$3 player
  shift 3
  "$zcast" pub "/bench/$tag" "$@" --rate "$rate" >/dev/null 2>&1 &
  local pub=$!
  sleep 0.3
  "$zcast" record -q -o "$dir/$tag" --compression none --lossless --duration "$secs" "/bench/$tag"
  kill $pub; wait $pub 2>/dev/null || true
  for player in "$zcast" ${ZCAST_PLAY_BASELINE:-}; do
    local out="$dir/$tag-replay" label="$name"
    [ "$player" = "$zcast" ] || { out="$dir/$tag-baseline"; label="$name (baseline player)"; }
    ZCAST_DOMAIN=recbench2-$$ "$zcast" record -q -o "$out" --compression none --lossless "/bench/$tag" &
    local rec=$!
    ZCAST_DOMAIN=recbench2-$$ "$player" play -q "$dir/$tag" --wait-for-subscribers 1
    sleep 0.3
    kill -INT $rec; wait $rec
    /usr/bin/python3 "$HERE_RB/record_timing.py" "$label" "$rate" "$dir/$tag" "$out"
    rm -rf "$out"
  done
  rm -rf "$dir/$tag"
}
HERE_RB=$(cd "$(dirname "$0")" && pwd)
replay tick "1 kHz, 16 B" 1000 "0123456789abcdef"
head -c $((4 << 20)) /dev/urandom >"$dir/payload4m"
replay big "30 Hz, 4 MiB" 30 --file "$dir/payload4m"

# ---- 3. the recorder during the Autoware-shaped container case (bench/case_container.c) ----
# The case alone, then again with `zcast record` (default: DROP_OLD, zstd) recording every topic of
# its domain: the recorder's CPU per MB recorded and its drops, and what the case itself saw in
# both runs (deliveries lost, latency). The case's domain is ZB_RUN_ID + the bench's pid.
bench="$build/bench/zcast-bench"
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
