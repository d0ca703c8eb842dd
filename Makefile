# xosplan — developer targets. Everything runs from a clean clone with only
# Go installed; nothing else is installed by hand.

GO        ?= go
BIN       := bin/xosplan
PKGS      := ./...
# The whole suite must stay under 10 minutes on 2 cores.
TESTFLAGS ?= -race -count=1 -timeout 9m
BENCHTIME ?= 1x
FUZZTIME  ?= 20s
# The linters, pinned to module versions the module proxy serves (go run
# fetches them once; the build cache keeps the binaries and staticcheck
# keeps its results under the user cache folder, so a second run is quick).
STATICCHECK_VERSION ?= v0.8.2
DEADCODE_VERSION    ?= v0.52.0
STATICCHECK := $(GO) run honnef.co/go/tools/cmd/staticcheck@$(STATICCHECK_VERSION)
DEADCODE    := $(GO) run golang.org/x/tools/cmd/deadcode@$(DEADCODE_VERSION)

.PHONY: all build docs dist image install test test-deps fmt-check vet staticcheck deadcode race bench bench-placement bench-xopera fuzz demo demo-validate demo-loop demo-sync lint clean

all: build test

build:
	$(GO) build -o $(BIN) ./cmd/xosplan

# go install from this clone: xosplan lands in $(go env GOPATH)/bin.
install:
	$(GO) install ./cmd/xosplan

# docs/reference (a Markdown page per command) and docs/man (man pages),
# generated from the commands' own help by cobra's doc generator;
# TestReferenceIsCurrent fails in make test when they are not current.
docs:
	XOSPLAN_UPDATE=1 $(GO) test -count=1 -run '^TestReferenceIsCurrent$$' ./cmd/xosplan

# Release archives for every platform (.ci/dist): dist/xosplan_VERSION_OS_ARCH.tar.gz
# (.zip for Windows) with the version stamped in, and dist/SHA256SUMS.
# make dist VERSION=v1.2.0 PLATFORMS="linux/amd64 linux/arm64"
VERSION   ?= $(shell git describe --tags --always --dirty 2>/dev/null || echo dev)
PLATFORMS ?=
dist:
	$(GO) run ./.ci/dist -version $(VERSION) -out dist $(PLATFORMS)

# The container image (Dockerfile): Debian 12 slim by default,
# IMAGE_TARGET=full for the one with ansible-core and python3 for the
# drivers. Needs docker or podman.
IMAGE        ?= xosplan:$(VERSION)
IMAGE_TARGET ?= minimal
image:
	@tool=$$(command -v docker || command -v podman) || { echo "make image needs docker or podman; neither is installed"; exit 1; }; \
	$$tool build --target $(IMAGE_TARGET) --build-arg VERSION=$(VERSION) -t $(IMAGE) .

fmt-check:
	@out=$$(find . -name '*.go' -not -path './.git/*' -not -path '*/testdata/*' -exec gofmt -l {} +); \
	if [ -n "$$out" ]; then echo "gofmt needed on:"; echo "$$out"; exit 1; fi

vet:
	$(GO) vet $(PKGS) ./.ci/withpg ./.ci/dist

# One throw-away PostgreSQL 15 serves the whole run (.ci/withpg
# starts it on 127.0.0.1, sets XOSPLAN_TEST_PG and stops it by its PID
# after); without it the PostgreSQL tests skip, saying why.
WITHPG := $(GO) run ./.ci/withpg

test: lint test-deps
	$(WITHPG) $(GO) test $(TESTFLAGS) $(PKGS) ./.ci/dist

