package server

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"io"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/mcpwire/mcpwire/protocol"
)

// session drives ServeStdio through pipes.
type session struct {
	t testing.TB
	// bridge allows the input bridge's server-to-client requests
	// (mcpwire-* ids) of a legacy session: R-STDIO-03 holds for modern
	// requests only (docs/dual-era.md §5).
	bridge bool
	in     *io.PipeWriter
	lines  chan string
	done   chan error
	cancel context.CancelFunc
}

func startStdio(t testing.TB, s *Server) *session {
	t.Helper()
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	ctx, cancel := context.WithCancel(context.Background())
	ss := &session{t: t, in: inW, lines: make(chan string, 100), done: make(chan error, 1), cancel: cancel}
	go func() {
		err := s.ServeStdio(ctx, inR, outW)
		outW.Close()
		ss.done <- err
	}()
	go func() {
		sc := bufio.NewScanner(outR)
		sc.Buffer(nil, 1<<20)
		for sc.Scan() {
			ss.lines <- sc.Text()
		}
		close(ss.lines)
	}()
	t.Cleanup(func() {
		cancel()
		inW.Close()
	})
	return ss
}

func (ss *session) send(line string) {
	ss.t.Helper()
	if _, err := io.WriteString(ss.in, line+"\n"); err != nil {
		ss.t.Fatalf("write: %v", err)
	}
}

// recv returns the next message, failing after a timeout.
func (ss *session) recv() *wire {
	ss.t.Helper()
	select {
	case l, ok := <-ss.lines:
		if !ok {
			ss.t.Fatal("stdout closed")
		}
		return checkStdioLineBridge(ss.t, l, ss.bridge)
	case <-time.After(5 * time.Second):
		ss.t.Fatal("no message within 5 s")
	}
	return nil
}

// close ends input and returns what was written after the last recv and
// ServeStdio's result.
func (ss *session) close() ([]*wire, error) {
	ss.t.Helper()
	ss.in.Close()
	var rest []*wire
	for l := range ss.lines {
		rest = append(rest, checkStdioLineBridge(ss.t, l, ss.bridge))
	}
	select {
	case err := <-ss.done:
		return rest, err
	case <-time.After(5 * time.Second):
		ss.t.Fatal("ServeStdio did not return")
	}
	return nil, nil
}

// checkStdioLine checks one stdout line is one JSON-RPC message
// (R-STDIO-01/02) that is not a request (R-STDIO-03, R-BASE-11).
func checkStdioLine(t testing.TB, l string) *wire {
	t.Helper()
	return checkStdioLineBridge(t, l, false)
}

// checkStdioLineBridge is checkStdioLine, allowing the input bridge's
// requests when bridge is set.
func checkStdioLineBridge(t testing.TB, l string, bridge bool) *wire {
	t.Helper()
	if !json.Valid([]byte(l)) {
		t.Fatalf("R-STDIO-02: stdout line is not JSON: %q", l)
	}
	w := decodeWire(t, []byte(l))
	if w.hasID() && w.method() != "" && !(bridge && strings.HasPrefix(w.id(), `"mcpwire-`)) {
		t.Fatalf("R-STDIO-03: a request on stdout: %s", l)
	}
	return w
}

// stdioFixture adds a slow tool (blocks until release is closed or its
// context ends, then reports), a counter of cancelled calls, and a
// progress-sending tool to the fixture.
type stdioFixture struct {
	*Server
	started   chan string
	release   chan struct{}
	cancelled atomic.Int64
	late      atomic.Bool
}

