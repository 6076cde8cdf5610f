#!/usr/bin/env bash
# Runs the zcast benchmark suite and writes bench/results/<timestamp>/ (+ bench/results/latest).
#   bench/run.sh [--quick] [--build-dir DIR] [--systems "zcast floor ..."] [--no-pin] [--only REGEX]
# --only: runs just the configurations whose name matches REGEX (grep -E), e.g. '^(wake|fanout_ws)_'.
# Participants are pinned round-robin to the allowed CPUs (ping-pong: one per core) unless --no-pin.
# Starts its own iox-roudi (config generated into the results dir) and stops it by PID on exit.
set -u
HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
ROOT="$(dirname "$HERE")"
PY=/usr/bin/python3
QUICK=0
BUILD="${ZCAST_BUILD_DIR:-$ROOT/build}"
SYSTEMS_ARG=""
PIN=--pin
ONLY=""
CMDLINE="$0 $*"
while [ $# -gt 0 ]; do
	case "$1" in
	--quick) QUICK=1 ;;
	--build-dir) BUILD="$2"; shift ;;
	--systems) SYSTEMS_ARG="$2"; shift ;;
	--no-pin) PIN="" ;;
	--only) ONLY="$2"; shift ;;
	-h|--help) sed -n '2,6p' "$0"; exit 0 ;;
	*) echo "run.sh: unknown option $1" >&2; exit 2 ;;
	esac
	shift
done
BIN="$BUILD/bench/zcast-bench"
[ -x "$BIN" ] || { echo "run.sh: $BIN not found (build first: cmake --build $BUILD)" >&2; exit 2; }

STAMP="$(date -u +%Y%m%dT%H%M%SZ)"
OUT="$HERE/results/$STAMP"
mkdir -p "$OUT/raw"
ln -sfn "$STAMP" "$HERE/results/latest"
LOG="$OUT/run.log"
export ZB_RUN_ID="zb$$x"

# ---- machine info ------------------------------------------------------------------------
{
	echo "command: $CMDLINE"
	echo "date_utc: $(date -u +%Y-%m-%dT%H:%M:%SZ)"
	echo "cpu_model: $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2- | sed 's/^ //')"
	echo "cores: $(nproc)"
	echo "kernel: $(uname -srm)"
	gov=/sys/devices/system/cpu/cpu0/cpufreq/scaling_governor
	echo "governor: $([ -r $gov ] && cat $gov || echo unreadable)"
	# How an idle CPU waits decides wake-up latency (in a VM: haltpoll polls before it halts).
	idle=/sys/devices/system/cpu/cpuidle
	echo "cpuidle: $(cat $idle/current_driver 2>/dev/null || echo unreadable) / $(cat $idle/current_governor_ro $idle/current_governor 2>/dev/null | head -1)"
	echo "virtualized: $(grep -qw hypervisor /proc/cpuinfo && echo yes || echo no)"
	echo "memory: $(awk '/MemTotal/ {print $2 " kB"}' /proc/meminfo)"
	echo "compiler: $(${CC:-cc} --version 2>/dev/null | head -1)"
	echo "git: $(git -C "$ROOT" rev-parse --short HEAD 2>/dev/null || echo none)$(git -C "$ROOT" diff --quiet 2>/dev/null || echo ' (dirty)')"
	echo "iceoryx: $(dpkg-query -W -f='${Version}' iceoryx 2>/dev/null || echo unknown)"
	echo "quick: $QUICK"
	echo "pinning: ${PIN:-off}"
} > "$OUT/machine.txt"

# ---- RouDi -------------------------------------------------------------------------------
ROUDI_PID=""
stop_roudi() {
	[ -n "$ROUDI_PID" ] || return 0
	if kill -0 "$ROUDI_PID" 2>/dev/null; then
		kill -TERM "$ROUDI_PID" 2>/dev/null
		for _ in $(seq 50); do kill -0 "$ROUDI_PID" 2>/dev/null || break; sleep 0.1; done
		kill -0 "$ROUDI_PID" 2>/dev/null && kill -KILL "$ROUDI_PID" 2>/dev/null
	fi
	wait "$ROUDI_PID" 2>/dev/null
	ROUDI_PID=""
}
cleanup() {
	stop_roudi
	# iceoryx applications killed in teardown leave their IPC sockets (/tmp/<runtime name>)
	rm -f /tmp/"$ZB_RUN_ID"[0-9]*_[0-9]* 2>/dev/null
}
trap 'cleanup' EXIT
trap 'echo "run.sh: interrupted" >&2; exit 130' INT TERM

