package stdio_test

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	. "github.com/mcpwire/mcpwire/server/internal/testkit"
	"github.com/mcpwire/mcpwire/server/legacy"
	"github.com/mcpwire/mcpwire/server/streamhttp"

	"github.com/mcpwire/mcpwire/protocol"
	"github.com/mcpwire/mcpwire/server"
)

// stdioFixture adds a slow tool (blocks until release is closed or its
// context ends, then reports), a counter of cancelled calls, and a
// progress-sending tool to the fixture.
type stdioFixture struct {
	*server.Server
	started   chan string
	release   chan struct{}
	cancelled atomic.Int64
	late      atomic.Bool
}

func newStdioFixture(t testing.TB, opts ...any) *stdioFixture {
	t.Helper()
	f := &stdioFixture{Server: Fixture(t, opts...), started: make(chan string, 10), release: make(chan struct{})}
	AddTool(t, f.Server, `{"name":"slow","inputSchema":{"type":"object"}}`, func(ctx context.Context, r *server.Request, _ json.RawMessage) (*protocol.CallToolResult, error) {
		r.Progress(ctx, 1, 0, "")
		f.started <- r.ID.String()
		select {
		case <-f.release:
			return server.TextResult("slow done"), nil
		case <-ctx.Done():
			f.cancelled.Add(1)
			if r.Progress(context.Background(), 2, 0, "") {
				f.late.Store(true)
			}
			return server.TextResult("cancelled but answering anyway"), nil
		}
	})
	AddTool(t, f.Server, `{"name":"nap","inputSchema":{"type":"object"}}`, func(context.Context, *server.Request, json.RawMessage) (*protocol.CallToolResult, error) {
		time.Sleep(100 * time.Millisecond)
		return server.TextResult("rested"), nil
	})
	return f
}

func (f *stdioFixture) waitStarted(t testing.TB) string {
	t.Helper()
	select {
	case id := <-f.started:
		return id
	case <-time.After(5 * time.Second):
		t.Fatal("slow tool did not start")
	}
	return ""
}

func callLine(id any, name string, args M) string {
	p := Params(M{"name": name})
	if args != nil {
		p["arguments"] = args
	}
	return string(Rpc(id, protocol.MethodToolsCall, p))
}

