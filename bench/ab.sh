#!/usr/bin/env bash
# Compares builds of zcast (and the floor) on one ping-pong configuration, interleaved: each round
# runs every participant once, in turn (the order rotating by one each round), so that a noisy,
# shared machine hurts them alike. Prints each run's RTT/2 p50 / p90 / p99 and, per participant,
# the median of the rounds' p50 and its ratio to the floor's. --case continuous: each run's msgs/s
# and CPU per message (both processes) instead, and per participant the median over rounds and the
# median of the per-round ratios to the floor (noise hits a round's participants alike). --case
# fanout (with --subs S, --rate HZ): each run's publish-call p50, E2E p50 and CPU per message (all
# processes), and per participant the medians over rounds and the median of the per-round ratios to
# the floor. --case service (with --clients C): each run's round-trip p50 / p90 / p99 / p99.9, calls/s
# and bytes copied, and per participant the medians over rounds and the per-round ratios of the p50
# to the floor's (median, min, max; the floor is the service case's two-wake-up floor).
#   bench/ab.sh [--case pingpong|continuous|fanout|service] [--size 64] [--rounds 5] [--samples 20000]
#       [--mode transport] [--subs 32] [--rate 100] [--clients 1] LABEL=BENCH_BINARY ...
# A label "floor" runs --system floor with its binary; any other label runs --system zcast.
# Example (main's build against this branch's):
#   bench/ab.sh --size 8M floor=build/bench/zcast-bench main=../main/build/bench/zcast-bench \
#       new=build/bench/zcast-bench
set -u
SIZE=64 ROUNDS=5 SAMPLES=20000 MODE=transport CASE=pingpong SUBS=32 RATE=100 CLIENTS=1
while [ $# -gt 0 ]; do
	case "$1" in
	--size) SIZE="$2"; shift 2 ;;
	--rounds) ROUNDS="$2"; shift 2 ;;
	--samples) SAMPLES="$2"; shift 2 ;;
	--mode) MODE="$2"; shift 2 ;;
	--case) CASE="$2"; shift 2 ;;
	--subs) SUBS="$2"; shift 2 ;;
	--rate) RATE="$2"; shift 2 ;;
	--clients) CLIENTS="$2"; shift 2 ;;
	-h|--help) sed -n '2,19p' "$0"; exit 0 ;;
	*=*) break ;;
	*) echo "ab.sh: unknown option $1" >&2; exit 2 ;;
	esac
