//go:build attack

package lib

import (
	"context"
	"encoding/json"
	"log/slog"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/mcpwire/mcpwire/protocol"
	"github.com/mcpwire/mcpwire/server"
)

// TestLogRequestsPanic: a request whose handler panics gets -32603; does
// LogRequests still write its one line?
func TestLogRequestsPanic(t *testing.T) {
	var lb syncBuf
	s, _ := server.New(protocol.Implementation{Name: "x", Version: "1"},
		server.WithLogger(slog.New(slog.NewTextHandler(&syncBuf{}, nil))),
		server.WithMiddleware(server.LogRequests(slog.New(slog.NewTextHandler(&lb, nil)), server.RequestLogOptions{})))
	_ = s.AddTool(protocol.Tool{Name: "boom", InputSchema: server.MustInputSchema(`{"type":"object"}`)},
		func(context.Context, *server.Request, json.RawMessage) (*protocol.CallToolResult, error) {
			panic("boom")
		})
	hs := httptest.NewServer(s.Handler(server.HTTPOptions{}))
	defer hs.Close()
	_, _, b := post(t, hs.URL, `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"boom","arguments":{},`+meta+`}}}`, modernHdr("tools/call", "boom"))
	t.Logf("client: %s", strings.TrimSpace(b))
	t.Logf("request log: %q", lb.String())
	if !strings.Contains(lb.String(), "mcp request") {
		t.Errorf("a panicking request leaves no LogRequests line")
	}
}
