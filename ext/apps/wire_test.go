package apps_test

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mcpwire/mcpwire/protocol"
	"github.com/mcpwire/mcpwire/server"
	"github.com/mcpwire/mcpwire/server/legacy"
	"github.com/mcpwire/mcpwire/server/stdio"
	"github.com/mcpwire/mcpwire/server/streamhttp"
)

// The wire driver of these tests: a client of either era (2026-07-28
// requests with _meta; a 2025-11-25 initialize session) over either
// transport (streamhttp's handler, stdio.Serve on pipes), sending raw
// JSON-RPC and decoding the answers into maps.

// M is a JSON object under construction.
type M = map[string]any

const legacyVersion = "2025-11-25"

// client is one connection: call sends a request and returns its result
// or error object.
type client interface {
	call(t testing.TB, method string, params M) (result M, rpcErr M)
	// initResult is the 2025-11-25 initialize result (nil for 2026-07-28).
	initResult() M
}

// a transport × era pair, and the capabilities the client declares.
type setup struct {
	name   string
	dial   func(t testing.TB, s *server.Server, caps M) client
	legacy bool
}

var setups = []setup{
	{"http/2026-07-28", dialHTTPModern, false},
	{"http/2025-11-25", dialHTTPLegacy, true},
	{"stdio/2026-07-28", dialStdioModern, false},
	{"stdio/2025-11-25", dialStdioLegacy, true},
}

func mustJSON(v any) []byte {
	b, err := json.Marshal(v)
	if err != nil {
		panic(err)
	}
	return b
}

// --- Streamable HTTP

type httpClient struct {
	h       http.Handler
	caps    M      // 2026-07-28: declared in every request's _meta
	session string // 2025-11-25: Mcp-Session-Id
	version string // the session's revision
	init    M
	id      int
}

func (c *httpClient) initResult() M { return c.init }

func dialHTTPModern(t testing.TB, s *server.Server, caps M) client {
	return &httpClient{h: streamhttp.Handler(s, streamhttp.Options{}), caps: caps}
}

func dialHTTPLegacy(t testing.TB, s *server.Server, caps M) client {
	return dialHTTPLegacyAt(t, s, caps, legacyVersion)
}

// dialHTTPLegacyAt opens a session of the legacy revision version.
func dialHTTPLegacyAt(t testing.TB, s *server.Server, caps M, version string) client {
	c := &httpClient{h: streamhttp.Handler(s, streamhttp.Options{}), version: version}
	p := M{"protocolVersion": version, "capabilities": caps, "clientInfo": M{"name": "apps-test", "version": "1"}}
	rec := c.post(t, mustJSON(M{"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": p}), "initialize", "")
	c.session = rec.Header().Get(legacy.HeaderSessionID)
	if c.session == "" {
		t.Fatalf("initialize: no session id; answer %d %s", rec.Code, rec.Body.Bytes())
	}
	res, e := response(t, rec.Body.Bytes(), 0)
	if e != nil {
		t.Fatalf("initialize: %v", e)
	}
	c.init = res
	if rec := c.post(t, mustJSON(M{"jsonrpc": "2.0", "method": "notifications/initialized"}), "notifications/initialized", ""); rec.Code != http.StatusAccepted {
		t.Fatalf("notifications/initialized: %d %s", rec.Code, rec.Body.Bytes())
	}
	return c
}

func (c *httpClient) post(t testing.TB, body []byte, method, name string) *httptest.ResponseRecorder {
	t.Helper()
	r := httptest.NewRequest(http.MethodPost, "/mcp", bytes.NewReader(body))
	r.Host = "localhost:8080"
	r.Header.Set("Content-Type", "application/json")
	r.Header.Set("Accept", "application/json, text/event-stream")
	if c.session != "" {
		r.Header.Set(legacy.HeaderSessionID, c.session)
		r.Header.Set(server.HeaderProtocolVersion, c.version)
	} else if c.caps != nil || method != "initialize" {
		r.Header.Set(server.HeaderProtocolVersion, protocol.Revision)
		r.Header.Set(server.HeaderMethod, method)
		if name != "" {
			r.Header.Set(server.HeaderName, name)
		}
	}
	w := httptest.NewRecorder()
	c.h.ServeHTTP(w, r)
	return w
}

