package servertest_test

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/mcpwire/mcpwire/protocol"
	"github.com/mcpwire/mcpwire/server"
	"github.com/mcpwire/mcpwire/servertest"
)

// TestOnNotification: the progress and log notifications a tool sends
// before its response (an event-stream answer) reach OnNotification in
// order; without the logLevel and progressToken _meta the server sends
// none (R-LOG-01, R-PROG-01).
func TestOnNotification(t *testing.T) {
	s := newServer(t)
	addTool(t, s, "work", func(ctx context.Context, r *server.Request, _ json.RawMessage) (*protocol.CallToolResult, error) {
		r.Progress(ctx, 1, 2, "half")
		r.Log(ctx, protocol.LoggingLevelInfo, "work", json.RawMessage(`"working"`))
		return server.TextResult("done"), nil
	})
	var got []string
	c := servertest.New(s, servertest.OnNotification(func(n servertest.Notification) {
		got = append(got, n.Method+" "+string(n.Params))
	}))
	ctx := context.Background()

	if _, err := c.CallTool(ctx, "work", nil); err != nil {
		t.Fatal(err)
	}
	if len(got) != 0 {
		t.Errorf("notifications without opting in: %v", got)
	}

	res, err := c.CallTool(ctx, "work", nil,
		servertest.WithMeta("io.modelcontextprotocol/logLevel", "debug"),
		servertest.WithMeta("progressToken", "p1"))
	if err != nil {
		t.Fatal(err)
	}
	if text(t, res) != "done" {
		t.Errorf("result %q", text(t, res))
	}
	if len(got) != 2 || !strings.HasPrefix(got[0], "notifications/progress ") || !strings.Contains(got[0], `"p1"`) ||
		!strings.HasPrefix(got[1], "notifications/message ") || !strings.Contains(got[1], `"working"`) {
		t.Errorf("notifications %v", got)
	}
}
