package legacy_test

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/mcpwire/mcpwire/protocol"
	"github.com/mcpwire/mcpwire/server"
	"github.com/mcpwire/mcpwire/server/streamhttp"
)

// TestSessionStructuredContentValid: in a 2025-11-25 session too, a
// tool's structuredContent is written without the encoder's validation
// only under server.StructuredContentValid (bytes the validation refuses,
// a duplicate member, show it); without it the same result is refused
// as a server bug (-32603).
func TestSessionStructuredContentValid(t *testing.T) {
	dup := `{"n":1,"n":2}`
	for _, c := range []struct {
		name    string
		opts    []server.ToolOption
		written bool
	}{
		{"without the option, validated", nil, false},
		{"with it, written as it is", []server.ToolOption{server.StructuredContentValid()}, true},
	} {
		t.Run(c.name, func(t *testing.T) {
			s, err := server.New(protocol.Implementation{Name: "t", Version: "1"}, server.WithLogger(slog.New(slog.NewTextHandler(io.Discard, nil))))
			if err != nil {
				t.Fatal(err)
			}
			var def protocol.Tool
			if err := json.Unmarshal([]byte(`{"name":"t","inputSchema":{"type":"object"}}`), &def); err != nil {
				t.Fatal(err)
			}
			if err := s.AddTool(def, func(context.Context, *server.Request, json.RawMessage) (*protocol.CallToolResult, error) {
				return &protocol.CallToolResult{Content: []protocol.ContentBlock{server.Text("x")}, StructuredContent: json.RawMessage(dup)}, nil
			}, c.opts...); err != nil {
				t.Fatal(err)
			}
			h := streamhttp.Handler(s, streamhttp.Options{})
			post := func(body, sid string) *httptest.ResponseRecorder {
				req := httptest.NewRequest(http.MethodPost, "http://localhost/mcp", strings.NewReader(body))
				req.Header.Set("Content-Type", "application/json")
				req.Header.Set("Accept", "application/json, text/event-stream")
				if sid != "" {
					req.Header.Set("Mcp-Session-Id", sid)
					req.Header.Set("MCP-Protocol-Version", "2025-11-25")
				}
				rec := httptest.NewRecorder()
				h.ServeHTTP(rec, req)
				return rec
			}
			rec := post(`{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"c","version":"1"}}}`, "")
			sid := rec.Header().Get("Mcp-Session-Id")
			if sid == "" {
				t.Fatalf("no session: %s", rec.Body.String())
			}
			post(`{"jsonrpc":"2.0","method":"notifications/initialized"}`, sid)
			body := post(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"t","arguments":{}}}`, sid).Body.Bytes()
			written := bytes.Contains(body, []byte(`"structuredContent":`+dup))
			refused := bytes.Contains(body, []byte(`"code":-32603`))
			if written != c.written || refused == c.written {
				t.Errorf("written %v, refused %v; want written %v: %s", written, refused, c.written, body)
			}
		})
	}
}
