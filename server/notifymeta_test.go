package server_test

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/mcpwire/mcpwire/server/typed"

	"github.com/mcpwire/mcpwire/protocol"
	"github.com/mcpwire/mcpwire/server"
	"github.com/mcpwire/mcpwire/servertest"
)

type traceKey struct{}

// TestNotificationMeta checks WithNotificationMeta: the members it sets
// from the handler's context are in the _meta of the request's progress
// and log notifications (SEP-414 trace context), keys of a prefix MCP
// reserves (R-META-06) are dropped, and the progress token stays.
func TestNotificationMeta(t *testing.T) {
	s, err := server.New(protocol.Implementation{Name: "t", Version: "1"},
		server.WithNotificationMeta(func(ctx context.Context, set func(key, value string)) {
			if tp, ok := ctx.Value(traceKey{}).(string); ok {
				set("traceparent", tp)
				set("io.modelcontextprotocol/logLevel", "evil")
				set("dev.mcp/x", "evil")
				set("com.example/ok", "kept")
			}
		}),
		server.WithMiddleware(func(next server.Handler) server.Handler {
			return func(ctx context.Context, r *server.Request) (server.Result, error) {
				return next(context.WithValue(ctx, traceKey{}, "00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01"), r)
			}
		}))
	if err != nil {
		t.Fatal(err)
	}
	err = typed.AddTool(s, protocol.Tool{Name: "work"}, func(ctx context.Context, req *server.Request, _ struct{}) (string, error) {
		req.Progress(ctx, 1, 2, "half")
		req.Logger().InfoContext(ctx, "hi")
		return "ok", nil
	})
	if err != nil {
		t.Fatal(err)
	}
	var metas []map[string]any
	c := servertest.New(s, servertest.OnNotification(func(n servertest.Notification) {
		var p struct {
			Meta map[string]any `json:"_meta"`
		}
		if err := json.Unmarshal(n.Params, &p); err != nil {
			t.Error(err)
		}
		metas = append(metas, p.Meta)
	}))
	_, err = c.CallTool(context.Background(), "work", nil,
		servertest.WithMeta("progressToken", "p1"), servertest.WithMeta("io.modelcontextprotocol/logLevel", "info"))
	if err != nil {
		t.Fatal(err)
	}
	if len(metas) != 2 {
		t.Fatalf("%d notifications, want progress and message", len(metas))
	}
	for i, m := range metas {
		if m["traceparent"] != "00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01" {
			t.Errorf("notification %d: _meta %v, want the traceparent", i, m)
		}
		_, protocolKey := m["io.modelcontextprotocol/logLevel"]
		_, mcpKey := m["dev.mcp/x"]
		if protocolKey || mcpKey || m["com.example/ok"] != "kept" {
			t.Errorf("notification %d: _meta %v: want reserved prefixes dropped, others kept", i, m)
		}
	}
}
