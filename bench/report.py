#!/usr/bin/python3
"""Summarizes one benchmark run: <dir>/raw/*.csv + *.json -> summary.json, report.md, plots/*.png.

usage: /usr/bin/python3 bench/report.py bench/results/<timestamp>
"""
import glob
import json
import math
import os
import re
import sys

import numpy as np

import matplotlib
matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

SYSTEMS = ["zcast", "floor", "iceoryx", "uds", "mq", "pipe"]
SIZES = ["64B", "4KiB", "64KiB", "1MiB", "4MiB", "8MiB"]
SIZE_BYTES = {"64B": 64, "4KiB": 4096, "64KiB": 65536, "1MiB": 1 << 20, "4MiB": 4 << 20, "8MiB": 8 << 20}
COLORS = {"zcast": "tab:red", "floor": "black", "iceoryx": "tab:blue", "uds": "tab:green",
          "mq": "tab:purple", "pipe": "tab:orange"}
# case container: size classes by log2(size) (the CSV's sub column), see bench/container_plan.c
CONTAINER_CLASSES = [("small", 0, 10), ("medium", 11, 16), ("large", 17, 40)]
PCTS = [("p50_ns", 50), ("p90_ns", 90), ("p99_ns", 99), ("p99_9_ns", 99.9)]


def stats(lat):
    lat = np.asarray(lat, dtype=np.float64)
    if lat.size == 0:
        return {"samples": 0}
    d = {k: float(np.percentile(lat, q)) for k, q in PCTS}
    d["max_ns"] = float(lat.max())
    d["mean_ns"] = float(lat.mean())
    d["samples"] = int(lat.size)
    return d


def load_csv(path):
    a = np.loadtxt(path, delimiter=",", skiprows=1, dtype=np.int64, ndmin=2)
    return a  # seq, sub, t_send, t_recv, lat


def case_order(name):
    m = re.match(r"ack_64B_(event|spin)", name)
    if m:
        return (0, m.group(1) != "event", 0)
    m = re.match(r"payload_(\w+?)_(transport|touch)$", name)
    if m:
        return (1, m.group(2) != "transport", SIZES.index(m.group(1)) if m.group(1) in SIZES else 99)
    m = re.match(r"continuous_(\w+)", name)
    if m:
        return (2, 0, SIZE_BYTES.get(m.group(1), 0))
    m = re.match(r"overload_(\w+)", name)
    if m:
        return (3, 0, m.group(1))
    m = re.match(r"fanout_S(\d+)", name)
    if m:
        return (4, 0, int(m.group(1)))
    m = re.match(r"topics_T(\d+)", name)
    if m:
        return (5, 0, int(m.group(1)))
    m = re.match(r"waitset_T(\d+)", name)
    if m:
        return (6, 0, int(m.group(1)))
    m = re.match(r"wake_(nobell_)?T(\d+)", name)
    if m:
        return (6.5, bool(m.group(1)), int(m.group(2)))
    m = re.match(r"fanout_ws_(nobell_)?S(\d+)", name)
    if m:
        return (4.5, bool(m.group(1)), int(m.group(2)))
    m = re.match(r"join_M(\d+)", name)
    if m:
        return (7, 0, int(m.group(1)))
    if name.startswith("join_collide"):
        return (8, 0, name)
    if name.startswith("container"):
        return (8.5, 0, name)
    m = re.match(r"svc_(rtt|calls)_(?:C(\d+)|(\w+))$", name)
    if m:  # case service: round trips by request size, then calls/s by clients
        return (8.7, m.group(1) != "rtt", int(m.group(2)) if m.group(2) else SIZE_BYTES.get(m.group(3), 0))
    return (9, 0, name)


def fmt_ns(v):
    if v is None or (isinstance(v, float) and math.isnan(v)):
        return "–"
    if v >= 1e6:
        return "%.2f ms" % (v / 1e6)
    if v >= 1e3:
        return "%.1f µs" % (v / 1e3)
    return "%.0f ns" % v


def ratio(a, b):
    if not a or not b:
        return "–"
    return "%.2f×" % (a / b)


