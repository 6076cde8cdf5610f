#!/usr/bin/env bash
# The request/response benchmark (case service) end to end on a tiny run: driver -> raw CSV/JSON ->
# report.py. Asserts structure, sample counts and the zero-copy proof, never timing.
set -euo pipefail
BIN=$1 REPORT=$2
OUT=$(mktemp -d)
trap 'rm -rf "$OUT"' EXIT
mkdir -p "$OUT/raw"
export ZB_RUN_ID=svcsmoke$$
SYSTEMS="floor uds"
"$BIN" --system zcast --case service --name probe --size 64 --samples 1 --warmup 0 --out "$OUT" >/dev/null
grep -q '"status": "ok"' "$OUT/probe__zcast.json" && SYSTEMS="zcast $SYSTEMS"
for s in $SYSTEMS; do
	"$BIN" --system $s --case service --name svc_rtt_64B --size 64 --samples 200 --warmup 20 --out "$OUT/raw"
	"$BIN" --system $s --case service --name svc_rtt_1MiB --size 1M --samples 50 --warmup 5 --out "$OUT/raw"
	"$BIN" --system $s --case service --name svc_calls_C3 --size 64 --clients 3 --samples 300 --warmup 10 \
		--out "$OUT/raw"
done
"$BIN" --system mq --case service --name svc_rtt_64B --size 64 --samples 10 --out "$OUT/raw"
/usr/bin/python3 "$REPORT" "$OUT" >/dev/null
/usr/bin/python3 - "$OUT" $SYSTEMS <<'PY'
import json, sys
out, systems = sys.argv[1], sys.argv[2:]
s = json.load(open(out + "/summary.json"))
st = json.load(open(out + "/status.json"))
def eq(what, got, want):
    if got != want:
        sys.exit("bench_service_smoke: %s = %r, expected %r" % (what, got, want))
for sys_ in systems:
    eq(sys_ + " 64 B round trips", s["svc_rtt_64B"][sys_]["samples"], 200)
    eq(sys_ + " 1 MiB round trips", s["svc_rtt_1MiB"][sys_]["samples"], 50)
    c = s["svc_calls_C3"][sys_]
    eq(sys_ + " calls of 3 clients (100 each)", c["samples"], 300)
    eq(sys_ + " clients", c["clients"], 3)
    eq(sys_ + " calls/s measured", c["msgs_per_s"] > 0, True)
    eq(sys_ + " 1 MiB copies", s["svc_rtt_1MiB"][sys_]["bytes_copied"], 0 if sys_ == "zcast" else -1)
eq("mq has no request/response", st["svc_rtt_64B"]["mq"]["status"], "skipped")
report = open(out + "/report.md").read()
eq("service columns in report.md", "| clients | calls/s |" in report, True)
if "zcast" in systems:
    eq("service targets in report.md", "svc_rtt_1MiB zcast p50 ÷ floor" in report, True)
print("bench_service_smoke: ok (%s)" % " ".join(systems))
PY
