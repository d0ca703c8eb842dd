# xosplan — developer targets. Everything runs from a clean clone with only
# Go installed; nothing else is installed by hand.

GO        ?= go
BIN       := bin/xosplan
PKGS      := ./...
# The whole suite must stay under 10 minutes on 2 cores.
TESTFLAGS ?= -race -count=1 -timeout 9m
BENCHTIME ?= 1x
FUZZTIME  ?= 20s
# staticcheck is optional: used only when the module proxy serves it.
STATICCHECK_VERSION ?= 2025.1.1

.PHONY: all build test fmt-check vet race bench fuzz demo lint clean

all: build test

build:
	$(GO) build -o $(BIN) ./cmd/xosplan

fmt-check:
	@out=$$(find . -name '*.go' -not -path './.git/*' -not -path '*/testdata/*' -exec gofmt -l {} +); \
	if [ -n "$$out" ]; then echo "gofmt needed on:"; echo "$$out"; exit 1; fi

vet:
	$(GO) vet $(PKGS)

test: fmt-check vet
	$(GO) test $(TESTFLAGS) $(PKGS)

# The concurrent paths several times under the race detector.
race:
	$(GO) test -race -count=3 -timeout 20m $(PKGS)

# Short benchmark runs (one iteration each) with in-process inputs;
# BENCHTIME=1s or 5x for steadier figures.
bench:
	$(GO) test -run '^$$' -bench . -benchmem -benchtime $(BENCHTIME) $(PKGS)

# Every Fuzz target for FUZZTIME each (go test -fuzz takes one target at a
# time, in one package).
fuzz:
	@set -e; for pkg in $$($(GO) list $(PKGS)); do \
		for target in $$($(GO) test -list '^Fuzz' $$pkg | grep '^Fuzz' || true); do \
			echo "== $$pkg $$target ($(FUZZTIME))"; \
			$(GO) test -run '^$$' -fuzz "^$$target$$" -fuzztime $(FUZZTIME) $$pkg; \
		done; \
	done

# The main job on the bundled examples: validate the good ones, then show
# the diagnostics of the deliberately broken one (its exit status 1 is the
# expected outcome and does not fail the target).
demo: build
	@for ex in examples/webstack examples/xos examples/petclinic; do \
		if [ -d $$ex ]; then echo "== xosplan validate $$ex"; ./$(BIN) validate $$ex || exit 1; echo; fi; \
	done
	@echo "== xosplan validate examples/broken (expected to fail)"
	@if ./$(BIN) validate examples/broken; then \
		echo "examples/broken unexpectedly validated"; exit 1; \
	else \
		echo "(exit status 1 is expected: examples/broken is broken on purpose)"; \
	fi

lint: fmt-check vet
	@if $(GO) run honnef.co/go/tools/cmd/staticcheck@$(STATICCHECK_VERSION) -version >/dev/null 2>&1; then \
		$(GO) run honnef.co/go/tools/cmd/staticcheck@$(STATICCHECK_VERSION) $(PKGS); \
	else \
		echo "staticcheck $(STATICCHECK_VERSION) is not available from the module proxy; skipped"; \
	fi

clean:
	rm -rf bin
