#!/usr/bin/env bash
# Ping-pong (transport mode) of the floor and zcast at several sizes, all interleaved per round, so
# that a noisy, shared machine hurts every size and both systems alike. Prints per size the median
# over rounds of each system's RTT/2 p50, their ratio and zcast's excess, and the median and
# interquartile range of the per-round ratios (zcast ÷ floor at that size in the same round). A run
# here moves by about ±5 % from round to round: a 2 % difference needs ~40 rounds or more (with
# --samples 3000 a round takes about a third of a second per size).
#   bench/size_sweep.sh [--rounds 8] [--samples 5000] BENCH_BINARY SIZE...
# Example: bench/size_sweep.sh build/bench/zcast-bench 64 128 4K 8M
set -u
ROUNDS=8 SAMPLES=5000
while [ $# -gt 0 ]; do
	case "$1" in
	--rounds) ROUNDS="$2"; shift 2 ;;
	--samples) SAMPLES="$2"; shift 2 ;;
	-h|--help) sed -n '2,9p' "$0"; exit 0 ;;
	*) break ;;
	esac
done
[ $# -ge 2 ] && [ -x "$1" ] || { echo "size_sweep.sh: BENCH_BINARY SIZE... (see --help)" >&2; exit 2; }
BIN="$1"; shift
OUT="$(mktemp -d /tmp/zcast-sweep.XXXXXX)"
trap 'rm -rf "$OUT"' EXIT
runs=()
for size in "$@"; do
	runs+=("$size floor" "$size zcast")
done
n=${#runs[@]}
for r in $(seq 1 "$ROUNDS"); do
	# The order rotates every round: the first run of a round was seen to be slower, and with a
	# fixed order that was always the floor at the first size (a "size effect" of the floor that
	# was really a position effect).
	for ((i = 0; i < n; i++)); do
		read -r size sys <<<"${runs[$(((i + r - 1) % n))]}"
		if ! "$BIN" --system $sys --case pingpong --size "$size" --mode transport \
			--samples "$SAMPLES" --cap-s 60 --pin --name "r$r-$size" --out "$OUT" >"$OUT/log" 2>&1; then
			echo "size_sweep.sh: $sys at $size, round $r failed:" >&2
			tail -5 "$OUT/log" >&2
			exit 1
		fi
		echo "$size $sys $OUT/r$r-${size}__$sys.csv"
	done
done >"$OUT/runs"
/usr/bin/python3 - "$OUT/runs" "$@" <<'PY'
import csv, statistics, sys
p50 = {}
for line in open(sys.argv[1]):
    size, system, path = line.split()
    # rows with sub = 0 are the initiator's RTT/2 samples (case_pingpong.c)
    v = sorted(int(row["lat_ns"]) for row in csv.DictReader(open(path)) if row["sub"] == "0")
    p50.setdefault((size, system), []).append(v[len(v) // 2])
for size in sys.argv[2:]:
    f, z = statistics.median(p50[(size, "floor")]), statistics.median(p50[(size, "zcast")])
    r = sorted(b / a for a, b in zip(p50[(size, "floor")], p50[(size, "zcast")]))
    q1, q3 = r[len(r) // 4], r[(3 * len(r)) // 4]
    print(f"{size:>6s}  floor {f:7.0f} ns  zcast {z:7.0f} ns  ratio {z / f:.3f}  excess {z - f:5.0f} ns"
          f"  per-round ratio {statistics.median(r):.3f} ({q1:.3f}-{q3:.3f})")
PY
