#!/usr/bin/env bash
# The benchmark tooling end to end on a tiny run: driver -> raw CSV/JSON -> report.py, with a
# fan-out run in two rounds (raw/part<k>/, as make bench does) pooled by the report. Asserts
# structure and sample counts only, never timing.
set -euo pipefail
BIN=$1 REPORT=$2
OUT=$(mktemp -d)
trap 'rm -rf "$OUT"' EXIT
mkdir -p "$OUT/raw/part1" "$OUT/raw/part2"
export ZB_RUN_ID=smoke$$
for s in zcast floor; do
	"$BIN" --system $s --case pingpong --name ack_64B_event --size 64 --samples 200 --warmup 20 --out "$OUT/raw"
	"$BIN" --system $s --case pingpong --name ack_64B_adaptive --size 64 --spin-us 5 --samples 200 --warmup 20 --out "$OUT/raw"
	for k in 1 2; do
		"$BIN" --system $s --case fanout --name fanout_S2 --size 1K --subs 2 --rate 1000 --samples 50 \
			--warmup 5 --out "$OUT/raw/part$k"
	done
	# wait set, one busy topic among 4 (zcast: the doorbell; floor: one futex word)
	"$BIN" --system $s --case waitset --name wake_T4 --topics 4 --busy 1 --size 64 --rate 2000 \
		--samples 100 --out "$OUT/raw"
	"$BIN" --system $s --case join --name join_M8 --members 8 --samples 30 --warmup 5 --out "$OUT/raw"
	"$BIN" --system $s --case join_collide --name join_collide_1MiB --size 1M --rate 2000 --samples 400 \
		--warmup 10 --out "$OUT/raw"
done
# component containers, shrunk: 4 processes x >= 40 subscriptions over 40 topics, 1 s measured
for s in zcast uds; do
	"$BIN" --system $s --case container --name container_P4 --containers 4 --topics 40 --cap-s 1 --out "$OUT/raw"
done
/usr/bin/python3 "$REPORT" "$OUT"
/usr/bin/python3 - "$OUT" <<'PY'
import json, sys
out = sys.argv[1]
s = json.load(open(out + "/summary.json"))
st = json.load(open(out + "/status.json"))
def eq(what, got, want):
    if got != want:
        sys.exit("bench_smoke: %s = %r, expected %r" % (what, got, want))
for sys_ in ("zcast", "floor"):
    a = s["ack_64B_event"][sys_]
    eq(sys_ + " ack samples", a["samples"], 200)
    eq(sys_ + " ack oneway samples (both directions)", a["oneway_samples"], 400)
    eq(sys_ + " ack faults", a["minflt_per_msg"] >= 0, True)
    eq(sys_ + " wake_T4 E2E samples (100 x 2 subs)", s["wake_T4"][sys_]["samples"], 200)
    f = s["fanout_S2"][sys_]
    eq(sys_ + " fanout rounds", f["rounds"], 2)
    eq(sys_ + " fanout E2E samples (2 rounds x 50 x 2 subs)", f["samples"], 200)
    eq(sys_ + " fanout publish samples", f["publish_samples"], 100)
    eq(sys_ + " fanout last-subscriber samples", f["last_samples"], 100)
    # one per message taken after a wake-up (a message found queued while awake has none)
    eq(sys_ + " fanout receive samples in (0, 200]", 0 < f["receive_samples"] <= 200, True)
    eq(sys_ + " fanout last >= E2E p50", f["last_p50_ns"] >= f["p50_ns"], True)
    eq(sys_ + " fanout CPU per message measured", f["cpu_per_msg_ns"] > 0, True)
j = s["join_M8"]["zcast"]
eq("join samples", j["samples"], 30)
eq("leave samples", j["leave_samples"], 30)
c = s["join_collide_1MiB"]["zcast"]
eq("join_collide publish samples", c["samples"], 400)
eq("join_collide churner joins recorded", c["join_samples"] > 0 and c["join_samples"] == c["leave_samples"], True)
eq("floor join status", st["join_M8"]["floor"]["status"], "skipped")
eq("zcast adaptive samples", s["ack_64B_adaptive"]["zcast"]["samples"], 200)
eq("floor adaptive status", st["ack_64B_adaptive"]["floor"]["status"], "skipped")
for sys_ in ("zcast", "uds"):
    c = s["container_P4"][sys_]
    eq(sys_ + " container: every size class delivered", all(c[k + "_samples"] > 0 for k in ("small", "medium", "large")), True)
    eq(sys_ + " container: rows = small + medium + large", c["samples"],
       c["small_samples"] + c["medium_samples"] + c["large_samples"])
    eq(sys_ + " container: lost = due - delivered >= 0", c["lost"], c["published"] - c["received"])
    eq(sys_ + " container: every delivery a row", c["received"], c["samples"])
    eq(sys_ + " container: CPU measured", c["cpu_pct"] > 0, True)
report = open(out + "/report.md").read()
eq("container targets in report.md", "container_P4 small messages (<= 1 KiB) E2E p50 zcast ÷ uds" in report, True)
eq("targets table in report.md", "## Targets (same-run ratios)" in report, True)
print("bench_smoke: ok")
PY
