"""The recorder's sustained rate against dd (bench/record.sh, part 1): one line per round and
recorder, then the medians of the ratios per recorder. rate ratio = recorder MB/s (bytes of its
files / its wall time from the feeder's start to its exit) / dd MB/s of the same round (what the target is about: >= 0.8); CPU ratio = dd's CPU per MB / the recorder's (the
rate ratio the two would reach if each had a core of its own: on a loaded machine the rate ratio
is mostly the scheduler's share each got).
Usage: record_rate.py RATES_TSV (lines: label, round, "bytes secs user sys count drops",
"ddbytes t0 t1 user sys")"""
import statistics
import sys

rows = {}
for line in open(sys.argv[1]):
    label, rnd, rec, dd = line.rstrip("\n").split("\t")
    b, secs, user, sys_, count, drops = rec.split()
    db, t0, t1, du, ds = dd.split()
    b, secs, db = int(b), float(secs), int(db)
    rate = b / secs / 1e6
    ddrate = db / (float(t1) - float(t0)) / 1e6
    cpu = (float(user) + float(sys_)) * 1e3 / (b / 1e6)
    ddcpu = (float(du) + float(ds)) * 1e3 / (db / 1e6)
    print(f"{label}, round {rnd}: {count} messages of 1 MiB in {secs:.2f} s, {drops} dropped; "
          f"{rate:.0f} MB/s, dd {ddrate:.0f} MB/s ({db / 1e6:.0f} MB), ratio {rate / ddrate:.2f}; "
          f"CPU {cpu:.2f} ms per MB, dd {ddcpu:.2f} ms per MB, CPU ratio {ddcpu / cpu:.2f}")
    rows.setdefault(label, []).append((rate / ddrate, ddcpu / cpu, cpu, ddcpu))
for label, v in rows.items():
    med = lambda i: statistics.median(x[i] for x in v)
    print(f"{label}: median of {len(v)} rounds: rate ratio {med(0):.2f}, CPU ratio {med(1):.2f} "
          f"(CPU per MB {med(2):.2f} ms, dd {med(3):.2f} ms)")