# apt_install: if CONDITION (1) holds, install the Debian package (2),
# needed for (3), when root with apt; otherwise say that (4) is missing
# and that (5).
define apt_install
@if $(1); then \
	if [ "$$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then \
		echo "installing $(2) ($(3))"; \
		(apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq $(2)) >/dev/null \
			|| echo "warning: could not install $(2); $(5)"; \
	else \
		echo "$(4) is not installed and cannot be installed here; $(5)"; \
	fi; \
fi
endef

# The differential placement test (pkg/placement) runs Debian's real
# Placement service on 127.0.0.1, started and stopped by the test itself,
# and the language server's end-to-end test (lsp_neovim.txtar) runs
# Debian's Neovim headless; the Ansible driver's tests run Debian's
# ansible-playbook (ansible-core) on the local connection, and the browser tests of the
# synchronizer's console and the HTML plan run Debian's Chromium headless. Install them when they are missing and we are
# root with apt; otherwise those tests skip with a message saying why.
# The PostgreSQL state backend's tests run against PostgreSQL 15, installed
# the same way when it is missing.
test-deps:
	$(call apt_install,[ ! -x /usr/lib/postgresql/15/bin/initdb ],postgresql-15,the server the PostgreSQL state backend is tested against,PostgreSQL 15,the PostgreSQL tests will skip)
	$(call apt_install,! dpkg -s python3-placement >/dev/null 2>&1,python3-placement,the real Placement service for the differential test,python3-placement,the differential test will skip)
	$(call apt_install,! command -v nvim >/dev/null 2>&1,neovim,the editor of the language server's end-to-end test,neovim,the editor test will skip)
	$(call apt_install,! command -v ansible-playbook >/dev/null 2>&1,ansible-core,ansible-playbook runs the Ansible driver's tests,ansible-core,the Ansible driver's tests will skip)
	$(call apt_install,! command -v chromium >/dev/null 2>&1,chromium,the headless browser of the console's and the HTML plan's tests,chromium,the browser tests will skip)
	$(call apt_install,! command -v jq >/dev/null 2>&1,jq,the GitHub Action's test answers gh's --jq with it,jq,the GitHub Action's test will skip)

# The concurrent paths several times under the race detector.
race:
	$(WITHPG) $(GO) test -race -count=3 -timeout 20m $(PKGS)

# Short benchmark runs (one iteration each) with in-process inputs;
# BENCHTIME=1s or 5x for steadier figures.
bench:
	$(WITHPG) $(GO) test -run '^$$' -bench . -benchmem -benchtime $(BENCHTIME) $(PKGS)

# `placement candidates` beside the real Placement (python3-placement,
# started on 127.0.0.1) over the same flat inventories, side by side in one
# run; seeding the service takes minutes (XOSPLAN_BENCH_PLACEMENT_SIZES
# changes the sizes, default 1000,2000). make bench runs it too.
bench-placement:
	$(GO) test -run '^$$' -bench 'PlacementVsReal|PlacementCandidatesFlat10k' -benchmem -benchtime 5x -timeout 60m ./cmd/xosplan

# Deploy times of xosplan beside xOpera's (XOPERA=/path/to/opera) on a
# one-playbook stack and four independent 2 s playbooks; without xOpera
# it says so and times xosplan alone (.ci/bench-xopera.sh).
bench-xopera: build
	.ci/bench-xopera.sh

# Every Fuzz target for FUZZTIME each (go test -fuzz takes one target at a
# time, in one package).
fuzz:
	@set -e; for pkg in $$($(GO) list $(PKGS)); do \
		for target in $$($(GO) test -list '^Fuzz' $$pkg | grep '^Fuzz' || true); do \
			echo "== $$pkg $$target ($(FUZZTIME))"; \
			$(GO) test -run '^$$' -fuzz "^$$target$$" -fuzztime $(FUZZTIME) $$pkg; \
		done; \
	done

# The main job on the bundled examples: validate them all (and show the
# diagnostics of the deliberately broken one), then run the whole loop on
# copies under $(DEMO): plan, apply, re-plan with no changes, a change (one
# property edited, one node removed) and its apply, destroy. Scripts work
# under $(DEMO) (webstack's in $(DEMO)/work, petclinic's instances in
# $(DEMO)/registry, ansible's playbooks in $(DEMO)/work3, when
# ansible-playbook is installed); nothing outside $(DEMO) is written, examples/ least of
# all (demo_writes_only_its_folder.txtar). The petclinic scripts need
# python3.
DEMO := bin/demo
XOSPLAN := ./$(BIN) --no-color

demo: build demo-validate demo-loop demo-sync

demo-validate: build
	@for ex in examples/webstack examples/xos examples/petclinic examples/placement examples/ansible; do \
		if [ -d $$ex ]; then echo "== xosplan validate $$ex"; $(XOSPLAN) validate $$ex || exit 1; echo; fi; \
	done
	@echo "== xosplan validate examples/tosca2 (TOSCA 2.0; its profile on the search path)"
	@$(XOSPLAN) validate --profile-path examples/tosca2/profiles examples/tosca2 || exit 1; echo
	@echo "== xosplan validate examples/broken (expected to fail)"
	@if $(XOSPLAN) validate examples/broken; then \
		echo "examples/broken unexpectedly validated"; exit 1; \
	else \
		echo "(exit status 1 is expected: examples/broken is broken on purpose)"; echo; \
	fi

demo-loop: build
	@rm -rf $(DEMO) && mkdir -p $(DEMO) && cp -R examples/webstack $(DEMO)/webstack
	@set -e; export XOSPLAN_WORKDIR="$$PWD/$(DEMO)/work"; st=$(DEMO)/webstack.state.json; \
	echo "== webstack: plan"; $(XOSPLAN) plan --state $$st $(DEMO)/webstack; echo; \
	echo "== webstack: apply"; $(XOSPLAN) apply --auto-approve --state $$st $(DEMO)/webstack; echo; \
	echo "== webstack: plan again (nothing to do)"; $(XOSPLAN) plan --detailed-exitcode --state $$st $(DEMO)/webstack; echo; \
	echo "== webstack: web_port 8080 -> 9090 (an update) and app removed (a delete, before what it used), plan and apply"; \
	sed -e 's/^      default: 8080$$/      default: 9090/' \
		-e '/^    app:$$/,/^  outputs:$$/{/^  outputs:$$/!d;}' \
		-e '/^    shop_url:$$/,/^    database:$$/{/^    database:$$/!d;}' \
		examples/webstack/webstack.yaml > $(DEMO)/webstack/webstack.yaml; \
	$(XOSPLAN) plan --state $$st $(DEMO)/webstack; echo; \
	$(XOSPLAN) apply --auto-approve --state $$st $(DEMO)/webstack; echo; \
	grep '^listen' $(DEMO)/work/web/server.conf; echo; \
	echo "== webstack: destroy"; $(XOSPLAN) destroy --auto-approve --state $$st $(DEMO)/webstack; echo
	@if [ -d examples/petclinic ]; then set -e; st=$(DEMO)/petclinic.state.json; \
		cp -R examples/petclinic $(DEMO)/petclinic; export XOSPLAN_REGISTRY="$$PWD/$(DEMO)/registry"; \
		echo "== petclinic: apply, plan again, destroy"; \
		$(XOSPLAN) apply --auto-approve --state $$st $(DEMO)/petclinic; echo; \
		$(XOSPLAN) plan --detailed-exitcode --state $$st $(DEMO)/petclinic; echo; \
		$(XOSPLAN) destroy --auto-approve --state $$st $(DEMO)/petclinic; echo; \
	fi
	@if [ -d examples/tosca2 ]; then set -e; st=$(DEMO)/tosca2.state.json; \
		cp -R examples/tosca2 $(DEMO)/tosca2; export XOSPLAN_WORKDIR="$$PWD/$(DEMO)/work2"; \
		t2="--profile-path $(DEMO)/tosca2/profiles --state $$st $(DEMO)/tosca2/stack.yaml"; \
		echo "== tosca2 (TOSCA 2.0): plan"; $(XOSPLAN) plan $$t2; echo; \
		echo "== tosca2: apply"; $(XOSPLAN) apply --auto-approve $$t2; echo; \
		echo "== tosca2: replicas 2 -> 3 (web[2] added) and a new greeting (web[0], web[1] updated), plan and apply"; \
		sed -e 's/^      default: 2$$/      default: 3/' -e 's/^      default: Hello from TOSCA 2.0$$/      default: Hello again/' \
			examples/tosca2/stack.yaml > $(DEMO)/tosca2/stack.yaml; \
		$(XOSPLAN) plan $$t2; echo; \
		$(XOSPLAN) apply --auto-approve $$t2; echo; \
		cat $(DEMO)/work2/web/2/site.conf; echo; \
		echo "== tosca2: destroy"; $(XOSPLAN) destroy --auto-approve $$t2; echo; \
	fi
	@if [ -d examples/ansible ] && command -v ansible-playbook >/dev/null 2>&1; then set -e; st=$(DEMO)/ansible.state.json; \
		cp -R examples/ansible $(DEMO)/ansible; a="--state $$st --var folder=$$PWD/$(DEMO)/work3 $(DEMO)/ansible/stack.yaml"; \
		echo "== ansible (playbooks, local connection): apply"; $(XOSPLAN) apply --auto-approve $$a; echo; \
		echo "== ansible: a changed task file (implementation_changed), plan and apply"; \
		sed -e 's/^    mode: "0644"$$/    mode: "0640"/' examples/ansible/playbooks/tasks/write_app.yml > $(DEMO)/ansible/playbooks/tasks/write_app.yml; \
		$(XOSPLAN) plan $$a; echo; $(XOSPLAN) apply --auto-approve $$a; echo; \
		$(XOSPLAN) output --state $$st; echo; \
		echo "== ansible: destroy"; $(XOSPLAN) destroy --auto-approve $$a; echo; \
	elif [ -d examples/ansible ]; then echo "== ansible: skipped (ansible-playbook is not installed; make test-deps installs ansible-core)"; fi
	@if [ -f examples/placement/providers.yaml ]; then \
		echo "== placement: where the compute lands"; \
		$(XOSPLAN) plan --state $(DEMO)/placement.state.json --providers examples/placement/providers.yaml examples/placement; \
	fi

# A short xosplan sync on a copy of petclinic under $(DEMO)/sync: it
# starts and launches everything, applies an edited manifest (the VM's
# instance type), repairs a VM deleted behind its back after its next
# health check (every 2 s here), shows its status and stops on SIGINT.
# Each wait gives up after 60 s; the sync is stopped whatever happens.
demo-sync: build
	@if [ -d examples/petclinic ]; then \
		d=$(DEMO)/sync; rm -rf $$d && mkdir -p $$d && cp -R examples/petclinic $$d/petclinic; \
		export XOSPLAN_REGISTRY="$$PWD/$$d/registry"; \
		waitfor() { i=0; until sh -c "$$1" >/dev/null 2>&1; do i=$$((i+1)); \
			if [ $$i -gt 300 ]; then echo "timed out: $$2"; return 1; fi; sleep 0.2; done; echo "$$2"; }; \
		echo "== sync: start on petclinic (health checks every 2s)"; \
		$(XOSPLAN) sync --state $$d/state.json --health-interval 2s --debounce 200ms --listen 127.0.0.1:0 \
			--listen-file $$d/addr $$d/petclinic 2> $$d/sync.log & pid=$$!; \
		trap 'kill -INT $$pid 2>/dev/null' EXIT; \
		waitfor "grep -q 'reconcile ended' $$d/sync.log" "first reconcile ended" && \
		$(XOSPLAN) status --listen-file $$d/addr && \
		echo "== sync: VM.yml: m1.small -> m1.large (applied without a command)" && \
		sed -e 's/m1.small/m1.large/' examples/petclinic/VM.yml > $$d/petclinic/VM.yml.new && \
		mv $$d/petclinic/VM.yml.new $$d/petclinic/VM.yml && \
		waitfor "grep -q m1.large $$d/registry/vm/*.json" "the VM was reconfigured to m1.large" && \
		echo "== sync: the VM is deleted behind its back" && rm $$d/registry/vm/*.json && \
		waitfor "grep -q m1.large $$d/registry/vm/*.json" "the next health check found it gone and the VM was launched again" && \
		$(XOSPLAN) status --listen-file $$d/addr; st=$$?; \
		echo "== sync: stop (SIGINT)"; kill -INT $$pid; wait $$pid; code=$$?; trap - EXIT; \
		grep -E 'reconcile ended|drift found|action complete|sync stopped' $$d/sync.log | sed -e 's/^time=[^ ]* //'; \
		echo "sync exited with status $$code"; [ $$st -eq 0 ] && [ $$code -eq 0 ]; \
	fi

# lint fails on any finding, and when a linter cannot be fetched or run:
# a check that skips itself is a check nobody runs.
lint: fmt-check vet staticcheck deadcode

staticcheck:
	$(STATICCHECK) $(PKGS) ./.ci/withpg ./.ci/dist

# Every function must be reachable from main or from a test: an exported
# function of a pkg/ package that nothing calls, not even its tests, is
# reported too (test it, or delete it). deadcode exits 0 on findings, so
# any output fails.
deadcode:
	@out=$$($(DEADCODE) -test $(PKGS)) || exit 1; \
	if [ -n "$$out" ]; then echo "deadcode -test: unreachable functions:"; echo "$$out"; exit 1; fi

clean:
	rm -rf bin dist

# A report, not a gate (issue 22): the functions of non-test code over
# cyclomatic complexity 20, most complex first, their number and the mean.
# (gocyclo exits 1 when it lists any; that line is left out.)
GOCYCLO_VERSION ?= v0.6.0
GOCYCLO = $(GO) run github.com/fzipp/gocyclo/cmd/gocyclo@$(GOCYCLO_VERSION) -ignore '_test\.go$$|testdata/|^\.' $(1) . 2>&1 | grep -v '^exit status 1$$'
.PHONY: complexity
complexity:
	@$(call GOCYCLO,-over 20) | sort -rn
	@echo "$$($(call GOCYCLO,-over 20) | wc -l) functions over 20, $$($(call GOCYCLO,-over 40) | wc -l) over 40"
	@$(call GOCYCLO,-avg) | tail -1
