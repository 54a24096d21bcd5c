# The two commands a newcomer needs: `make demo` (install what is needed,
# build nexus, run the example) and `make test` (the whole test suite, as CI
# runs it). `make bench` prints the benchmark tables of the README, and
# `make load` runs the MCP load test over HTTP, and `make soak` the
# ten-minute chaos soak.

GO      ?= go
NEXUS   := $(CURDIR)/bin/nexus

.PHONY: all setup build demo test lint cross bench load peers soak proto clean

all: build

setup:
	@./scripts/setup.sh

# urfave_cli_no_docs leaves out urfave/cli's man-page and Markdown writers
# (and the Markdown parser under them), which nexus never uses and every
# start of it would initialize.
TAGS    := urfave_cli_no_docs

# CGO_ENABLED=0: nexus needs no C, and a static binary starts without the
# dynamic loader, 1.4 ms sooner (3.8 ms against 5.3 ms to run --version
# here), a fifth of a cold start over stdio. Go pools are built static too
# (internal/codegen/golang), so the two share the build cache.
build:
	CGO_ENABLED=0 $(GO) build -tags $(TAGS) -o $(NEXUS) ./cmd/nexus

demo: setup build
	@./scripts/demo.sh $(NEXUS)

lint:
	@unformatted="$$(gofmt -l $$(git ls-files '*.go'))"; \
	test -z "$$unformatted" || { echo "gofmt needed on:"; echo "$$unformatted"; exit 1; }
	$(GO) vet ./...

# cross builds and vets (which compiles the tests too) for the systems
# nexus is meant to build on besides Linux (docs/platforms.md): a Linux-only
# call anywhere fails it.
CROSS   := darwin/arm64 darwin/amd64 windows/amd64

cross:
	@set -e; for p in $(CROSS); do \
		echo "GOOS=$${p%/*} GOARCH=$${p#*/} go build && go vet"; \
		GOOS=$${p%/*} GOARCH=$${p#*/} $(GO) build -tags $(TAGS) ./...; \
		GOOS=$${p%/*} GOARCH=$${p#*/} $(GO) vet ./...; \
	done

test: setup lint cross
	$(GO) test -race -count=1 -timeout 20m ./...

bench: setup build
	$(GO) run ./integration/bench -nexus $(NEXUS)

# The MCP load test over HTTP: 64 sessions x 200 calls against a Python and
# a C++ function, beside an in-process Go SDK server; loopback only.
load: setup build
	$(GO) run ./integration/load -nexus $(NEXUS)

# The peer benchmark: nexus beside MCP servers written with FastMCP, the
# TypeScript SDK and the Go SDK, on the same functions in one run; writes
# docs/benchmarks.md. The first run installs FastMCP into a private venv.
peers: setup build
	$(GO) run ./integration/peers -nexus $(NEXUS)

# The soak: ten minutes of mixed concurrent calls over stdio and HTTP
# against the fault program, with pools killed, crashes, timeouts,
# cancellations and disconnects injected; every answer checked. Writes
# docs/soak.md; loopback only.
soak: setup build
	$(GO) run ./integration/soak -nexus $(NEXUS) -duration 10m

# Regenerates proto/*.pb.go from proto/pool.proto, with protoc from setup
# and the Go plugins at the versions the committed files were made with.
proto: setup
	GOBIN=$(CURDIR)/bin $(GO) install google.golang.org/protobuf/cmd/protoc-gen-go@v1.36.12
	GOBIN=$(CURDIR)/bin $(GO) install google.golang.org/grpc/cmd/protoc-gen-go-grpc@v1.6.2
	PATH="$(CURDIR)/bin:$$PATH" $(GO) generate ./proto

clean:
	rm -rf bin
