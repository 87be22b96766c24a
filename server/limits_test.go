package server_test

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

	. "github.com/mcpwire/mcpwire/server/internal/testkit"
	"github.com/mcpwire/mcpwire/server/streamhttp"

	"github.com/mcpwire/mcpwire/internal/testutil"
	"github.com/mcpwire/mcpwire/protocol"
	"github.com/mcpwire/mcpwire/server"
)

// WithHandlerTimeout: a handler past its deadline sees its context end,
// and the client gets -32603 "Request timed out".
func TestHandlerTimeout(t *testing.T) {
	s := NewServer(t, server.WithHandlerTimeout(50*time.Millisecond))
	var sawDone, sawDeadline bool
	AddTool(t, s, `{"name":"slow","inputSchema":{"type":"object"}}`, func(ctx context.Context, _ *server.Request, _ json.RawMessage) (*protocol.CallToolResult, error) {
		_, sawDeadline = ctx.Deadline()
		select {
		case <-ctx.Done():
			sawDone = true
			return nil, ctx.Err()
		case <-time.After(5 * time.Second):
			return server.TextResult("late"), nil
		}
	})
	start := time.Now()
	w := Call(t, Handler(s, streamhttp.Options{}), 1, "tools/call", Params(M{"name": "slow"}))
	if w.Code() != protocol.CodeInternalError || !sawDone || !sawDeadline {
		t.Fatalf("code %d, handler saw done %v, deadline %v", w.Code(), sawDone, sawDeadline)
	}
	if d := time.Since(start); d > 2*time.Second {
		t.Fatalf("the deadline took %v", d)
	}
	// A fast handler under the same option answers normally.
	AddTool(t, s, `{"name":"fast","inputSchema":{"type":"object"}}`, TextTool("ok"))
	if w := Call(t, Handler(s, streamhttp.Options{}), 2, "tools/call", Params(M{"name": "fast"})); w.Code() != 0 || w.Text(t, 0) != "ok" {
		t.Fatalf("fast tool: code %d", w.Code())
	}
}

// WithRateLimit: tools/call over the limit gets CodeRateLimited with HTTP
// 429 and Retry-After, per principal or client address; other methods are
// not limited.
func TestRateLimit(t *testing.T) {
	s := NewServer(t, server.WithRateLimit(1, 2))
	AddTool(t, s, `{"name":"t","inputSchema":{"type":"object"}}`, TextTool("ok"))
	h := Handler(s, streamhttp.Options{})
	callFrom := func(addr string) *httptest.ResponseRecorder {
		body := Rpc(1, "tools/call", Params(M{"name": "t"}))
		return Post(t, h, body, func(r *http.Request) { r.RemoteAddr = addr })
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
	if w := Single(t, rec); w.Code() != server.CodeRateLimited || w.Id() != "1" {
		t.Fatalf("code %d id %s", w.Code(), w.Id())
	}
	if rec := callFrom("10.0.0.2:1000"); rec.Code != 200 {
		t.Fatalf("another address shares the bucket: %d", rec.Code)
	}
	if w := Call(t, h, 2, "tools/list", Params(nil)); w.Code() != 0 {
		t.Fatalf("tools/list was limited: %d", w.Code())
	}
}

// WithDecodeLimits: nesting, string length and member count over their
// limits are refused with -32600 and HTTP 400, before the rest is read.
func TestDecodeLimits(t *testing.T) {
	s := NewServer(t, server.WithDecodeLimits(protocol.UnmarshalOptions{MaxDepth: 8, MaxStringBytes: 64, MaxMembers: 50}))
	AddTool(t, s, `{"name":"t","inputSchema":{"type":"object"}}`, TextTool("ok"))
	h := Handler(s, streamhttp.Options{})
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
		rec := Post(t, h, Rpc(1, "tools/call", Params(M{"name": "t", "arguments": args})), nil)
		if w := Single(t, rec); rec.Code != 400 || w.Code() != protocol.CodeInvalidRequestError {
			t.Errorf("%s: status %d code %d", name, rec.Code, w.Code())
		}
	}
	if w := Call(t, h, 2, "tools/call", Params(M{"name": "t", "arguments": M{"x": "short"}})); w.Code() != 0 {
		t.Fatalf("a message within the limits: %d", w.Code())
	}
}

