package bench

import (
	"context"
	"io"
	"log/slog"
	"testing"

	"github.com/mcpwire/mcpwire/server"
	"github.com/mcpwire/mcpwire/server/requestlog"
)

// passThrough is a middleware that only calls the next handler.
func passThrough(next server.Handler) server.Handler {
	return func(ctx context.Context, r *server.Request) (server.Result, error) {
		return next(ctx, r)
	}
}

// BenchmarkToolsCallMiddleware is the tools/call of BenchmarkToolsCall
// with no middleware, with one that only passes the request on (the
// target: at most 5% over none), and with LogRequests writing JSON lines
// to io.Discard. Compare within one run:
//
//	go test -run '^$' -bench ToolsCallMiddleware -benchmem -count 6
func BenchmarkToolsCallMiddleware(b *testing.B) {
	tmpl := requestTemplate("tools/call", "echo")
	b.Run("none", func(b *testing.B) {
		benchServe(b, mcpwireHandler(b, 1), tmpl, callBody, checkCall)
	})
	b.Run("passthrough", func(b *testing.B) {
		benchServe(b, mcpwireHandler(b, 1, server.WithMiddleware(passThrough)), tmpl, callBody, checkCall)
	})
	b.Run("logrequests", func(b *testing.B) {
		log := slog.New(slog.NewJSONHandler(io.Discard, nil))
		benchServe(b, mcpwireHandler(b, 1, server.WithMiddleware(requestlog.New(log, requestlog.Options{}))), tmpl, callBody, checkCall)
	})
}
