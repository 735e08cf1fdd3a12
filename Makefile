# The README's two commands. Everything else is meson.
#
#   make run    install missing Debian packages (as root), build, run the toy-network example
#   make test   the same set-up, then every test: unit and end-to-end suites, the shared
#               conformance cases (when ../shared is there), and the suites again under
#               AddressSanitizer + UndefinedBehaviorSanitizer (without the window: the
#               engine, `chainrule run`, the graph drawing and `chainrule export`)
#
# Warnings are errors here (what CI runs). Use meson directly for other builds.

BUILD      ?= build
ASAN_BUILD ?= build-asan
SHARED     ?= ../shared
EXAMPLE    ?= data/examples/01-toy-network.py
MESON_OPTS ?= --buildtype=debugoptimized -Dwerror=true

.PHONY: all deps build build-asan run test test-unit test-conformance test-asan clean

all: build

deps:
	@tools/install-deps

$(BUILD)/build.ninja: | deps
	meson setup $(BUILD) $(MESON_OPTS)

build: deps $(BUILD)/build.ninja
	ninja -C $(BUILD)

run: build
	tools/run-example $(BUILD) $(EXAMPLE)

test: build test-unit test-conformance test-asan

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

clean:
	rm -rf $(BUILD) $(ASAN_BUILD)