// TestStdioLines checks the framing of the stdio transport with a table of
// inputs and the messages they must produce (R-STDIO-01, R-STDIO-02,
// R-BASE-07, R-BASE-10, R-STATE-01).
func TestStdioLines(t *testing.T) {
	type want struct {
		id   string // raw id, "" = absent
		code int64
		text string // first text block of a tools/call result, if set
	}
	discover := string(Rpc(1, protocol.MethodServerDiscover, Params(nil)))
	cases := []struct {
		name  string
		opts  []any
		input string
		want  []want // in any order
	}{
		{"R-STDIO-01 one request, one line", nil, discover + "\n", []want{{id: "1"}}},
		{"R-STDIO-01 last line without newline", nil, discover, []want{{id: "1"}}},
		{"R-STDIO-01 CRLF line ends", nil, callLine(1, "echo", M{"text": "a"}) + "\r\n" + callLine(2, "echo", M{"text": "b"}) + "\r\n",
			[]want{{id: "1", text: "a"}, {id: "2", text: "b"}}},
		{"blank lines are skipped", nil, "\n\r\n   \n" + discover + "\n\n", []want{{id: "1"}}},
		{"R-BASE-07 invalid JSON is -32700 without id; next line served", nil, "{not json\n" + discover + "\n",
			[]want{{code: protocol.CodeParseError}, {id: "1"}}},
		{"A5 batch is -32600", nil, "[" + discover + "]\n", []want{{code: protocol.CodeInvalidRequestError}}},
		{"R-BASE-10 notifications get no reply", nil, `{"jsonrpc":"2.0","method":"notifications/initialized"}` + "\n" + discover + "\n", []want{{id: "1"}}},
		{"R-BASE-03 UTF-8 round trip", nil, callLine("ü", "echo", M{"text": "日本語 ✓"}) + "\n", []want{{id: `"ü"`, text: "日本語 ✓"}}},
		{"no header checks on stdio", nil, callLine(3, "echo", M{"text": "x"}) + "\n", []want{{id: "3", text: "x"}}},
		{"R-TOOL-09 name not a string is -32602 on stdio", nil, string(Rpc(4, protocol.MethodToolsCall, Params(M{"name": 5}))) + "\n", []want{{id: "4", code: protocol.CodeInvalidParamsError}}},
		{"R-META-01 _meta missing is -32602", nil, string(Rpc(5, protocol.MethodToolsList, M{})) + "\n", []want{{id: "5", code: protocol.CodeInvalidParamsError}}},
		{"R-VER-01 discover with an unsupported version is -32022", nil, string(Rpc(6, protocol.MethodServerDiscover, WithMeta(M{KeyVersion: "1900-01-01", KeyCaps: M{}}, nil))) + "\n",
			[]want{{id: "6", code: protocol.CodeUnsupportedProtocolVersionError}}},
		{"R-VER-05 initialize is -32601 (ErasModern; ErasBoth opens a session)", []any{Eras(legacy.ErasModern)}, string(Rpc(7, "initialize", M{"protocolVersion": "2025-11-25"})) + "\n", []want{{id: "7", code: protocol.CodeMethodNotFoundError}}},
		{"R-STATE-01 interleaved versions on one stream", nil,
			discover + "\n" + string(Rpc(2, protocol.MethodServerDiscover, WithMeta(M{KeyVersion: "2025-11-25", KeyCaps: M{}}, nil))) + "\n" + string(Rpc(3, protocol.MethodServerDiscover, Params(nil))) + "\n",
			[]want{{id: "1"}, {id: "2", code: protocol.CodeUnsupportedProtocolVersionError}, {id: "3"}}},
		{"line of exactly WithMaxStdioLine bytes is served", []any{server.WithMaxStdioLine(len(discover))}, discover + "\n", []want{{id: "1"}}},
		{"line of exactly WithMaxStdioLine bytes with CRLF is served", []any{server.WithMaxStdioLine(len(discover))}, discover + "\r\n", []want{{id: "1"}}},
		{"line over WithMaxStdioLine is refused, next line served", []any{server.WithMaxStdioLine(len(discover) - 1)},
			discover + "\n" + `{"jsonrpc":"2.0","id":2,"method":"server/discover"}` + "\n",
			[]want{{code: protocol.CodeInvalidRequestError}, {id: "2", code: protocol.CodeInvalidParamsError}}},
		{"a very long line is refused without being kept", []any{server.WithMaxStdioLine(1000)},
			`{"jsonrpc":"2.0","id":1,"method":"x","params":{"pad":"` + strings.Repeat("x", 200000) + `"}}` + "\n" + discover + "\n",
			[]want{{code: protocol.CodeInvalidRequestError}, {id: "1"}}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			s := Fixture(t, c.opts...)
			var out strings.Builder
			if err := ServeStdio(context.Background(), s, strings.NewReader(c.input), &out); err != nil {
				t.Fatal(err)
			}
			text := out.String()
			if text != "" && !strings.HasSuffix(text, "\n") {
				t.Errorf("R-STDIO-01: output does not end with a newline: %q", text)
			}
			var got []*Wire
			for _, l := range strings.Split(strings.TrimSuffix(text, "\n"), "\n") {
				if l != "" {
					got = append(got, CheckStdioLine(t, l))
				}
			}
			if len(got) != len(c.want) {
				t.Fatalf("%d messages, want %d: %q", len(got), len(c.want), text)
			}
			used := make([]bool, len(got))
			for _, wnt := range c.want {
				found := false
				for i, g := range got {
					if used[i] || g.Id() != wnt.id || g.Code() != wnt.code {
						continue
					}
					if wnt.text != "" && g.Text(t, 0) != wnt.text {
						continue
					}
					used[i], found = true, true
					CheckCode(t, g.Code())
					break
				}
				if !found {
					t.Errorf("no message with id %q code %d text %q in %q", wnt.id, wnt.code, wnt.text, text)
				}
			}
		})
	}
}

