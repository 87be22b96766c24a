//go:build attack

package lib

import (
	"context"
	"encoding/json"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/mcpwire/mcpwire/protocol"
	"github.com/mcpwire/mcpwire/server"
	"github.com/mcpwire/mcpwire/servertest"
)

// TestServertestHeaderParams: a tool with an x-mcp-header argument, called
// through servertest and through a real HTTP client that sends the same
// headers servertest sends: both should agree.
func TestServertestHeaderParams(t *testing.T) {
	s, _ := server.New(protocol.Implementation{Name: "x", Version: "1"})
	sch := server.MustInputSchema(`{"type":"object","properties":{"region":{"type":"string","x-mcp-header":"Region"}}}`)
	if err := s.AddTool(protocol.Tool{Name: "t", InputSchema: sch}, func(context.Context, *server.Request, json.RawMessage) (*protocol.CallToolResult, error) {
		return server.TextResult("handler ran"), nil
	}); err != nil {
		t.Fatal(err)
	}
	c := servertest.New(s)
	res, err := c.CallTool(context.Background(), "t", map[string]any{"region": "eu"})
	t.Logf("servertest: res=%+v err=%v", res, err)
	hs := httptest.NewServer(s.Handler(server.HTTPOptions{}))
	defer hs.Close()
	st, _, b := post(t, hs.URL, `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"t","arguments":{"region":"eu"},`+meta+`}}}`, modernHdr("tools/call", "t"))
	t.Logf("real HTTP without Mcp-Param-Region: %d %s", st, strings.TrimSpace(b))
	if (err == nil) != (st == 200 && strings.Contains(b, "handler ran")) {
		t.Errorf("servertest and the real HTTP path disagree")
	}
}