def target_rows(summary, cases):
    """The issue's targets as same-run ratios: (what, value, limit) -> a markdown table."""
    def get(case, system, metric):
        return summary.get(case, {}).get(system, {}).get(metric)

    def rat(a, b):
        return a / b if a and b else None

    rows = []
    for pct, lim in (("p50", 1.10), ("p99_9", 1.5)):
        rows.append(("ack_64B_event zcast %s ÷ floor" % pct,
                     rat(get("ack_64B_event", "zcast", pct + "_ns"), get("ack_64B_event", "floor", pct + "_ns")), lim))
    for pct in ("p50", "p99_9"):
        rows.append(("ack_64B_event zcast %s ÷ iceoryx" % pct,
                     rat(get("ack_64B_event", "zcast", pct + "_ns"), get("ack_64B_event", "iceoryx", pct + "_ns")), 0.6))
    for pct in ("p50", "p99_9"):
        rows.append(("ack_64B_adaptive (zcast, spin 5 µs then sleep) %s ÷ iceoryx ack_64B_event" % pct,
                     rat(get("ack_64B_adaptive", "zcast", pct + "_ns"), get("ack_64B_event", "iceoryx", pct + "_ns")), 0.6))
    rows.append(("ack_64B_spin zcast p50 ÷ iceoryx", rat(get("ack_64B_spin", "zcast", "p50_ns"),
                                                          get("ack_64B_spin", "iceoryx", "p50_ns")), 0.5))
    rows.append(("ack_64B_spin zcast p50 ÷ floor", rat(get("ack_64B_spin", "zcast", "p50_ns"),
                                                        get("ack_64B_spin", "floor", "p50_ns")), 2.0))
    rows.append(("zcast payload_8MiB_transport p50 ÷ payload_64B_transport p50",
                 rat(get("payload_8MiB_transport", "zcast", "p50_ns"), get("payload_64B_transport", "zcast", "p50_ns")), 1.10))
    for c in sorted([c for c in cases if c.startswith("fanout_S")], key=case_order):
        for pre, what in (("publish_", "publish call"), ("", "E2E")):
            for pct in ("p50", "p99_9"):
                k = pre + pct + "_ns"
                rows.append(("%s zcast %s %s ÷ floor" % (c, what, pct), rat(get(c, "zcast", k), get(c, "floor", k)), 1.2))
        rows.append(("%s zcast E2E p99_9 ÷ iceoryx" % c, rat(get(c, "zcast", "p99_9_ns"), get(c, "iceoryx", "p99_9_ns")), 1.0))
    # The doorbell (docs/WAITSETS.md): wake-to-callback flat in the subscriptions per process, and
    # fan-out to wait sets no dearer than the floor's one wake for all.
    for T in (10, 100, 1024):
        rows.append(("wake_T%d zcast p50 ÷ wake_T1 zcast p50 (one busy topic among T subscriptions)" % T,
                     rat(get("wake_T%d" % T, "zcast", "p50_ns"), get("wake_T1", "zcast", "p50_ns")), 1.2))
    for c in sorted([c for c in cases if re.match(r"fanout_ws_S\d+$", c)], key=case_order):
        for pre, what in (("publish_", "publish call"), ("", "E2E")):
            k = pre + "p50_ns"
            rows.append(("%s (a wait set per subscriber) zcast %s p50 ÷ floor" % (c, what),
                         rat(get(c, "zcast", k), get(c, "floor", k)), 1.2))
    # Component containers (case container): small messages against Unix sockets in the same run.
    for c in sorted([c for c in cases if "small_p50_ns" in summary.get(c, {}).get("zcast", {})], key=case_order):
        for pct, lim in (("p50", 1.0), ("p99_9", 0.3)):
            k = "small_%s_ns" % pct
            rows.append(("%s small messages (<= 1 KiB) E2E %s zcast ÷ uds" % (c, pct),
                         rat(get(c, "zcast", k), get(c, "uds", k)), lim))
    # Request/response (case service): round trip against the two-wake floor and iceoryx.
    for c in sorted([c for c in cases if c.startswith("svc_rtt_")], key=case_order):
        rows.append(("%s zcast p50 ÷ floor" % c, rat(get(c, "zcast", "p50_ns"), get(c, "floor", "p50_ns")), 1.10))
        rows.append(("%s zcast p50 ÷ iceoryx" % c, rat(get(c, "zcast", "p50_ns"), get(c, "iceoryx", "p50_ns")), 0.90))
    flt = [m["minflt_per_msg"] for c in cases for s_, m in summary.get(c, {}).items()
           if s_ == "zcast" and "minflt_per_msg" in m]
    L = ["## Targets (same-run ratios)", "", "| target | value | limit | met |", "|---|---|---|---|"]
    for what, v, lim in rows:
        if v is None:
            continue
        L.append("| %s | %.2f | ≤ %.2f | %s |" % (what, v, lim, "yes" if v <= lim else "**no**"))
    if flt:
        L.append("| zcast minor faults per message, worst case | %.3f | 0 (steady state) | %s |"
                 % (max(flt), "yes" if max(flt) < 0.01 else "**no**"))
    return L + [""]


