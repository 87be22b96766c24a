package server

import (
	"bytes"
	"context"
	"encoding/json"
	"log/slog"
	"net/http"
	"strings"
	"testing"

	"github.com/mcpwire/mcpwire/protocol"
)

// TestLogRequests checks the request logger: one line per request with
// method, name, outcome and code; failures a level up; arguments only
// when asked; requests refused by the protocol checks not logged (they
// never reach middleware).
func TestLogRequests(t *testing.T) {
	for _, withArgs := range []bool{false, true} {
		var buf bytes.Buffer
		log := slog.New(slog.NewJSONHandler(&buf, nil))
		s := fixture(t, WithMiddleware(LogRequests(log, RequestLogOptions{Arguments: withArgs})))
		h := s.Handler(HTTPOptions{})
		call(t, h, 1, protocol.MethodToolsCall, params(M{"name": "echo", "arguments": M{"text": "secret-arg"}}))
		call(t, h, 2, protocol.MethodToolsCall, params(M{"name": "fail"}))
		call(t, h, 3, protocol.MethodToolsCall, params(M{"name": "nope"}))
		post(t, h, rpc(4, protocol.MethodToolsList, params(nil)), func(r *http.Request) { r.Header.Set(HeaderMethod, "tools/call") })
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
	s := newServer(t, WithMiddleware(LogRequests(slog.New(slog.NewJSONHandler(&buf, nil)), RequestLogOptions{})))
	addTool(t, s, `{"name":"boom","inputSchema":{"type":"object"}}`, func(context.Context, *Request, json.RawMessage) (*protocol.CallToolResult, error) {
		panic("kaboom")
	})
	w := call(t, s.Handler(HTTPOptions{}), 1, protocol.MethodToolsCall, params(M{"name": "boom"}))
	if w.code() != protocol.CodeInternalError {
		t.Errorf("answer %s", w.raw)
	}
	var line map[string]any
	if err := json.Unmarshal(buf.Bytes(), &line); err != nil {
		t.Fatalf("log %q: %v", buf.String(), err)
	}
	if line["outcome"] != "panic" || line["name"] != "boom" || line["level"] != "WARN" {
		t.Errorf("log line %v", line)
	}
}
