#!/usr/bin/env bash
# check.sh -- exhaustive SPIN check of model/zcast.pml, model/bell.pml and model/service.pml
# (see docs/MODEL.md).
#
#   bash model/check.sh          configurations for `make test` (about 3 minutes of
#                                CPU, under 300 MB each), the mutants and one
#                                known bug, which must all be rejected
#   bash model/check.sh --long   bigger configurations (about half an hour of CPU,
#                                up to 10 GB; ZCAST_MODEL_MEMLIM /
#                                ZCAST_MODEL_TIMEOUT override)
#   bash model/check.sh --service  the request/response model model/service.pml: its
#                                configurations, mutants and one finding (test
#                                spin_model_service, about 40 s of CPU)
#   ZCAST_MODEL_ONLY=REGEX       only the runs whose name matches (any mode)
#
# Every run is a full state-space search (no bitstate, no hash compaction; only
# -DCOLLAPSE, which is lossless). A run PASSes when SPIN reports no error and the
# search was complete (depth reached < -m, no "max search depth too small", no
# memory bound hit); a mutant PASSes when SPIN reports an assertion violation or an
# invalid end state. Exit 0 only if every run passes; 1 otherwise; 77 if spin or a C
# compiler is missing. pan is built in a temporary directory, removed at exit.
set -u

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
pml=zcast.pml # the model file of the next runs (model/bell.pml: the doorbell alone)
mode=${1:-}

for tool in spin "${CC:-gcc}"; do
	if ! command -v "$tool" >/dev/null 2>&1; then
		echo "SKIP: $tool not found (Debian package: spin / gcc)"
		exit 77
	fi
done

tmp=$(mktemp -d "${TMPDIR:-/tmp}/zcast-model.XXXXXX") || exit 1
trap 'rm -rf "$tmp"' EXIT INT TERM

maxdepth=100000          # -m: DFS stack; runs must stay far below it
memlim=${ZCAST_MODEL_MEMLIM:-4000}   # MB, pan stops (and we FAIL) beyond it
[ "$mode" = --long ] && memlim=${ZCAST_MODEL_MEMLIM:-12000}
tmo=${ZCAST_MODEL_TIMEOUT:-1800}     # s per run
failures=0
ran=0

