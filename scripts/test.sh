#!/usr/bin/env bash
# make test: the whole suite in a test build (fault injection, slot poisoning, -Werror), then again
# under ASan+UBSan, then the threaded tests under TSan. Each sanitizer build runs at nice 19 while
# the stage before it runs its tests (tests mostly wait on each other: the build takes the idle
# CPU), and the TSan build makes only what its tests run (scripts/stage_targets.py). Prints each
# stage's duration and ends with one summary line.
set -uo pipefail
cd "$(dirname "$0")/.."
jobs=$(nproc)
passed=0; failed=0; skipped=0; status=0
T0=$SECONDS
trap 'kill $(jobs -p) 2>/dev/null' EXIT

# build NAME DIR CMAKE-ARGS... -- CTEST-SELECTION...: configure and build, log in DIR.log, exit
# status the build's. With a selection, only the targets those tests need.
build() {
  local name=$1 dir=$2; shift 2
  local cargs=() sel=()
  while [ $# -gt 0 ] && [ "$1" != "--" ]; do cargs+=("$1"); shift; done
  [ $# -gt 0 ] && shift
  sel=("$@")
  local t0=$SECONDS
  mkdir -p "$dir/.cmake/api/v1/query" && touch "$dir/.cmake/api/v1/query/codemodel-v2"
  cmake -S . -B "$dir" -DZCAST_TEST_BUILD=ON -DZCAST_WERROR=ON -DZCAST_BUILD_BENCH=OFF "${cargs[@]}" >"$dir.log" 2>&1 || return 1
  local targets=(all)
  [ ${#sel[@]} -gt 0 ] && read -ra targets < <(/usr/bin/python3 scripts/stage_targets.py "$dir" "${sel[@]}")
  echo "stage $name: building ${#targets[@]} target(s)" >>"$dir.log"
  cmake --build "$dir" -j"$jobs" --target "${targets[@]}" >>"$dir.log" 2>&1 || return 1
  echo "=== stage $name: built in $((SECONDS-t0)) s" >>"$dir.log"
}

# build_bg NAME DIR ARGS...: the same, at nice 19 in the background; waited for by run_stage.
declare -A bg_pid built
build_bg() {
  local name=$1
  ( renice -n 19 -p $BASHPID >/dev/null; build "$@" ) &
  bg_pid[$name]=$!
}

# run_stage NAME DIR -- CTEST-SELECTION...: waits for the stage's build, runs its tests.
run_stage() {
  local name=$1 dir=$2; shift 2
  [ "${1:-}" = "--" ] && shift
  local t0=$SECONDS rc=0
  echo "=== stage $name: build"
  if [ -n "${bg_pid[$name]:-}" ]; then wait "${bg_pid[$name]}" || rc=$?; else rc=${built[$name]:-1}; fi
  if [ "$rc" -ne 0 ]; then
    tail -40 "$dir.log"; echo "=== stage $name: BUILD FAILED"; failed=$((failed+1)); status=1; return
  fi
  grep '^=== stage' "$dir.log"
  echo "=== stage $name: run (waited $((SECONDS-t0)) s for the build)"
  t0=$SECONDS
  local out; out=$(mktemp)
  (cd "$dir" && ctest --output-on-failure -j"$jobs" "$@") 2>&1 | tee "$out"
  rc=${PIPESTATUS[0]}
  local p f k
  p=$(grep -Eo '[0-9]+ tests failed out of [0-9]+' "$out" | awk '{print $6-$1}')
  f=$(grep -Eo '[0-9]+ tests failed out of' "$out" | awk '{print $1}')
  k=$(grep -c '(Skipped)' "$out" || true)
  passed=$((passed+${p:-0}-${k:-0})); failed=$((failed+${f:-1})); skipped=$((skipped+${k:-0}))
  [ "$rc" -eq 0 ] || status=1
  rm -f "$out"
  echo "=== stage $name: tests ran $((SECONDS-t0)) s"
}

ASAN_SKIP='^(spin_model|spin_model_service|python_install|install_build|layer_rule|exports)$' # models, packaging and layout: nothing for a sanitizer to see
TSAN_TESTS='^(threads|notify|pubsub|waitset|graph|subfd|executor|exec_dynamic|exec_timers|exec_room|exec_graph|exec_edges|chaos|crash_points|recovery|cpp|cpp_typed|example_executor|example_epoll|lost_wake|wait_wakeups|wait_peer_gone|dead_matched|executor_held_spin|doorbell_stress|doorbell_one_word|hostile_doorbell|guard_bell|waitset_solo|bell_dead_claimer|fork_helpers|svc_.*)$'
# TSan maps fixed ranges that high mmap randomisation can collide with: run without randomisation.
# die_after_fork=0: tests fork children that open topics, and every process with a topic handle runs
# the library's death-watcher threads.
export TSAN_OPTIONS="halt_on_error=1 die_after_fork=0"
tsan=false
setarch "$(uname -m)" -R true 2>/dev/null && tsan=true

build plain build-test -DZCAST_BUILD_BENCH=ON # + bench_smoke (driver and report.py)
built[plain]=$?
build_bg asan-ubsan build-asan -DZCAST_SANITIZE=address,undefined -DCMAKE_C_COMPILER=gcc -DCMAKE_CXX_COMPILER=g++
run_stage plain build-test
$tsan && build_bg tsan build-tsan -DZCAST_SANITIZE=thread -DCMAKE_C_COMPILER=clang -DCMAKE_CXX_COMPILER=clang++ -- -R "$TSAN_TESTS"
run_stage asan-ubsan build-asan -- -E "$ASAN_SKIP"
$tsan && run_stage tsan build-tsan -- -R "$TSAN_TESTS"
echo "=== make test: $((SECONDS-T0)) s in all"
echo "make test: $passed passed, $failed failed, $skipped skipped"
exit $status
