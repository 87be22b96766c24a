//go:build attack

package lib

import (
	"context"
	"encoding/json"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/mcpwire/mcpwire/protocol"
	"github.com/mcpwire/mcpwire/server"
)

type tenantKey struct{}

// TestTaskLosesMiddlewareContext: WithMiddleware says a middleware may
// "add to the context it passes to next"; a tool run as a task
// (AsTask) should see that value too.
func TestTaskLosesMiddlewareContext(t *testing.T) {
	got := make(chan any, 2)
	s, _ := server.New(protocol.Implementation{Name: "x", Version: "1"},
		server.WithMiddleware(func(next server.Handler) server.Handler {
			return func(ctx context.Context, r *server.Request) (server.Result, error) {
				return next(context.WithValue(ctx, tenantKey{}, "tenant-42"), r)
			}
		}))
	h := func(ctx context.Context, r *server.Request, _ json.RawMessage) (*protocol.CallToolResult, error) {
		got <- ctx.Value(tenantKey{})
		return server.TextResult("ok"), nil
	}
	_ = s.AddTool(protocol.Tool{Name: "sync", InputSchema: server.MustInputSchema(`{"type":"object"}`)}, h)
	if err := s.AddTool(protocol.Tool{Name: "task", InputSchema: server.MustInputSchema(`{"type":"object"}`)}, h, server.AsTask(server.TaskOptions{Support: server.TaskOptional})); err != nil {
		t.Fatal(err)
	}
	hs := httptest.NewServer(s.Handler(server.HTTPOptions{}))
	defer hs.Close()
	m := strings.Replace(meta, `"io.modelcontextprotocol/clientCapabilities":{}`, `"io.modelcontextprotocol/clientCapabilities":{"extensions":{"io.modelcontextprotocol/tasks":{}}}`, 1)
	for _, name := range []string{"sync", "task"} {
		_, _, b := post(t, hs.URL, `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"`+name+`","arguments":{},"task":{"ttl":60000},`+m+`}}}`, modernHdr("tools/call", name))
		t.Logf("%s: %.250s", name, b)
		select {
		case v := <-got:
			t.Logf("%s: handler saw tenant=%v", name, v)
			if v != "tenant-42" {
				t.Errorf("%s: handler lost the middleware's context value", name)
			}
		case <-time.After(3 * time.Second):
			t.Errorf("%s: handler never ran", name)
		}
	}
}
