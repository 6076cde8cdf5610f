"""Replay timing of bench/record.sh: |replayed - recorded| inter-message interval, per message, from
two uncompressed recordings (the original and one of its replay), read by their log times; the
percentiles (and CPU_PERCENT, the player's CPU time over its wall time) are appended to
RESULTS_TSV when given. --summary: medians over the rounds of every label in RESULTS_TSV (players
and floors), and each player's p99 against its floor's.
Usage: record_timing.py NAME RATE_HZ RECORDED_DIR REPLAY_DIR [RESULTS_TSV [CPU_PERCENT]]
       record_timing.py --summary RESULTS_TSV"""
import glob
import statistics
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


def summary(path):
    runs = {}
    for line in open(path):
        label, p50, p99, mx, cpu = (line.rstrip("\n").split("\t") + [""])[:5]
        runs.setdefault(label, []).append((float(p50), float(p99), float(cpu or "nan")))
    med = {k: (statistics.median(x[0] for x in v), statistics.median(x[1] for x in v), len(v),
               statistics.median(x[2] for x in v))
           for k, v in runs.items()}
    for k, (p50, p99, n, cpu) in med.items():
        print(f"play {k}: median of {n} rounds: p50 {p50:.1f} us, p99 {p99:.1f} us, "
              f"CPU {cpu:.0f}% of a core")
    for k, (p50, p99, n, _) in med.items():
        name, _, who = k.partition(": ")
        floor = {"player": "floor, player's wait",
                 "player --spin-us 50": "floor, player's wait",
                 "player --realtime": "floor, player's wait, SCHED_FIFO"}.get(who)
        if floor and f"{name}: {floor}" in med:
            f99 = med[f"{name}: {floor}"][1]
            print(f"play {k}: p99 / same-run floor ({floor}) p99 = {p99:.1f} / {f99:.1f} us = "
                  f"{p99 / max(f99, 1e-3):.2f}")


if sys.argv[1] == "--summary":
    summary(sys.argv[2])
    sys.exit(0)
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
if len(sys.argv) > 5:
    with open(sys.argv[5], "a") as f:
        cpu = sys.argv[6] if len(sys.argv) > 6 else ""
        f.write(f"{name}\t{p(0.5):.1f}\t{p(0.99):.1f}\t{err[-1] / 1e3:.1f}\t{cpu}\n")
