// Package callcost measures what one tools/call costs through the
// Streamable HTTP handler, a 2026-07-28 call and a 2025-11-25 call in a
// legacy session, in a form that builds against mcpwire before and after
// the split of package server (issue 21): measure.sh counts its
// instructions under callgrind at any commit.
package callcost

import (
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
)

const (
	echoTool   = `{"name":"echo","inputSchema":{"type":"object","properties":{"text":{"type":"string"}},"required":["text"]}}`
	modernBody = `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"echo","arguments":{"text":"hi"},"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}}`
	initBody   = `{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"b","version":"1"}}}`
	initedBody = `{"jsonrpc":"2.0","method":"notifications/initialized"}`
	legacyBody = `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"echo","arguments":{"text":"hi"}}}`
)

func newEchoServer(b *testing.B) *server.Server {
	b.Helper()
	s, err := server.New(protocol.Implementation{Name: "callcost", Version: "1.0.0"},
		server.WithLogger(slog.New(slog.NewTextHandler(io.Discard, nil))))
	if err != nil {
		b.Fatal(err)
	}
	var def protocol.Tool
	if err := protocol.Unmarshal([]byte(echoTool), &def); err != nil {
		b.Fatal(err)
	}
	err = s.AddTool(def, func(_ context.Context, _ *server.Request, args json.RawMessage) (*protocol.CallToolResult, error) {
		var a struct {
			Text string `json:"text"`
		}
		if err := json.Unmarshal(args, &a); err != nil {
			return nil, err
		}
		return server.TextResult(a.Text), nil
	})
	if err != nil {
		b.Fatal(err)
	}
	return s
}

func newReq(body string, hdr ...string) *http.Request {
	r := httptest.NewRequest(http.MethodPost, "/mcp", strings.NewReader(body))
	r.Host = "localhost:8080"
	r.Header.Set("Content-Type", "application/json")
	r.Header.Set("Accept", "application/json, text/event-stream")
	for i := 0; i+1 < len(hdr); i += 2 {
		r.Header.Set(hdr[i], hdr[i+1])
	}
	return r
}

// BenchmarkCall is one tools/call of an echo tool through the HTTP
// handler, with a fresh recorder and request each time: modern, and in a
// 2025-11-25 session opened before the timer starts (reusing id 1 is
// allowed: each call ends before the next).
func BenchmarkCall(b *testing.B) {
	b.Run("modern", func(b *testing.B) {
		h := newHandler(newEchoServer(b))
		hdr := []string{"MCP-Protocol-Version", "2026-07-28", "Mcp-Method", "tools/call", "Mcp-Name", "echo"}
		w := httptest.NewRecorder()
		h.ServeHTTP(w, newReq(modernBody, hdr...))
		if w.Code != 200 || !strings.Contains(w.Body.String(), "hi") {
			b.Fatalf("first call: %d %s", w.Code, w.Body.Bytes())
		}
		b.ReportAllocs()
		b.ResetTimer()
		for b.Loop() {
			h.ServeHTTP(httptest.NewRecorder(), newReq(modernBody, hdr...))
		}
	})
	b.Run("legacy", func(b *testing.B) {
		h := newHandler(newEchoServer(b))
		w := httptest.NewRecorder()
		h.ServeHTTP(w, newReq(initBody))
		sid := w.Header().Get("Mcp-Session-Id")
		if w.Code != 200 || sid == "" {
			b.Fatalf("initialize: %d sid=%q %s", w.Code, sid, w.Body.Bytes())
		}
		w = httptest.NewRecorder()
		h.ServeHTTP(w, newReq(initedBody, "Mcp-Session-Id", sid))
		if w.Code != 202 {
			b.Fatalf("notifications/initialized: %d %s", w.Code, w.Body.Bytes())
		}
		hdr := []string{"Mcp-Session-Id", sid, "MCP-Protocol-Version", "2025-11-25"}
		w = httptest.NewRecorder()
		h.ServeHTTP(w, newReq(legacyBody, hdr...))
		if w.Code != 200 || !strings.Contains(w.Body.String(), `"hi"`) {
			b.Fatalf("first call: %d %s", w.Code, w.Body.Bytes())
		}
		w = httptest.NewRecorder()
		h.ServeHTTP(w, newReq(legacyBody, hdr...))
		if w.Code != 200 || !strings.Contains(w.Body.String(), `"hi"`) {
			b.Fatalf("second call, reused id: %d %s", w.Code, w.Body.Bytes())
		}
		b.ReportAllocs()
		b.ResetTimer()
		for b.Loop() {
			h.ServeHTTP(httptest.NewRecorder(), newReq(legacyBody, hdr...))
		}
	})
}
