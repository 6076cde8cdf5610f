"""The recorder during the container case (bench/record.sh, part 3): what the case saw alone and
with `zcast record` recording all its topics (same run), and the recorder's CPU per MB and drops.
Usage: record_container.py ALONE_DIR RECORDED_DIR RECORDER_CPU_MS BAG_INFO_TEXT"""
import csv
import glob
import json
import re
import sys


def case(d):
    """(json meta, sorted latencies in us) of the one container run in d."""
    meta = json.load(open(glob.glob(d + "/*.json")[0]))
    with open(glob.glob(d + "/*.csv")[0]) as f:
        lat = sorted(int(r["lat_ns"]) / 1e3 for r in csv.DictReader(f))
    return meta, lat


def pct(v, q):
    return v[min(len(v) - 1, int(q * len(v)))] if v else float("nan")


def line(label, meta, lat):
    lost = meta["published"] - meta["received"]
    return (f"container {label}: {meta['received']} of {meta['published']} deliveries "
            f"({lost} lost), latency p50 {pct(lat, 0.5):.0f} us, p99 {pct(lat, 0.99):.0f} us, "
            f"case CPU {meta['cpu_pct']:.0f}% of {meta['cpu_cores']} cores")


alone, recorded = case(sys.argv[1]), case(sys.argv[2])
cpu_ms, info = float(sys.argv[3]), sys.argv[4]
print(line("alone         ", *alone))
print(line("with recorder ", *recorded))
m = re.search(r"Chunks:\s+\d+ \((\d+) bytes, (\d+) uncompressed\)", info)
mb = int(m.group(2)) / 1e6 if m else 0
msgs = int(re.search(r"Messages:\s+(\d+)", info).group(1))
drops = sum(int(x) for x in re.findall(r"Dropped: (\d+)", info))
topics = len(re.findall(r"Topic: ", info))
print(f"recorder during the case: {topics} topics, {msgs} messages, {mb:.0f} MB "
      f"({int(m.group(1)) / 1e6 if m else 0:.0f} MB zstd), {drops} dropped "
      f"({100.0 * drops / max(1, msgs + drops):.2f}%), CPU {cpu_ms / max(mb, 1e-9):.2f} ms per MB")