// TestStdioOutOfOrder checks that requests run concurrently and responses
// come as they finish (R-STATE-02).
func TestStdioOutOfOrder(t *testing.T) {
	f := newStdioFixture(t)
	ss := StartStdio(t, f.Server)
	ss.Send(callLine(1, "slow", nil))
	f.waitStarted(t)
	ss.Send(callLine(2, "echo", M{"text": "fast"}))
	if w := ss.Recv(); w.Id() != "2" || w.Text(t, 0) != "fast" {
		t.Fatalf("first response %s, want the fast one", w.Raw)
	}
	close(f.release)
	if w := ss.Recv(); w.Id() != "1" || w.Text(t, 0) != "slow done" {
		t.Fatalf("second response %s", w.Raw)
	}
	if rest, err := ss.Close(); err != nil || len(rest) != 0 {
		t.Errorf("close: %v %v", err, rest)
	}
}

// TestStdioNotifications checks that a request's notifications precede
// its response on stdout.
func TestStdioNotifications(t *testing.T) {
	s := NewServer(t)
	var last *server.Request
	var mu sync.Mutex
	ScriptTool(t, s, &last, &mu)
	line := string(Rpc(1, protocol.MethodToolsCall, WithMeta(Meta("progressToken", "p", KeyLogLevel, "error"), M{"name": "script", "arguments": M{"steps": []any{
		Step("progress", 1.0, 0.0, ""), Step("log", "info"), Step("log", "error"), Step("progress", 2.0, 0.0, "")}}})))
	msgs := Stdio(t, s, line)
	var got []string
	for _, m := range msgs {
		if m.HasID() {
			got = append(got, "response")
		} else {
			got = append(got, m.Method())
		}
	}
	want := "notifications/progress notifications/message notifications/progress response"
	if strings.Join(got, " ") != want {
		t.Errorf("got %v, want %s", got, want)
	}
}

