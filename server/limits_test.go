package server

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/mcpwire/mcpwire/internal/testutil"
	"github.com/mcpwire/mcpwire/protocol"
)

// WithHandlerTimeout: a handler past its deadline sees its context end,
// and the client gets -32603 "Request timed out".
func TestHandlerTimeout(t *testing.T) {
	s := newServer(t, WithHandlerTimeout(50*time.Millisecond))
	var sawDone, sawDeadline bool
	addTool(t, s, `{"name":"slow","inputSchema":{"type":"object"}}`, func(ctx context.Context, _ *Request, _ json.RawMessage) (*protocol.CallToolResult, error) {
		_, sawDeadline = ctx.Deadline()
		select {
		case <-ctx.Done():
			sawDone = true
			return nil, ctx.Err()
		case <-time.After(5 * time.Second):
			return TextResult("late"), nil
		}
	})
	start := time.Now()
	w := call(t, s.Handler(HTTPOptions{}), 1, "tools/call", params(M{"name": "slow"}))
	if w.code() != protocol.CodeInternalError || !sawDone || !sawDeadline {
		t.Fatalf("code %d, handler saw done %v, deadline %v", w.code(), sawDone, sawDeadline)
	}
	if d := time.Since(start); d > 2*time.Second {
		t.Fatalf("the deadline took %v", d)
	}
	// A fast handler under the same option answers normally.
	addTool(t, s, `{"name":"fast","inputSchema":{"type":"object"}}`, textTool("ok"))
	if w := call(t, s.Handler(HTTPOptions{}), 2, "tools/call", params(M{"name": "fast"})); w.code() != 0 || w.text(t, 0) != "ok" {
		t.Fatalf("fast tool: code %d", w.code())
	}
}

// WithRateLimit: tools/call over the limit gets CodeRateLimited with HTTP
// 429 and Retry-After, per principal or client address; other methods are
// not limited.
func TestRateLimit(t *testing.T) {
	s := newServer(t, WithRateLimit(1, 2))
	addTool(t, s, `{"name":"t","inputSchema":{"type":"object"}}`, textTool("ok"))
	h := s.Handler(HTTPOptions{})
	callFrom := func(addr string) *httptest.ResponseRecorder {
		body := rpc(1, "tools/call", params(M{"name": "t"}))
		return post(t, h, body, func(r *http.Request) { r.RemoteAddr = addr })
	}
	for i := range 2 {
		if rec := callFrom("10.0.0.1:1000"); rec.Code != 200 {
			t.Fatalf("call %d within the burst: %d", i, rec.Code)
		}
	}
	rec := callFrom("10.0.0.1:1001")
	if rec.Code != http.StatusTooManyRequests || rec.Header().Get("Retry-After") == "" {
		t.Fatalf("over the limit: %d, Retry-After %q", rec.Code, rec.Header().Get("Retry-After"))
	}
	if w := single(t, rec); w.code() != CodeRateLimited || w.id() != "1" {
		t.Fatalf("code %d id %s", w.code(), w.id())
	}
	if rec := callFrom("10.0.0.2:1000"); rec.Code != 200 {
		t.Fatalf("another address shares the bucket: %d", rec.Code)
	}
	if w := call(t, h, 2, "tools/list", params(nil)); w.code() != 0 {
		t.Fatalf("tools/list was limited: %d", w.code())
	}
}

// WithDecodeLimits: nesting, string length and member count over their
// limits are refused with -32600 and HTTP 400, before the rest is read.
func TestDecodeLimits(t *testing.T) {
	s := newServer(t, WithDecodeLimits(protocol.UnmarshalOptions{MaxDepth: 8, MaxStringBytes: 64, MaxMembers: 50}))
	addTool(t, s, `{"name":"t","inputSchema":{"type":"object"}}`, textTool("ok"))
	h := s.Handler(HTTPOptions{})
	deep := json.RawMessage(strings.Repeat("[", 20) + strings.Repeat("]", 20))
	many := M{}
	for i := range 60 {
		many[fmt.Sprintf("k%d", i)] = i
	}
	for name, args := range map[string]any{
		"depth":   M{"x": deep},
		"string":  M{"x": strings.Repeat("a", 65)},
		"members": many,
	} {
		rec := post(t, h, rpc(1, "tools/call", params(M{"name": "t", "arguments": args})), nil)
		if w := single(t, rec); rec.Code != 400 || w.code() != protocol.CodeInvalidRequestError {
			t.Errorf("%s: status %d code %d", name, rec.Code, w.code())
		}
	}
	if w := call(t, h, 2, "tools/call", params(M{"name": "t", "arguments": M{"x": "short"}})); w.code() != 0 {
		t.Fatalf("a message within the limits: %d", w.code())
	}
}

