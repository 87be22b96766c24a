package server_test

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/mcpwire/mcpwire/protocol"
	"github.com/mcpwire/mcpwire/server"
	"github.com/mcpwire/mcpwire/server/internal/testkit"
	"github.com/mcpwire/mcpwire/server/streamhttp"
)

// TestReturnedResultMeta: a handler that returns the same result on
// every call, and adds a member to its _meta when it has one, never holds
// the server's shared _meta (serverInfo, encoded once at New): its
// member is not dropped for the pre-encoded bytes, nor put into every
// other tool's results.
func TestReturnedResultMeta(t *testing.T) {
	s, err := server.New(protocol.Implementation{Name: "t", Version: "1"})
	if err != nil {
		t.Fatal(err)
	}
	res := &protocol.CallToolResult{Content: []protocol.ContentBlock{}}
	schema := server.MustInputSchema(`{"type":"object"}`)
	if err := s.AddTool(protocol.Tool{Name: "again", InputSchema: schema}, func(context.Context, *server.Request, json.RawMessage) (*protocol.CallToolResult, error) {
		if res.Meta != nil {
			res.Meta.Extra = protocol.Members{{Name: "x", Value: json.RawMessage(`1`)}}
		}
		return res, nil
	}); err != nil {
		t.Fatal(err)
	}
	if err := s.AddTool(protocol.Tool{Name: "other", InputSchema: schema}, func(context.Context, *server.Request, json.RawMessage) (*protocol.CallToolResult, error) {
		return &protocol.CallToolResult{Content: []protocol.ContentBlock{}}, nil
	}); err != nil {
		t.Fatal(err)
	}
	h := testkit.Handler(s, streamhttp.Options{})
	for _, name := range []string{"again", "again", "other"} {
		body := testkit.Post(t, h, testkit.Rpc(1, protocol.MethodToolsCall, testkit.Params(testkit.M{"name": name})), nil).Body.String()
		if !strings.Contains(body, `"_meta":{"io.modelcontextprotocol/serverInfo":{"name":"t","version":"1"}}`) {
			t.Errorf("%s: the answer %s, want the serverInfo _meta alone", name, body)
		}
	}
	if res.Meta != nil {
		t.Errorf("the returned result holds the _meta %+v after the call", res.Meta)
	}
}
