package requestlog_test

import (
	"context"
	"log/slog"
	"os"

	"github.com/mcpwire/mcpwire/protocol"
	"github.com/mcpwire/mcpwire/server"
	"github.com/mcpwire/mcpwire/server/requestlog"
	"github.com/mcpwire/mcpwire/server/typed"
	"github.com/mcpwire/mcpwire/servertest"
)

// ExampleNew logs one line per request.
func ExampleNew() {
	log := slog.New(slog.NewTextHandler(os.Stdout, &slog.HandlerOptions{
		ReplaceAttr: func(_ []string, a slog.Attr) slog.Attr {
			if a.Key == slog.TimeKey || a.Key == "duration" {
				return slog.Attr{} // left out to keep the output stable
			}
			return a
		},
	}))
	s, _ := server.New(protocol.Implementation{Name: "demo", Version: "1.0.0"},
		server.WithMiddleware(requestlog.New(log, requestlog.Options{})))
	_ = typed.AddTool(s, protocol.Tool{Name: "ping"}, func(context.Context, *server.Request, struct{}) (string, error) {
		return "pong", nil
	})
	_, _ = servertest.New(s).CallTool(context.Background(), "ping", nil)
	// Output:
	// level=INFO msg="mcp request" method=tools/call id=1 protocolVersion=2026-07-28 name=ping outcome=ok
}
