#!/usr/bin/env bash
# make test: the whole suite in a test build (fault injection, slot poisoning, -Werror), then again
# under ASan+UBSan, then the threaded tests under TSan. Prints each stage's duration and ends with
# one summary line.
set -uo pipefail
cd "$(dirname "$0")/.."
jobs=$(nproc)
passed=0; failed=0; skipped=0; status=0
stage() { # name build-dir cmake-args... -- ctest-args...
  local name=$1 dir=$2; shift 2
  local cargs=() targs=()
  while [ $# -gt 0 ] && [ "$1" != "--" ]; do cargs+=("$1"); shift; done
  [ $# -gt 0 ] && shift
  targs=("$@")
  local t0=$SECONDS
  echo "=== stage $name: configure and build"
  if ! cmake -S . -B "$dir" -DZCAST_TEST_BUILD=ON -DZCAST_WERROR=ON -DZCAST_BUILD_BENCH=OFF "${cargs[@]}" >"$dir.log" 2>&1 ||
     ! cmake --build "$dir" -j"$jobs" >>"$dir.log" 2>&1; then
    tail -40 "$dir.log"; echo "=== stage $name: BUILD FAILED"; failed=$((failed+1)); status=1; return
  fi
  echo "=== stage $name: run"
  local out; out=$(mktemp)
  (cd "$dir" && ctest --output-on-failure -j"$jobs" "${targs[@]}") 2>&1 | tee "$out"
  local rc=${PIPESTATUS[0]}
  local p f
  p=$(grep -Eo '[0-9]+ tests failed out of [0-9]+' "$out" | awk '{print $6-$1}')
  f=$(grep -Eo '[0-9]+ tests failed out of' "$out" | awk '{print $1}')
  local k; k=$(grep -c '(Skipped)' "$out" || true)
  passed=$((passed+${p:-0}-${k:-0})); failed=$((failed+${f:-1})); skipped=$((skipped+${k:-0}))
  [ "$rc" -eq 0 ] || status=1
  rm -f "$out"
  echo "=== stage $name: $((SECONDS-t0)) s"
}
T0=$SECONDS
stage plain build-test -DZCAST_BUILD_BENCH=ON # + bench_smoke (driver and report.py)
stage asan-ubsan build-asan -DZCAST_SANITIZE=address,undefined -DCMAKE_C_COMPILER=gcc -DCMAKE_CXX_COMPILER=g++ -- -E '^(spin_model|spin_model_service|python_install|install_build|layer_rule|exports)$' # models, packaging and layout: nothing for a sanitizer to see
# TSan maps fixed ranges that high mmap randomisation can collide with: run without randomisation.
# die_after_fork=0: tests fork children that open topics, and every process with a topic handle runs
# the library's death-watcher threads.
export TSAN_OPTIONS="halt_on_error=1 die_after_fork=0"
if setarch "$(uname -m)" -R true 2>/dev/null; then
  stage tsan build-tsan -DZCAST_SANITIZE=thread -DCMAKE_C_COMPILER=clang -DCMAKE_CXX_COMPILER=clang++ -- -R '^(threads|notify|pubsub|waitset|graph|subfd|executor|exec_dynamic|exec_timers|exec_room|exec_graph|exec_edges|chaos|crash_points|recovery|cpp|cpp_typed|example_executor|example_epoll|lost_wake|wait_wakeups|wait_peer_gone|dead_matched|executor_held_spin|doorbell_stress|doorbell_one_word|hostile_doorbell|guard_bell|waitset_solo|bell_dead_claimer|fork_helpers|svc_.*)$'
fi
echo "=== make test: $((SECONDS-T0)) s in all"
echo "make test: $passed passed, $failed failed, $skipped skipped"
exit $status