// WithMaxInputRequests bounds both directions of a multi round trip.
func TestMaxInputRequests(t *testing.T) {
	s := NewServer(t, server.WithMaxInputRequests(2))
	AddTool(t, s, `{"name":"ask","inputSchema":{"type":"object"}}`, func(_ context.Context, r *server.Request, _ json.RawMessage) (*protocol.CallToolResult, error) {
		reqs := map[string]protocol.InputRequest{}
		for i := range 3 {
			reqs[fmt.Sprint("k", i)] = server.ListRoots()
		}
		return nil, r.AskInput(reqs, nil)
	})
	h := Handler(s, streamhttp.Options{})
	caps := Meta(KeyCaps, M{"roots": M{}})
	if w := Call(t, h, 1, "tools/call", WithMeta(caps, M{"name": "ask"})); !w.IsError() {
		t.Fatalf("asking for 3 inputs over a limit of 2 should fail the tool, got code %d", w.Code())
	}
	resp := M{}
	for i := range 3 {
		resp[fmt.Sprint("k", i)] = M{"roots": []any{}}
	}
	if w := Call(t, h, 2, "tools/call", WithMeta(caps, M{"name": "ask", "inputResponses": resp})); w.Code() != protocol.CodeInvalidParamsError {
		t.Fatalf("3 inputResponses over a limit of 2: code %d", w.Code())
	}
}

// WithMaxStreamLifetime ends a listen stream like Shutdown does.
func TestStreamLifetime(t *testing.T) {
	s := Fixture(t, server.WithMaxStreamLifetime(100*time.Millisecond))
	srv := httptest.NewServer(Handler(s, streamhttp.Options{AllowedHosts: []string{"127.0.0.1"}}))
	t.Cleanup(srv.Close)
	st := openListen(t, srv, "life", M{"toolsListChanged": true})
	if w := st.Message(2 * time.Second); w.Method() != "notifications/subscriptions/acknowledged" {
		t.Fatal(w.Method())
	}
	w := st.Message(2 * time.Second)
	if w.Id() != `"life"` || !strings.Contains(string(w.Members["result"]), "subscriptionId") {
		t.Fatalf("after its lifetime the stream sent %s", w.Members)
	}
}

// Shutdown waits for running requests, whose responses are still sent.
func TestShutdownDrains(t *testing.T) {
	s := NewServer(t)
	started := make(chan struct{})
	AddTool(t, s, `{"name":"slow","inputSchema":{"type":"object"}}`, func(ctx context.Context, _ *server.Request, _ json.RawMessage) (*protocol.CallToolResult, error) {
		close(started)
		time.Sleep(150 * time.Millisecond)
		return server.TextResult("finished"), nil
	})
	h := Handler(s, streamhttp.Options{})
	got := make(chan *Wire, 1)
	go func() { got <- Call(t, h, 1, "tools/call", Params(M{"name": "slow"})) }()
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
	if w := <-got; w.Text(t, 0) != "finished" {
		t.Fatal("the response computed during Shutdown was lost")
	}
}

// WithMaxConcurrent on stdio: a request over the limit is answered at once
// with CodeRateLimited, and the others complete.
func TestStdioMaxConcurrent(t *testing.T) {
	s := NewServer(t, server.WithMaxConcurrent(1))
	release := make(chan struct{})
	AddTool(t, s, `{"name":"block","inputSchema":{"type":"object"}}`, func(context.Context, *server.Request, json.RawMessage) (*protocol.CallToolResult, error) {
		<-release
		return server.TextResult("done"), nil
	})
	pr, pw := io.Pipe()
	var out testutil.SyncBuffer
	done := make(chan error, 1)
	go func() { done <- ServeStdio(context.Background(), s, pr, &out) }()
	_, _ = pw.Write(append(Rpc(1, "tools/call", Params(M{"name": "block"})), '\n'))
	time.Sleep(30 * time.Millisecond)
	_, _ = pw.Write(append(Rpc(2, "tools/list", Params(nil)), '\n'))
	WaitFor(t, func() bool { return strings.Contains(out.String(), `"code":-31429`) })
	close(release)
	WaitFor(t, func() bool { return strings.Contains(out.String(), "done") })
	pw.Close()
	if err := <-done; err != nil {
		t.Fatal(err)
	}
}
