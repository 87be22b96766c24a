package server_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"sync"
	"testing"

	. "github.com/mcpwire/mcpwire/server/internal/testkit"
	"github.com/mcpwire/mcpwire/server/streamhttp"
	"github.com/mcpwire/mcpwire/server/typed"

	"github.com/mcpwire/mcpwire/protocol"
	"github.com/mcpwire/mcpwire/server"
)

// seen records what a middleware saw of each request.
type seen struct {
	mu   sync.Mutex
	reqs []string // method name legacy principal header-or-"-"
	errs []error
}

func (v *seen) middleware(next server.Handler) server.Handler {
	return func(ctx context.Context, r *server.Request) (server.Result, error) {
		hdr := "-"
		if h := r.Header(); h != nil {
			hdr = h.Get("X-Trace")
		}
		res, err := next(ctx, r)
		v.mu.Lock()
		v.reqs = append(v.reqs, strings.Join([]string{r.Method, r.Name(), map[bool]string{true: "legacy", false: "modern"}[(r.ProtocolVersion() != protocol.Revision)], r.Principal, hdr}, " "))
		v.errs = append(v.errs, err)
		v.mu.Unlock()
		return res, err
	}
}

func (v *seen) list() []string {
	v.mu.Lock()
	defer v.mu.Unlock()
	return append([]string(nil), v.reqs...)
}

// refuser refuses tools/call of "echo" with a typed error, and replaces
// the text of every other tool's result.
func refuser(next server.Handler) server.Handler {
	return func(ctx context.Context, r *server.Request) (server.Result, error) {
		if p, ok := r.Params().(*protocol.CallToolRequestParams); ok && p.Name == "echo" {
			return nil, &server.Error{Code: server.CodeRateLimited, Message: "quota exceeded for echo"}
		}
		res, err := next(ctx, r)
		if c, ok := res.(*protocol.CallToolResult); ok && err == nil {
			c.Content = []protocol.ContentBlock{server.Text("changed by middleware")}
		}
		return res, err
	}
}

// TestMiddlewareHTTP checks, over Streamable HTTP: a refusal reaches the
// client with its code and status; a changed result is what the client
// sees, with the envelope still on it (R-BASE-05, R-META-04); the
// middleware sees method, name, era, principal and headers; and it never
// sees a request that failed a header check (R-HDR-04, R-HDR-07) or the
// version check (R-VER-01).
func TestMiddlewareHTTP(t *testing.T) {
	v := &seen{}
	s := Fixture(t, server.WithMiddleware(v.middleware, refuser))
	h := Handler(s, streamhttp.Options{Authenticate: XUser})

	rec := Post(t, h, Rpc(1, protocol.MethodToolsCall, Params(M{"name": "echo", "arguments": M{"text": "x"}})), func(r *http.Request) {
		r.Header.Set("X-User", "ann")
		r.Header.Set("X-Trace", "t1")
	})
	w := Single(t, rec)
	if rec.Code != http.StatusTooManyRequests || w.Code() != server.CodeRateLimited || !strings.Contains(w.Error.Message, "quota") {
		t.Errorf("refusal: %d %s, want 429 and %d", rec.Code, w.Raw, server.CodeRateLimited)
	}
	w = Single(t, Post(t, h, Rpc(2, protocol.MethodToolsCall, Params(M{"name": "hdr", "arguments": M{"region": "eu"}})), func(r *http.Request) {
		r.Header.Set(server.HeaderParamPrefix+"Region", "eu")
	}))
	if w.Error != nil || w.Text(t, 0) != "changed by middleware" || w.Result["resultType"] != "complete" {
		t.Errorf("changed result: %s", w.Raw)
	}
	if m, _ := w.Result["_meta"].(M); m[KeyInfo] == nil {
		t.Errorf("R-META-04: the envelope is missing after a middleware: %s", w.Raw)
	}
	if w := Call(t, h, 3, protocol.MethodToolsList, Params(nil)); w.Error != nil {
		t.Errorf("tools/list: %s", w.Raw)
	}
	// Refused by the checks before any middleware runs.
	mismatch := Post(t, h, Rpc(4, protocol.MethodToolsCall, Params(M{"name": "echo", "arguments": M{"text": "x"}})), func(r *http.Request) {
		r.Header.Set(server.HeaderName, "other")
	})
	paramMismatch := Post(t, h, Rpc(5, protocol.MethodToolsCall, Params(M{"name": "hdr", "arguments": M{"region": "eu"}})), func(r *http.Request) {
		r.Header.Set(server.HeaderParamPrefix+"Region", "us")
	})
	badVersion := Post(t, h, Rpc(6, protocol.MethodToolsList, WithMeta(Meta(KeyVersion, "1999-01-01"), nil)), nil)
	for _, c := range []struct {
		name string
		rec  int
		want int64
	}{{"Mcp-Name", mismatch.Code, protocol.CodeHeaderMismatchError}, {"Mcp-Param-Region", paramMismatch.Code, protocol.CodeHeaderMismatchError}} {
		if c.rec != http.StatusBadRequest {
			t.Errorf("%s mismatch: status %d", c.name, c.rec)
		}
	}
	if badVersion.Code != http.StatusBadRequest {
		t.Errorf("bad version: %d %s", badVersion.Code, badVersion.Body.Bytes())
	}
	got := v.list()
	want := []string{
		"tools/call hdr modern  ",
		"tools/list  modern  ",
	}
	// The refused echo never reached v: refuser is inside v, so v saw
	// it with the refusal.
	want = append([]string{"tools/call echo modern ann t1"}, want...)
	if strings.Join(got, "|") != strings.Join(want, "|") {
		t.Errorf("middleware saw\n%q\nwant\n%q", got, want)
	}
	var e *server.Error
	if !errors.As(v.errs[0], &e) || e.Code != server.CodeRateLimited {
		t.Errorf("outer middleware saw error %v, want the inner refusal", v.errs[0])
	}
}

