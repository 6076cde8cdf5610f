#!/usr/bin/python3
"""Python benchmark (docs/BENCHMARKS.md, "Python"): acked one-way latency between a C and a Python
process in every direction, against C -> C in the same run.

    bench/py_bench.py --build-dir BUILD --out DIR [--quick] [--no-pin]

Cases: raw 64 B, raw 1 MiB and typed sensor_msgs/Image 1 MB (1000 x 1000 mono8), each as c->c,
py->c, c->py, py->py (bench/py_peer.c and bench/py_peer.py). Runs are interleaved in 3 rounds with
the order rotated per round; samples of the rounds are pooled. The zero-copy proof: for every
message, sender and receiver report the same pool file (device, inode) and offset.
Writes DIR/python.json and DIR/python.md (bench/report.py appends it to report.md).
"""
import argparse
import json
import os
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
DIRECTIONS = [("c", "c"), ("py", "c"), ("c", "py"), ("py", "py")]
CASES = [("ack_64B", "raw", 64), ("ack_1MiB", "raw", 1 << 20), ("image_1MB", "image", 1000000)]
WARMUP = 100


def percentile(sorted_v, p):
    return sorted_v[min(len(sorted_v) - 1, int(len(sorted_v) * p / 100))]


def peer_cmd(lang, build, role, kind, size, count):
    if lang == "c":
        exe = [os.path.join(build, "bench", "zcast-bench-pypeer")]
    else:
        exe = ["/usr/bin/python3", os.path.join(HERE, "py_peer.py")]
    return exe + [role, kind, "/pyb/data", "/pyb/ack", str(size), str(count)]


def pinned(cpu):
    return (lambda: os.sched_setaffinity(0, {cpu})) if cpu is not None else None


def one_run(build, run_id, snd, rcv, kind, size, count, cpus):
    env = dict(os.environ, ZCAST_DOMAIN="pyb%d-%d" % (os.getpid(), run_id),
               PYTHONPATH=os.path.join(build, "python"))
    recv = subprocess.Popen(peer_cmd(rcv, build, "recv", kind, size, count), env=env,
                            stdout=subprocess.PIPE, text=True, preexec_fn=pinned(cpus[1]))
    try:
        assert recv.stdout.readline().strip() == "ready", "receiver did not start"
        send = subprocess.run(peer_cmd(snd, build, "send", kind, size, count), env=env,
                              stdout=subprocess.PIPE, text=True, preexec_fn=pinned(cpus[0]),
                              timeout=300, check=True)
        rout, _ = recv.communicate(timeout=300)
        if recv.returncode:
            raise RuntimeError("receiver failed (%d)" % recv.returncode)
    finally:
        if recv.poll() is None:
            recv.kill()
        prefix = "zcast.%s." % env["ZCAST_DOMAIN"]
        for f in os.listdir("/dev/shm"):
            if f.startswith(prefix):
                os.unlink(os.path.join("/dev/shm", f))
    lat = [int(line.split()[1]) for line in rout.splitlines() if line.startswith("lat ")]
    rloc = [tuple(line.split()[1:]) for line in rout.splitlines() if line.startswith("loc ")]
    sloc = [tuple(line.split()[1:]) for line in send.stdout.splitlines() if line.startswith("loc ")]
    same = sum(1 for a, b in zip(sloc, rloc) if a == b)
    return lat[WARMUP:], same, len(rloc)


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--build-dir", required=True)
    ap.add_argument("--out", required=True)
    ap.add_argument("--quick", action="store_true")
    ap.add_argument("--no-pin", action="store_true", help="do not pin the two processes")
    a = ap.parse_args()
    per_round = 100 if a.quick else 1000
    allowed = sorted(os.sched_getaffinity(0))
    cpus = (allowed[0], allowed[1]) if len(allowed) >= 2 and not a.no_pin else (None, None)
    runs = [(c, s, r) for c in CASES for s, r in DIRECTIONS]
    pooled = {}
    run_id = 0
    for rnd in range(3):
        order = runs[rnd:] + runs[:rnd]
        for (name, kind, size), snd, rcv in order:
            run_id += 1
            lat, same, n = one_run(a.build_dir, run_id, snd, rcv, kind, size,
                                   per_round + WARMUP, cpus)
            p = pooled.setdefault((name, snd, rcv), {"lat": [], "same": 0, "n": 0})
            p["lat"] += lat
            p["same"] += same
            p["n"] += n
            print("python bench: round %d %s %s->%s: %d samples" % (rnd + 1, name, snd, rcv,
                                                                      len(lat)), flush=True)
    summary = {}
    for (name, snd, rcv), p in pooled.items():
        v = sorted(p["lat"])
        summary["%s_%s2%s" % (name, snd, rcv)] = {
            "case": name, "from": snd, "to": rcv, "samples": len(v),
            "p50_ns": percentile(v, 50), "p90_ns": percentile(v, 90),
            "p99_ns": percentile(v, 99), "p99_9_ns": percentile(v, 99.9), "max_ns": v[-1],
            "mean_ns": sum(v) / len(v), "same_location": p["same"], "messages": p["n"],
            "bytes_copied": 0 if p["same"] == p["n"] else None}
    os.makedirs(a.out, exist_ok=True)
    json.dump(summary, open(os.path.join(a.out, "python.json"), "w"), indent=1)
    md = report(summary, " ".join([os.path.relpath(sys.argv[0])] + sys.argv[1:]), cpus)
    open(os.path.join(a.out, "python.md"), "w").write(md)
    print(md)
    return 0 if all(s["bytes_copied"] == 0 for s in summary.values()) else 1


def us(ns):
    return "%.1f" % (ns / 1000.0)


def report(summary, cmd, cpus):
    L = ["## Python (bench/py_bench.py)", "",
         "Acked one-way latency (µs, CLOCK_MONOTONIC stamp before the loan → message taken), "
         "sender and receiver processes %s, 3 interleaved rounds pooled. "
         "`zero copy` = messages whose pool location (device, inode, offset) was the same in "
         "sender and receiver; all of them ⇒ bytes copied 0. Command: `%s`." % (
             "not pinned" if cpus[0] is None else "pinned to CPUs %s and %s" % cpus, cmd), "",
         "| case | direction | p50 | p90 | p99 | p99.9 | max | samples | p50 / c→c | zero copy | bytes copied |",
         "|---|---|---|---|---|---|---|---|---|---|---|"]
    for key, s in summary.items():
        ref = summary.get("%s_c2c" % s["case"])
        L.append("| %s | %s→%s | %s | %s | %s | %s | %s | %d | %.2f | %d/%d | %s |" % (
            s["case"], s["from"], s["to"], us(s["p50_ns"]), us(s["p90_ns"]), us(s["p99_ns"]),
            us(s["p99_9_ns"]), us(s["max_ns"]), s["samples"], s["p50_ns"] / ref["p50_ns"],
            s["same_location"], s["messages"],
            "0" if s["bytes_copied"] == 0 else "not shown"))
    pp, cc = summary.get("ack_1MiB_py2py"), summary.get("ack_1MiB_c2c")
    if pp and cc:
        r = pp["p50_ns"] / cc["p50_ns"]
        L += ["", "Target py→py 1 MiB p50 ≤ 1.5 × c→c 1 MiB p50 (same run): %.2f× — %s." % (
            r, "met" if r <= 1.5 else "not met")]
    return "\n".join(L) + "\n"


if __name__ == "__main__":
    sys.exit(main())
