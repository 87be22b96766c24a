package server_test

import (
	"bytes"
	"context"
	"encoding/json"
	"strings"
	"testing"

	. "github.com/mcpwire/mcpwire/server/internal/testkit"
	"github.com/mcpwire/mcpwire/server/streamhttp"

	"github.com/mcpwire/mcpwire/protocol"
	"github.com/mcpwire/mcpwire/server"
)

// TestStructuredContentValid: a tool registered with
// StructuredContentValid has its structuredContent written without the
// encoder's validation (bytes the validation refuses, a duplicate member,
// show it), unless WrapTool or server middleware could have changed them
// or they are over 1 MiB; without the option the same result is refused
// as a server bug (-32603), as is every user-supplied raw value.
func TestStructuredContentValid(t *testing.T) {
	dup := `{"n":1,"n":2}`
	big := `{"n":1,"n":2,"pad":"` + strings.Repeat("x", 1<<20) + `"}`
	result := func(sc string) server.ToolHandler {
		return func(context.Context, *server.Request, json.RawMessage) (*protocol.CallToolResult, error) {
			return &protocol.CallToolResult{Content: []protocol.ContentBlock{server.Text("x")}, StructuredContent: json.RawMessage(sc)}, nil
		}
	}
	pass := func(next server.ToolHandler) server.ToolHandler { return next }
	mw := server.WithMiddleware(func(next server.Handler) server.Handler { return next })
	for _, c := range []struct {
		name    string
		srv     []any
		sc      string
		opts    []server.ToolOption
		written bool
	}{
		{"without the option, validated", nil, dup, nil, false},
		{"with it, written as it is", nil, dup, []server.ToolOption{server.StructuredContentValid()}, true},
		{"with WrapTool, validated", nil, dup, []server.ToolOption{server.StructuredContentValid(), server.WrapTool(pass)}, false},
		{"under middleware, validated", []any{mw}, dup, []server.ToolOption{server.StructuredContentValid()}, false},
		{"over 1 MiB, validated", nil, big, []server.ToolOption{server.StructuredContentValid()}, false},
		{"valid, either way", nil, `{"n":1}`, nil, true},
	} {
		t.Run(c.name, func(t *testing.T) {
			s := NewServer(t, c.srv...)
			AddTool(t, s, `{"name":"t","inputSchema":{"type":"object"}}`, result(c.sc), c.opts...)
			w := Call(t, Handler(s, streamhttp.Options{}), 1, protocol.MethodToolsCall, Params(M{"name": "t"}))
			written := w.Error == nil && bytes.Contains(w.Raw, []byte(`"structuredContent":`+c.sc))
			if refused := w.Error != nil && w.Error.Code == protocol.CodeInternalError; written != c.written || refused == c.written {
				t.Errorf("written %v, refused %v; want written %v: %.200s", written, refused, c.written, w.Raw)
			}
		})
	}
}