// TestMiddlewareStdio checks the same chain on stdio: the refusal's code,
// the changed result, and no headers.
func TestMiddlewareStdio(t *testing.T) {
	v := &seen{}
	s := Fixture(t, server.WithMiddleware(v.middleware, refuser))
	msgs := Stdio(t, s,
		string(Rpc(1, protocol.MethodToolsCall, Params(M{"name": "echo", "arguments": M{"text": "x"}}))),
		string(Rpc(2, protocol.MethodToolsCall, Params(M{"name": "hdr", "arguments": M{"region": "eu"}}))),
		string(Rpc(3, protocol.MethodToolsList, WithMeta(Meta(KeyVersion, "1999-01-01"), nil))),
	)
	byID := map[string]*Wire{}
	for _, m := range msgs {
		byID[string(m.Members["id"])] = m
	}
	if w := byID["1"]; w == nil || w.Code() != server.CodeRateLimited {
		t.Errorf("stdio refusal: %v", w)
	}
	if w := byID["2"]; w == nil || w.Error != nil || w.Text(t, 0) != "changed by middleware" {
		t.Errorf("stdio changed result: %v", w)
	}
	if w := byID["3"]; w == nil || w.Code() != protocol.CodeUnsupportedProtocolVersionError {
		t.Errorf("stdio bad version: %v", w)
	}
	got := v.list()
	if len(got) != 2 || !strings.HasSuffix(got[0], " -") && !strings.HasSuffix(got[1], " -") {
		t.Errorf("stdio: middleware saw %q, want the two calls without headers", got)
	}
}

// TestMiddlewareLegacySession checks that a 2025-11-25 session's calls go
// through the same middleware, with Legacy set and the session POST's
// headers, and that the changed result is converted for the session.
func TestMiddlewareLegacySession(t *testing.T) {
	v := &seen{}
	s := Fixture(t, server.WithMiddleware(v.middleware, refuser))
	c := NewLegacyHTTP(t, Handler(s, streamhttp.Options{Authenticate: XUser}), "2025-11-25", "X-User", "bob", "X-Trace", "t9")
	c.Open(`{}`)
	w, _, rec := c.Call(1, protocol.MethodToolsCall, `{"name":"echo","arguments":{"text":"x"}}`)
	if w.Code() != server.CodeRateLimited || rec.Code != http.StatusTooManyRequests {
		t.Errorf("legacy refusal: %d %s", rec.Code, w.Raw)
	}
	w, _, _ = c.Call(2, protocol.MethodToolsCall, `{"name":"hdr","arguments":{"region":"eu"}}`)
	if w.Error != nil || w.Text(t, 0) != "changed by middleware" {
		t.Errorf("legacy changed result: %s", w.Raw)
	}
	if _, ok := w.Result["resultType"]; ok {
		t.Errorf("legacy result carries resultType: %s", w.Raw)
	}
	got := v.list()
	want := "tools/call echo legacy bob t9|tools/call hdr legacy bob t9"
	if strings.Join(got, "|") != want {
		t.Errorf("legacy: middleware saw %q, want %q", got, want)
	}
}

