package server

import (
	"context"
	"errors"
	"log/slog"

	"github.com/mcpwire/mcpwire/protocol"
	"github.com/mcpwire/mcpwire/server/internal/slogdata"
)

// Logger returns a logger for this request: slog.New(r.LogHandler()).
func (r *Request) Logger() *slog.Logger { return slog.New(r.LogHandler()) }

// LogHandler returns a slog.Handler that sends each record to the client
// as a notifications/message when the request asked for that level
// (_meta io.modelcontextprotocol/logLevel, or logging/setLevel in a legacy
// session; R-LOG-03, R-LOG-04), as Log does, and to the server's logger
// (WithLogger) when that logger takes its level, with its level and
// attributes unchanged. The two are independent: a client asking for
// debug gets a handler's debug records without taking a warning away
// from the operator's log, and a record the client did not ask for (or
// that could not be sent: the request is over, or has no transport, as
// in a task or a NewTestRequest) still reaches the server's log.
//
// A notification's data is the record as a JSON object: "msg" and the
// attributes, groups nested as slog.JSONHandler writes them, without
// "time" and "level" (the level is the notification's). Its logger member
// is left out. slog levels map to the syslog levels of MCP: below Info is
// debug, Info and Info+1 info, Info+2 and Info+3 notice, Warn to Error-1
// warning, Error to Error+3 error, then critical, alert and emergency in
// steps of 4.
func (r *Request) LogHandler() slog.Handler {
	next := r.log
	if next == nil {
		next = slog.Default()
	}
	return &requestLogHandler{r: r, next: next.Handler()}
}

// requestLogHandler is LogHandler's slog.Handler.
type requestLogHandler struct {
	r    *Request
	next slog.Handler // the server's, with the attributes and groups so far
	// with replays WithAttrs and WithGroup on the encoder of a
	// notification's data.
	with []func(slog.Handler) slog.Handler
}

// clientWants reports whether the request asked for level l.
func (h *requestLogHandler) clientWants(l protocol.LoggingLevel) bool {
	ll := h.r.Meta.LogLevel
	return ll != nil && h.r.out != nil && levelRank(l) >= levelRank(*ll)
}

// Enabled reports whether the client asked for l or the server's logger
// takes it.
func (h *requestLogHandler) Enabled(ctx context.Context, l slog.Level) bool {
	return h.clientWants(slogdata.Level(l)) || h.next.Enabled(ctx, l)
}

// Handle sends rec to the client if it asked for its level, and to the
// server's logger if that takes it.
func (h *requestLogHandler) Handle(ctx context.Context, rec slog.Record) error {
	var err error
	if l := slogdata.Level(rec.Level); h.clientWants(l) {
		var data []byte
		if data, err = slogdata.Encode(ctx, rec, h.with); err == nil {
			h.r.Log(ctx, l, "", data)
		}
	}
	if h.next.Enabled(ctx, rec.Level) {
		err = errors.Join(err, h.next.Handle(ctx, rec.Clone()))
	}
	return err
}

// WithAttrs returns a handler that adds attrs to every record.
func (h *requestLogHandler) WithAttrs(attrs []slog.Attr) slog.Handler {
	return h.derive(h.next.WithAttrs(attrs), func(e slog.Handler) slog.Handler { return e.WithAttrs(attrs) })
}

// WithGroup returns a handler that puts later attributes in group name.
func (h *requestLogHandler) WithGroup(name string) slog.Handler {
	return h.derive(h.next.WithGroup(name), func(e slog.Handler) slog.Handler { return e.WithGroup(name) })
}

func (h *requestLogHandler) derive(next slog.Handler, w func(slog.Handler) slog.Handler) *requestLogHandler {
	with := make([]func(slog.Handler) slog.Handler, len(h.with), len(h.with)+1)
	copy(with, h.with)
	return &requestLogHandler{r: h.r, next: next, with: append(with, w)}
}