func (c *httpClient) call(t testing.TB, method string, params M) (M, M) {
	t.Helper()
	c.id++
	p := M{}
	for k, v := range params {
		p[k] = v
	}
	if c.session == "" {
		p["_meta"] = M{
			"io.modelcontextprotocol/protocolVersion":    protocol.Revision,
			"io.modelcontextprotocol/clientCapabilities": c.caps,
		}
	}
	name, _ := params["name"].(string)
	if method == "resources/read" {
		name, _ = params["uri"].(string)
	}
	rec := c.post(t, mustJSON(M{"jsonrpc": "2.0", "id": c.id, "method": method, "params": p}), method, name)
	return response(t, rec.Body.Bytes(), c.id)
}

// response finds the JSON-RPC response of id in a body: plain JSON, or
// the data lines of an SSE stream.
func response(t testing.TB, body []byte, id int) (M, M) {
	t.Helper()
	var lines [][]byte
	if bytes.HasPrefix(bytes.TrimSpace(body), []byte("{")) {
		lines = [][]byte{body}
	} else {
		for _, l := range bytes.Split(body, []byte("\n")) {
			if d, ok := bytes.CutPrefix(l, []byte("data:")); ok {
				lines = append(lines, bytes.TrimSpace(d))
			}
		}
	}
	for _, l := range lines {
		if res, e, ok := decodeResponse(l, id); ok {
			return res, e
		}
	}
	t.Fatalf("no response to id %d in %q", id, body)
	return nil, nil
}

func decodeResponse(line []byte, id int) (M, M, bool) {
	var env struct {
		ID     *int `json:"id"`
		Result M    `json:"result"`
		Error  M    `json:"error"`
	}
	if json.Unmarshal(line, &env) != nil || env.ID == nil || *env.ID != id {
		return nil, nil, false
	}
	return env.Result, env.Error, true
}

// --- stdio

type stdioClient struct {
	mu     sync.Mutex
	in     *io.PipeWriter
	out    *bufio.Scanner
	caps   M
	modern bool
	init   M
	id     int
}

func (c *stdioClient) initResult() M { return c.init }

func dialStdio(t testing.TB, s *server.Server) *stdioClient {
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- stdio.Serve(ctx, s, inR, outW, stdio.Options{}); _ = outW.Close() }()
	t.Cleanup(func() {
		_ = inW.Close()
		select {
		case err := <-done:
			if err != nil {
				t.Errorf("stdio.Serve: %v", err)
			}
		case <-time.After(5 * time.Second):
			t.Error("stdio.Serve did not end at end of input")
		}
		cancel()
	})
	sc := bufio.NewScanner(outR)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	return &stdioClient{in: inW, out: sc}
}

func dialStdioModern(t testing.TB, s *server.Server, caps M) client {
	c := dialStdio(t, s)
	c.modern, c.caps = true, caps
	return c
}

func dialStdioLegacy(t testing.TB, s *server.Server, caps M) client {
	c := dialStdio(t, s)
	res, e := c.send(t, "initialize", M{"protocolVersion": legacyVersion, "capabilities": caps, "clientInfo": M{"name": "apps-test", "version": "1"}})
	if e != nil {
		t.Fatalf("initialize: %v", e)
	}
	c.init = res
	if _, err := c.in.Write(append(mustJSON(M{"jsonrpc": "2.0", "method": "notifications/initialized"}), '\n')); err != nil {
		t.Fatal(err)
	}
	return c
}

func (c *stdioClient) call(t testing.TB, method string, params M) (M, M) {
	t.Helper()
	p := M{}
	for k, v := range params {
		p[k] = v
	}
	if c.modern {
		p["_meta"] = M{
			"io.modelcontextprotocol/protocolVersion":    protocol.Revision,
			"io.modelcontextprotocol/clientCapabilities": c.caps,
		}
	}
	return c.send(t, method, p)
}

// send writes one request and reads lines up to its response (skipping
// notifications).
func (c *stdioClient) send(t testing.TB, method string, params M) (M, M) {
	t.Helper()
	c.mu.Lock()
	defer c.mu.Unlock()
	c.id++
	if _, err := c.in.Write(append(mustJSON(M{"jsonrpc": "2.0", "id": c.id, "method": method, "params": params}), '\n')); err != nil {
		t.Fatal(err)
	}
	for c.out.Scan() {
		if res, e, ok := decodeResponse(c.out.Bytes(), c.id); ok {
			return res, e
		}
		if !strings.Contains(c.out.Text(), `"method"`) {
			t.Fatalf("unexpected line: %s", c.out.Bytes())
		}
	}
	t.Fatalf("stdio ended before the response to %s: %v", method, c.out.Err())
	return nil, nil
}
