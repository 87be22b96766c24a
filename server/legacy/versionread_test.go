package legacy_test

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/mcpwire/mcpwire/protocol"
	"github.com/mcpwire/mcpwire/server"
	"github.com/mcpwire/mcpwire/server/legacy"
	"github.com/mcpwire/mcpwire/server/streamhttp"
)

// TestModernVersionReadOnce: the dual era hands the MCP-Protocol-Version
// it read to the modern checks (Exchange.ProtocolVersion), which then do
// not read it again; every answer is the one of a modern-only endpoint,
// which reads it itself, for every form of the header: absent, this
// revision, padded, a legacy revision, another, empty, repeated, with an
// invalid character.
func TestModernVersionReadOnce(t *testing.T) {
	newHandler := func(eras legacy.Eras) http.Handler {
		s, err := server.New(protocol.Implementation{Name: "t", Version: "1"})
		if err != nil {
			t.Fatal(err)
		}
		var def protocol.Tool
		if err := json.Unmarshal([]byte(`{"name":"echo","inputSchema":{"type":"object"}}`), &def); err != nil {
			t.Fatal(err)
		}
		if err := s.AddTool(def, func(context.Context, *server.Request, json.RawMessage) (*protocol.CallToolResult, error) {
			return server.TextResult("ok"), nil
		}); err != nil {
			t.Fatal(err)
		}
		era, err := legacy.New(s, legacy.Config{Eras: eras})
		if err != nil {
			t.Fatal(err)
		}
		return streamhttp.Handler(s, streamhttp.Options{Legacy: era})
	}
	dual, modern := newHandler(legacy.ErasBoth), newHandler(legacy.ErasModern)
	body := `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28",` +
		`"io.modelcontextprotocol/clientCapabilities":{}},"name":"echo","arguments":{}}}`
	for _, versions := range [][]string{nil, {"2026-07-28"}, {" 2026-07-28\t"}, {"2025-11-25"}, {"2026-07-29"}, {""}, {"2026-07-28", "2026-07-28"}, {"2026-07-28\x01"}} {
		serve := func(h http.Handler) *httptest.ResponseRecorder {
			req := httptest.NewRequest(http.MethodPost, "http://localhost/mcp", strings.NewReader(body))
			req.Header.Set("Content-Type", "application/json")
			req.Header.Set("Accept", "application/json, text/event-stream")
			req.Header.Set("Mcp-Method", "tools/call")
			req.Header.Set("Mcp-Name", "echo")
			if versions != nil {
				req.Header["Mcp-Protocol-Version"] = versions
			}
			rec := httptest.NewRecorder()
			h.ServeHTTP(rec, req)
			return rec
		}
		d, m := serve(dual), serve(modern)
		if d.Code != m.Code || d.Body.String() != m.Body.String() {
			t.Errorf("MCP-Protocol-Version %q: dual era %d %s, modern only %d %s", versions, d.Code, d.Body, m.Code, m.Body)
		}
	}
}