IOX=0
if command -v iox-roudi >/dev/null; then
	# mempools up to 8 MiB payload + headroom for the chunk header (chunk size = payload + header)
	cat > "$OUT/roudi.toml" <<'TOML'
[general]
version = 1

[[segment]]

[[segment.mempool]]
size = 128
count = 10000

[[segment.mempool]]
size = 2048
count = 5000

[[segment.mempool]]
size = 8192
count = 500

[[segment.mempool]]
size = 69632
count = 300

[[segment.mempool]]
size = 1052672
count = 100

[[segment.mempool]]
size = 4198400
count = 16

[[segment.mempool]]
size = 8392704
count = 16
TOML
	# A stale /dev/shm/iceoryx_mgmt is purged by RouDi itself; a RouDi that is still running makes
	# ours exit ("Could not acquire lock") and iceoryx is skipped.
	iox-roudi -c "$OUT/roudi.toml" -l warning > "$OUT/roudi.log" 2>&1 &
	ROUDI_PID=$!
	for _ in $(seq 100); do
		grep -q "RouDi is ready" "$OUT/roudi.log" 2>/dev/null && break
		kill -0 "$ROUDI_PID" 2>/dev/null || break
		sleep 0.1
	done
	if kill -0 "$ROUDI_PID" 2>/dev/null && grep -q "RouDi is ready" "$OUT/roudi.log"; then
		IOX=1
		echo "roudi_pid: $ROUDI_PID" >> "$OUT/machine.txt"
	else
		echo "run.sh: iox-roudi did not come up (see roudi.log): iceoryx skipped" | tee -a "$LOG" >&2
		stop_roudi
	fi
fi

ALL="zcast floor iceoryx uds mq pipe"
[ -n "$SYSTEMS_ARG" ] && ALL="$SYSTEMS_ARG"
sys_list() { # filter a list by what is available
	local s out=""
	for s in $1; do
		case " $ALL " in *" $s "*) ;; *) continue ;; esac
		[ "$s" = iceoryx ] && [ "$IOX" = 0 ] && continue
		out="$out $s"
	done
	echo $out
}

FAILS=0
run() { # run <name> <systems> <args...>
	local name="$1" systems="$2" s
	shift 2
	[ -z "$ONLY" ] || echo "$name" | grep -Eq -- "$ONLY" || return 0
	for s in $(sys_list "$systems"); do
		timeout -k 5 900 "$BIN" --system "$s" --name "$name" --out "${OUT_RAW:-$OUT/raw}" $PIN "$@" >> "$LOG" 2>&1 || FAILS=$((FAILS + 1))
		tail -n 1 "$LOG"
	done
}

# run_rounds <name> <systems> <samples> <args...>: the configuration in 3 rounds of samples/3, the
# systems interleaved and their order rotated per round (a b c, b c a, c a b), so that drift and
# neighbours on a shared machine hit every system alike; round k lands in raw/part<k>/ and
# report.py pools the rounds.
run_rounds() {
	local name="$1" order="$2" n="$3" k s
	shift 3
	for k in 1 2 3; do
		mkdir -p "$OUT/raw/part$k"
		for s in $order; do
			OUT_RAW="$OUT/raw/part$k" run "$name" "$s" --samples $(( (n + 2) / 3 )) "$@"
		done
		order="${order#* } ${order%% *}"
	done
}

