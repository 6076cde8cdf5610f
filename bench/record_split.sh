#!/usr/bin/env bash
# What splitting files costs a DROP_OLD recorder (docs/RECORDING.md "Split files"): `zcast pub`
# offers 1000-byte messages at RATE Hz for SECONDS to `zcast record` (default: DROP_OLD, queue 256,
# zstd) splitting every SPLIT seconds, and the same without splitting (the control: what is lost
# to the load alone); per round and binary the share of published messages dropped
# (bag info's Dropped / published), rounds interleaved, medians. A second binary (BASELINE) is
# measured beside it in the same run.
# Usage: bench/record_split.sh ZCAST [BASELINE_ZCAST] (env: RATE 20000, SECONDS 2, SPLIT 0.05,
# ROUNDS 3)
set -euo pipefail
rate=${RATE:-20000} secs=${SECONDS_:-2} split=${SPLIT:-0.05} rounds=${ROUNDS:-3}
dir=$(mktemp -d "${TMPDIR:-/tmp}/zcast-splitbench-XXXXXX")
export ZCAST_DOMAIN="splitbench-$$"
cleanup() {
  for p in $(jobs -p); do kill -9 "$p" 2>/dev/null || true; done
  wait 2>/dev/null || true
  rm -f /dev/shm/zcast."$ZCAST_DOMAIN".*
  rm -rf "$dir"
}
trap cleanup EXIT
head -c 1000 /dev/urandom >"$dir/payload"
n=$(python3 -c "print(int($rate * $secs))")
one() { # zcast label record-args...: prints "label dropped-%"
  local z=$1 label=$2 rec info dropped
  shift 2
  "$z" record -q -o "$dir/r" "$@" /split/b &
  rec=$!
  "$z" pub /split/b --file "$dir/payload" --rate "$rate" --count "$n" --wait-matching 1 >/dev/null
  sleep 0.3
  kill -INT $rec; wait $rec
  info=$("$z" bag info "$dir/r")
  dropped=$(grep -o 'Dropped: [0-9]*' <<<"$info" | grep -o '[0-9]*$' || echo 0)
  echo "$label $(python3 -c "print(f'{100 * $dropped / $n:.2f}')") $(ls "$dir/r"/*.mcap | wc -l)"
  rm -rf "$dir/r" /dev/shm/zcast."$ZCAST_DOMAIN".*
}
echo "load average at the start: $(cut -d' ' -f1-3 /proc/loadavg); $n messages of 1000 B at $rate Hz"
for ((r = 1; r <= rounds; r++)); do
  for z in "$1" ${2:-}; do
    tag=$([ "$z" = "$1" ] && echo this || echo baseline)
    one "$z" "$tag,split" --max-duration "$split"
    one "$z" "$tag,none"
  done
done | tee "$dir/rows"
python3 - "$dir/rows" <<'PY'
import statistics, sys
rows = {}
for line in open(sys.argv[1]):
    label, pct, pieces = line.split()
    rows.setdefault(label, []).append((float(pct), int(pieces)))
for label, v in rows.items():
    print(f"{label}: dropped {statistics.median(p for p, _ in v):.2f} % (median of {len(v)}: "
          f"{', '.join(f'{p:.2f}' for p, _ in v)}), pieces {statistics.median(k for _, k in v):.0f}")
PY
echo "load average at the end: $(cut -d' ' -f1-3 /proc/loadavg)"
