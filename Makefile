# SPDX-License-Identifier: BSD-3-Clause
#
# Entry points. Each target first installs missing Debian packages
# (scripts/install-deps.sh, quiet when all are present), then configures
# build/ if needed and builds.
#
#   make run     build and run the main job
#   make test    build, run the fast suite, the format check, the fast suite
#                again under ASan and UBSan, a bounded fuzz run and the guest
#                suite (scripts/vm/: the hw suite on Soft-RoCE and siw)
#   make sanitize  the fast suite under ASan and UBSan alone (scripts/sanitize.sh,
#                in $(SAN_BUILD); no benchmark)
#   make guest   the guest suite alone
#   make two-nodes  the stack across a network: two guests (scripts/vm/two-nodes.sh)
#   make bench   build and run the benchmarks; JSON under build/bench/
#   make fuzz    the fuzz run alone (FUZZ_SECONDS, default 60 in total; 20 in make test)
#   make format  reformat the sources with clang-format

BUILD        ?= build
GUEST_BUILD  ?= build-guest
SAN_BUILD    ?= build-asan
MESON_OPTS   ?=
FUZZ_SECONDS ?= 60
# make test's bounded fuzz run: a regression check within its time budget
TEST_FUZZ_SECONDS ?= 20

.PHONY: all deps build run test sanitize guest two-nodes bench fuzz format check-format clean

all: build

deps:
	@sh scripts/install-deps.sh

build: deps
	@if [ ! -f $(BUILD)/build.ninja ]; then \
		rm -rf $(BUILD) && meson setup $(BUILD) $(MESON_OPTS) >/dev/null || exit 1; \
	fi
	@ninja -C $(BUILD) | grep -v '^ninja: no work to do' || true
	@test -f $(BUILD)/.built || true

run: build
	@sh scripts/run.sh $(BUILD)

test: build
	meson test -C $(BUILD) --suite fast --print-errorlogs
	sh scripts/check-format.sh
	sh scripts/sanitize.sh $(SAN_BUILD)
	sh scripts/fuzz.sh $(TEST_FUZZ_SECONDS)
	@sh scripts/vm/guest-suite.sh $(GUEST_BUILD); st=$$?; [ $$st = 0 ] || [ $$st = 77 ]
	@python3 scripts/test_summary.py $(BUILD)/meson-logs/testlog.json fast \
		$(SAN_BUILD)/meson-logs/testlog.json sanitize \
		$(GUEST_BUILD)/meson-logs/guest-rxe0-guest.json guest-rxe0 \
		$(GUEST_BUILD)/meson-logs/guest-siw0-guest.json guest-siw0

sanitize: deps
	sh scripts/sanitize.sh $(SAN_BUILD)

guest: build
	sh scripts/vm/guest-suite.sh $(GUEST_BUILD)

two-nodes: deps
	bash scripts/vm/two-nodes.sh $(GUEST_BUILD)

bench: build
	sh scripts/bench.sh $(BUILD)

fuzz: deps
	sh scripts/fuzz.sh $(FUZZ_SECONDS)

format:
	sh scripts/check-format.sh --fix

check-format:
	sh scripts/check-format.sh

clean:
	rm -rf $(BUILD) $(GUEST_BUILD) $(SAN_BUILD) build-fuzz
