// Package requestlog is a middleware (server.WithMiddleware) that logs one
// line per request with slog (New).
package requestlog

import (
	"context"
	"encoding/json"
	"errors"
	"log/slog"
	"time"

	"github.com/mcpwire/mcpwire/protocol"
	"github.com/mcpwire/mcpwire/server"
)

// Options configures New.
type Options struct {
	// Level is the level of a request that succeeded; zero is
	// slog.LevelInfo. A request that failed (an error, or a tool result
	// with isError) is logged at Level+4 (Info: Warn).
	Level slog.Level
	// Arguments adds a tool's or prompt's arguments to the line. They are
	// the client's text and may carry what a log must not keep, so they
	// are left out unless this is set.
	Arguments bool
}

// New returns a middleware (WithMiddleware) that writes one line
// to log for each request, once it is answered: "mcp request" with the
// method, the name (tool, prompt or resource URI), the id, the protocol
// version, the era ("legacy" for a session of an earlier revision), the
// principal, the duration, and the outcome: "ok", "tool_error" (isError),
// "input_required", "error" with the JSON-RPC code, or "panic" (code
// -32603) for a handler that panicked.
func New(log *slog.Logger, opts Options) server.Middleware {
	return func(next server.Handler) server.Handler {
		return func(ctx context.Context, r *server.Request) (server.Result, error) {
			start := time.Now()
			defer func() {
				// A handler's panic unwinds through here before the
				// runtime turns it into -32603: log that, and let it go on.
				if p := recover(); p != nil {
					log.LogAttrs(ctx, opts.Level+4, "mcp request", slog.String("method", r.Method), slog.String("id", r.ID.String()),
						slog.String("name", r.Name()), slog.Duration("duration", time.Since(start)),
						slog.Int64("code", protocol.CodeInternalError), slog.String("outcome", "panic"))
					panic(p)
				}
			}()
			res, err := next(ctx, r)
			level := opts.Level
			attrs := make([]slog.Attr, 0, 12)
			attrs = append(attrs,
				slog.String("method", r.Method),
				slog.String("id", r.ID.String()),
				slog.String("protocolVersion", r.ProtocolVersion()),
			)
			if n := r.Name(); n != "" {
				attrs = append(attrs, slog.String("name", n))
			}
			if v := r.ProtocolVersion(); v != "" && v != protocol.Revision { // a legacy session's negotiated version
				attrs = append(attrs, slog.String("era", "legacy"))
			}
			if r.Principal != "" {
				attrs = append(attrs, slog.String("principal", r.Principal))
			}
			if opts.Arguments {
				if args := requestArguments(r.Params()); args != nil {
					attrs = append(attrs, slog.Any("arguments", args))
				}
			}
			attrs = append(attrs, slog.Duration("duration", time.Since(start)))
			outcome := "ok"
			switch v := res.(type) {
			case *protocol.CallToolResult:
				if v.IsError != nil && *v.IsError {
					outcome, level = "tool_error", level+4
				}
			case *protocol.InputRequiredResult:
				outcome = "input_required"
			}
			if err != nil {
				outcome, level = "error", opts.Level+4
				var e *server.Error
				if errors.As(err, &e) {
					attrs = append(attrs, slog.Int64("code", e.Code))
				} else {
					attrs = append(attrs, slog.Int64("code", protocol.CodeInternalError))
				}
			}
			attrs = append(attrs, slog.String("outcome", outcome))
			log.LogAttrs(ctx, level, "mcp request", attrs...)
			return res, err
		}
	}
}

// requestArguments are the arguments of tools/call and prompts/get.
func requestArguments(params any) any {
	switch p := params.(type) {
	case *protocol.CallToolRequestParams:
		if len(p.Arguments) > 0 {
			return json.RawMessage(p.Arguments)
		}
	case *protocol.GetPromptRequestParams:
		if p.Arguments != nil {
			return p.Arguments
		}
	}
	return nil
}
