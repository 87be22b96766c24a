package server_test

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"sync"
	"testing"

	. "github.com/mcpwire/mcpwire/server/internal/testkit"
	"github.com/mcpwire/mcpwire/server/streamhttp"

	"github.com/mcpwire/mcpwire/protocol"
	"github.com/mcpwire/mcpwire/server"
)

// TestNotifications covers request-scoped log and progress notifications
// on Streamable HTTP (R-LOG-03, R-LOG-04, R-LOG-06, R-PROG-01, R-PROG-02,
// R-PROG-04, R-HTTP-07, R-HTTP-08, R-HTTP-10, R-HTTP-12).
func TestNotifications(t *testing.T) {
	s := NewServer(t)
	var last *server.Request
	var mu sync.Mutex
	ScriptTool(t, s, &last, &mu)
	h := Handler(s, streamhttp.Options{})
	allLevels := []any{Step("log", "debug"), Step("log", "info"), Step("log", "notice"), Step("log", "warning"), Step("log", "error"), Step("log", "critical"), Step("log", "alert"), Step("log", "emergency")}
	cases := []struct {
		name     string
		meta     M
		steps    []any
		sent     string   // what the steps returned
		notes    []string // expected notifications: "message:<level>" or "progress:<p>"
		token    any      // progress token expected in progress notifications
		code     int64
		noStream bool
	}{
		{name: "R-LOG-03 no logLevel: no notifications/message", meta: Meta(), steps: allLevels,
			sent: "false,false,false,false,false,false,false,false", noStream: true},
		{name: "R-LOG-04 at or above warning only", meta: Meta(KeyLogLevel, "warning"), steps: allLevels,
			sent:  "false,false,false,true,true,true,true,true",
			notes: []string{"message:warning", "message:error", "message:critical", "message:alert", "message:emergency"}},
		{name: "R-LOG-04 debug admits every level", meta: Meta(KeyLogLevel, "debug"), steps: allLevels[:2],
			sent: "true,true", notes: []string{"message:debug", "message:info"}},
		{name: "R-LOG-04 an invalid level from the handler is dropped", meta: Meta(KeyLogLevel, "debug"), steps: []any{Step("log", "verbose")}, sent: "false", noStream: true},
		{name: "R-LOG-06 unknown logLevel is -32602", meta: Meta(KeyLogLevel, "verbose"), steps: allLevels, code: protocol.CodeInvalidParamsError},
		{name: "R-PROG-01 no progressToken: no progress", meta: Meta(), steps: []any{Step("progress", 1.0, 2.0, "")}, sent: "false", noStream: true},
		{name: "R-PROG-02 non-increasing progress is dropped", meta: Meta("progressToken", "tok"), token: "tok",
			steps: []any{Step("progress", 0.5, 0.0, ""), Step("progress", 0.5, 0.0, ""), Step("progress", 0.25, 0.0, ""), Step("progress", 1.5, 3.0, "half")},
			sent:  "true,false,false,true", notes: []string{"progress:0.5", "progress:1.5"}},
		{name: "R-PROG-02 progress 0 then 0 sends only the first", meta: Meta("progressToken", "tok"), token: "tok",
			steps: []any{Step("progress", 0.0, 0.0, ""), Step("progress", 0.0, 0.0, ""), Step("progress", 1.0, 0.0, "")},
			sent:  "true,false,true", notes: []string{"progress:0", "progress:1"}},
		{name: "R-PROG-02 progress 0 then a negative value is dropped", meta: Meta("progressToken", "tok"), token: "tok",
			steps: []any{Step("progress", 0.0, 0.0, ""), Step("progress", -1.0, 0.0, "")},
			sent:  "true,false", notes: []string{"progress:0"}},
		{name: "R-PROG-04 integer progress token echoed as integer", meta: Meta("progressToken", 7), token: float64(7),
			steps: []any{Step("progress", 1.0, 0.0, "")}, sent: "true", notes: []string{"progress:1"}},
		{name: "R-HTTP-08 log and progress interleave in order", meta: Meta("progressToken", "p", KeyLogLevel, "info"), token: "p",
			steps: []any{Step("progress", 1.0, 0.0, ""), Step("log", "info"), Step("progress", 2.0, 0.0, "")},
			sent:  "true,true,true", notes: []string{"progress:1", "message:info", "progress:2"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			rec := Post(t, h, Rpc(11, protocol.MethodToolsCall, WithMeta(c.meta, M{"name": "script", "arguments": M{"steps": c.steps}})), nil)
			if c.code != 0 {
				if w := Single(t, rec); w.Code() != c.code {
					t.Fatalf("code %d, want %d: %s", w.Code(), c.code, w.Raw)
				}
				return
			}
			var msgs []*Wire
			if c.noStream {
				msgs = []*Wire{Single(t, rec)}
			} else {
				if ct := rec.Header().Get("Content-Type"); ct != "text/event-stream" {
					t.Fatalf("R-HTTP-07: Content-Type %q, want text/event-stream", ct)
				}
				if rec.Header().Get("X-Accel-Buffering") != "no" {
					t.Error("R-HTTP-12: X-Accel-Buffering: no missing")
				}
				msgs = SseMessages(t, rec.Body.Bytes())
			}
			final := msgs[len(msgs)-1]
			if final.Id() != "11" || final.Result == nil {
				t.Fatalf("R-HTTP-10: the last event is not the response: %s", final.Raw)
			}
			if got := final.Text(t, 0); got != c.sent {
				t.Errorf("steps returned %s, want %s", got, c.sent)
			}
			var notes []string
			for _, m := range msgs[:len(msgs)-1] {
				if m.HasID() {
					t.Fatalf("R-BASE-10/11: a message with an id before the response: %s", m.Raw)
				}
				p := m.Params()
				switch m.Method() {
				case protocol.MethodNotificationsMessage:
					notes = append(notes, fmt.Sprint("message:", p["level"]))
					if p["logger"] != "test" || p["data"] == nil {
						t.Errorf("message params %v", p)
					}
				case protocol.MethodNotificationsProgress:
					notes = append(notes, fmt.Sprint("progress:", p["progress"]))
					if p["progressToken"] != c.token {
						t.Errorf("R-PROG-04: progressToken %#v, want %#v", p["progressToken"], c.token)
					}
				default:
					t.Errorf("unexpected notification %s", m.Raw)
				}
			}
			if strings.Join(notes, " ") != strings.Join(c.notes, " ") {
				t.Errorf("notifications %v, want %v", notes, c.notes)
			}
			// R-PROG-01: nothing after the result.
			mu.Lock()
			r := last
			mu.Unlock()
			before := rec.Body.Len()
			if r.Progress(context.Background(), 1000, 0, "") || r.Log(context.Background(), protocol.LoggingLevelEmergency, "", json.RawMessage(`1`)) {
				t.Error("R-PROG-01: a notification was sent after the response")
			}
			if rec.Body.Len() != before {
				t.Error("R-PROG-01: bytes written after the response")
			}
		})
	}
}

