# mcpwire developer targets. MCP_SPEC_DIR points at a folder laid out like
# the upstream specification repository (schema/<revision>/schema.json and
# the examples); it defaults to ../shared/mcp-spec when that exists.
MCP_SPEC_DIR ?= $(abspath $(wildcard ../shared/mcp-spec))
export MCP_SPEC_DIR

GO       ?= go
FUZZTIME ?= 30s
OLD      ?= $(MCP_SPEC_DIR)/schema/2025-11-25/schema.json
NEW      ?= $(MCP_SPEC_DIR)/schema/2026-07-28/schema.json
EXT_TASKS = $(MCP_SPEC_DIR)/ext-tasks/schema/draft/schema.json

.PHONY: all generate check-generated test otel bench call-table call-load fuzz diff diff-legacy lint conformance browser

all: check-generated test

## generate: regenerate every generated package from its pinned schema:
## protocol/ (2026-07-28) and protocol/mcp20251125/ (2025-11-25), the tasks
## extension's ext/tasks/taskproto/ (the ext-tasks pin, its copies of core
## definitions mapped onto protocol/), the MCP Apps extension's
## ext/apps/appsproto/ (the ext-apps npm package pin), and the legacy projection tables
## server/internal/legacy/tables_gen.go (all five pins)
generate:
	$(GO) generate ./...

## check-generated: fail if protocol/, protocol/mcp20251125/,
## ext/tasks/taskproto/, ext/apps/appsproto/ or the legacy projection tables are stale
check-generated:
	$(GO) run ./gen -check

## test: vet and run every test with the race detector
test:
	$(GO) vet ./...
	$(GO) test -race -count=1 ./...

## otel: the OpenTelemetry module (otel/, its own go.mod, so that the
## library's does not depend on OpenTelemetry): go.mod tidy, vet,
## staticcheck, and its tests with the race detector
otel:
	cd otel && $(GO) mod tidy -diff && $(GO) vet ./... && staticcheck ./... && $(GO) test -race -count=1 ./...

## bench: the codec benchmarks (table in docs/performance.md)
bench:
	$(GO) test -run '^$$' -bench . -benchmem -count 5 ./protocol/

## call-table: one tools/call of a typed echo tool per row (bare handler,
## mcpwire 2026-07-28, mcpwire in a 2025-11-25 session, mcp-go, the Go SDK),
## a fresh request and recorder per call: ns/op, B/op, allocs/op and the
## time over bare from interleaved rounds (bench/cmd/calltable), then the
## instructions per call under callgrind when valgrind is installed
## (bench/callbench/callgrind.sh); table in docs/performance.md
ROUNDS    ?= 7
BENCHTIME ?= 300ms
call-table:
	cd bench && $(GO) run ./cmd/calltable -rounds $(ROUNDS) -benchtime $(BENCHTIME)
	bench/callbench/callgrind.sh

## call-load: the same call over loopback, each server in its own process
## (bench/cmd/callserve) under wrk, 64 connections, rows bare, mcpwire,
## mcp-go and the Go SDK in interleaved rounds: req/s, the ratio to bare,
## errors (bench/callbench/wrk.sh; needs wrk)
call-load:
	bench/callbench/wrk.sh -rounds $(ROUNDS)

## fuzz: run every fuzz target for FUZZTIME each (Go fuzzes one target per
## run); seeds are in testdata/fuzz/<target>/, crashers land in the
## package's testdata/fuzz/FuzzX/. tools/fuzz/run.sh retries once a target
## that hit Go 1.26's fuzz-coordinator deadline race (golang/go#75804)
## without writing a failing input.
FUZZ_TARGETS = \
	./protocol/:FuzzDecodeJSONRPCMessage \
	./protocol/:FuzzDecodeUnion \
	./protocol/mcp20251125/:FuzzDecodeLegacy \
	./server/streamhttp/:FuzzHTTPBody \
	./server/streamhttp/:FuzzHTTPHandler \
	./server/stdio/:FuzzStdio \
	./server/:FuzzRequestState \
	./server/:FuzzDecodeSentinel \
	./server/internal/validate/:FuzzFlatRaw \
	./server/legacy/:FuzzHTTPDual \
	./server/legacy/:FuzzStdioDual \
	./server/legacy/:FuzzLastEventID \
	./server/legacy/:FuzzResumeGET \
	./server/:FuzzParseValue \
	./server/internal/validate/:FuzzParseValue \
	./server/internal/validate/:FuzzValueChecks \
	./server/internal/sealed/:FuzzOpen \
	./server/internal/legacy/:FuzzLegacyProject \
	./auth/:FuzzJWTVerify \
	./auth/:FuzzChallenge
# the otel module's targets (its own go.mod: fuzzed from otel/)
OTEL_FUZZ_TARGETS = \
	.:FuzzTraceparentFastPath

fuzz:
	bash tools/fuzz/run.sh $(GO) $(FUZZTIME) $(FUZZ_TARGETS)
	cd otel && bash ../tools/fuzz/run.sh $(GO) $(FUZZTIME) $(OTEL_FUZZ_TARGETS)

## diff: API-level difference between two schema files (OLD=… NEW=…; by
## default the 2025-11-25 and 2026-07-28 files under MCP_SPEC_DIR). Extension
## schemas too: make diff OLD=$(EXT_TASKS) NEW=path/to/newer/ext-tasks/schema.json
## (or go run ./tools/schemadiff -pinned ext-tasks … for the pinned one)
diff:
	$(GO) run ./tools/schemadiff $(OLD) $(NEW)

## diff-legacy: API-level difference between the two pinned revisions,
## 2025-11-25 (protocol/mcp20251125) → 2026-07-28 (protocol), loaded and
## verified by sha256 as the generator loads them
diff-legacy:
	$(GO) run ./tools/schemadiff -pinned 2025-11-25 2026-07-28

## lint: gofmt and staticcheck
lint:
	@test -z "$$(gofmt -l $$(git ls-files '*.go'))" || { gofmt -l $$(git ls-files '*.go'); exit 1; }
	staticcheck ./...

## conformance: run the MCP conformance suite (npm + Node 22) against one ./examples/everything
## (-eras both), twice on its URL: --requirements 2026-07-28 into conformance-results/2026-07-28
## and --requirements 2025-11-25 (legacy initialize sessions) into conformance-results/2025-11-25;
## each scored from its checks.json files; every scenario counts, scored or not (-all), and the
## report ends with both scores
conformance:
	$(GO) run ./tools/conformance run -all -out conformance-results

## browser: the MCP Apps browser test (examples/apps/browser_test.go, build
## tag browser): headless Chromium (Debian's chromium; CHROMIUM=path for
## another) driven by puppeteer-core renders the example's view through a
## host page of ours on the ext-apps AppBridge (npm ci from
## examples/apps/browser/package-lock.json, Node 22 through npx); the
## screenshot goes to BROWSER_SHOTS (default artifacts/browser); and the
## TypeScript SDK 2.x client (2025-11-25 sessions) against the example over
## HTTP and stdio (TestTSClient)
BROWSER_SHOTS ?= $(CURDIR)/artifacts/browser
browser:
	$(GO) vet -tags browser ./examples/apps/
	staticcheck -tags browser ./examples/apps/
	BROWSER_SHOTS=$(BROWSER_SHOTS) $(GO) test -tags browser -count=1 -run 'TestBrowser|TestTSClient' -v ./examples/apps/
