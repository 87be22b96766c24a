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
)

// TestServerInfoTrim: result _meta serverInfo carries only name+version,
// server/discover the full Implementation; an error response carries none.
func TestServerInfoTrim(t *testing.T) {
	title, desc := "TITLE-X", "DESC-"+strings.Repeat("d", 5000)
	s, _ := server.New(protocol.Implementation{Name: "x", Version: "1", Title: &title, Description: &desc})
	_ = s.AddTool(protocol.Tool{Name: "t", InputSchema: server.MustInputSchema(`{"type":"object"}`)},
		func(ctx context.Context, r *server.Request, _ json.RawMessage) (*protocol.CallToolResult, error) {
			return server.TextResult("ok"), nil
		})
	hs := httptest.NewServer(s.Handler(server.HTTPOptions{}))
	defer hs.Close()
	for _, c := range []struct{ method, name, params string }{
		{"tools/call", "t", `"name":"t","arguments":{},`},
		{"tools/list", "", ``},
		{"server/discover", "", ``},
		{"tools/call", "nope", `"name":"nope","arguments":{},`},
	} {
		_, _, b := post(t, hs.URL, `{"jsonrpc":"2.0","id":1,"method":"`+c.method+`","params":{`+c.params+meta+`}}}`, modernHdr(c.method, c.name))
		t.Logf("%s %s: title=%v desc=%v len=%d %.160s", c.method, c.name, strings.Contains(b, "TITLE-X"), strings.Contains(b, "DESC-"), len(b), b)
		if c.method != "server/discover" && strings.Contains(b, "DESC-") {
			t.Errorf("%s carries the full serverInfo", c.method)
		}
	}
}