# run NAME EXPECT(clean|error) HASHPOW -- SPIN -D options...
run() {
	local name=$1 expect=$2 wpow=$3
	shift 4
	if [ -n "${ZCAST_MODEL_ONLY:-}" ] && ! [[ $name =~ $ZCAST_MODEL_ONLY ]]; then
		return
	fi
	ran=$((ran + 1))
	local dir="$tmp/$name"
	mkdir -p "$dir"
	cp "$here/$pml" "$dir/zcast.pml"
	if ! (cd "$dir" && spin -a "$@" zcast.pml >spin.out 2>&1); then
		echo "FAIL $name: spin -a failed"; cat "$dir/spin.out"
		failures=$((failures + 1)); return
	fi
	# must-fail runs stop at the first error: a quick -O0 build is enough; the
	# small make-test searches gain less from -O2 than its compile costs
	local opt=-O1
	[ "$mode" = --long ] && opt=-O2
	[ "$expect" = error ] && opt=-O0
	# --service: searches of at most 2 M states, where -O1's compile costs more than it saves
	[ "$mode" = --service ] && opt=-O0
	if ! (cd "$dir" && ${CC:-gcc} $opt -w -DSAFETY -DCOLLAPSE -DMEMLIM="$memlim" \
		-o pan pan.c >cc.out 2>&1); then
		echo "FAIL $name: cannot compile pan"; cat "$dir/cc.out"
		failures=$((failures + 1)); return
	fi
	local t0 t1 rc
	t0=$(date +%s.%N)
	(cd "$dir" && timeout "$tmo" ./pan -m"$maxdepth" -w"$wpow" >pan.out 2>&1)
	rc=$?
	t1=$(date +%s.%N)
	local out="$dir/pan.out"
	local errors depth stored trans mem secs
	errors=$(sed -n 's/.*errors: \([0-9]*\).*/\1/p' "$out" | tail -1)
	depth=$(sed -n 's/.*depth reached \([0-9]*\).*/\1/p' "$out" | tail -1)
	stored=$(sed -n 's/^ *\([0-9.e+]*\) states, stored.*/\1/p' "$out" | tail -1)
	trans=$(sed -n 's/^ *\([0-9.e+]*\) transitions.*/\1/p' "$out" | tail -1)
	mem=$(sed -n 's/^ *\([0-9.]*\)\s*total actual memory usage.*/\1/p' "$out" | tail -1)
	secs=$(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.1f", b - a }')
	printf '  %-34s states %-10s transitions %-10s depth %-5s time %6ss  memory %s MB  [%s]\n' \
		"$name" "${stored:-?}" "${trans:-?}" "${depth:-?}" "$secs" "${mem:-?}" "$*"

	local why=""
	if [ "$rc" -eq 124 ]; then why="timeout after ${tmo}s"; fi
	if grep -q 'max search depth too small' "$out"; then why="${why:+$why; }max search depth too small"; fi
	if grep -qiE 'out of memory|reached -DMEMLIM|memory limit' "$out"; then why="${why:+$why; }out of memory"; fi
	if [ -z "$errors" ] || [ -z "$depth" ]; then why="${why:+$why; }no result from pan (rc $rc)"; fi
	if [ -n "$depth" ] && [ "$depth" -ge "$maxdepth" ]; then why="${why:+$why; }depth reached -m"; fi

	if [ "$expect" = clean ]; then
		if [ -z "$why" ] && [ "$errors" = 0 ] && ! grep -q 'Search not completed' "$out"; then
			echo "PASS $name: no error, complete search"
		else
			echo "FAIL $name: ${why:-SPIN reports $errors error(s)}"
			grep -E 'assertion violated|invalid end state|error:' "$out" | head -5
			if [ -f "$dir/zcast.pml.trail" ]; then
				(cd "$dir" && spin -t -p "$@" zcast.pml 2>&1 | tail -60)
			fi
			failures=$((failures + 1))
		fi
	else
		local found
		found=$(grep -E 'assertion violated|invalid end state' "$out" | head -1)
		if [ -n "$errors" ] && [ "$errors" -ge 1 ] && [ -n "$found" ] && \
		   ! grep -qiE 'out of memory|reached -DMEMLIM' "$out"; then
			echo "PASS $name: rejected as expected: $(echo "$found" | cut -c1-100)"
		else
			echo "FAIL $name: mutant not rejected (${why:-errors ${errors:-?}})"
			failures=$((failures + 1))
		fi
	fi
}

echo "zcast model: $here/{zcast,bell,service}.pml ($(spin -V | head -1))"
if [ "$mode" = --long ]; then
	echo "== long configurations"
	run long-base             clean 26 -- -DNPUB=2
	run long-nohistory        clean 26 -- -DNPUB=2 -DHISTD=0 -DJOINH=0
	run long-depth2           clean 26 -- -DNPUB=2 -DD=2
	run long-npub3-nocrash    clean 26 -- -DNPUB=3 -DNOCRASH
	run long-waits-npub3      clean 26 -- -DWAITS -DNPUB=3 -DNSLOT=2 -DHISTD=0 -DJOINH=0 -DNSUBS=1
	run long-wake-npub2       clean 27 -- -DNPUB=2 -DPUBCRASH
	run long-waits-loan-2sub  clean 27 -- -DWAITS -DNPUB=2 -DNSLOT=1 -DHISTD=0 -DJOINH=0
	run long-waits-2pub2      clean 27 -- -DWAITS -DNPUBR=2 -DNPUB=2 -DNSLOT=1 -DHISTD=0 -DJOINH=0 -DNSUBS=1 -DNOCRASH
	# its mutant needs two publishes of one publisher: 19 M states before the error (100 s)
	run long-mutant-space-woken-order error 24 -- -DWAITS -DNPUBR=2 -DNPUB=2 -DNSLOT=1 -DHISTD=0 -DJOINH=0 -DNSUBS=1 -DNOCRASH -DMUT_SPACE_ORDER
	pml=bell.pml
	run long-bell-3ringers    clean 27 -- -DNR=3
	run long-bell-3ringers-dies clean 27 -- -DNR=3 -DNMSG0=1 -DDIE
	pml=service.pml
	run long-service-2srv-clientdies-reuse clean 26 -- -DNSRV=2 -DCLIDIE -DREUSE
	run long-service-either-dies-reuse  clean 22 -- -DSRVDIE -DCLIDIE -DREUSE
	run long-service-2srv-server-dies   clean 24 -- -DNSRV=2 -DSRVDIE
	run long-service-3calls-2slots      clean 24 -- -DNCALL=3 -DNREQ=2 -DSRVDIE -DCLIDIE -DREUSE
	run long-service-2srv-close-dies    clean 26 -- -DNSRV=2 -DCLOSE -DSRVDIE
	pml=zcast.pml
elif [ "$mode" = --service ]; then
	echo "== request/response (model/service.pml)"
	pml=service.pml
	run service-nodeath                 clean 18 --
	run service-server-dies             clean 20 -- -DSRVDIE
	run service-client-dies-reuse       clean 21 -- -DCLIDIE -DREUSE
	run service-churn-server-dies       clean 21 -- -DCHURN -DSRVDIE
	run service-close                   clean 20 -- -DCLOSE
	run service-close-or-die            clean 21 -- -DCLOSE -DSRVDIE
	run service-2srv-close-handover     clean 21 -- -DNSRV=2 -DCLOSE
	run service-refuse-churn            clean 20 -- -DREFUSE -DCHURN
	run service-forged-id               clean 20 -- -DFORGE
	echo "== mutants (each must be rejected)"
	run mutant-service-no-marker        error 20 -- -DSRVDIE -DMUT_NO_MARKER
	run mutant-service-release-first    error 20 -- -DNSRV=2 -DSRVDIE -DMUT_RELEASE_FIRST
	run mutant-service-no-id-check      error 20 -- -DCLIDIE -DREUSE -DMUT_SHARED_TOPIC -DMUT_NO_ID_CHECK
	run mutant-service-move-no-wake     error 20 -- -DNSRV=2 -DSRVDIE -DMUT_MOVE_NO_WAKE
	run mutant-service-client-no-owed   error 20 -- -DCLIDIE -DMUT_CLIENT_NO_OWED
	run mutant-service-send-no-recheck  error 20 -- -DSRVDIE -DMUT_SEND_NO_RECHECK
	run mutant-service-close-forgets-taken error 20 -- -DCLOSE -DMUT_CLOSE_FORGETS_TAKEN
	run mutant-service-close-no-wake    error 20 -- -DNSRV=2 -DCLOSE -DMUT_CLOSE_NO_WAKE
	run mutant-service-close-release-first error 20 -- -DCLOSE -DCHURN -DMUT_CLOSE_RELEASE_FIRST
	run mutant-service-no-refusal       error 20 -- -DREFUSE -DMUT_NO_REFUSAL
	run mutant-service-server-no-id-check error 20 -- -DFORGE -DMUT_SRV_NO_ID_CHECK
	echo "== finding kept as a regression (must be rejected)"
	run service-marker-lost             error 21 -- -DCHURN -DSRVDIE -DBUG_MARKER_LOST
	pml=zcast.pml
elif [ -n "$mode" ]; then
	echo "usage: $0 [--long | --service]"; exit 2
else
	echo "== configurations (make test)"
	run nocrash           clean 23 -- -DNPUB=2 -DNOCRASH
	run wake-pubcrash     clean 23 -- -DNPUB=1 -DPUBCRASH
	run wake-2pub         clean 23 -- -DNPUBR=2 -DNPUB=1 -DNSLOT=1 -DHISTD=0 -DJOINH=0 -DNSUBS=1 -DPUBCRASH
	run waits-loan        clean 23 -- -DWAITS -DNPUB=2 -DNSLOT=1 -DHISTD=0 -DJOINH=0 -DNSUBS=1
	run waits-pubcrash    clean 23 -- -DWAITS -DNPUB=2 -DNSLOT=2 -DHISTD=0 -DJOINH=0 -DNSUBS=1 -DPUBCRASH
	run waits-history     clean 23 -- -DWAITS -DNPUB=2 -DNSLOT=2 -DNSUBS=1
	run waits-2pub        clean 23 -- -DWAITS -DNPUBR=2 -DNPUB=1 -DNSLOT=1 -DHISTD=0 -DJOINH=0 -DNSUBS=1
	run bell-pubcrash     clean 23 -- -DBELL -DNPUB=1 -DPUBCRASH
	run bell-2pub         clean 23 -- -DBELL -DNPUBR=2 -DNPUB=1 -DNSLOT=1 -DHISTD=0 -DJOINH=0 -DNSUBS=1 -DPUBCRASH
	echo "== mutants (each must be rejected)"
	run mutant-a-bit-after-visible  error 22 -- -DNPUB=2 -DMUT_A
	run mutant-b-other-word-first   error 22 -- -DNPUB=2 -DMUT_B
	run mutant-c-no-recheck         error 22 -- -DNPUB=2 -DMUT_C
	run mutant-d-notify-after-check error 22 -- -DNPUB=2 -DMUT_D
	run mutant-e-cleanup-no-free    error 22 -- -DNPUB=2 -DMUT_E
	run mutant-no-owed-wake         error 22 -- -DNPUB=1 -DPUBCRASH -DMUT_NO_OWED
	run mutant-reclaim-no-wake      error 22 -- -DWAITS -DNPUB=2 -DNSLOT=2 -DHISTD=0 -DJOINH=0 -DNSUBS=1 -DMUT_RECLAIM_NOWAKE
	run mutant-space-reclaim-skips  error 22 -- -DWAITS -DNPUB=2 -DNSLOT=2 -DHISTD=0 -DJOINH=0 -DNSUBS=1 -DMUT_SPACE_RECLAIM
	run mutant-bell-no-recheck      error 22 -- -DBELL -DNPUB=2 -DMUT_C
	run mutant-bell-sleep-before-bit error 22 -- -DBELL -DNPUB=2 -DMUT_BELL_ORDER
	run mutant-bell-owed-no-ring    error 22 -- -DBELL -DNPUB=1 -DPUBCRASH -DMUT_BELL_OWED
	echo "== the doorbell rung by ringers without a common lock (model/bell.pml)"
	pml=bell.pml
	run bell-lockfree                   clean 22 --
	run bell-lockfree-3msg              clean 22 -- -DNMSG=3
	run bell-ringer-dies                clean 22 -- -DDIE
	run bell-ringer-dies-3msg           clean 22 -- -DDIE -DNMSG=3
	run bell-ringer-dies-counter        clean 23 -- -DDIE -DCOUNTER
	run mutant-bell-clear-before-read   error 20 -- -DMUT_CLEAR_FIRST
	run mutant-bell-never-clear         error 20 -- -DMUT_NO_CLEAR
	run mutant-bell-lockfree-no-recheck error 20 -- -DMUT_NO_RECHECK
	run mutant-bell-two-state-dies      error 20 -- -DDIE -DMUT_TWO_STATE
	run mutant-bell-no-epoch-dies       error 20 -- -DDIE -DMUT_NO_EPOCH
	pml=zcast.pml
	echo "== finding kept as a regression (must be rejected)"
	run zero-target-publish-leaks   error 22 -- -DNPUB=2 -DHISTD=0 -DJOINH=0 -DBUG_ZERO_TARGETS
fi

if [ "$ran" -eq 0 ]; then
	echo "model check: FAIL (no run matches ZCAST_MODEL_ONLY=${ZCAST_MODEL_ONLY:-})"
	exit 1
fi
if [ "$failures" -ne 0 ]; then
	echo "model check: FAIL ($failures run(s) failed)"
	exit 1
fi
echo "model check: PASS"
exit 0