T0=$(date +%s)
if [ "$QUICK" = 1 ]; then
	N=2000; NB=200; CAP=5
	run ack_64B_event "$ALL" --case pingpong --size 64 --samples $N --cap-s $CAP
	run ack_64B_spin "$ALL" --case pingpong --size 64 --spin --samples $N --cap-s $CAP
	# zcast's spin-then-sleep wait (sub option spin_ns = 5 us); the other systems have none.
	run ack_64B_adaptive "zcast" --case pingpong --size 64 --spin-us 5 --samples $N --cap-s $CAP
	for mode in transport touch; do
		run payload_64B_$mode "$ALL" --case pingpong --size 64 --mode $mode --samples $N --cap-s $CAP
		run payload_8MiB_$mode "$ALL" --case pingpong --size 8M --mode $mode --samples $NB --cap-s $CAP --warmup 20
	done
	run fanout_S1 "zcast floor iceoryx uds" --case fanout --size 1K --subs 1 --samples 150 --warmup 20
	run fanout_S8 "zcast floor iceoryx uds" --case fanout --size 1K --subs 8 --samples 100 --warmup 20
	run waitset_T16 "$ALL" --case waitset --topics 16 --size 64 --rate 1000 --samples 1000
	for T in 1 100; do
		run wake_T$T "zcast floor" --case waitset --topics $T --busy 1 --size 64 --rate 1000 --samples 1000
		ZCAST_NO_DOORBELL=1 run wake_nobell_T$T "zcast" --case waitset --topics $T --busy 1 --size 64 \
			--rate 1000 --samples 1000
	done
	ZB_ZCAST_WAITSET=1 run fanout_ws_S8 "zcast floor" --case fanout --size 1K --subs 8 --samples 100 --warmup 20
	for M in 64 1024; do
		run join_M$M "zcast" --case join --members $M --samples 300 --warmup 20
	done
	run join_collide_4MiB "zcast" --case join_collide --size 4M --rate 2000 --samples 2000 --warmup 100
	# Component containers (bench/case_container.c): 3 s measured per system.
	run container "zcast uds" --case container --cap-s 3
	# Request/response (bench/case_service.c): round trip of a 64 B and a 1 MiB request with a 64 B
	# response; calls per second of 1 and 8 clients against one server.
	run svc_rtt_64B "zcast floor iceoryx uds" --case service --size 64 --samples $N --cap-s $CAP
	run svc_rtt_1MiB "zcast floor iceoryx uds" --case service --size 1M --samples $NB --cap-s $CAP --warmup 20
	for C in 1 8; do
		run svc_calls_C$C "zcast floor iceoryx uds" --case service --size 64 --clients $C --samples $N --cap-s $CAP
	done