// TestMiddlewareContractErrors checks what a middleware cannot do: return
// neither a result nor an error (-32603), or a plain error (hidden as
// -32603 by the error policy).
func TestMiddlewareContractErrors(t *testing.T) {
	nothing := func(server.Handler) server.Handler {
		return func(context.Context, *server.Request) (server.Result, error) { return nil, nil }
	}
	plain := func(server.Handler) server.Handler {
		return func(context.Context, *server.Request) (server.Result, error) { return nil, errors.New("secret detail") }
	}
	for name, mw := range map[string]server.Middleware{"nothing": nothing, "plain": plain} {
		h := Handler(Fixture(t, server.WithMiddleware(mw)), streamhttp.Options{})
		rec := Post(t, h, Rpc(1, protocol.MethodToolsList, Params(nil)), nil)
		w := Single(t, rec)
		if w.Code() != protocol.CodeInternalError || rec.Code != http.StatusInternalServerError || strings.Contains(string(w.Raw), "secret") {
			t.Errorf("%s: %d %s", name, rec.Code, w.Raw)
		}
	}
}

// TestWrapTool checks per-tool middleware: it wraps one tool only, runs
// after argument validation (it never sees invalid arguments) and in the
// order given, and applies to a typed tool.
func TestWrapTool(t *testing.T) {
	var order []string
	mark := func(tag string) server.ToolMiddleware {
		return func(next server.ToolHandler) server.ToolHandler {
			return func(ctx context.Context, r *server.Request, args json.RawMessage) (*protocol.CallToolResult, error) {
				order = append(order, tag+":"+string(args))
				return next(ctx, r, args)
			}
		}
	}
	s := NewServer(t)
	AddTool(t, s, `{"name":"wrapped","inputSchema":{"type":"object","properties":{"n":{"type":"integer"}}}}`, TextTool("w"), server.WrapTool(mark("a"), mark("b")))
	AddTool(t, s, `{"name":"plain","inputSchema":{"type":"object"}}`, TextTool("p"))
	type in struct {
		N int `json:"n"`
	}
	if err := typed.AddTool(s, protocol.Tool{Name: "typed"}, func(_ context.Context, _ *server.Request, v in) (int, error) { return v.N, nil }, server.WrapTool(mark("t"))); err != nil {
		t.Fatal(err)
	}
	h := Handler(s, streamhttp.Options{})
	Call(t, h, 1, protocol.MethodToolsCall, Params(M{"name": "wrapped", "arguments": M{"n": 1}}))
	if w := Call(t, h, 2, protocol.MethodToolsCall, Params(M{"name": "wrapped", "arguments": M{"n": "x"}})); !w.IsError() {
		t.Errorf("invalid arguments: %s", w.Raw)
	}
	Call(t, h, 3, protocol.MethodToolsCall, Params(M{"name": "plain"}))
	Call(t, h, 4, protocol.MethodToolsCall, Params(M{"name": "typed", "arguments": M{"n": 5}}))
	want := `a:{"n":1}|b:{"n":1}|t:{"n":5}`
	if got := strings.Join(order, "|"); got != want {
		t.Errorf("tool middleware ran %q, want %q", got, want)
	}
}

