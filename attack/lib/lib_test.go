//go:build attack

// Package lib holds hostile-review probes of the server package's new API
// (middleware, LogRequests, LogHandler, notification _meta, raw schemas).
// Each test states what it checks; a failing test is a finding.
package lib

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/mcpwire/mcpwire/protocol"
	"github.com/mcpwire/mcpwire/server"
)

const meta = `"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientInfo":{"name":"atk","version":"1"},"io.modelcontextprotocol/clientCapabilities":{}`

// syncBuf is a goroutine-safe log sink.
type syncBuf struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuf) Write(p []byte) (int, error) { s.mu.Lock(); defer s.mu.Unlock(); return s.b.Write(p) }
func (s *syncBuf) String() string              { s.mu.Lock(); defer s.mu.Unlock(); return s.b.String() }

func post(t *testing.T, url, body string, hdr map[string]string) (int, http.Header, string) {
	t.Helper()
	req, _ := http.NewRequest(http.MethodPost, url, strings.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	for k, v := range hdr {
		req.Header.Set(k, v)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, resp.Header, string(b)
}

func modernHdr(method, name string) map[string]string {
	h := map[string]string{"MCP-Protocol-Version": "2026-07-28", "Mcp-Method": method}
	if name != "" {
		h["Mcp-Name"] = name
	}
	return h
}

// TestLogHandlerDivertsServerLogs: a handler's r.Logger().Warn goes to the
// client INSTEAD of the server's log when the client asks for logLevel
// debug; so a client decides whether the operator sees the handler's
// records (an audit line, say).
func TestLogHandlerDivertsServerLogs(t *testing.T) {
	var sl syncBuf
	s, err := server.New(protocol.Implementation{Name: "x", Version: "1"}, server.WithLogger(slog.New(slog.NewTextHandler(&sl, nil))))
	if err != nil {
		t.Fatal(err)
	}
	err = s.AddTool(protocol.Tool{Name: "del", InputSchema: server.MustInputSchema(`{"type":"object"}`)},
		func(ctx context.Context, r *server.Request, _ json.RawMessage) (*protocol.CallToolResult, error) {
			r.Logger().Warn("AUDIT deleted everything", "who", r.Principal)
			return server.TextResult("ok"), nil
		})
	if err != nil {
		t.Fatal(err)
	}
	hs := httptest.NewServer(s.Handler(server.HTTPOptions{}))
	defer hs.Close()
	m := strings.Replace(meta, `"_meta":{`, `"_meta":{"io.modelcontextprotocol/logLevel":"debug",`, 1)
	_, _, body := post(t, hs.URL, `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"del","arguments":{},`+m+`}}}`, modernHdr("tools/call", "del"))
	t.Logf("client got: %s", body)
	if !strings.Contains(sl.String(), "AUDIT") {
		t.Errorf("server log lacks the handler's Warn record (client asked logLevel=debug and got it instead); server log: %q", sl.String())
	}
}

// TestLogRequestsTextInjection: tool name and id with newlines over stdio
// (no Mcp-Name header there) must not forge log lines in a TextHandler.
func TestLogRequestsTextInjection(t *testing.T) {
	var lb syncBuf
	s, err := server.New(protocol.Implementation{Name: "x", Version: "1"},
		server.WithMiddleware(server.LogRequests(slog.New(slog.NewTextHandler(&lb, nil)), server.RequestLogOptions{})))
	if err != nil {
		t.Fatal(err)
	}
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	go func() { _ = s.ServeStdio(ctx, inR, outW) }()
	sc := bufio.NewScanner(outR)
	line := `{"jsonrpc":"2.0","id":"1\nlevel=ERROR msg=forged","method":"tools/call","params":{"name":"a\ntime=x level=ERROR msg=forged","arguments":{},` + meta + `}}}` + "\n"
	go func() { _, _ = io.WriteString(inW, line) }()
	if !sc.Scan() {
		t.Fatal("no answer")
	}
	t.Logf("answer: %s", sc.Text())
	time.Sleep(100 * time.Millisecond)
	out := lb.String()
	t.Logf("log: %s", out)
	if n := strings.Count(strings.TrimRight(out, "\n"), "\n"); n != 0 {
		t.Errorf("one request wrote %d+1 log lines", n)
	}
}

// TestMiddlewareCoverage counts the middleware's calls per transport/era:
// every tools/call that reaches the handler must have passed it.
func TestMiddlewareCoverage(t *testing.T) {
	var mw, handled atomic.Int64
	s, err := server.New(protocol.Implementation{Name: "x", Version: "1"},
		server.WithMiddleware(func(next server.Handler) server.Handler {
			return func(ctx context.Context, r *server.Request) (server.Result, error) {
				if r.Method == "tools/call" {
					mw.Add(1)
				}
				return next(ctx, r)
			}
		}))
	if err != nil {
		t.Fatal(err)
	}
	_ = s.AddTool(protocol.Tool{Name: "t", InputSchema: server.MustInputSchema(`{"type":"object"}`)},
		func(ctx context.Context, r *server.Request, _ json.RawMessage) (*protocol.CallToolResult, error) {
			handled.Add(1)
			return server.TextResult("ok"), nil
		})
	hs := httptest.NewServer(s.Handler(server.HTTPOptions{}))
	defer hs.Close()
	// modern HTTP
	post(t, hs.URL, `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"t","arguments":{},`+meta+`}}}`, modernHdr("tools/call", "t"))
	// header mismatch: must not reach middleware
	st, _, b := post(t, hs.URL, `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"t","arguments":{},`+meta+`}}}`, modernHdr("tools/call", "other"))
	t.Logf("mismatch: %d %s", st, b)
	// legacy session + batch of two calls
	_, h, b := post(t, hs.URL, `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-03-26","capabilities":{},"clientInfo":{"name":"l","version":"1"}}}`, nil)
	sid := h.Get("Mcp-Session-Id")
	t.Logf("init: %s sid=%q", b[:min(len(b), 120)], sid)
	lh := map[string]string{"Mcp-Session-Id": sid, "MCP-Protocol-Version": "2025-03-26"}
	post(t, hs.URL, `{"jsonrpc":"2.0","method":"notifications/initialized"}`, lh)
	st, _, b = post(t, hs.URL, `[{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"t","arguments":{}}},{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"t","arguments":{}}}]`, lh)
	t.Logf("batch: %d %s", st, b[:min(len(b), 300)])
	// stdio modern + legacy
	for _, lines := range [][]string{
		{`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"t","arguments":{},` + meta + `}}}`},
		{`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"l","version":"1"}}}`,
			`{"jsonrpc":"2.0","method":"notifications/initialized"}`,
			`[{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"t","arguments":{}}}]`,
			`{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"t","arguments":{}}}`},
	} {
		in := strings.Join(lines, "\n") + "\n"
		var out bytes.Buffer
		ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
		_ = s.ServeStdio(ctx, strings.NewReader(in), &out)
		cancel()
		t.Logf("stdio: %s", out.String())
	}
	t.Logf("middleware saw %d tools/call, handler ran %d", mw.Load(), handled.Load())
	if mw.Load() != handled.Load() {
		t.Errorf("handler ran %d times but middleware saw %d", handled.Load(), mw.Load())
	}
}

// TestNotificationMetaReservedPrefixes: WithNotificationMeta filters only
// io.modelcontextprotocol/; MCP reserves every prefix whose second label is
// modelcontextprotocol or mcp (e.g. dev.mcp/, modelcontextprotocol.io/).
func TestNotificationMetaReservedPrefixes(t *testing.T) {
	s, _ := server.New(protocol.Implementation{Name: "x", Version: "1"},
		server.WithNotificationMeta(func(ctx context.Context, set func(k, v string)) {
			set("io.modelcontextprotocol/subscriptionId", "evil")
			set("dev.mcp/x", "reserved")
			set("traceparent", "00-abc")
		}))
	_ = s.AddTool(protocol.Tool{Name: "t", InputSchema: server.MustInputSchema(`{"type":"object"}`)},
		func(ctx context.Context, r *server.Request, _ json.RawMessage) (*protocol.CallToolResult, error) {
			r.Progress(ctx, 1, 2, "half")
			return server.TextResult("ok"), nil
		})
	hs := httptest.NewServer(s.Handler(server.HTTPOptions{}))
	defer hs.Close()
	m := strings.Replace(meta, `"_meta":{`, `"_meta":{"progressToken":"p1",`, 1)
	_, _, b := post(t, hs.URL, `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"t","arguments":{},`+m+`}}}`, modernHdr("tools/call", "t"))
	t.Logf("%s", b)
	if strings.Contains(b, "evil") {
		t.Errorf("protocol key overwritten")
	}
	if strings.Contains(b, "dev.mcp/x") {
		t.Logf("INFO: reserved prefix dev.mcp/ passes the filter")
	}
}

// TestDuplicateRegistrationRace: 64 goroutines AddTool the same name;
// exactly one must win.
func TestDuplicateRegistrationRace(t *testing.T) {
	s, _ := server.New(protocol.Implementation{Name: "x", Version: "1"})
	var ok atomic.Int64
	var wg sync.WaitGroup
	for i := 0; i < 64; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if s.AddTool(protocol.Tool{Name: "dup", InputSchema: server.MustInputSchema(`{"type":"object"}`)},
				func(context.Context, *server.Request, json.RawMessage) (*protocol.CallToolResult, error) {
					return server.TextResult("ok"), nil
				}) == nil {
				ok.Add(1)
			}
		}()
	}
	wg.Wait()
	if ok.Load() != 1 {
		t.Errorf("%d registrations succeeded", ok.Load())
	}
}

