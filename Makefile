# The README's two commands. Everything else is meson.
#
#   make run    install missing Debian packages (as root), build, run the toy-network example
#   make test   the same set-up, then every test: unit and end-to-end suites, the shared
#               conformance cases (when ../shared is there), and the suites again under
#               AddressSanitizer + UndefinedBehaviorSanitizer (without the window: the
#               engine, `chainrule run`, the graph drawing and `chainrule export`), and
#               a short run of the fuzzers (test-fuzz: FUZZ_SECONDS each, default 60,
#               from a fixed seed)
#   make fuzz   builds the libFuzzer targets (clang, ASan + UBSan, in $(FUZZ_BUILD)) and
#               runs each for FUZZ_SECONDS (make fuzz FUZZ_SECONDS=3600); findings are
#               kept in $(FUZZ_BUILD)/fuzz/artifacts (tests/fuzz/run-fuzz says more)
#
# Warnings are errors here (what CI runs). Use meson directly for other builds.

BUILD      ?= build
ASAN_BUILD ?= build-asan
SHARED     ?= ../shared
EXAMPLE    ?= data/examples/01-toy-network.py
MESON_OPTS ?= --buildtype=debugoptimized -Dwerror=true
FUZZ_BUILD ?= build-fuzz
FUZZ_SECONDS ?= 60

.PHONY: all deps build build-asan build-fuzz run test test-unit test-conformance test-asan \
        test-fuzz fuzz clean

all: build

deps:
	@tools/install-deps

$(BUILD)/build.ninja: | deps
	meson setup $(BUILD) $(MESON_OPTS)

build: deps $(BUILD)/build.ninja
	ninja -C $(BUILD)

run: build
	tools/run-example $(BUILD) $(EXAMPLE)

test: build test-unit test-conformance test-asan test-fuzz

test-unit: build
	meson test -C $(BUILD) --print-errorlogs --num-processes 2

test-conformance: build
	@if [ -d $(SHARED)/conformance/cases ]; then \
	  echo "conformance: $(SHARED)/conformance/cases"; \
	  python3 $(SHARED)/conformance/check '$(BUILD)/app/chainrule run' $(SHARED)/conformance/cases -j 2; \
	else \
	  echo "conformance: $(SHARED) not found, skipped"; \
	fi

$(ASAN_BUILD)/build.ninja: | deps
	meson setup $(ASAN_BUILD) --buildtype=debug -Dwerror=true -Dgui=false -Dcuda=disabled \
	  -Db_sanitize=address,undefined -Db_lundef=false

build-asan: deps $(ASAN_BUILD)/build.ninja
	ninja -C $(ASAN_BUILD)

# G_SLICE=always-malloc: GLib 2.74's slice allocator keeps its own pages, so a
# leaked GObject or GSList would be invisible to LeakSanitizer without it.
# Leaks in system libraries that are not ours (fontconfig's, through pango) are
# listed, each with its reason, in tests/lsan.supp.
test-asan: build-asan
	ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1 \
	  LSAN_OPTIONS=suppressions=$(CURDIR)/tests/lsan.supp:print_suppressions=0 G_SLICE=always-malloc \
	  meson test -C $(ASAN_BUILD) --print-errorlogs --num-processes 2 --timeout-multiplier 4 \
	  --no-suite slow

# The fuzz build: clang (libFuzzer comes with it), coverage everywhere, and
# only what the fuzz targets need is built.
$(FUZZ_BUILD)/build.ninja: | deps
	CC=clang meson setup $(FUZZ_BUILD) --buildtype=debugoptimized -Dwerror=true -Dfuzz=true \
	  -Dgui=false -Dcuda=disabled -Db_sanitize=address,undefined -Db_lundef=false

build-fuzz: deps $(FUZZ_BUILD)/build.ninja
	ninja -C $(FUZZ_BUILD) tests/fuzz/fuzz-parse tests/fuzz/fuzz-interp tests/fuzz/fuzz-wire

# Every target for FUZZ_SECONDS; fails on any finding (crash, leak, UB, time-out).
fuzz: build-fuzz
	tests/fuzz/run-fuzz $(FUZZ_BUILD) $(FUZZ_SECONDS)

# make test's run starts from a fixed seed, so that what it finds on a clean
# checkout is found again the same way (make fuzz explores with random seeds).
# It looks for crashes, undefined behaviour, hangs and memory blow-ups, not
# leaks: the interpreter has no cycle collector yet, so any script cycle
# (`a = []; a.append(a)`) is a leak that a fuzzer reaches sooner or later.
# Leaks are checked by LeakSanitizer on every suite and by valgrind on the
# examples and cases; make fuzz reports them too.
test-fuzz: build-fuzz
	FUZZ_ARGS="-seed=1 -detect_leaks=0 $(FUZZ_ARGS)" tests/fuzz/run-fuzz $(FUZZ_BUILD) $(FUZZ_SECONDS)

clean:
	rm -rf $(BUILD) $(ASAN_BUILD) $(FUZZ_BUILD)
