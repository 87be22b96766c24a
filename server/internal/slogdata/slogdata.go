// Package slogdata turns slog records into what a notifications/message
// carries, for package server's Request.LogHandler: the MCP level of a
// slog level, and the record as a JSON object.
package slogdata

import (
	"bytes"
	"context"
	"log/slog"

	"github.com/mcpwire/mcpwire/protocol"
)

// Level maps a slog level to the syslog level of MCP: below Info is
// debug, Info and Info+1 info, Info+2 and Info+3 notice, Warn to Error-1
// warning, Error to Error+3 error, then critical, alert and emergency in
// steps of 4.
func Level(l slog.Level) protocol.LoggingLevel {
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

// Encode writes rec as a JSON object with slog.JSONHandler, less time and
// level, after replaying with (WithAttrs and WithGroup) on the encoder.
func Encode(ctx context.Context, rec slog.Record, with []func(slog.Handler) slog.Handler) ([]byte, error) {
	var buf bytes.Buffer
	var enc slog.Handler = slog.NewJSONHandler(&buf, &slog.HandlerOptions{
		ReplaceAttr: func(groups []string, a slog.Attr) slog.Attr {
			if len(groups) == 0 && (a.Key == slog.TimeKey || a.Key == slog.LevelKey) {
				return slog.Attr{}
			}
			return a
		},
	})
	for _, w := range with {
		enc = w(enc)
	}
	if err := enc.Handle(ctx, rec); err != nil {
		return nil, err
	}
	return bytes.TrimRight(buf.Bytes(), "\n"), nil
}