else
	N=10000; CAP=60
	run_rounds ack_64B_event "$ALL" $N --case pingpong --size 64 --cap-s $CAP
	run_rounds ack_64B_spin "$ALL" $N --case pingpong --size 64 --spin --cap-s $CAP
	# zcast's spin-then-sleep wait (sub option spin_ns = 5 us); the other systems have none.
	run ack_64B_adaptive "zcast" --case pingpong --size 64 --spin-us 5 --samples $N --cap-s $CAP
	for size in 64B 4KiB 64KiB 1MiB 4MiB 8MiB; do
		for mode in transport touch; do
			run_rounds payload_${size}_$mode "$ALL" 5000 --case pingpong --size "${size%B}" --mode $mode \
				--cap-s $CAP --warmup 50
		done
	done
	run continuous_64B "$ALL" --case continuous --size 64 --samples 50000 --cap-s $CAP
	run continuous_1MiB "$ALL" --case continuous --size 1M --samples 5000 --cap-s $CAP --warmup 50
	# LibXR's overload scene: the consumer sleeps 50 us per message; queue 8 at 64 KiB (4000
	# messages received), queue 4 at 1 MiB (256 messages received). full: the publisher waits;
	# full_fail: a publish into a full queue fails at once (counted); drop_old: the oldest is dropped.
	for spec in 64KiB:8:4000 1MiB:4:256; do
		IFS=: read -r size depth msgs <<<"$spec"
		for pol in full full_fail drop_old; do
			run overload_${size}_$pol "$ALL" --case overload --size "${size%B}" --policy $pol \
				--sleep-us 50 --depth "$depth" --samples "$msgs" --cap-s $CAP
		done
	done
	for S in 1 2 4 8 16 32; do
		n=$(( (5000 + S - 1) / S )); [ $n -lt 300 ] && n=300
		run_rounds fanout_S$S "zcast floor iceoryx uds" $n --case fanout --size 1K --subs $S --warmup 20
	done
	# Topic sweep: T topics x 2 subscriber processes (one wait set each), 100 Hz per topic
	# (--rate = 100*T msgs/s in total, round-robin), 64 B; E2E + publish + receive (take) latency and
	# cpu_pct (all processes, % of all cores). zcast only (others: "skipped"). Stops after the first
	# T whose cpu_pct exceeds 60 %.
	for T in 1 4 16 64 128 256; do
		n=$((2 * T)); [ $n -lt 5000 ] && n=5000
		run topics_T$T "$ALL" --case waitset --topics $T --size 64 --rate $((100 * T)) --samples $n --cap-s $CAP
		cpu=$(sed -n 's/^ *"cpu_pct": \(-\{0,1\}[0-9.]*\),$/\1/p' "$OUT/raw/topics_T${T}__zcast.json" 2>/dev/null)
		echo "topic sweep: T=$T cpu_pct=${cpu:-n/a}" >> "$LOG"
		if [ -n "$cpu" ] && awk -v c="$cpu" 'BEGIN { exit !(c > 60) }'; then
			echo "topic sweep: stopped after T=$T (cpu_pct $cpu > 60)" | tee -a "$LOG"
			break
		fi
	done
	# T topics x 2 subscriber processes, one wait set each; 1000 msgs/s in total, round-robin.
	# 129: first T beyond one futex_waitv (128 words). Non-zcast systems report "skipped".
	for T in 1 16 128 129 512; do
		run waitset_T$T "$ALL" --case waitset --topics $T --size 64 --rate 1000 --samples 5000 --cap-s $CAP
	done
	# Wake-to-callback against subscriptions per process (docs/WAITSETS.md, the doorbell): two
	# subscriber processes, each with T subscriptions in one wait set, one busy topic at 1000 msgs/s.
	# zcast with its doorbell and the floor (one futex word) in rounds, then zcast without the
	# doorbell ($ZCAST_NO_DOORBELL=1: every topic word armed on each wait, the wait set before it).
	for T in 1 10 100 1024; do
		run_rounds wake_T$T "zcast floor" 6000 --case waitset --topics $T --busy 1 --size 64 --rate 1000 --cap-s $CAP
		ZCAST_NO_DOORBELL=1 run_rounds wake_nobell_T$T "zcast" 6000 --case waitset --topics $T --busy 1 \
			--size 64 --rate 1000 --cap-s $CAP
	done
	# Fan-out to S processes that each wait in a wait set of their own ($ZB_ZCAST_WAITSET=1): one
	# doorbell wake per sleeping wait set (with the doorbell) against the floor's one wake for all.
	for S in 8 32; do
		n=$(( (5000 + S - 1) / S )); [ $n -lt 300 ] && n=300
		ZB_ZCAST_WAITSET=1 run_rounds fanout_ws_S$S "zcast floor" $n --case fanout --size 1K --subs $S --warmup 20
		ZB_ZCAST_WAITSET=1 ZCAST_NO_DOORBELL=1 run_rounds fanout_ws_nobell_S$S "zcast" $n --case fanout \
			--size 1K --subs $S --warmup 20
	done
	# Membership churn (zcast only): one join + leave on a topic with M members; and the publish
	# calls (2 kHz, 4 MiB slots, DROP_OLD consumer) while another process joins and leaves once per ms.
	for M in 64 256 1024; do
		run join_M$M "zcast" --case join --members $M --samples 2000 --warmup 50
	done
	run join_collide_4MiB "zcast" --case join_collide --size 4M --rate 2000 --samples 10000 --warmup 200
	# Component containers (bench/case_container.c, docs/BENCHMARKS.md): 16 single-thread container
	# processes over a generated Autoware-like graph (230 topics, 40-60 subscriptions each, 128 B ..
	# 4 MiB, 1-100 Hz), zcast (one wait set each) against uds (a socket per subscription, epoll); 3
	# rounds of 20 s measured, the systems interleaved (about 2.5 min). --samples is unused here.
	run_rounds container "zcast uds" 3 --case container --cap-s 20
	# Request/response (bench/case_service.c, docs/BENCHMARKS.md): round trip (one row per call) of a
	# 64 B and a 1 MiB request with a 64 B response, 1 client; then calls per second of 1 and 8
	# clients against one server (64 B requests). 1 MiB: bytes_copied is proven per client (where
	# the request's bytes lie at send and at take), see the case.
	run_rounds svc_rtt_64B "zcast floor iceoryx uds" 30000 --case service --size 64 --cap-s $CAP
	run_rounds svc_rtt_1MiB "zcast floor iceoryx uds" 10000 --case service --size 1M --cap-s $CAP --warmup 50
	for C in 1 8; do
		run_rounds svc_calls_C$C "zcast floor iceoryx uds" 60000 --case service --size 64 --clients $C --cap-s $CAP
	done