# The absolute targets for membership churn (µs): (case, metric, what, limit).
MEMBERSHIP_TARGETS = [
    ("join_M1024", "p50_ns", "join at 1024 members, p50", 200e3),
    ("join_M1024", "p99_ns", "join at 1024 members, p99", 200e3),
    ("join_M1024", "leave_p50_ns", "leave at 1024 members, p50", 200e3),
    ("join_M1024", "leave_p99_ns", "leave at 1024 members, p99", 200e3),
    ("join_collide_4MiB", "p99_ns", "publish colliding with joins (4 MiB topic), p99", 50e3),
]


def membership_rows(summary):
    """Absolute targets of the membership cases (zcast only) -> a markdown table, or nothing."""
    L = []
    for case, metric, what, lim in MEMBERSHIP_TARGETS:
        v = summary.get(case, {}).get("zcast", {}).get(metric)
        if v is not None:
            L.append("| %s | %s | ≤ %s | %s |" % (what, fmt_ns(v), fmt_ns(lim), "yes" if v <= lim else "**no**"))
    if not L:
        return []
    return ["## Membership targets (absolute)", "", "| target | value | limit | met |", "|---|---|---|---|"] + L + [""]


def container_table(rows):
    """Case container: E2E per size class for zcast and uds, and zcast ÷ uds."""
    L = ["| class | system | deliveries | p50 | p99 | p99.9 | max | p50 zcast÷uds | p99 | p99.9 | lost | CPU % |",
         "|---|---|---|---|---|---|---|---|---|---|---|---|"]
    z, u = rows.get("zcast", {}), rows.get("uds", {})
    for cls, _, _ in CONTAINER_CLASSES:
        for s_, m in (("zcast", z), ("uds", u)):
            if not m.get(cls + "_samples"):
                continue
            r = ["–", "–", "–"]
            if s_ == "zcast":
                r = [ratio(m.get("%s_%s_ns" % (cls, p)), u.get("%s_%s_ns" % (cls, p))) for p in ("p50", "p99", "p99_9")]
            L.append("| %s | %s | %d | %s | %s | %s | %s | %s | %s | %s | %d | %s |" % (
                cls, s_, m[cls + "_samples"], fmt_ns(m[cls + "_p50_ns"]), fmt_ns(m[cls + "_p99_ns"]),
                fmt_ns(m[cls + "_p99_9_ns"]), fmt_ns(m[cls + "_max_ns"]), r[0], r[1], r[2], m["lost"],
                "%.1f" % m["cpu_pct"] if "cpu_pct" in m else "–"))
    return L


def load_runs(raw):
    """Yields (meta, samples) per case and system. A configuration run in rounds (run.sh puts
    round k into raw/part<k>/, interleaved with the other systems so that drift on a shared
    machine hits every system alike) is merged: samples pooled (seq offset per round), counts
    summed, rates and faults per message averaged."""
    groups = {}
    for path in sorted(glob.glob(os.path.join(raw, "*.json")) + glob.glob(os.path.join(raw, "part*", "*.json"))):
        meta = json.load(open(path))
        groups.setdefault((meta["case"], meta["system"]), []).append((path, meta))
    for (case, system), parts in sorted(groups.items()):
        metas = [m for _, m in parts]
        bad = [m for m in metas if m["status"] != "ok"]
        meta = dict(bad[0] if bad else metas[0])
        meta["reason"] = "; ".join(sorted({m["reason"] for m in metas if m["reason"]}))
        if bad or len(parts) == 1:
            yield meta, (None if bad else load_csv(parts[0][0][:-5] + ".csv"))
            continue
        arrays = []
        for k, (path, _) in enumerate(parts):
            a = load_csv(path[:-5] + ".csv")
            a[:, 0] += k * 10_000_000
            arrays.append(a)
        for key in ("published", "received", "rows", "failed", "cpu_s"):
            meta[key] = sum(m.get(key, 0) for m in metas)
        for key in ("minflt_per_msg", "msgs_per_s", "cpu_pct"):
            meta[key] = float(np.mean([m[key] for m in metas]))
        meta["rounds"] = len(parts)
        yield meta, np.concatenate(arrays)