done
[ $# -gt 0 ] || { echo "ab.sh: name at least one LABEL=BENCH_BINARY" >&2; exit 2; }
for spec in "$@"; do
	[ -x "${spec#*=}" ] || { echo "ab.sh: ${spec#*=} is not an executable" >&2; exit 2; }
done
OUT="$(mktemp -d /tmp/zcast-ab.XXXXXX)"
trap 'rm -rf "$OUT"' EXIT
specs=("$@")
n=${#specs[@]}
for r in $(seq 1 "$ROUNDS"); do
	# The order rotates every round: a run's position in the round was seen to bias it by up to
	# ~5 % (2026-12-02), and a fixed order puts that bias on one participant.
	for ((i = 0; i < n; i++)); do
		spec=${specs[$(((i + r - 1) % n))]}
		label=${spec%%=*} bin=${spec#*=} sys=zcast
		[ "$label" = floor ] && sys=floor
		extra=()
		[ "$CASE" = fanout ] && extra=(--subs "$SUBS" --rate "$RATE")
		[ "$CASE" = service ] && extra=(--clients "$CLIENTS")
		if ! "$bin" --system $sys --case "$CASE" --size "$SIZE" --mode "$MODE" --samples "$SAMPLES" \
			"${extra[@]}" --cap-s 60 --pin --name "$label-$r" --out "$OUT" >"$OUT/log" 2>&1; then
			echo "ab.sh: $label round $r failed:" >&2
			tail -5 "$OUT/log" >&2
			exit 1
		fi
		echo "$r $label $OUT/$label-${r}__$sys.csv"
	done
done >"$OUT/runs"
/usr/bin/python3 - "$OUT/runs" "$CASE" <<'EOF'
import csv, json, statistics, sys

def round_ratio(rounds, label, what):
    # median over rounds of label's value / the floor's in the same round (noise hits both)
    ratios = [v[label] / v["floor"] for v in rounds.values() if "floor" in v]
    return f", {what}per-round ratio to the floor: median {statistics.median(ratios):.2f}x" if ratios else ""
if sys.argv[2] == "continuous":
    rate, cpu, rounds = {}, {}, {}
    for line in open(sys.argv[1]):
        r, label, path = line.split()
        d = json.load(open(path[:-4] + ".json"))
        ns = d["cpu_s"] * 1e9 / max(d["received"], 1)
        print(f"round {r} {label:10s} {d['msgs_per_s'] / 1e6:.3f} M msgs/s, CPU {ns:.0f} ns/msg")
        rate.setdefault(label, []).append(d["msgs_per_s"])
        cpu.setdefault(label, []).append(ns)
        rounds.setdefault(r, {})[label] = d["msgs_per_s"]
    for label in rate:
        extra = round_ratio(rounds, label, "")
        print(f"{label:10s} median over {len(rate[label])} rounds: {statistics.median(rate[label]) / 1e6:.3f} M msgs/s,"
              f" CPU {statistics.median(cpu[label]):.0f} ns/msg{extra}")
    sys.exit(0)
if sys.argv[2] == "service":
    # one row per call: lat_ns = round trip (case_service.c)
    p50, tail, rate, rounds = {}, {}, {}, {}
    for line in open(sys.argv[1]):
        r, label, path = line.split()
        v = sorted(int(row["lat_ns"]) for row in csv.DictReader(open(path)))
        n = len(v)
        d = json.load(open(path[:-4] + ".json"))
        print(f"round {r} {label:10s} RTT p50 {v[n // 2] / 1e3:.1f} p90 {v[n * 9 // 10] / 1e3:.1f} p99 "
              f"{v[n * 99 // 100] / 1e3:.1f} p99.9 {v[n * 999 // 1000] / 1e3:.1f} us, {d['msgs_per_s']:.0f} calls/s,"
              f" bytes copied {d.get('bytes_copied')}")
        p50.setdefault(label, []).append(v[n // 2])
        tail.setdefault(label, []).append((v[n * 9 // 10], v[n * 99 // 100], v[n * 999 // 1000]))
        rate.setdefault(label, []).append(d["msgs_per_s"])
        rounds.setdefault(r, {})[label] = v[n // 2]
    for label in p50:
        ratios = sorted(x[label] / x["floor"] for x in rounds.values() if "floor" in x and label in x)
        extra = (f", per-round p50 ratio to the floor: median {statistics.median(ratios):.2f}x"
                 f" (min {ratios[0]:.2f}, max {ratios[-1]:.2f}; {' '.join(f'{x:.2f}' for x in ratios)})"
                 if ratios and label != "floor" else "")
        t = [statistics.median(x[i] for x in tail[label]) / 1e3 for i in range(3)]
        print(f"{label:10s} median over {len(p50[label])} rounds: RTT p50 {statistics.median(p50[label]) / 1e3:.1f} us,"
              f" p90 {t[0]:.1f} us, p99 {t[1]:.1f} us, p99.9 {t[2]:.1f} us,"
              f" {statistics.median(rate[label]):.0f} calls/s{extra}")
    sys.exit(0)
if sys.argv[2] == "fanout":
    # rows with sub = -1: the publisher's send call; sub >= 0: E2E of subscriber `sub` (case_fanout.c)
    pub, e2e, cpu, rounds = {}, {}, {}, {}
    for line in open(sys.argv[1]):
        r, label, path = line.split()
        rows = list(csv.DictReader(open(path)))
        p = sorted(int(x["lat_ns"]) for x in rows if x["sub"] == "-1")
        e = sorted(int(x["lat_ns"]) for x in rows if int(x["sub"]) >= 0)
        d = json.load(open(path[:-4] + ".json"))
        ns = d["cpu_s"] * 1e9 / max(len(p), 1)
        print(f"round {r} {label:10s} publish p50 {p[len(p) // 2] / 1e3:.1f} us, E2E p50 "
              f"{e[len(e) // 2] / 1e3:.1f} us, CPU {ns / 1e3:.1f} us/msg")
        pub.setdefault(label, []).append(p[len(p) // 2])
        e2e.setdefault(label, []).append(e[len(e) // 2])
        cpu.setdefault(label, []).append(ns)
        rounds.setdefault(r, {})[label] = p[len(p) // 2]
    for label in pub:
        extra = round_ratio(rounds, label, "publish ")
        print(f"{label:10s} median over {len(pub[label])} rounds: publish p50 {statistics.median(pub[label]) / 1e3:.1f} us,"
              f" E2E p50 {statistics.median(e2e[label]) / 1e3:.1f} us, CPU {statistics.median(cpu[label]) / 1e3:.1f} us/msg{extra}")
    sys.exit(0)
p50 = {}
for line in open(sys.argv[1]):
    r, label, path = line.split()
    # rows with sub = 0 are the initiator's RTT/2 samples (case_pingpong.c)
    v = sorted(int(row["lat_ns"]) for row in csv.DictReader(open(path)) if row["sub"] == "0")
    n = len(v)
    print(f"round {r} {label:10s} RTT/2 p50 {v[n // 2]} p90 {v[n * 9 // 10]} p99 {v[n * 99 // 100]} ns")
    p50.setdefault(label, []).append(v[n // 2])
floor = statistics.median(p50["floor"]) if "floor" in p50 else None
for label, v in p50.items():
    m = statistics.median(v)
    ratio = f"  {m / floor:.3f}x the floor" if floor else ""
    print(f"{label:10s} median p50 over {len(v)} rounds: {m:.0f} ns{ratio}")
EOF
