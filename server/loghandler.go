package server

import (
	"bytes"
	"context"
	"errors"
	"log/slog"

	"github.com/mcpwire/mcpwire/protocol"
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
	return h.clientWants(mcpLevel(l)) || h.next.Enabled(ctx, l)
}

// Handle sends rec to the client if it asked for its level, and to the
// server's logger if that takes it.
func (h *requestLogHandler) Handle(ctx context.Context, rec slog.Record) error {
	var err error
	if l := mcpLevel(rec.Level); h.clientWants(l) {
		var data []byte
		if data, err = h.encode(ctx, rec); err == nil {
			h.r.Log(ctx, l, "", data)
		}
	}
	if h.next.Enabled(ctx, rec.Level) {
		err = errors.Join(err, h.next.Handle(ctx, rec.Clone()))
	}
	return err
}

// encode writes rec as a JSON object with slog.JSONHandler, less time and
// level.
func (h *requestLogHandler) encode(ctx context.Context, rec slog.Record) ([]byte, error) {
	var buf bytes.Buffer
	var enc slog.Handler = slog.NewJSONHandler(&buf, &slog.HandlerOptions{
		ReplaceAttr: func(groups []string, a slog.Attr) slog.Attr {
			if len(groups) == 0 && (a.Key == slog.TimeKey || a.Key == slog.LevelKey) {
				return slog.Attr{}
			}
			return a
		},
	})
	for _, w := range h.with {
		enc = w(enc)
	}
	if err := enc.Handle(ctx, rec); err != nil {
		return nil, err
	}
	return bytes.TrimRight(buf.Bytes(), "\n"), nil
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

// mcpLevel maps a slog level to the syslog level of MCP (LogHandler).
func mcpLevel(l slog.Level) protocol.LoggingLevel {
	switch {
	case l < slog.LevelInfo:
		return protocol.LoggingLevelDebug
	case l < slog.LevelInfo+2:
		return protocol.LoggingLevelInfo
	case l < slog.LevelWarn:
		return protocol.LoggingLevelNotice
	case l < slog.LevelError:
		return protocol.LoggingLevelWarning
	case l < slog.LevelError+4:
		return protocol.LoggingLevelError
	case l < slog.LevelError+8:
		return protocol.LoggingLevelCritical
	case l < slog.LevelError+12:
		return protocol.LoggingLevelAlert
	}
	return protocol.LoggingLevelEmergency
}
