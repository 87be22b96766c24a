package server_test

import (
	"context"
	"encoding/json"
	"testing"

	. "github.com/mcpwire/mcpwire/server/internal/testkit"
	"github.com/mcpwire/mcpwire/server/streamhttp"
	"github.com/mcpwire/mcpwire/server/typed"

	"github.com/mcpwire/mcpwire/protocol"
	"github.com/mcpwire/mcpwire/server"
)

// TestOutputConforms: a tool registered with OutputConforms has its
// structuredContent sent unvalidated (a result that does not conform
// shows it), unless WrapTool middleware could change its results or
// WithNumberLimits is below what a Go number encodes to; a result without
// structuredContent is refused either way. Without the option the same
// result is refused (R-TOOL-06).
func TestOutputConforms(t *testing.T) {
	out := `"outputSchema":{"type":"object","properties":{"n":{"type":"integer"}},"required":["n"]}`
	bad := func(context.Context, *server.Request, json.RawMessage) (*protocol.CallToolResult, error) {
		return &protocol.CallToolResult{Content: []protocol.ContentBlock{server.Text("x")}, StructuredContent: json.RawMessage(`{"n":"one"}`)}, nil
	}
	none := func(context.Context, *server.Request, json.RawMessage) (*protocol.CallToolResult, error) {
		return server.TextResult("no structured content"), nil
	}
	pass := func(next server.ToolHandler) server.ToolHandler { return next }
	for _, c := range []struct {
		name    string
		srv     []any
		h       server.ToolHandler
		opts    []server.ToolOption
		refused bool
	}{
		{"without the option, checked", nil, bad, nil, true},
		{"with it, not checked", nil, bad, []server.ToolOption{server.OutputConforms()}, false},
		{"with WrapTool, checked", nil, bad, []server.ToolOption{server.OutputConforms(), server.WrapTool(pass)}, true},
		{"under tighter number limits, checked", []any{server.WithNumberLimits(20, 400)}, bad, []server.ToolOption{server.OutputConforms()}, true},
		{"no structuredContent, refused", nil, none, []server.ToolOption{server.OutputConforms()}, true},
	} {
		t.Run(c.name, func(t *testing.T) {
			s := NewServer(t, c.srv...)
			AddTool(t, s, `{"name":"t","inputSchema":{"type":"object"},`+out+`}`, c.h, c.opts...)
			w := Call(t, Handler(s, streamhttp.Options{}), 1, protocol.MethodToolsCall, Params(M{"name": "t"}))
			if refused := w.Error != nil && w.Error.Code == protocol.CodeInternalError; refused != c.refused {
				t.Errorf("refused %v, want %v: %s", refused, c.refused, w.Raw)
			}
		})
	}
}

// TestTypedOutputChecked: typed.AddTool leaves output validation on where
// it can fail: a struct Out with a map member, whose nil value encodes as
// null against the inferred "type": "object", is refused (R-TOOL-06).
func TestTypedOutputChecked(t *testing.T) {
	type out struct {
		M map[string]int `json:"m"`
	}
	s := NewServer(t)
	if err := typed.AddTool(s, protocol.Tool{Name: "t"}, func(context.Context, *server.Request, struct{}) (out, error) {
		return out{}, nil
	}); err != nil {
		t.Fatal(err)
	}
	w := Call(t, Handler(s, streamhttp.Options{}), 1, protocol.MethodToolsCall, Params(M{"name": "t"}))
	if w.Error == nil || w.Error.Code != protocol.CodeInternalError {
		t.Errorf("a nil map against \"type\": \"object\" was not refused: %s", w.Raw)
	}
}