// WithMaxInputRequests bounds both directions of a multi round trip.
func TestMaxInputRequests(t *testing.T) {
	s := newServer(t, WithMaxInputRequests(2))
	addTool(t, s, `{"name":"ask","inputSchema":{"type":"object"}}`, func(_ context.Context, r *Request, _ json.RawMessage) (*protocol.CallToolResult, error) {
		reqs := map[string]protocol.InputRequest{}
		for i := range 3 {
			reqs[fmt.Sprint("k", i)] = ListRoots()
		}
		return nil, r.AskInput(reqs, nil)
	})
	h := s.Handler(HTTPOptions{})
	caps := meta(keyCaps, M{"roots": M{}})
	if w := call(t, h, 1, "tools/call", withMeta(caps, M{"name": "ask"})); !w.isError() {
		t.Fatalf("asking for 3 inputs over a limit of 2 should fail the tool, got code %d", w.code())
	}
	resp := M{}
	for i := range 3 {
		resp[fmt.Sprint("k", i)] = M{"roots": []any{}}
	}
	if w := call(t, h, 2, "tools/call", withMeta(caps, M{"name": "ask", "inputResponses": resp})); w.code() != protocol.CodeInvalidParamsError {
		t.Fatalf("3 inputResponses over a limit of 2: code %d", w.code())
	}
}

// WithMaxStreamLifetime ends a listen stream like Shutdown does.
func TestStreamLifetime(t *testing.T) {
	s := fixture(t, WithMaxStreamLifetime(100*time.Millisecond))
	srv := httptest.NewServer(s.Handler(HTTPOptions{AllowedHosts: []string{"127.0.0.1"}}))
	t.Cleanup(srv.Close)
	st := openListen(t, srv, "life", M{"toolsListChanged": true})
	if w := st.message(2 * time.Second); w.method() != "notifications/subscriptions/acknowledged" {
		t.Fatal(w.method())
	}
	w := st.message(2 * time.Second)
	if w.id() != `"life"` || !strings.Contains(string(w.members["result"]), "subscriptionId") {
		t.Fatalf("after its lifetime the stream sent %s", w.members)
	}
}

// Shutdown waits for running requests, whose responses are still sent.
func TestShutdownDrains(t *testing.T) {
	s := newServer(t)
	started := make(chan struct{})
	addTool(t, s, `{"name":"slow","inputSchema":{"type":"object"}}`, func(ctx context.Context, _ *Request, _ json.RawMessage) (*protocol.CallToolResult, error) {
		close(started)
		time.Sleep(150 * time.Millisecond)
		return TextResult("finished"), nil
	})
	h := s.Handler(HTTPOptions{})
	got := make(chan *wire, 1)
	go func() { got <- call(t, h, 1, "tools/call", params(M{"name": "slow"})) }()
	<-started
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
	defer cancel()
	start := time.Now()
	if err := s.Shutdown(ctx); err != nil {
		t.Fatal(err)
	}
	if time.Since(start) < 100*time.Millisecond {
		t.Error("Shutdown returned before the running request finished")
	}
	if w := <-got; w.text(t, 0) != "finished" {
		t.Fatal("the response computed during Shutdown was lost")
	}
}

// WithMaxConcurrent on stdio: a request over the limit is answered at once
// with CodeRateLimited, and the others complete.
func TestStdioMaxConcurrent(t *testing.T) {
	s := newServer(t, WithMaxConcurrent(1))
	release := make(chan struct{})
	addTool(t, s, `{"name":"block","inputSchema":{"type":"object"}}`, func(context.Context, *Request, json.RawMessage) (*protocol.CallToolResult, error) {
		<-release
		return TextResult("done"), nil
	})
	pr, pw := io.Pipe()
	var out testutil.SyncBuffer
	done := make(chan error, 1)
	go func() { done <- s.ServeStdio(context.Background(), pr, &out) }()
	_, _ = pw.Write(append(rpc(1, "tools/call", params(M{"name": "block"})), '\n'))
	time.Sleep(30 * time.Millisecond)
	_, _ = pw.Write(append(rpc(2, "tools/list", params(nil)), '\n'))
	waitFor(t, func() bool { return strings.Contains(out.String(), `"code":-31429`) })
	close(release)
	waitFor(t, func() bool { return strings.Contains(out.String(), "done") })
	pw.Close()
	if err := <-done; err != nil {
		t.Fatal(err)
	}
}
