# Quick start: `make demo` and `make test` (both install what they need on Debian 12, as root).
BUILD ?= build
JOBS ?= $(shell nproc)

.PHONY: all build deps demo test test-plain bench bench-quick install format clean model-long fuzz chaos-long

all: build

deps:
	@scripts/deps.sh build

build: deps
	@cmake -S . -B $(BUILD) -DCMAKE_BUILD_TYPE=RelWithDebInfo -DZCAST_WERROR=ON >/dev/null
	@cmake --build $(BUILD) -j$(JOBS)

demo: build
	@$(BUILD)/examples/zcast_demo 5

test:
	@scripts/deps.sh test
	@scripts/test.sh

# The suite once, in the test build, without sanitizers (quick check while developing).
test-plain:
	@scripts/deps.sh test
	@cmake -S . -B build-test -DZCAST_TEST_BUILD=ON -DZCAST_WERROR=ON -DZCAST_BUILD_BENCH=OFF >/dev/null
	@cmake --build build-test -j$(JOBS)
	@cd build-test && ctest --output-on-failure -j$(JOBS)

# Coverage-guided fuzzing of hostile shared memory (clang libFuzzer), FUZZ_SECONDS long.
FUZZ_SECONDS ?= 60
fuzz:
	@scripts/deps.sh test
	@CC=clang-14 cmake -S . -B build-fuzz -DZCAST_TEST_BUILD=ON -DZCAST_BUILD_BENCH=OFF -DZCAST_FUZZ_SECONDS=$(FUZZ_SECONDS) >/dev/null
	@cmake --build build-fuzz -j$(JOBS) --target fuzz

# Larger SPIN configurations (bigger sizes, publisher crash with two publishes): up to ~6 GB and ~15 minutes, see docs/MODEL.md.
model-long:
	@scripts/deps.sh test
	@bash model/check.sh --long

# The chaos test at full length (1000 kills).
chaos-long: test-plain
	@ZCAST_LONG=1 build-test/tests/test_chaos

# Benchmarks (docs/BENCHMARKS.md): everything (~12 min) or a < 60 s smoke run. Results go to
# bench/results/<timestamp>/ and bench/results/latest.
bench: build
	@scripts/deps.sh bench
	@cmake -S . -B $(BUILD) >/dev/null && cmake --build $(BUILD) -j$(JOBS) >/dev/null
	@bench/run.sh --build-dir $(BUILD)

bench-quick: build
	@scripts/deps.sh bench
	@cmake -S . -B $(BUILD) >/dev/null && cmake --build $(BUILD) -j$(JOBS) >/dev/null
	@bench/run.sh --quick --build-dir $(BUILD)

install: build
	@cmake --install $(BUILD)

format:
	@clang-format -i include/zcast/*.h src/*.c src/*.h tests/*.c tests/*.h examples/*.c

clean:
	@rm -rf build build-test build-asan build-tsan build-fuzz build-*.log