// TestStdioCancel checks notifications/cancelled (R-CANCEL-01, R-CANCEL-02,
// R-CANCEL-03, R-STDIO-04).
func TestStdioCancel(t *testing.T) {
	t.Run("R-CANCEL-01 cancelled request: handler stops, no response", func(t *testing.T) {
		f := newStdioFixture(t)
		ss := StartStdio(t, f.Server)
		ss.Send(string(Rpc("c1", protocol.MethodToolsCall, WithMeta(Meta("progressToken", "t"), M{"name": "slow"}))))
		if w := ss.Recv(); w.Method() != protocol.MethodNotificationsProgress {
			t.Fatalf("want the first progress: %s", w.Raw)
		}
		f.waitStarted(t)
		ss.Send(`{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":"c1","reason":"user"}}`)
		deadline := time.Now().Add(5 * time.Second)
		for f.cancelled.Load() == 0 && time.Now().Before(deadline) {
			time.Sleep(time.Millisecond)
		}
		if f.cancelled.Load() != 1 {
			t.Fatal("the handler's context was not cancelled")
		}
		ss.Send(callLine(5, "echo", M{"text": "after"}))
		if w := ss.Recv(); w.Id() != "5" {
			t.Fatalf("R-STDIO-04: got %s, want only the next request's response", w.Raw)
		}
		rest, err := ss.Close()
		if err != nil {
			t.Fatal(err)
		}
		for _, w := range rest {
			t.Errorf("R-STDIO-04: written after cancellation: %s", w.Raw)
		}
		if f.late.Load() {
			t.Error("R-STDIO-04: progress sent after cancellation")
		}
	})
	t.Run("R-CANCEL-01 a cancellation right behind its request is not lost", func(t *testing.T) {
		for i := 0; i < 5; i++ {
			f := newStdioFixture(t)
			msgs := Stdio(t, f.Server,
				callLine(1, "nap", nil), // ignores its context, answers after 100 ms
				`{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":1}}`,
				callLine(2, "echo", M{"text": "x"}))
			if len(msgs) != 1 || msgs[0].Id() != "2" {
				for _, m := range msgs {
					t.Logf("got %s", m.Raw)
				}
				t.Fatal("R-STDIO-04: the cancelled request was answered")
			}
		}
	})
	t.Run("R-CANCEL-02 unknown, mistyped and malformed cancellations are ignored", func(t *testing.T) {
		f := newStdioFixture(t)
		ss := StartStdio(t, f.Server)
		ss.Send(callLine("1", "slow", nil)) // string id "1"
		f.waitStarted(t)
		for _, l := range []string{
			`{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":999}}`,
			`{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":1}}`, // integer 1 is not "1"
			`{"jsonrpc":"2.0","method":"notifications/cancelled","params":{}}`,
			`{"jsonrpc":"2.0","method":"notifications/cancelled"}`,
			`{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":null}}`,
		} {
			ss.Send(l)
		}
		ss.Send(callLine(2, "echo", M{"text": "alive"}))
		if w := ss.Recv(); w.Id() != "2" {
			t.Fatalf("got %s", w.Raw)
		}
		if f.cancelled.Load() != 0 {
			t.Error("a request was cancelled by a cancellation naming another id")
		}
		close(f.release)
		if w := ss.Recv(); w.Id() != `"1"` || w.Text(t, 0) != "slow done" {
			t.Errorf("got %s", w.Raw)
		}
		if rest, err := ss.Close(); err != nil || len(rest) != 0 {
			t.Errorf("close: %v %v", err, rest)
		}
	})
	t.Run("R-CANCEL-03 cancellation after the response is harmless", func(t *testing.T) {
		f := newStdioFixture(t)
		ss := StartStdio(t, f.Server)
		ss.Send(callLine(1, "echo", M{"text": "x"}))
		if w := ss.Recv(); w.Id() != "1" {
			t.Fatal(w.Raw)
		}
		ss.Send(`{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":1}}`)
		ss.Send(callLine(1, "echo", M{"text": "reused id"}))
		if w := ss.Recv(); w.Text(t, 0) != "reused id" {
			t.Fatal(w.Raw)
		}
		if rest, err := ss.Close(); err != nil || len(rest) != 0 {
			t.Errorf("close: %v %v", err, rest)
		}
	})
	t.Run("a request whose argument mentions notifications/cancelled is served", func(t *testing.T) {
		msgs := Stdio(t, Fixture(t), callLine(1, "echo", M{"text": "notifications/cancelled"}))
		if len(msgs) != 1 || msgs[0].Text(t, 0) != "notifications/cancelled" {
			t.Errorf("%v", msgs)
		}
	})
}

// TestStdioShutdown checks end of input (R-STDIO-05): running handlers
// finish and are answered; handlers that outlive WithShutdownTimeout are
// cancelled and answer nothing; a read error is returned.
func TestStdioShutdown(t *testing.T) {
	t.Run("EOF waits for running handlers", func(t *testing.T) {
		f := newStdioFixture(t)
		start := time.Now()
		msgs := Stdio(t, f.Server, callLine(1, "nap", nil), callLine(2, "echo", M{"text": "x"}))
		if time.Since(start) < 100*time.Millisecond {
			t.Error("ServeStdio returned before the handler finished")
		}
		if len(msgs) != 2 {
			t.Fatalf("%d messages", len(msgs))
		}
	})
	t.Run("handlers past WithShutdownTimeout are cancelled and silent", func(t *testing.T) {
		f := newStdioFixture(t, server.WithShutdownTimeout(50*time.Millisecond))
		start := time.Now()
		msgs := Stdio(t, f.Server, callLine(1, "slow", nil), callLine(2, "echo", M{"text": "x"}))
		if d := time.Since(start); d > 3*time.Second {
			t.Errorf("took %v", d)
		}
		if f.cancelled.Load() != 1 {
			t.Error("the slow handler was not cancelled")
		}
		for _, m := range msgs {
			if m.Id() == "1" {
				t.Errorf("R-STDIO-04: response for a cancelled request: %s", m.Raw)
			}
		}
	})
	t.Run("a read error is returned", func(t *testing.T) {
		boom := errors.New("stdin exploded")
		r := io.MultiReader(strings.NewReader(string(Rpc(1, protocol.MethodServerDiscover, Params(nil)))+"\n"), &errReader{boom})
		var out strings.Builder
		if err := ServeStdio(context.Background(), Fixture(t), r, &out); !errors.Is(err, boom) {
			t.Errorf("err %v", err)
		}
		if !strings.Contains(out.String(), `"id":1`) {
			t.Errorf("the line before the error was not served: %q", out.String())
		}
	})
	t.Run("context cancellation returns while input stays open", func(t *testing.T) {
		f := newStdioFixture(t)
		ss := StartStdio(t, f.Server)
		ss.Send(callLine(1, "slow", nil))
		f.waitStarted(t)
		ss.Cancel()
		select {
		case err := <-ss.Done:
			if err != nil && !errors.Is(err, context.Canceled) {
				t.Errorf("err %v", err)
			}
		case <-time.After(3 * time.Second):
			t.Fatal("ServeStdio did not return after its context was cancelled")
		}
		if f.cancelled.Load() != 1 {
			t.Error("running handler not cancelled")
		}
		for l := range ss.Lines {
			w := CheckStdioLine(t, l)
			if w.HasID() {
				t.Errorf("response after cancellation: %s", l)
			}
		}
	})
}