func newStdioFixture(t testing.TB, opts ...Option) *stdioFixture {
	t.Helper()
	f := &stdioFixture{Server: fixture(t, opts...), started: make(chan string, 10), release: make(chan struct{})}
	addTool(t, f.Server, `{"name":"slow","inputSchema":{"type":"object"}}`, func(ctx context.Context, r *Request, _ json.RawMessage) (*protocol.CallToolResult, error) {
		r.Progress(ctx, 1, 0, "")
		f.started <- r.ID.String()
		select {
		case <-f.release:
			return TextResult("slow done"), nil
		case <-ctx.Done():
			f.cancelled.Add(1)
			if r.Progress(context.Background(), 2, 0, "") {
				f.late.Store(true)
			}
			return TextResult("cancelled but answering anyway"), nil
		}
	})
	addTool(t, f.Server, `{"name":"nap","inputSchema":{"type":"object"}}`, func(context.Context, *Request, json.RawMessage) (*protocol.CallToolResult, error) {
		time.Sleep(100 * time.Millisecond)
		return TextResult("rested"), nil
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
	p := params(M{"name": name})
	if args != nil {
		p["arguments"] = args
	}
	return string(rpc(id, protocol.MethodToolsCall, p))
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
	discover := string(rpc(1, protocol.MethodServerDiscover, params(nil)))
	cases := []struct {
		name  string
		opts  []Option
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
		{"R-TOOL-09 name not a string is -32602 on stdio", nil, string(rpc(4, protocol.MethodToolsCall, params(M{"name": 5}))) + "\n", []want{{id: "4", code: protocol.CodeInvalidParamsError}}},
		{"R-META-01 _meta missing is -32602", nil, string(rpc(5, protocol.MethodToolsList, M{})) + "\n", []want{{id: "5", code: protocol.CodeInvalidParamsError}}},
		{"R-VER-01 discover with an unsupported version is -32022", nil, string(rpc(6, protocol.MethodServerDiscover, withMeta(M{keyVersion: "1900-01-01", keyCaps: M{}}, nil))) + "\n",
			[]want{{id: "6", code: protocol.CodeUnsupportedProtocolVersionError}}},
		{"R-VER-05 initialize is -32601 (ErasModern; ErasBoth opens a session)", []Option{WithEras(ErasModern)}, string(rpc(7, "initialize", M{"protocolVersion": "2025-11-25"})) + "\n", []want{{id: "7", code: protocol.CodeMethodNotFoundError}}},
		{"R-STATE-01 interleaved versions on one stream", nil,
			discover + "\n" + string(rpc(2, protocol.MethodServerDiscover, withMeta(M{keyVersion: "2025-11-25", keyCaps: M{}}, nil))) + "\n" + string(rpc(3, protocol.MethodServerDiscover, params(nil))) + "\n",
			[]want{{id: "1"}, {id: "2", code: protocol.CodeUnsupportedProtocolVersionError}, {id: "3"}}},
		{"line of exactly WithMaxStdioLine bytes is served", []Option{WithMaxStdioLine(len(discover))}, discover + "\n", []want{{id: "1"}}},
		{"line of exactly WithMaxStdioLine bytes with CRLF is served", []Option{WithMaxStdioLine(len(discover))}, discover + "\r\n", []want{{id: "1"}}},
		{"line over WithMaxStdioLine is refused, next line served", []Option{WithMaxStdioLine(len(discover) - 1)},
			discover + "\n" + `{"jsonrpc":"2.0","id":2,"method":"server/discover"}` + "\n",
			[]want{{code: protocol.CodeInvalidRequestError}, {id: "2", code: protocol.CodeInvalidParamsError}}},
		{"a very long line is refused without being kept", []Option{WithMaxStdioLine(1000)},
			`{"jsonrpc":"2.0","id":1,"method":"x","params":{"pad":"` + strings.Repeat("x", 200000) + `"}}` + "\n" + discover + "\n",
			[]want{{code: protocol.CodeInvalidRequestError}, {id: "1"}}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			s := fixture(t, c.opts...)
			var out strings.Builder
			if err := s.ServeStdio(context.Background(), strings.NewReader(c.input), &out); err != nil {
				t.Fatal(err)
			}
			text := out.String()
			if text != "" && !strings.HasSuffix(text, "\n") {
				t.Errorf("R-STDIO-01: output does not end with a newline: %q", text)
			}
			var got []*wire
			for _, l := range strings.Split(strings.TrimSuffix(text, "\n"), "\n") {
				if l != "" {
					got = append(got, checkStdioLine(t, l))
				}
			}
			if len(got) != len(c.want) {
				t.Fatalf("%d messages, want %d: %q", len(got), len(c.want), text)
			}
			used := make([]bool, len(got))
			for _, wnt := range c.want {
				found := false
				for i, g := range got {
					if used[i] || g.id() != wnt.id || g.code() != wnt.code {
						continue
					}
					if wnt.text != "" && g.text(t, 0) != wnt.text {
						continue
					}
					used[i], found = true, true
					checkCode(t, g.code())
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
	ss := startStdio(t, f.Server)
	ss.send(callLine(1, "slow", nil))
	f.waitStarted(t)
	ss.send(callLine(2, "echo", M{"text": "fast"}))
	if w := ss.recv(); w.id() != "2" || w.text(t, 0) != "fast" {
		t.Fatalf("first response %s, want the fast one", w.raw)
	}
	close(f.release)
	if w := ss.recv(); w.id() != "1" || w.text(t, 0) != "slow done" {
		t.Fatalf("second response %s", w.raw)
	}
	if rest, err := ss.close(); err != nil || len(rest) != 0 {
		t.Errorf("close: %v %v", err, rest)
	}
}

// TestStdioNotifications checks that a request's notifications precede
// its response on stdout.
func TestStdioNotifications(t *testing.T) {
	s := newServer(t)
	var last *Request
	var mu sync.Mutex
	scriptTool(t, s, &last, &mu)
	line := string(rpc(1, protocol.MethodToolsCall, withMeta(meta("progressToken", "p", keyLogLevel, "error"), M{"name": "script", "arguments": M{"steps": []any{
		step("progress", 1.0, 0.0, ""), step("log", "info"), step("log", "error"), step("progress", 2.0, 0.0, "")}}})))
	msgs := stdio(t, s, line)
	var got []string
	for _, m := range msgs {
		if m.hasID() {
			got = append(got, "response")
		} else {
			got = append(got, m.method())
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
		ss := startStdio(t, f.Server)
		ss.send(string(rpc("c1", protocol.MethodToolsCall, withMeta(meta("progressToken", "t"), M{"name": "slow"}))))
		if w := ss.recv(); w.method() != protocol.MethodNotificationsProgress {
			t.Fatalf("want the first progress: %s", w.raw)
		}
		f.waitStarted(t)
		ss.send(`{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":"c1","reason":"user"}}`)
		deadline := time.Now().Add(5 * time.Second)
		for f.cancelled.Load() == 0 && time.Now().Before(deadline) {
			time.Sleep(time.Millisecond)
		}
		if f.cancelled.Load() != 1 {
			t.Fatal("the handler's context was not cancelled")
		}
		ss.send(callLine(5, "echo", M{"text": "after"}))
		if w := ss.recv(); w.id() != "5" {
			t.Fatalf("R-STDIO-04: got %s, want only the next request's response", w.raw)
		}
		rest, err := ss.close()
		if err != nil {
			t.Fatal(err)
		}
		for _, w := range rest {
			t.Errorf("R-STDIO-04: written after cancellation: %s", w.raw)
		}
		if f.late.Load() {
			t.Error("R-STDIO-04: progress sent after cancellation")
		}
	})
	t.Run("R-CANCEL-01 a cancellation right behind its request is not lost", func(t *testing.T) {
		for i := 0; i < 5; i++ {
			f := newStdioFixture(t)
			msgs := stdio(t, f.Server,
				callLine(1, "nap", nil), // ignores its context, answers after 100 ms
				`{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":1}}`,
				callLine(2, "echo", M{"text": "x"}))
			if len(msgs) != 1 || msgs[0].id() != "2" {
				for _, m := range msgs {
					t.Logf("got %s", m.raw)
				}
				t.Fatal("R-STDIO-04: the cancelled request was answered")
			}
		}
	})
	t.Run("R-CANCEL-02 unknown, mistyped and malformed cancellations are ignored", func(t *testing.T) {
		f := newStdioFixture(t)
		ss := startStdio(t, f.Server)
		ss.send(callLine("1", "slow", nil)) // string id "1"
		f.waitStarted(t)
		for _, l := range []string{
			`{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":999}}`,
			`{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":1}}`, // integer 1 is not "1"
			`{"jsonrpc":"2.0","method":"notifications/cancelled","params":{}}`,
			`{"jsonrpc":"2.0","method":"notifications/cancelled"}`,
			`{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":null}}`,
		} {
			ss.send(l)
		}
		ss.send(callLine(2, "echo", M{"text": "alive"}))
		if w := ss.recv(); w.id() != "2" {
			t.Fatalf("got %s", w.raw)
		}
		if f.cancelled.Load() != 0 {
			t.Error("a request was cancelled by a cancellation naming another id")
		}
		close(f.release)
		if w := ss.recv(); w.id() != `"1"` || w.text(t, 0) != "slow done" {
			t.Errorf("got %s", w.raw)
		}
		if rest, err := ss.close(); err != nil || len(rest) != 0 {
			t.Errorf("close: %v %v", err, rest)
		}
	})
	t.Run("R-CANCEL-03 cancellation after the response is harmless", func(t *testing.T) {
		f := newStdioFixture(t)
		ss := startStdio(t, f.Server)
		ss.send(callLine(1, "echo", M{"text": "x"}))
		if w := ss.recv(); w.id() != "1" {
			t.Fatal(w.raw)
		}
		ss.send(`{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":1}}`)
		ss.send(callLine(1, "echo", M{"text": "reused id"}))
		if w := ss.recv(); w.text(t, 0) != "reused id" {
			t.Fatal(w.raw)
		}
		if rest, err := ss.close(); err != nil || len(rest) != 0 {
			t.Errorf("close: %v %v", err, rest)
		}
	})
	t.Run("a request whose argument mentions notifications/cancelled is served", func(t *testing.T) {
		msgs := stdio(t, fixture(t), callLine(1, "echo", M{"text": "notifications/cancelled"}))
		if len(msgs) != 1 || msgs[0].text(t, 0) != "notifications/cancelled" {
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
		msgs := stdio(t, f.Server, callLine(1, "nap", nil), callLine(2, "echo", M{"text": "x"}))
		if time.Since(start) < 100*time.Millisecond {
			t.Error("ServeStdio returned before the handler finished")
		}
		if len(msgs) != 2 {
			t.Fatalf("%d messages", len(msgs))
		}
	})
	t.Run("handlers past WithShutdownTimeout are cancelled and silent", func(t *testing.T) {
		f := newStdioFixture(t, WithShutdownTimeout(50*time.Millisecond))
		start := time.Now()
		msgs := stdio(t, f.Server, callLine(1, "slow", nil), callLine(2, "echo", M{"text": "x"}))
		if d := time.Since(start); d > 3*time.Second {
			t.Errorf("took %v", d)
		}
		if f.cancelled.Load() != 1 {
			t.Error("the slow handler was not cancelled")
		}
		for _, m := range msgs {
			if m.id() == "1" {
				t.Errorf("R-STDIO-04: response for a cancelled request: %s", m.raw)
			}
		}
	})
	t.Run("a read error is returned", func(t *testing.T) {
		boom := errors.New("stdin exploded")
		r := io.MultiReader(strings.NewReader(string(rpc(1, protocol.MethodServerDiscover, params(nil)))+"\n"), &errReader{boom})
		var out strings.Builder
		if err := fixture(t).ServeStdio(context.Background(), r, &out); !errors.Is(err, boom) {
			t.Errorf("err %v", err)
		}
		if !strings.Contains(out.String(), `"id":1`) {
			t.Errorf("the line before the error was not served: %q", out.String())
		}
	})
	t.Run("context cancellation returns while input stays open", func(t *testing.T) {
		f := newStdioFixture(t)
		ss := startStdio(t, f.Server)
		ss.send(callLine(1, "slow", nil))
		f.waitStarted(t)
		ss.cancel()
		select {
		case err := <-ss.done:
			if err != nil && !errors.Is(err, context.Canceled) {
				t.Errorf("err %v", err)
			}
		case <-time.After(3 * time.Second):
			t.Fatal("ServeStdio did not return after its context was cancelled")
		}
		if f.cancelled.Load() != 1 {
			t.Error("running handler not cancelled")
		}
		for l := range ss.lines {
			w := checkStdioLine(t, l)
			if w.hasID() {
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
	s := newServer(t)
	addTool(t, s, "{\"name\":\"pretty\",\"inputSchema\":{\n\t\"type\": \"object\",\r\n\t\"properties\": {\"a\": {\"type\": \"string\", \"description\": \"multi\\nline\"}}\n},\n\"outputSchema\": {\n\"type\": \"object\"\n}}",
		func(ctx context.Context, r *Request, _ json.RawMessage) (*protocol.CallToolResult, error) {
			r.Log(ctx, protocol.LoggingLevelError, "", json.RawMessage("{\n  \"detail\": \"x\\ny\"\n}"))
			return &protocol.CallToolResult{Content: []protocol.ContentBlock{Text("line1\nline2")}, StructuredContent: json.RawMessage("{\n  \"ok\": true\n}")}, nil
		})
	addTool(t, s, `{"name":"prettyerr","inputSchema":{"type":"object"}}`, func(context.Context, *Request, json.RawMessage) (*protocol.CallToolResult, error) {
		return nil, &Error{Code: protocol.CodeInvalidParamsError, Message: "bad", Data: json.RawMessage("{\n\"why\": 1\n}")}
	})
	lines := []string{
		string(rpc(1, protocol.MethodToolsList, params(nil))),
		string(rpc(2, protocol.MethodToolsCall, withMeta(meta(keyLogLevel, "debug"), M{"name": "pretty"}))),
		string(rpc(3, protocol.MethodToolsCall, params(M{"name": "prettyerr"}))),
	}
	msgs := stdio(t, s, lines...) // fails on any line that is not one JSON message
	if len(msgs) != 4 {
		t.Fatalf("R-STDIO-01: %d messages, want 4 (the list, a log, a result, an error)", len(msgs))
	}
	for _, m := range msgs {
		if m.id() == "2" && m.text(t, 0) != "line1\nline2" {
			t.Errorf("text changed: %q", m.text(t, 0))
		}
	}
	rec := post(t, s.Handler(HTTPOptions{}), []byte(lines[1]), nil)
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
