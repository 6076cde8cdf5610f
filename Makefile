# Quick start: `make demo` and `make test` (both install what they need on Debian 12, as root).
BUILD ?= build
JOBS ?= $(shell nproc)

.PHONY: all build deps demo docs test test-plain bench bench-quick install uninstall format clean model-long fuzz chaos-long

all: build

deps:
	@scripts/deps.sh build

# The installable build: no test programs (make install would build them and install none).
build: deps
	@cmake -S . -B $(BUILD) -DCMAKE_BUILD_TYPE=RelWithDebInfo -DZCAST_WERROR=ON -DBUILD_TESTING=OFF >/dev/null
	@cmake --build $(BUILD) -j$(JOBS)

# Only the demo is built, quietly: the build log is shown only if the build fails.
demo: deps
	@{ cmake -S . -B $(BUILD) -DCMAKE_BUILD_TYPE=RelWithDebInfo -DZCAST_WERROR=ON && \
	   cmake --build $(BUILD) -j$(JOBS) --target zcast_demo; } >$(BUILD)-demo.log 2>&1 || \
	 { tail -n 40 $(BUILD)-demo.log; echo "make demo: the build failed (whole log: $(BUILD)-demo.log)"; exit 1; }
	@$(BUILD)/examples/zcast_demo 5

# API reference from the header comments (doxygen; any warning fails): $(BUILD)/docs/html/index.html
docs:
	@scripts/deps.sh docs
	@scripts/docs.sh $(BUILD)/docs

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

# The chaos test at full length (20000 kills) and the concurrent scribbler for 300 s.
chaos-long: test-plain
	@ZCAST_LONG=1 build-test/tests/test_chaos
	@ZCAST_LONG=1 build-test/tests/test_scribble
	@ZCAST_LONG=1 build-test/tests/test_svc_chaos
	@ZCAST_LONG=1 build-test/tests/test_svc_scribble

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

# make install [PREFIX=/usr/local] [DESTDIR=...]; make uninstall removes what the last install wrote
# (the build's install_manifest.txt) and the directories of zcast's own that it leaves empty.
PREFIX ?= /usr/local
install: build
	@DESTDIR=$(DESTDIR) cmake --install $(BUILD) --prefix $(PREFIX)

uninstall:
	@DESTDIR=$(DESTDIR) scripts/uninstall.sh $(BUILD)/install_manifest.txt

format:
	@clang-format -i include/zcast/*.h include/zcast/*.hpp src/*/*.c src/*/*.h tests/*.c tests/*/test_*.c tests/*.cpp tests/*.h examples/*.c examples/*.cpp

clean:
	@rm -rf build build-test build-asan build-tsan build-fuzz build-*.log