// TestRawSchemaHostile: inputs that might panic or hang InputSchema.
func TestRawSchemaHostile(t *testing.T) {
	cases := map[string]string{
		"deep":        `{"type":"object","properties":{"a":` + strings.Repeat(`{"items":`, 5000) + `{}` + strings.Repeat(`}`, 5000) + `}}`,
		"hugeexp":     `{"type":"object","properties":{"n":{"multipleOf":1e99999999}}}`,
		"hugeexpneg":  `{"type":"object","properties":{"n":{"multipleOf":1e-99999999}}}`,
		"hugemin":     `{"type":"object","properties":{"n":{"minimum":1e999999999999}}}`,
		"refloop":     `{"type":"object","$defs":{"a":{"$ref":"#/$defs/b"},"b":{"$ref":"#/$defs/a"}},"properties":{"x":{"$ref":"#/$defs/a"}}}`,
		"remoteref":   `{"type":"object","properties":{"x":{"$ref":"http://127.0.0.1:1/x.json"}}}`,
		"fileref":     `{"type":"object","properties":{"x":{"$ref":"file:///etc/passwd"}}}`,
		"draft4":      `{"$schema":"http://json-schema.org/draft-04/schema#","type":"object","properties":{"x":{"$ref":"#/definitions/s","type":"integer"}},"definitions":{"s":{"type":"string"}}}`,
		"pattern":     `{"type":"object","properties":{"x":{"type":"string","pattern":"` + strings.Repeat("(a*)*", 2000) + `"}}}`,
		"hugerepeat":  `{"type":"object","properties":{"x":{"type":"string","pattern":"((a{1000}){1000}){1000}"}}}`,
		"dupkeys":     `{"type":"object","type":"string"}`,
		"typearray":   `{"type":["object"]}`,
		"nullschema":  `null`,
		"trailing":    `{"type":"object"} {}`,
		"idremote":    `{"$id":"http://evil.example/s","type":"object","properties":{"x":{"$ref":"other.json"}}}`,
		"vocabulary":  `{"$schema":"http://evil.example/meta","type":"object"}`,
		"anchorcycle": `{"type":"object","$dynamicRef":"#meta","$dynamicAnchor":"meta"}`,
	}
	for name, raw := range cases {
		done := make(chan struct{})
		var err error
		go func() {
			defer func() {
				if p := recover(); p != nil {
					t.Errorf("%s: panic %v", name, p)
				}
				close(done)
			}()
			_, err = server.InputSchema(raw)
		}()
		select {
		case <-done:
			es := ""
			if err != nil {
				es = err.Error()
			}
			t.Logf("%s: err=%.200s", name, es)
		case <-time.After(10 * time.Second):
			t.Errorf("%s: InputSchema hung > 10 s", name)
		}
	}
}
