#!/usr/bin/env bash
# zcast record / play benchmark (docs/RECORDING.md), ratios from one run:
#  1. recorder sustained rate: `zcast pub` publishes 1 MiB messages as fast as it can for SECONDS
#     while `zcast record --compression none` records them; the bytes it wrote per second against
#     the filesystem's own sequential write (dd, 4 MiB blocks) of the same total bytes into the same
#     directory (after the recording is deleted and synced), both into the page cache; with the
#     recorder's CPU time per MB and its drops. With no drops the publisher set the pace: the
#     recorder kept up with all it was offered;
#  2. replay timing: a 1 kHz stream recorded, played back while a second recorder records the
#     replay; |replayed - recorded| inter-message interval per message, p50 / p99.
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

# ---- 1. sustained rate ----
head -c $((1 << 20)) /dev/urandom >"$dir/payload"
"$zcast" pub /bench/big --file "$dir/payload" --rate 0 >/dev/null 2>&1 &
pub=$!
sleep 0.5
/usr/bin/time -f '%U %S' -o "$dir/cpu" "$zcast" record -q -o "$dir/rate" --compression none \
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
/usr/bin/python3 - "$bytes" "$secs" "$t0" "$t1" "$(cat "$dir/cpu")" "$count" "$drops" <<'PY'
import sys
b, secs, t0, t1 = int(sys.argv[1]), float(sys.argv[2]), float(sys.argv[3]), float(sys.argv[4])
user, sys_ = map(float, sys.argv[5].split())
count, drops = int(sys.argv[6]), int(sys.argv[7])
rec = b / secs / 1e6
fs = b / (t1 - t0) / 1e6
print(f"record: {count} messages of 1 MiB in {secs:.0f} s, {drops} dropped")
print(f"record: recorder {rec:.0f} MB/s, filesystem (dd, same {b/1e6:.0f} MB) {fs:.0f} MB/s, "
      f"ratio {rec/fs:.2f}; recorder CPU {(user + sys_) * 1e3 / (b / 1e6):.2f} ms per MB")
PY

# ---- 2. replay timing at 1 kHz ----
"$zcast" pub /bench/tick "0123456789abcdef" --rate 1000 >/dev/null 2>&1 &
pub=$!
sleep 0.3
"$zcast" record -q -o "$dir/tick" --compression none --lossless --duration "$secs" /bench/tick
kill $pub; wait $pub 2>/dev/null || true
ZCAST_DOMAIN=recbench2-$$ "$zcast" record -q -o "$dir/replay" --compression none --lossless /bench/tick &
rec=$!
ZCAST_DOMAIN=recbench2-$$ "$zcast" play -q "$dir/tick" --wait-for-subscribers 1
sleep 0.3
kill -INT $rec; wait $rec
/usr/bin/python3 - "$dir/tick" "$dir/replay" <<'PY'
import glob, struct, sys

def log_times(d):
    """Log times of every message, in file order (uncompressed chunks only)."""
    out = []
    for f in sorted(glob.glob(d + '/*.mcap'), key=lambda p: int(p.rsplit('_', 1)[1][:-5])):
        data = open(f, 'rb').read()
        at = 8
        while at + 9 <= len(data):
            op, n = data[at], struct.unpack_from('<Q', data, at + 1)[0]
            body = data[at + 9:at + 9 + n]
            if op == 0x06:
                c = 8 + 8 + 8 + 4
                clen = struct.unpack_from('<I', body, c)[0]
                recs = body[c + 4 + clen + 8:]
                i = 0
                while i + 9 <= len(recs):
                    rop, rn = recs[i], struct.unpack_from('<Q', recs, i + 1)[0]
                    if rop == 0x05:
                        out.append(struct.unpack_from('<Q', recs, i + 9 + 6)[0])
                    i += 9 + rn
            if op == 0x0f:
                break
            at += 9 + n
    return out

a, b = log_times(sys.argv[1]), log_times(sys.argv[2])
n = min(len(a), len(b))
err = sorted(abs((b[i] - b[i - 1]) - (a[i] - a[i - 1])) for i in range(1, n))
p = lambda q: err[min(len(err) - 1, int(q * len(err)))] / 1e3
print(f"play: {len(a)} messages at 1 kHz recorded, {len(b)} replayed; interval error "
      f"p50 {p(0.5):.1f} us, p99 {p(0.99):.1f} us, max {err[-1] / 1e3:.1f} us")
PY