// TestMiddlewareSessionMethods checks that the methods a legacy session
// serves itself (ping, logging/setLevel, resources/subscribe and
// unsubscribe) pass through middleware too: it sees them with their name
// (the URI) and the session's own errors, and its refusal is what the
// client gets, the session not acting on it.
func TestMiddlewareSessionMethods(t *testing.T) {
	var mu sync.Mutex
	var saw []string
	mw := func(next server.Handler) server.Handler {
		return func(ctx context.Context, r *server.Request) (server.Result, error) {
			if r.Method == "resources/subscribe" && r.Principal == "eve" {
				return nil, &server.Error{Code: -31001, Message: "eve may not subscribe"}
			}
			res, err := next(ctx, r)
			code := int64(0)
			var e *server.Error
			if errors.As(err, &e) {
				code = e.Code
			}
			_, empty := res.(*protocol.Result)
			mu.Lock()
			saw = append(saw, fmt.Sprintf("%s %s legacy=%v %s empty=%v code=%d", r.Method, r.Name(), (r.ProtocolVersion() != protocol.Revision), r.ProtocolVersion(), empty, code))
			mu.Unlock()
			return res, err
		}
	}
	s := Fixture(t, server.WithMiddleware(mw))
	h := Handler(s, streamhttp.Options{Authenticate: XUser})
	c := NewLegacyHTTP(t, h, "2025-11-25", "X-User", "bob")
	c.Open(`{}`)
	for i, call := range []struct{ method, params string }{
		{"ping", `{}`},
		{"logging/setLevel", `{"level":"debug"}`},
		{"resources/subscribe", `{"uri":"file:///a.txt"}`},
		{"resources/subscribe", `{"uri":"file:///none"}`},
		{"resources/unsubscribe", `{"uri":"file:///a.txt"}`},
	} {
		c.Call(i+1, call.method, call.params)
	}
	want := []string{
		"ping  legacy=true 2025-11-25 empty=true code=0",
		"logging/setLevel  legacy=true 2025-11-25 empty=true code=0",
		"resources/subscribe file:///a.txt legacy=true 2025-11-25 empty=true code=0",
		"resources/subscribe file:///none legacy=true 2025-11-25 empty=false code=-32002",
		"resources/unsubscribe file:///a.txt legacy=true 2025-11-25 empty=true code=0",
	}
	if strings.Join(saw, "|") != strings.Join(want, "|") {
		t.Errorf("middleware saw\n%q\nwant\n%q", saw, want)
	}
	eve := NewLegacyHTTP(t, h, "2025-11-25", "X-User", "eve")
	eve.Open(`{}`)
	w, _, _ := eve.Call(1, "resources/subscribe", `{"uri":"file:///a.txt"}`)
	if w.Code() != -31001 {
		t.Errorf("refused subscribe: %s", w.Raw)
	}
}

// TestMiddlewareStdioSessionPing checks that a ping of a legacy stdio
// session passes through middleware too (the second review's ATK-MW-1:
// the stdio read loop answered it before the session layer did).
func TestMiddlewareStdioSessionPing(t *testing.T) {
	refusePing := func(next server.Handler) server.Handler {
		return func(ctx context.Context, r *server.Request) (server.Result, error) {
			if r.Method == "ping" {
				return nil, &server.Error{Code: -31002, Message: "no pings"}
			}
			return next(ctx, r)
		}
	}
	s := Fixture(t, server.WithMiddleware(refusePing))
	msgs := Stdio(t, s,
		`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"c","version":"1"}}}`,
		`{"jsonrpc":"2.0","method":"notifications/initialized"}`,
		`{"jsonrpc":"2.0","id":2,"method":"ping"}`,
	)
	var got *Wire
	for _, m := range msgs {
		if string(m.Members["id"]) == "2" {
			got = m
		}
	}
	if got == nil || got.Code() != -31002 {
		t.Errorf("stdio session ping: %v, want the middleware's refusal", got)
	}
	// Without a session a ping is the transport's: {} at once.
	msgs = Stdio(t, s, `{"jsonrpc":"2.0","id":3,"method":"ping"}`)
	if len(msgs) != 1 || msgs[0].Error != nil {
		t.Errorf("ping without a session: %v", msgs)
	}
}

// TestMiddlewareSessionFallback checks that a middleware answering a
// session method's refusal with a result is what the client gets (the
// second review's ATK-MW-3), and that the session method's _meta reaches
// Request.Meta (ATK-MW-4).
func TestMiddlewareSessionFallback(t *testing.T) {
	var sawTrace string
	mw := func(next server.Handler) server.Handler {
		return func(ctx context.Context, r *server.Request) (server.Result, error) {
			if raw, ok := r.Meta.Extra.Get("traceparent"); ok {
				sawTrace = string(raw)
			}
			res, err := next(ctx, r)
			if err != nil && r.Method == "resources/subscribe" {
				return &protocol.Result{}, nil
			}
			return res, err
		}
	}
	s := Fixture(t, server.WithMiddleware(mw))
	c := NewLegacyHTTP(t, Handler(s, streamhttp.Options{}), "2025-11-25")
	c.Open(`{}`)
	w, _, _ := c.Call(1, "resources/subscribe", `{"uri":"file:///none","_meta":{"traceparent":"00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01"}}`)
	if w.Error != nil {
		t.Errorf("the middleware's result was not sent: %s", w.Raw)
	}
	if !strings.Contains(sawTrace, "4bf92f3577b34da6a3ce929d0e0e4736") {
		t.Errorf("Request.Meta lost the session method's _meta: %q", sawTrace)
	}
}
