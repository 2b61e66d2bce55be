# gorocprof: `make demo` builds everything and profiles the simulated demo; `make test` runs every test.
# `make` alone builds bin/gorocprof (static Go binary) and the tool libraries into lib/gorocprof/.

GO        ?= $(shell command -v go 2>/dev/null || echo /usr/local/go/bin/go)
CMAKE     ?= cmake
JOBS      ?= $(shell nproc 2>/dev/null || echo 2)
BUILD     ?= build
VERSION   ?= $(shell git describe --tags --always --dirty 2>/dev/null || echo dev)
GOFLAGS_LD = -s -w -X github.com/gorocprof/gorocprof/internal/cli.version=$(VERSION)

.PHONY: all go tool demo test test-go test-tool test-sanitizers test-scripts test-fuzz fmt vet clean

MAKEFLAGS += --no-print-directory
# The builds print one line each; their whole output goes to a log under $(BUILD)/logs, and only a
# failure shows it (its last 60 lines). `make V=1` prints everything as it happens.
ifeq ($(V),1)
quiet = $(3)
else
quiet = printf '  %s ... ' "$(1)"; mkdir -p $(BUILD)/logs; t0=$$(date +%s); $(3) >$(BUILD)/logs/$(2).log 2>&1 || \
	{ echo "failed; the last lines of $(BUILD)/logs/$(2).log:"; tail -n 60 $(BUILD)/logs/$(2).log; exit 1; }; \
	echo "$$(( $$(date +%s) - t0 )) s"
endif

all: go tool

# scripts/ensure-deps.sh checks for (and, as root with apt-get, installs) what a fresh machine lacks.
go:
	@GO=$(GO) ./scripts/ensure-deps.sh go
	@$(call quiet,go build bin/gorocprof,go,CGO_ENABLED=0 $(GO) build -trimpath -ldflags '$(GOFLAGS_LD)' -o bin/gorocprof ./cmd/gorocprof)

tool:
	@./scripts/ensure-deps.sh tool
	@$(call quiet,cmake configure $(BUILD)/tool,tool-configure,$(CMAKE) -S tool -B $(BUILD)/tool -DCMAKE_BUILD_TYPE=RelWithDebInfo $(CMAKE_ARGS))
	@$(call quiet,build the tool libraries and sim apps ($(BUILD)/tool),tool-build,$(CMAKE) --build $(BUILD)/tool -j $(JOBS))
	@$(call quiet,install into lib/gorocprof and bin,tool-install,$(CMAKE) --install $(BUILD)/tool --prefix $(CURDIR))

# The README's first command: build, then profile the simulated demo app with two counter groups under
# kernel replay and print the summary.
demo: all
	@echo "  profile bin/sim-demo:"
	@./bin/gorocprof --pmc SQ_WAVES SQ_INSTS_VALU --pmc SQ_WAVES SQ_INSTS_SALU \
		--replay-mode kernel --kernel-replay-beta-enabled -d out/demo -o demo -- ./bin/sim-demo

test: all test-tool test-sanitizers test-go test-scripts test-fuzz

# The build's own scripts (ensure-deps.sh, make's output), each a script under scripts/tests.
test-scripts: all test-tool test-sanitizers
	@for t in scripts/tests/*.sh; do bash "$$t" || exit 1; done

test-go:
	$(GO) vet ./...
	@test -z "$$(gofmt -l cmd internal)" || { echo "gofmt: these files need formatting:"; gofmt -l cmd internal; exit 1; }
	GOROCPROF_REQUIRE_E2E=1 $(GO) test ./...

# Every Go fuzz target on its committed corpus (testdata/fuzz/<target>), then a number of new inputs, one
# target per invocation (go fuzzes one at a time). The budgets are execution counts, not seconds: with a
# duration, Go 1.26's fuzz coordinator can fail a target at its deadline with a bare "context deadline
# exceeded" and no input (golang/go#75804, fixed in Go 1.27), which a count never does. A count includes
# the corpus's inputs, which run first, so each is its corpus and a short run of new inputs (sized in
# docs/perf.md, "Build and test time"); FUZZTIME (30s, 100000x) replaces all of them. A
# failing input is written to the package's testdata/fuzz, where `go test` replays it from then on.
FUZZTIME     ?=
FUZZ_TARGETS  = cli:FuzzNormalizeArgs:700 cli:FuzzParseInput:500 cli:FuzzParseRankList:3000 output:FuzzExpandPath:3500 \
	backend/rocm:FuzzParseProperties:20000 backend/helper:FuzzDecodeReply:20000 backend/cuda/querycache:FuzzCacheFiles:8000 \
	replay:FuzzMergeRuns:500 counters:FuzzParseExpression:30000 perfetto:FuzzDecode:40000 counters:FuzzParseExtra:20000 \
	merge:FuzzReadResults:1200 records:FuzzTraceLine:3000
fuzz_pkg      = ./internal/$(word 1,$(subst :, ,$(1)))
fuzz_name     = $(word 2,$(subst :, ,$(1)))
fuzz_budget   = $(if $(FUZZTIME),$(FUZZTIME),$(word 3,$(subst :, ,$(1)))x)

test-fuzz:
	@set -e; $(foreach t,$(FUZZ_TARGETS),$(call quiet,fuzz $(call fuzz_name,$(t)) for $(call fuzz_budget,$(t)),fuzz-$(call fuzz_name,$(t)),$(GO) test -run='^$$' -fuzz='^$(call fuzz_name,$(t))$$' -fuzztime=$(call fuzz_budget,$(t)) -fuzzminimizetime=10x $(call fuzz_pkg,$(t)));)

test-tool: tool
	cd $(BUILD)/tool && ctest --output-on-failure -j $(JOBS)

# The replay and core tests again under AddressSanitizer + UndefinedBehaviorSanitizer, and the
# concurrency tests under ThreadSanitizer.
test-sanitizers:
	@./scripts/ensure-deps.sh tool
	@$(call quiet,cmake configure $(BUILD)/asan,asan-configure,$(CMAKE) -S tool -B $(BUILD)/asan -DGOROCPROF_SANITIZE=address,undefined -DGOROCPROF_WITH_CUDA=OFF)
	@$(call quiet,build under ASan+UBSan ($(BUILD)/asan),asan-build,$(CMAKE) --build $(BUILD)/asan -j $(JOBS))
	cd $(BUILD)/asan && ASAN_OPTIONS=detect_leaks=1 UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1 ctest --output-on-failure -j $(JOBS)
	@$(call quiet,cmake configure $(BUILD)/tsan,tsan-configure,$(CMAKE) -S tool -B $(BUILD)/tsan -DGOROCPROF_SANITIZE=thread -DGOROCPROF_WITH_CUDA=OFF)
	@$(call quiet,build under TSan ($(BUILD)/tsan),tsan-build,$(CMAKE) --build $(BUILD)/tsan --target concurrency_tests -j $(JOBS))
	cd $(BUILD)/tsan && TSAN_OPTIONS=halt_on_error=1 ctest --output-on-failure -L concurrency -j $(JOBS)

fmt:
	gofmt -w cmd internal

vet:
	$(GO) vet ./...

clean:
	rm -rf $(BUILD) bin lib out