def main():
    if len(sys.argv) != 2:
        sys.exit(__doc__)
    out = sys.argv[1]
    raw = os.path.join(out, "raw")
    plots = os.path.join(out, "plots")
    os.makedirs(plots, exist_ok=True)

    summary, status, latencies, kinds = {}, {}, {}, {}
    for meta, a in load_runs(raw):
        case, system = meta["case"], meta["system"]
        status.setdefault(case, {})[system] = {k: meta[k] for k in ("status", "reason")}
        kinds[case] = meta["kind"]
        if meta["status"] != "ok":
            continue
        if meta["kind"] in ("fanout", "waitset"):
            sub_rows = a[a[:, 1] >= 0]
            pub_rows = a[a[:, 1] == -1]
            recv_rows = a[a[:, 1] <= -2]  # waitset: duration of each successful take (sub -2 - i)
            m = stats(sub_rows[:, 4])
            for k, v in stats(pub_rows[:, 4]).items():
                m["publish_" + k] = v
            if len(recv_rows):
                for k, v in stats(recv_rows[:, 4]).items():
                    m["receive_" + k] = v
            per_sub = [np.percentile(sub_rows[sub_rows[:, 1] == s][:, 4], 99)
                       for s in np.unique(sub_rows[:, 1])]
            if meta["kind"] == "fanout" and len(sub_rows):
                # publish start -> last subscriber has it, per message every subscriber received
                nsub = len(np.unique(sub_rows[:, 1]))
                seqs, inv, cnt = np.unique(sub_rows[:, 0], return_inverse=True, return_counts=True)
                last = np.full(len(seqs), -np.inf)
                np.maximum.at(last, inv, sub_rows[:, 4])
                for k, v in stats(last[cnt == nsub]).items():
                    m["last_" + k] = v
            m["worst_sub_p99_ns"] = float(max(per_sub)) if per_sub else 0.0
            latencies[(case, system)] = sub_rows[:, 4]
        elif meta["kind"] in ("join", "join_collide"):
            # rows: sub 0 = join, 1 = leave, 2 = publish call (case_membership.c)
            main_rows = a[a[:, 1] == (0 if meta["kind"] == "join" else 2)]
            m = stats(main_rows[:, 4])
            extra = (("leave_", 1),) if meta["kind"] == "join" else (("join_", 0), ("leave_", 1))
            for pre, code in extra:
                for k, v in stats(a[a[:, 1] == code][:, 4]).items():
                    m[pre + k] = v
            latencies[(case, system)] = main_rows[:, 4]
        elif meta["kind"] == "container":
            # one row per delivery, sub = log2(message size) (bench/case_container.c)
            m = stats(a[:, 4])
            for cls, lo, hi in CONTAINER_CLASSES:
                rows_ = a[(a[:, 1] >= lo) & (a[:, 1] <= hi)]
                for k, v in stats(rows_[:, 4]).items():
                    m[cls + "_" + k] = v
            m["lost"] = meta["published"] - meta["received"]
            latencies[(case, system)] = a[:, 4]
        elif meta["kind"] == "pingpong":
            rtt = a[a[:, 1] >= 0]  # RTT/2 (sub = pair)
            m = stats(rtt[:, 4])
            for k, v in stats(a[a[:, 1] < 0][:, 4]).items():
                m["oneway_" + k] = v  # send stamp -> receive returned, both directions (sub = -1 - pair)
            latencies[(case, system)] = rtt[:, 4]
        else:
            m = stats(a[:, 4])
            latencies[(case, system)] = a[:, 4]
        m["published"] = meta["published"]
        m["received"] = meta["received"]
        m["failed"] = meta.get("failed", 0)  # overload full_fail: publishes refused by a full queue
        m["minflt_per_msg"] = meta["minflt_per_msg"]
        m["rounds"] = meta.get("rounds", 1)
        if meta.get("cpu_pct", -1) >= 0:
            m["cpu_pct"] = meta["cpu_pct"]  # all processes, % of all allowed cores (100 = all busy)
            m["cpu_cores"] = meta["cpu_cores"]
            m["rate_hz"] = meta["rate_hz"]
            if meta["kind"] == "waitset":
                m["msgs_per_s"] = meta["msgs_per_s"]  # achieved publish rate (vs rate_hz requested)
            if meta["kind"] == "fanout" and meta["published"] > 0:
                # CPU of the publisher and all S subscribers per message: what delivering it costs
                m["cpu_per_msg_ns"] = meta["cpu_s"] * 1e9 / meta["published"]
        if meta["kind"] == "service":
            m["msgs_per_s"] = meta["msgs_per_s"]  # calls per second, all clients
            m["bytes_copied"] = meta.get("bytes_copied", -1)
            m["clients"] = max(1, meta.get("clients", 1))
        if meta["kind"] in ("continuous", "overload"):
            m["msgs_per_s"] = meta["msgs_per_s"]
            m["gb_per_s"] = meta["msgs_per_s"] * meta["size"] / 1e9
        summary.setdefault(case, {})[system] = m

    cases = sorted(set(summary) | set(status), key=case_order)
    summary = {c: {s: summary[c][s] for s in SYSTEMS if s in summary.get(c, {})} for c in cases}
    json.dump(summary, open(os.path.join(out, "summary.json"), "w"), indent=1)
    json.dump(status, open(os.path.join(out, "status.json"), "w"), indent=1)

    # ---- plots -------------------------------------------------------------------------
    pngs = []
    for c in cases:
        fig, ax = plt.subplots(figsize=(7, 4.5))
        any_ = False
        for s in SYSTEMS:
            lat = latencies.get((c, s))
            if lat is None or len(lat) == 0:
                continue
            x = np.sort(lat.astype(np.float64))
            x[x < 1] = 1
            y = np.arange(1, len(x) + 1) / len(x)
            ax.plot(x, y, label=s, color=COLORS[s], lw=1.4 if s in ("zcast", "floor") else 1)
            any_ = True
        if not any_:
            plt.close(fig)
            continue
        ax.set_xscale("log")
        ax.set_xlabel("latency [ns]" + (" (one-way = RTT/2)" if c.startswith(("ack", "payload")) else ""))
        ax.set_ylabel("fraction of samples")
        ax.set_title("latency CDF: " + c)
        ax.grid(True, which="both", alpha=0.3)
        ax.legend()
        p = "cdf_%s.png" % c
        fig.tight_layout()
        fig.savefig(os.path.join(plots, p), dpi=90)
        plt.close(fig)
        pngs.append(p)

    for mode in ("transport", "touch"):
        fig, ax = plt.subplots(figsize=(7, 4.5))
        any_ = False
        for s in SYSTEMS:
            xs, p50, p99 = [], [], []
            for size in SIZES:
                m = summary.get("payload_%s_%s" % (size, mode), {}).get(s)
                if m and m.get("samples"):
                    xs.append(SIZE_BYTES[size]); p50.append(m["p50_ns"]); p99.append(m["p99_ns"])
            if xs:
                any_ = True
                ax.plot(xs, p50, "o-", color=COLORS[s], label=s + " p50")
                ax.plot(xs, p99, "x--", color=COLORS[s], alpha=0.5, label=s + " p99")
        if any_:
            ax.set_xscale("log", base=2)
            ax.set_yscale("log")
            ax.set_xlabel("payload [bytes]")
            ax.set_ylabel("one-way latency [ns] (RTT/2)")
            ax.set_title("latency vs payload, mode %s" % mode)
            ax.grid(True, which="both", alpha=0.3)
            ax.legend(fontsize=7, ncol=2)
            p = "payload_%s.png" % mode
            fig.tight_layout()
            fig.savefig(os.path.join(plots, p), dpi=90)
            pngs.append(p)
        plt.close(fig)

    fan = sorted([c for c in cases if c.startswith("fanout_S")], key=case_order)
    if fan:
        fig, (ax1, ax2) = plt.subplots(1, 2, figsize=(11, 4.5))
        for s in SYSTEMS:
            pts = [(int(c[8:]), summary[c][s]) for c in fan if s in summary.get(c, {})]
            if not pts:
                continue
            S = [p[0] for p in pts]
            ax1.plot(S, [p[1]["p50_ns"] for p in pts], "o-", color=COLORS[s], label=s + " p50")
            ax1.plot(S, [p[1]["p99_ns"] for p in pts], "x--", color=COLORS[s], alpha=0.5, label=s + " p99")
            if all("last_p50_ns" in p[1] for p in pts):
                ax1.plot(S, [p[1]["last_p50_ns"] for p in pts], "^:", color=COLORS[s], alpha=0.8,
                         label=s + " last sub p50")
            ax2.plot(S, [p[1]["publish_p50_ns"] for p in pts], "o-", color=COLORS[s], label=s + " p50")
            ax2.plot(S, [p[1]["publish_p99_ns"] for p in pts], "x--", color=COLORS[s], alpha=0.5, label=s + " p99")
        for ax, t in ((ax1, "E2E latency (pooled over subscribers)"), (ax2, "publish call latency")):
            ax.set_xscale("log", base=2)
            ax.set_yscale("log")
            ax.set_xlabel("subscribers S")
            ax.set_ylabel("ns")
            ax.set_title(t)
            ax.grid(True, which="both", alpha=0.3)
            ax.legend(fontsize=7, ncol=2)
        fig.tight_layout()
        fig.savefig(os.path.join(plots, "fanout.png"), dpi=90)
        plt.close(fig)
        pngs.append("fanout.png")

    # topic sweep (sweep A): topics_T<n> of kind waitset, 100 Hz per topic
    top = sorted([c for c in cases if re.match(r"topics_T\d+$", c) and kinds.get(c) == "waitset"
                  and "zcast" in summary.get(c, {})], key=case_order)
    cpu_limit, top_text = 60.0, []
    if top:
        Ts = [int(c[8:]) for c in top]
        ms = [summary[c]["zcast"] for c in top]
        fig, (ax1, ax2) = plt.subplots(1, 2, figsize=(11, 4.5))
        ax1.plot(Ts, [m["p50_ns"] for m in ms], "o-", color="tab:red", label="E2E p50")
        ax1.plot(Ts, [m["p99_ns"] for m in ms], "x--", color="tab:red", alpha=0.6, label="E2E p99")
        ax1.plot(Ts, [m["publish_p50_ns"] for m in ms], "s-", color="tab:blue", label="publish p50")
        if all("receive_p50_ns" in m for m in ms):
            ax1.plot(Ts, [m["receive_p50_ns"] for m in ms], "^-", color="tab:green", label="receive (take) p50")
        ax1.set_yscale("log")
        ax1.set_ylabel("ns")
        ax1.set_title("zcast latency vs topics (100 Hz/topic, 2 subs, 64 B)")
        ax2.plot(Ts, [m.get("cpu_pct", float("nan")) for m in ms], "o-", color="black", label="cpu_pct")
        ax2.axhline(cpu_limit, color="gray", ls=":", label="%.0f %%" % cpu_limit)
        ax2.set_ylabel("CPU, % of all cores")
        ax2.set_title("CPU of publisher + 2 subscribers")
        for ax in (ax1, ax2):
            ax.set_xscale("log", base=2)
            ax.set_xlabel("topics T")
            ax.grid(True, which="both", alpha=0.3)
            ax.legend(fontsize=7)
        fig.tight_layout()
        fig.savefig(os.path.join(plots, "topics.png"), dpi=90)
        plt.close(fig)
        pngs.append("topics.png")
        below = [(T, m["cpu_pct"]) for T, m in zip(Ts, ms) if m.get("cpu_pct", 1e9) < cpu_limit]
        above = [(T, m["cpu_pct"]) for T, m in zip(Ts, ms) if m.get("cpu_pct", -1) >= cpu_limit]
        cores = ms[0].get("cpu_cores", "?")
        if below:
            t, c = max(below)
            top_text.append("Topic sweep (zcast, %s cores): the largest T below %.0f %% CPU was **T = %d** "
                            "(cpu_pct %.1f %%)." % (cores, cpu_limit, t, c))
        else:
            top_text.append("Topic sweep (zcast, %s cores): no measured T stayed below %.0f %% CPU." % (cores, cpu_limit))
        if above:
            top_text.append(" First T at or above it: T = %d (cpu_pct %.1f %%)." % min(above))
        else:
            top_text.append(" Every measured T (up to %d) stayed below it." % max(Ts))
        top_text = ["".join(top_text), ""]

    # wake-to-callback against subscriptions per process: wake_T<n> (doorbell), wake_nobell_T<n>
    # (every topic word armed on each wait: the wait set before the doorbell), and the floor
    series = []
    for label, pat, system, color in (("zcast (doorbell)", r"wake_T(\d+)$", "zcast", "tab:red"),
                                      ("zcast without doorbell", r"wake_nobell_T(\d+)$", "zcast", "tab:orange"),
                                      ("floor (one futex word)", r"wake_T(\d+)$", "floor", "black")):
        pts = sorted((int(re.match(pat, c).group(1)), summary[c][system]) for c in cases
                     if re.match(pat, c) and system in summary.get(c, {}))
        if pts:
            series.append((label, color, pts))
    if series:
        fig, ax = plt.subplots(figsize=(7, 4.5))
        for label, color, pts in series:
            ax.plot([t for t, _ in pts], [m["p50_ns"] / 1e3 for _, m in pts], "o-", color=color, label=label + " p50")
            ax.plot([t for t, _ in pts], [m["p99_ns"] / 1e3 for _, m in pts], "x--", color=color, alpha=0.4,
                    label=label + " p99")
        ax.set_xscale("log", base=10)
        ax.set_yscale("log")
        ax.set_xlabel("subscriptions per process (one wait set, one busy topic)")
        ax.set_ylabel("wake-to-callback, µs")
        ax.set_title("wake-to-callback vs subscriptions per process (64 B, 1000 msgs/s)")
        ax.grid(True, which="both", alpha=0.3)
        ax.legend(fontsize=7)
        fig.tight_layout()
        fig.savefig(os.path.join(plots, "wake.png"), dpi=90)
        plt.close(fig)
        pngs.append("wake.png")

    targets = target_rows(summary, cases) + membership_rows(summary)

    # ---- report.md ---------------------------------------------------------------------
    machine = open(os.path.join(out, "machine.txt")).read() if os.path.exists(os.path.join(out, "machine.txt")) else ""
    L = ["# zcast benchmark report", "", "Run directory: `%s`" % os.path.basename(os.path.abspath(out)), "",
         "## Machine and command", "", "```", machine.strip(), "```", "",
         "Latencies are CLOCK_MONOTONIC nanoseconds. `ack_*`/`payload_*`: one-way = RTT/2 of a "
         "ping-pong; `one-way` columns = send stamp → receive returned, both directions pooled. `continuous_*`: receive time − send stamp under full load. `fanout_*`: E2E "
         "pooled over all subscribers; `pub` = duration of the publisher's send call. `waitset_T<n>`: "
         "like fan-out, 2 subscriber processes each waiting on T topics in one wait set (1000 msgs/s in "
         "total). `wake_T<n>`: the same with one busy topic among T subscriptions per process "
         "(wake-to-callback; `wake_nobell_T<n>`: zcast with $ZCAST_NO_DOORBELL=1, the wait set before "
         "its doorbell; floor: one futex word). `fanout_ws_S<n>`: fan-out whose subscribers each wait in "
         "a wait set of their own. `topics_T<n>`: the same at 100 Hz per topic (topic sweep); `recv` = duration of the "
         "successful zcast_take, `CPU %` = CPU time of all processes ÷ wall time of the measured phase, "
         "share of all cores. `overload_*`: "
         "slow consumer (sleeps 50 µs per message), latency = age of the data when received; `full`: the "
         "publisher waits for room, `full_fail`: a publish into a full queue fails at once and is counted "
         "(`failed`), `drop_old`: the oldest queued message is dropped; msgs/s = "
         "received rate; payload GB/s = msgs/s × payload size (nominal: in transport mode a "
         "zero-copy peer does not touch the payload). Ratios are "
         "system ÷ same-run floor (resp. iceoryx); < 1 means faster. `join_M<n>` (zcast only): duration of "
         "one zcast_sub_open (p50 … columns) and zcast_sub_close (`leave`) on a topic with n members. "
         "`join_collide_*`: duration of each zcast_publish call (p50 … columns) while another process "
         "joins and leaves the same topic once per millisecond (`join`/`leave`: the churner's calls). "
         "`container`: 16 single-thread container processes over a generated Autoware-like graph (230 topics, "
         "40–60 subscriptions each, 128 B … 4 MiB, 1–100 Hz); E2E (send stamp before the loan/write → take/read "
         "returned) pooled over all deliveries, per size class in the table below it; zcast (one wait set per "
         "container) against uds (a socket per subscription, epoll); `lost` = deliveries due − delivered. "
         "`svc_rtt_<size>`: request/response round trip (send start → response read) of a <size> request "
         "and a 64 B response, 1 client; floor = two futex wake-ups per call. `svc_calls_C<n>`: the same with "
         "64 B requests and n client processes against one server; calls/s = measured calls ÷ first start → "
         "last end. `bytes copied`: 0 = client (at send) and server (at take) named the same bytes of "
         "shared memory (device, inode, offset) for a request of every client, – = the system cannot tell.", ""] + top_text + targets
    for c in cases:
        L += ["## %s" % c, ""]
        rows = summary.get(c, {})
        floor, iox = rows.get("floor", {}), rows.get("iceoryx", {})
        hdr = "| system | p50 | p90 | p99 | p99.9 | max | mean | samples | p50/floor | p99/floor | p50/iceoryx | p99/iceoryx | minflt/msg |"
        extra = ""
        if c.startswith(("continuous", "overload")):
            hdr += " msgs/s | payload GB/s | msgs/s vs floor | published | received |"
        if c.startswith("overload"):
            hdr += " failed |"
        if c.startswith(("fanout", "waitset")) or kinds.get(c) == "waitset":
            hdr += " pub p50 | pub p99 | pub p50/floor | worst sub p99 |"
        if kinds.get(c) == "pingpong":
            hdr += " one-way p50 | one-way p99.9 |"
        if kinds.get(c) == "service":
            hdr += " clients | calls/s | calls/s vs floor | bytes copied |"
        if kinds.get(c) == "fanout":
            hdr += " last p50 | last p99.9 | recv p50 | recv p99 | CPU/msg |"
        if kinds.get(c) == "waitset":
            hdr += " recv p50 | recv p99 | CPU % | msgs/s requested / achieved |"
        if kinds.get(c) == "join_collide":
            hdr += " join p50 | join p99 |"
        if kinds.get(c) in ("join", "join_collide"):
            hdr += " leave p50 | leave p99 | leave max |"
        L += [hdr, "|" + "---|" * (hdr.count("|") - 1)]
        for s in SYSTEMS:
            m = rows.get(s)
            if not m:
                st = status.get(c, {}).get(s)
                if st:
                    L.append("| %s | %s: %s |" % (s, st["status"], st["reason"] or "–"))
                continue
            r = "| %s | %s | %s | %s | %s | %s | %s | %d | %s | %s | %s | %s | %.3f |" % (
                s, fmt_ns(m["p50_ns"]), fmt_ns(m["p90_ns"]), fmt_ns(m["p99_ns"]), fmt_ns(m["p99_9_ns"]),
                fmt_ns(m["max_ns"]), fmt_ns(m["mean_ns"]), m["samples"],
                ratio(m["p50_ns"], floor.get("p50_ns")), ratio(m["p99_ns"], floor.get("p99_ns")),
                ratio(m["p50_ns"], iox.get("p50_ns")), ratio(m["p99_ns"], iox.get("p99_ns")),
                m["minflt_per_msg"])
            if c.startswith(("continuous", "overload")):
                r += " %.0f | %.3f | %s | %d | %d |" % (m["msgs_per_s"], m["gb_per_s"],
                                                       ratio(m["msgs_per_s"], floor.get("msgs_per_s")),
                                                       m["published"], m["received"])
            if c.startswith("overload"):
                r += " %d |" % m["failed"]
            if c.startswith(("fanout", "waitset")) or kinds.get(c) == "waitset":
                r += " %s | %s | %s | %s |" % (fmt_ns(m["publish_p50_ns"]), fmt_ns(m["publish_p99_ns"]),
                                               ratio(m["publish_p50_ns"], floor.get("publish_p50_ns")),
                                               fmt_ns(m["worst_sub_p99_ns"]))
            if kinds.get(c) == "service":
                r += " %d | %.0f | %s | %s |" % (m["clients"], m["msgs_per_s"], ratio(m["msgs_per_s"], floor.get("msgs_per_s")),
                                                 "%d" % m["bytes_copied"] if m["bytes_copied"] >= 0 else "–")
            if kinds.get(c) == "pingpong":
                r += " %s | %s |" % (fmt_ns(m.get("oneway_p50_ns")), fmt_ns(m.get("oneway_p99_9_ns")))
            if kinds.get(c) == "fanout":
                r += " %s | %s | %s | %s | %s |" % (fmt_ns(m.get("last_p50_ns")), fmt_ns(m.get("last_p99_9_ns")),
                                                    fmt_ns(m.get("receive_p50_ns")), fmt_ns(m.get("receive_p99_ns")),
                                                    fmt_ns(m.get("cpu_per_msg_ns")))
            if kinds.get(c) == "waitset":
                r += " %s | %s | %s | %s |" % (
                    fmt_ns(m.get("receive_p50_ns")), fmt_ns(m.get("receive_p99_ns")),
                    "%.1f" % m["cpu_pct"] if "cpu_pct" in m else "–",
                    "%.0f / %.0f" % (m["rate_hz"], m["msgs_per_s"]) if m.get("msgs_per_s") else "–")
            if kinds.get(c) == "join_collide":
                r += " %s | %s |" % (fmt_ns(m.get("join_p50_ns")), fmt_ns(m.get("join_p99_ns")))
            if kinds.get(c) in ("join", "join_collide"):
                r += " %s | %s | %s |" % (fmt_ns(m.get("leave_p50_ns")), fmt_ns(m.get("leave_p99_ns")),
                                          fmt_ns(m.get("leave_max_ns")))
            L.append(r)
        for s in SYSTEMS:
            st = status.get(c, {}).get(s)
            if st and st["status"] == "ok" and st["reason"]:
                L.append("")
                L.append("Note (%s): %s" % (s, st["reason"]))
        if kinds.get(c) == "container":
            L += [""] + container_table(rows)
        if "cdf_%s.png" % c in pngs:
            L += ["", "![CDF %s](plots/cdf_%s.png)" % (c, c)]
        L.append("")
    for p in ("payload_transport.png", "payload_touch.png", "fanout.png", "topics.png", "wake.png"):
        if p in pngs:
            L += ["## plot: %s" % p[:-4], "", "![%s](plots/%s)" % (p, p), ""]
    py_md = os.path.join(out, "python.md")  # bench/py_bench.py's section
    if os.path.exists(py_md):
        L += [open(py_md).read()]
    open(os.path.join(out, "report.md"), "w").write("\n".join(L) + "\n")
    print("report: %s (%d cases, %d plots)" % (os.path.join(out, "report.md"), len(cases), len(pngs)))


if __name__ == "__main__":
    main()
