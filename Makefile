# mcpwire developer targets. MCP_SPEC_DIR points at a folder laid out like
# the upstream specification repository (schema/<revision>/schema.json and
# the examples); it defaults to ../shared/mcp-spec when that exists.
MCP_SPEC_DIR ?= $(abspath $(wildcard ../shared/mcp-spec))
export MCP_SPEC_DIR

GO       ?= go
FUZZTIME ?= 30s
OLD      ?= $(MCP_SPEC_DIR)/schema/2025-11-25/schema.json
NEW      ?= $(MCP_SPEC_DIR)/schema/2026-07-28/schema.json

.PHONY: all generate check-generated test bench fuzz diff diff-legacy lint conformance

all: check-generated test

## generate: regenerate every generated package from its pinned schema:
## protocol/ (2026-07-28) and protocol/mcp20251125/ (2025-11-25), and the
## legacy projection tables server/internal/legacy/tables_gen.go (all five pins)
generate:
	$(GO) generate ./...

## check-generated: fail if protocol/, protocol/mcp20251125/ or the legacy
## projection tables are stale
check-generated:
	$(GO) run ./gen -check

## test: vet and run every test with the race detector
test:
	$(GO) vet ./...
	$(GO) test -race -count=1 ./...

## bench: the codec benchmarks (table in docs/performance.md)
bench:
	$(GO) test -run '^$$' -bench . -benchmem -count 5 ./protocol/

## fuzz: run every fuzz target for FUZZTIME each (Go fuzzes one target per
## run); seeds are in testdata/fuzz/<target>/, crashers land in the
## package's testdata/fuzz/FuzzX/
fuzz:
	$(GO) test -run '^$$' -fuzz '^FuzzDecodeJSONRPCMessage$$' -fuzztime $(FUZZTIME) ./protocol/
	$(GO) test -run '^$$' -fuzz '^FuzzDecodeUnion$$' -fuzztime $(FUZZTIME) ./protocol/
	$(GO) test -run '^$$' -fuzz '^FuzzDecodeLegacy$$' -fuzztime $(FUZZTIME) ./protocol/mcp20251125/
	$(GO) test -run '^$$' -fuzz '^FuzzHTTPBody$$' -fuzztime $(FUZZTIME) ./server/
	$(GO) test -run '^$$' -fuzz '^FuzzHTTPHandler$$' -fuzztime $(FUZZTIME) ./server/
	$(GO) test -run '^$$' -fuzz '^FuzzStdio$$' -fuzztime $(FUZZTIME) ./server/
	$(GO) test -run '^$$' -fuzz '^FuzzRequestState$$' -fuzztime $(FUZZTIME) ./server/
	$(GO) test -run '^$$' -fuzz '^FuzzDecodeSentinel$$' -fuzztime $(FUZZTIME) ./server/
	$(GO) test -run '^$$' -fuzz '^FuzzFlatRaw$$' -fuzztime $(FUZZTIME) ./server/
	$(GO) test -run '^$$' -fuzz '^FuzzHTTPDual$$' -fuzztime $(FUZZTIME) ./server/
	$(GO) test -run '^$$' -fuzz '^FuzzStdioDual$$' -fuzztime $(FUZZTIME) ./server/
	$(GO) test -run '^$$' -fuzz '^FuzzLastEventID$$' -fuzztime $(FUZZTIME) ./server/
	$(GO) test -run '^$$' -fuzz '^FuzzResumeGET$$' -fuzztime $(FUZZTIME) ./server/
	$(GO) test -run '^$$' -fuzz '^FuzzParseValue$$' -fuzztime $(FUZZTIME) ./server/
	$(GO) test -run '^$$' -fuzz '^FuzzValueChecks$$' -fuzztime $(FUZZTIME) ./server/
	$(GO) test -run '^$$' -fuzz '^FuzzOpen$$' -fuzztime $(FUZZTIME) ./server/internal/sealed/
	$(GO) test -run '^$$' -fuzz '^FuzzLegacyProject$$' -fuzztime $(FUZZTIME) ./server/internal/legacy/

## diff: API-level difference between two schema files (OLD=… NEW=…; by
## default the 2025-11-25 and 2026-07-28 files under MCP_SPEC_DIR)
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
