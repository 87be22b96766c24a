package bench

import (
	stdjson "encoding/json"
	"os"
	"path/filepath"
	"testing"

	jsonv2 "github.com/go-json-experiment/json"
	goccy "github.com/goccy/go-json"

	"github.com/mcpwire/mcpwire/protocol"
)

// The codec choice (docs/performance.md): the same CallToolRequest bytes
// decoded by mcpwire's generated strict decoder, and by three general
// libraries into a plain struct with the same fields. Only mcpwire and
// go-json-experiment refuse duplicate and case-variant member names.

type plainMeta struct {
	ClientCapabilities stdjson.RawMessage `json:"io.modelcontextprotocol/clientCapabilities"`
	ClientInfo         *struct {
		Name    string `json:"name"`
		Version string `json:"version"`
	} `json:"io.modelcontextprotocol/clientInfo,omitempty"`
	LogLevel        *string `json:"io.modelcontextprotocol/logLevel,omitempty"`
	ProtocolVersion string  `json:"io.modelcontextprotocol/protocolVersion"`
	ProgressToken   any     `json:"progressToken,omitempty"`
}

type plainCallToolRequest struct {
	ID      any    `json:"id"`
	JSONRPC string `json:"jsonrpc"`
	Method  string `json:"method"`
	Params  struct {
		Meta         plainMeta          `json:"_meta"`
		Arguments    stdjson.RawMessage `json:"arguments,omitempty"`
		Name         string             `json:"name"`
		RequestState *string            `json:"requestState,omitempty"`
	} `json:"params"`
}

func example(b *testing.B) []byte {
	dir := os.Getenv("MCP_SPEC_DIR")
	if dir == "" {
		b.Skip("set MCP_SPEC_DIR (e.g. ../../shared/mcp-spec)")
	}
	data, err := os.ReadFile(filepath.Join(dir, "schema", "2026-07-28", "examples", "CallToolRequest", "call-tool-request.json"))
	if err != nil {
		b.Fatal(err)
	}
	return data
}

func BenchmarkCodecDecodeCallToolRequest(b *testing.B) {
	data := example(b)
	run := func(name string, f func() error) {
		b.Run(name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if err := f(); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
	run("mcpwire-strict", func() error { var v protocol.CallToolRequest; return protocol.Unmarshal(data, &v) })
	run("goccy-plain", func() error { var v plainCallToolRequest; return goccy.Unmarshal(data, &v) })
	run("jsonv2-plain-strict", func() error { var v plainCallToolRequest; return jsonv2.Unmarshal(data, &v) })
	run("encoding-json-plain", func() error { var v plainCallToolRequest; return stdjson.Unmarshal(data, &v) })
}
