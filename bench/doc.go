// Package bench holds benchmarks that compare mcpwire with other libraries.
// It is its own module so that the libraries it compares against stay out
// of mcpwire's go.mod. Run from this folder:
//
//	MCP_SPEC_DIR=../../shared/mcp-spec go test -run '^$' -bench . -benchmem
package bench
