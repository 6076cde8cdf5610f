#!/usr/bin/env bash
# Compares builds of zcast (and the floor) on one ping-pong configuration, interleaved: each round
# runs every participant once, in turn, so that a noisy, shared machine hurts them alike. Prints
# each run's RTT/2 p50 / p90 / p99 and, per participant, the median of the rounds' p50 and its
# ratio to the floor's. --case continuous: each run's msgs/s and CPU per message (both processes)
# instead, and per participant the median over rounds and the median of the per-round ratios to the
# floor (noise hits a round's participants alike).
#   bench/ab.sh [--case pingpong|continuous] [--size 64] [--rounds 5] [--samples 20000]
#       [--mode transport] LABEL=BENCH_BINARY ...
# A label "floor" runs --system floor with its binary; any other label runs --system zcast.
# Example (main's build against this branch's):
#   bench/ab.sh --size 8M floor=build/bench/zcast-bench main=../main/build/bench/zcast-bench \
#       new=build/bench/zcast-bench
set -u
SIZE=64 ROUNDS=5 SAMPLES=20000 MODE=transport CASE=pingpong
while [ $# -gt 0 ]; do
	case "$1" in
	--size) SIZE="$2"; shift 2 ;;
	--rounds) ROUNDS="$2"; shift 2 ;;
	--samples) SAMPLES="$2"; shift 2 ;;
	--mode) MODE="$2"; shift 2 ;;
	--case) CASE="$2"; shift 2 ;;
	-h|--help) sed -n '2,13p' "$0"; exit 0 ;;
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
for r in $(seq 1 "$ROUNDS"); do
	for spec in "$@"; do
		label=${spec%%=*} bin=${spec#*=} sys=zcast
		[ "$label" = floor ] && sys=floor
		if ! "$bin" --system $sys --case "$CASE" --size "$SIZE" --mode "$MODE" --samples "$SAMPLES" \
			--cap-s 60 --pin --name "$label-$r" --out "$OUT" >"$OUT/log" 2>&1; then
			echo "ab.sh: $label round $r failed:" >&2
			tail -5 "$OUT/log" >&2
			exit 1
		fi
		echo "$r $label $OUT/$label-${r}__$sys.csv"
	done
done >"$OUT/runs"
/usr/bin/python3 - "$OUT/runs" "$CASE" <<'EOF'
import csv, json, statistics, sys
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
        ratios = [v[label] / v["floor"] for v in rounds.values() if "floor" in v]
        extra = f", per-round ratio to the floor: median {statistics.median(ratios):.2f}x" if ratios else ""
        print(f"{label:10s} median over {len(rate[label])} rounds: {statistics.median(rate[label]) / 1e6:.3f} M msgs/s,"
              f" CPU {statistics.median(cpu[label]):.0f} ns/msg{extra}")
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