// TestProgressParams checks total and message of a progress notification
// (R-PROG-04): present when given, absent otherwise.
func TestProgressParams(t *testing.T) {
	s := NewServer(t)
	var last *server.Request
	var mu sync.Mutex
	ScriptTool(t, s, &last, &mu)
	rec := Post(t, Handler(s, streamhttp.Options{}), Rpc(1, protocol.MethodToolsCall, WithMeta(Meta("progressToken", "t"), M{"name": "script", "arguments": M{"steps": []any{Step("progress", 1.0, 4.0, "a quarter"), Step("progress", 2.0, 0.0, "")}}})), nil)
	msgs := SseMessages(t, rec.Body.Bytes())
	if len(msgs) != 3 {
		t.Fatalf("%d messages", len(msgs))
	}
	p := msgs[0].Params()
	if p["total"] != 4.0 || p["message"] != "a quarter" {
		t.Errorf("first %v", p)
	}
	p = msgs[1].Params()
	if _, ok := p["total"]; ok {
		t.Errorf("total present: %v", p)
	}
	if _, ok := p["message"]; ok {
		t.Errorf("message present: %v", p)
	}
}

// TestNotificationsConcurrent sends progress from many goroutines while
// the handler returns: the stream stays well-formed and progress strictly
// increases (R-PROG-02), and the response is last (R-HTTP-10).
func TestNotificationsConcurrent(t *testing.T) {
	s := NewServer(t)
	AddTool(t, s, `{"name":"burst","inputSchema":{"type":"object"}}`, func(ctx context.Context, r *server.Request, _ json.RawMessage) (*protocol.CallToolResult, error) {
		var wg sync.WaitGroup
		for g := 0; g < 8; g++ {
			wg.Add(1)
			go func(g int) {
				defer wg.Done()
				for i := 0; i < 50; i++ {
					r.Progress(ctx, float64(i*8+g+1), 0, "")
				}
			}(g)
		}
		wg.Wait()
		return server.TextResult("done"), nil
	})
	rec := Post(t, Handler(s, streamhttp.Options{}), Rpc(1, protocol.MethodToolsCall, WithMeta(Meta("progressToken", 1), M{"name": "burst"})), nil)
	if rec.Code != http.StatusOK {
		t.Fatalf("status %d", rec.Code)
	}
	msgs := SseMessages(t, rec.Body.Bytes())
	prev := -1.0
	for _, m := range msgs[:len(msgs)-1] {
		p := m.Params()["progress"].(float64)
		if p <= prev {
			t.Fatalf("R-PROG-02: progress %v after %v", p, prev)
		}
		prev = p
	}
	if msgs[len(msgs)-1].Id() != "1" {
		t.Error("R-HTTP-10: response not last")
	}
}
