// Package bench holds benchmarks that compare mcpwire with other libraries.
// It is its own module so that the libraries it compares against stay out
// of mcpwire's go.mod. Run from this folder:
//
//	MCP_SPEC_DIR=../../shared/mcp-spec go test -run '^$' -bench . -benchmem
//
// callbench is the per-call harness against a bare handler (make
// call-table, make call-load; docs/performance.md, issue 24).
package bench
