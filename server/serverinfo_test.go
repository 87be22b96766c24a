package server_test

import (
	"context"
	"encoding/json"
	"testing"

	. "github.com/mcpwire/mcpwire/server/internal/testkit"
	"github.com/mcpwire/mcpwire/server/streamhttp"

	"github.com/mcpwire/mcpwire/protocol"
	"github.com/mcpwire/mcpwire/server"
)

// richImpl is an Implementation with every optional member set.
func richImpl() protocol.Implementation {
	return protocol.Implementation{
		Name: "rich", Version: "2.0.0", Title: server.Ptr("Rich"), Description: server.Ptr("A server with icons."),
		WebsiteURL: server.Ptr("https://example.com"),
		Icons:      []protocol.Icon{{Src: "https://example.com/icon.png", MIMEType: server.Ptr("image/png")}},
	}
}

// TestResultServerInfoTrimmed checks that a result's serverInfo carries
// the name and version only (the members R-META-04 requires), while
// server/discover carries the whole Implementation (R-DISC-03), and that
// WithFullServerInfo puts the whole of it on every result.
func TestResultServerInfoTrimmed(t *testing.T) {
	for _, full := range []bool{false, true} {
		opts := []server.Option{server.WithLogger(Discard())}
		if full {
			opts = append(opts, server.WithFullServerInfo())
		}
		s, err := server.New(richImpl(), opts...)
		if err != nil {
			t.Fatal(err)
		}
		AddTool(t, s, `{"name":"echo","inputSchema":{"type":"object"}}`,
			func(context.Context, *server.Request, json.RawMessage) (*protocol.CallToolResult, error) {
				return server.TextResult("ok"), nil
			})
		h := Handler(s, streamhttp.Options{})
		for _, c := range []struct {
			method string
			params M
			whole  bool
		}{
			{protocol.MethodServerDiscover, Params(nil), true},
			{protocol.MethodToolsList, Params(nil), full},
			{protocol.MethodToolsCall, Params(M{"name": "echo"}), full},
		} {
			w := Call(t, h, 1, c.method, c.params)
			m, _ := w.Result["_meta"].(M)
			info, _ := m[KeyInfo].(M)
			if info["name"] != "rich" || info["version"] != "2.0.0" {
				t.Fatalf("full=%v %s: R-META-04: serverInfo %v", full, c.method, info)
			}
			_, icons := info["icons"]
			_, title := info["title"]
			if icons != c.whole || title != c.whole {
				t.Errorf("full=%v %s: serverInfo %v: want the whole Implementation %v", full, c.method, info, c.whole)
			}
		}
	}
}
