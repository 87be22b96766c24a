package legacy_test

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"

	"github.com/mcpwire/mcpwire/protocol"
	"github.com/mcpwire/mcpwire/server"
	"github.com/mcpwire/mcpwire/server/legacy"
	"github.com/mcpwire/mcpwire/server/streamhttp"
)

// A dual-era endpoint serves 2026-07-28 requests as before, and legacy
// clients in sessions opened with initialize, on the same URL, with the
// same handler.
func ExampleNew() {
	s, _ := server.New(protocol.Implementation{Name: "demo", Version: "1.0.0"})
	era, _ := legacy.New(s, legacy.Config{Eras: legacy.ErasBoth})
	var def protocol.Tool
	_ = protocol.Unmarshal([]byte(`{"name":"greet","inputSchema":{"type":"object"}}`), &def)
	_ = s.AddTool(def, func(_ context.Context, req *server.Request, _ json.RawMessage) (*protocol.CallToolResult, error) {
		return server.TextResult("hello, client of " + req.ProtocolVersion()), nil
	})
	h := streamhttp.Handler(s, streamhttp.Options{Legacy: era})
	send := func(body string, header ...string) *httptest.ResponseRecorder {
		r := httptest.NewRequest(http.MethodPost, "/mcp", strings.NewReader(body))
		r.Host = "localhost"
		r.Header.Set("Content-Type", "application/json")
		for i := 0; i+1 < len(header); i += 2 {
			r.Header.Set(header[i], header[i+1])
		}
		w := httptest.NewRecorder()
		h.ServeHTTP(w, r)
		return w
	}
	text := func(w *httptest.ResponseRecorder) string {
		var resp struct {
			Result struct {
				Content []struct{ Text string } `json:"content"`
			} `json:"result"`
		}
		_ = json.Unmarshal(w.Body.Bytes(), &resp)
		return resp.Result.Content[0].Text
	}

	// A 2026-07-28 request: its own _meta and headers, no session.
	w := send(request(1, "tools/call", map[string]any{"name": "greet"}, nil),
		"MCP-Protocol-Version", protocol.Revision, "Mcp-Method", "tools/call", "Mcp-Name", "greet")
	fmt.Println(w.Code, text(w))

	// A 2025-06-18 client: initialize mints a session id, then every
	// request of the session carries it.
	w = send(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"old","version":"1"}}}`)
	sid := w.Header().Get("Mcp-Session-Id")
	fmt.Println(w.Code, len(sid))
	send(`{"jsonrpc":"2.0","method":"notifications/initialized"}`, "Mcp-Session-Id", sid)
	w = send(`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"greet"}}`,
		"Mcp-Session-Id", sid, "MCP-Protocol-Version", "2025-06-18")
	fmt.Println(w.Code, text(w), strings.Contains(w.Body.String(), "resultType"))
	// Output:
	// 200 hello, client of 2026-07-28
	// 200 43
	// 200 hello, client of 2025-06-18 false
}
