package legacy_test

import (
	"context"
	"net/http"
	"testing"
	"time"

	"github.com/mcpwire/mcpwire/server"
	. "github.com/mcpwire/mcpwire/server/internal/testkit"
	"github.com/mcpwire/mcpwire/server/streamhttp"
)

// A legacy session's own methods (ping, logging/setLevel) pass through
// the middleware but are not handlers: WithHandlerTimeout does not apply
// to them, as before the split, and their context has no deadline.
func TestSessionMethodsNoHandlerTimeout(t *testing.T) {
	deadlines := map[string]bool{}
	slow := func(next server.Handler) server.Handler {
		return func(ctx context.Context, r *server.Request) (server.Result, error) {
			_, has := ctx.Deadline()
			deadlines[r.Method] = has
			if r.Method != "tools/list" {
				select {
				case <-ctx.Done():
				case <-time.After(150 * time.Millisecond):
				}
			}
			return next(ctx, r)
		}
	}
	s := NewServer(t, server.WithHandlerTimeout(50*time.Millisecond), server.WithMiddleware(slow))
	c := NewLegacyHTTP(t, streamhttp.Handler(s, streamhttp.Options{}), "2025-11-25")
	c.Open("{}")
	for i, m := range []struct{ method, params string }{{"ping", ""}, {"logging/setLevel", `{"level":"debug"}`}} {
		res, _, rec := c.Call(i+1, m.method, m.params)
		if rec.Code != http.StatusOK || res.Error != nil {
			t.Errorf("%s: %d %s", m.method, rec.Code, rec.Body.Bytes())
		}
		if deadlines[m.method] {
			t.Errorf("%s: the middleware's context has a deadline", m.method)
		}
	}
	if _, _, _ = c.Call(9, "tools/list", "{}"); !deadlines["tools/list"] {
		t.Error("tools/list: no handler deadline")
	}
}