fi
# Typed messages (docs/TYPED.md): sensor_msgs/Image at 10 Hz, see bench/typed_image.c.
if [ -x "$BUILD/bench/zcast-bench-typed" ] && [ -z "$ONLY" ]; then
	TCOUNT=200; [ "$QUICK" = 1 ] && TCOUNT=20
	"$BUILD/bench/zcast-bench-typed" --count $TCOUNT --rate 10 > "$OUT/typed.txt" 2>> "$LOG" ||
		{ echo "typed benchmark failed" | tee -a "$LOG"; FAILS=$((FAILS + 1)); }
	cat "$OUT/typed.txt"
fi
# Python (docs/PYTHON.md): every direction between C and Python, against C -> C in the same run.
if [ -x "$BUILD/bench/zcast-bench-pypeer" ] && ls "$BUILD"/python/zcast/_zcast*.so >/dev/null 2>&1; then
	PYARGS=(--build-dir "$BUILD" --out "$OUT")
	[ "$QUICK" = 1 ] && PYARGS+=(--quick)
	[ -z "$PIN" ] && PYARGS+=(--no-pin)
	"$PY" "$HERE/py_bench.py" "${PYARGS[@]}" >> "$LOG" 2>&1 ||
		{ echo "python benchmark failed" | tee -a "$LOG"; FAILS=$((FAILS + 1)); }
	[ -f "$OUT/python.md" ] && cat "$OUT/python.md"
fi
# Bridge (docs/BRIDGE.md): Cyclone DDS pair vs zcast -> bridge -> DDS -> bridge -> zcast between two
# network namespaces (root only; bench/bridge.sh says "skipped" otherwise).
if [ -x "$BUILD/bench/zcast-bench-bridge" ] && [ -x "$BUILD/bridge/zcast-bridge" ]; then
	"$HERE/bridge.sh" "$BUILD" $([ "$QUICK" = 1 ] && echo --quick) > "$OUT/bridge.txt" 2>> "$LOG" ||
		{ echo "bridge benchmark failed" | tee -a "$LOG"; FAILS=$((FAILS + 1)); }
	cat "$OUT/bridge.txt"
fi
# Bridge, two-host replay: the container graph split over two namespaces, the cross-host topics
# through one bridge per host vs plain Cyclone DDS (bench/bridge_replay.sh; 60 s each, --quick 10 s).
if [ -x "$BUILD/bench/zcast-bench-bridge-replay" ] && [ -x "$BUILD/bridge/zcast-bridge" ] && [ -z "$ONLY" ]; then
	"$HERE/bridge_replay.sh" "$BUILD" --duration $([ "$QUICK" = 1 ] && echo 10 || echo 60) \
		> "$OUT/bridge_replay.txt" 2>> "$LOG" ||
		{ echo "bridge replay benchmark failed" | tee -a "$LOG"; FAILS=$((FAILS + 1)); }
	cat "$OUT/bridge_replay.txt"
fi
# Record and replay (docs/RECORDING.md, docs/BENCHMARKS.md): recorder rate against the filesystem,
# replay timing at 1 kHz and with 4 MiB at 30 Hz, the recorder during the container case.
if [ -x "$BUILD/tools/zcast" ] && [ -z "$ONLY" ]; then
	"$HERE/record.sh" "$BUILD" $([ "$QUICK" = 1 ] && echo --quick) > "$OUT/record.txt" 2>> "$LOG" ||
		{ echo "record benchmark failed" | tee -a "$LOG"; FAILS=$((FAILS + 1)); }
	cat "$OUT/record.txt"
fi
T1=$(date +%s)
echo "elapsed_s: $((T1 - T0))" >> "$OUT/machine.txt"
echo "failed_configs: $FAILS" >> "$OUT/machine.txt"
stop_roudi

"$PY" "$HERE/report.py" "$OUT" || { echo "run.sh: report.py failed" >&2; exit 1; }
echo "results: $OUT"
