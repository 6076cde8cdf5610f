"""Replay timing of bench/record.sh: |replayed - recorded| inter-message interval, per message, from
two uncompressed recordings (the original and one of its replay), read by their log times.
Usage: record_timing.py NAME RATE_HZ RECORDED_DIR REPLAY_DIR"""
import glob
import struct
import sys


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


name, rate = sys.argv[1], sys.argv[2]
a, b = log_times(sys.argv[3]), log_times(sys.argv[4])
n = min(len(a), len(b))
err = sorted(abs((b[i] - b[i - 1]) - (a[i] - a[i - 1])) for i in range(1, n))
if not err:
    sys.exit("play %s: nothing replayed" % name)


def p(q):
    return err[min(len(err) - 1, int(q * len(err)))] / 1e3


print(f"play {name}: {len(a)} messages at {rate} Hz recorded, {len(b)} replayed; interval error "
      f"p50 {p(0.5):.1f} us, p99 {p(0.99):.1f} us, max {err[-1] / 1e3:.1f} us")