type errReader struct{ err error }

func (e *errReader) Read([]byte) (int, error) { return 0, e.err }

// TestOneMessagePerLine checks that raw JSON kept as written (a
// pretty-printed schema, structuredContent, log data, error data) never
// breaks the one-message-per-line framing of stdio (R-STDIO-01) or the
// one-data-line events of SSE.
func TestOneMessagePerLine(t *testing.T) {
	s := NewServer(t)
	AddTool(t, s, "{\"name\":\"pretty\",\"inputSchema\":{\n\t\"type\": \"object\",\r\n\t\"properties\": {\"a\": {\"type\": \"string\", \"description\": \"multi\\nline\"}}\n},\n\"outputSchema\": {\n\"type\": \"object\"\n}}",
		func(ctx context.Context, r *server.Request, _ json.RawMessage) (*protocol.CallToolResult, error) {
			r.Log(ctx, protocol.LoggingLevelError, "", json.RawMessage("{\n  \"detail\": \"x\\ny\"\n}"))
			return &protocol.CallToolResult{Content: []protocol.ContentBlock{server.Text("line1\nline2")}, StructuredContent: json.RawMessage("{\n  \"ok\": true\n}")}, nil
		})
	AddTool(t, s, `{"name":"prettyerr","inputSchema":{"type":"object"}}`, func(context.Context, *server.Request, json.RawMessage) (*protocol.CallToolResult, error) {
		return nil, &server.Error{Code: protocol.CodeInvalidParamsError, Message: "bad", Data: json.RawMessage("{\n\"why\": 1\n}")}
	})
	lines := []string{
		string(Rpc(1, protocol.MethodToolsList, Params(nil))),
		string(Rpc(2, protocol.MethodToolsCall, WithMeta(Meta(KeyLogLevel, "debug"), M{"name": "pretty"}))),
		string(Rpc(3, protocol.MethodToolsCall, Params(M{"name": "prettyerr"}))),
	}
	msgs := Stdio(t, s, lines...) // fails on any line that is not one JSON message
	if len(msgs) != 4 {
		t.Fatalf("R-STDIO-01: %d messages, want 4 (the list, a log, a result, an error)", len(msgs))
	}
	for _, m := range msgs {
		if m.Id() == "2" && m.Text(t, 0) != "line1\nline2" {
			t.Errorf("text changed: %q", m.Text(t, 0))
		}
	}
	rec := Post(t, Handler(s, streamhttp.Options{}), []byte(lines[1]), nil)
	body := rec.Body.String()
	events := strings.Split(strings.TrimSuffix(body, "\n\n"), "\n\n")
	if len(events) != 2 {
		t.Fatalf("%d events: %q", len(events), body)
	}
	for _, ev := range events {
		if n := strings.Count(ev, "\n"); n != 1 {
			t.Errorf("event is not one event line and one data line: %q", ev)
		}
	}
}
