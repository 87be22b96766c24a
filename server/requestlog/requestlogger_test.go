package requestlog_test

import (
	"bytes"
	"context"
	"encoding/json"
	"log/slog"
	"net/http"
	"strings"
	"testing"

	. "github.com/mcpwire/mcpwire/server/internal/testkit"
	"github.com/mcpwire/mcpwire/server/requestlog"
	"github.com/mcpwire/mcpwire/server/streamhttp"

	"github.com/mcpwire/mcpwire/protocol"
	"github.com/mcpwire/mcpwire/server"
)

// TestLogRequests checks the request logger: one line per request with
// method, name, outcome and code; failures a level up; arguments only
// when asked; requests refused by the protocol checks not logged (they
// never reach middleware).
func TestLogRequests(t *testing.T) {
	for _, withArgs := range []bool{false, true} {
		var buf bytes.Buffer
		log := slog.New(slog.NewJSONHandler(&buf, nil))
		s := Fixture(t, server.WithMiddleware(requestlog.New(log, requestlog.Options{Arguments: withArgs})))
		h := Handler(s, streamhttp.Options{})
		Call(t, h, 1, protocol.MethodToolsCall, Params(M{"name": "echo", "arguments": M{"text": "secret-arg"}}))
		Call(t, h, 2, protocol.MethodToolsCall, Params(M{"name": "fail"}))
		Call(t, h, 3, protocol.MethodToolsCall, Params(M{"name": "nope"}))
		Post(t, h, Rpc(4, protocol.MethodToolsList, Params(nil)), func(r *http.Request) { r.Header.Set(server.HeaderMethod, "tools/call") })
		var lines []map[string]any
		for _, l := range strings.Split(strings.TrimSpace(buf.String()), "\n") {
			var m map[string]any
			if err := json.Unmarshal([]byte(l), &m); err != nil {
				t.Fatalf("line %q: %v", l, err)
			}
			lines = append(lines, m)
		}
		if len(lines) != 3 {
			t.Fatalf("%d lines, want 3 (the header mismatch is refused before middleware): %s", len(lines), buf.String())
		}
		want := []struct{ name, outcome, level string }{{"echo", "ok", "INFO"}, {"fail", "tool_error", "WARN"}, {"nope", "error", "WARN"}}
		for i, w := range want {
			l := lines[i]
			if l["msg"] != "mcp request" || l["method"] != "tools/call" || l["name"] != w.name || l["outcome"] != w.outcome || l["level"] != w.level || l["duration"] == nil {
				t.Errorf("line %d: %v, want %+v", i, l, w)
			}
		}
		if lines[2]["code"] != float64(protocol.CodeInvalidParamsError) {
			t.Errorf("unknown tool logged with code %v", lines[2]["code"])
		}
		if got := strings.Contains(buf.String(), "secret-arg"); got != withArgs {
			t.Errorf("Arguments=%v: the arguments in the log: %v", withArgs, got)
		}
	}
}

// TestLogRequestsPanic checks that a handler's panic is logged as such
// (hostile review LIB-5) and still answered -32603.
func TestLogRequestsPanic(t *testing.T) {
	var buf bytes.Buffer
	s := NewServer(t, server.WithMiddleware(requestlog.New(slog.New(slog.NewJSONHandler(&buf, nil)), requestlog.Options{})))
	AddTool(t, s, `{"name":"boom","inputSchema":{"type":"object"}}`, func(context.Context, *server.Request, json.RawMessage) (*protocol.CallToolResult, error) {
		panic("kaboom")
	})
	w := Call(t, Handler(s, streamhttp.Options{}), 1, protocol.MethodToolsCall, Params(M{"name": "boom"}))
	if w.Code() != protocol.CodeInternalError {
		t.Errorf("answer %s", w.Raw)
	}
	var line map[string]any
	if err := json.Unmarshal(buf.Bytes(), &line); err != nil {
		t.Fatalf("log %q: %v", buf.String(), err)
	}
	if line["outcome"] != "panic" || line["name"] != "boom" || line["level"] != "WARN" {
		t.Errorf("log line %v", line)
	}
}
