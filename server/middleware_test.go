package server

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"sync"
	"testing"

	"github.com/mcpwire/mcpwire/protocol"
)

// seen records what a middleware saw of each request.
type seen struct {
	mu   sync.Mutex
	reqs []string // method name legacy principal header-or-"-"
	errs []error
}

func (v *seen) middleware(next Handler) Handler {
	return func(ctx context.Context, r *Request) (Result, error) {
		hdr := "-"
		if h := r.Header(); h != nil {
			hdr = h.Get("X-Trace")
		}
		res, err := next(ctx, r)
		v.mu.Lock()
		v.reqs = append(v.reqs, strings.Join([]string{r.Method, r.Name(), map[bool]string{true: "legacy", false: "modern"}[r.Legacy()], r.Principal, hdr}, " "))
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
func refuser(next Handler) Handler {
	return func(ctx context.Context, r *Request) (Result, error) {
		if p, ok := r.Params().(*protocol.CallToolRequestParams); ok && p.Name == "echo" {
			return nil, &Error{Code: CodeRateLimited, Message: "quota exceeded for echo"}
		}
		res, err := next(ctx, r)
		if c, ok := res.(*protocol.CallToolResult); ok && err == nil {
			c.Content = []protocol.ContentBlock{Text("changed by middleware")}
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
	s := fixture(t, WithMiddleware(v.middleware, refuser))
	h := s.Handler(HTTPOptions{Authenticate: xUser})

	rec := post(t, h, rpc(1, protocol.MethodToolsCall, params(M{"name": "echo", "arguments": M{"text": "x"}})), func(r *http.Request) {
		r.Header.Set("X-User", "ann")
		r.Header.Set("X-Trace", "t1")
	})
	w := single(t, rec)
	if rec.Code != http.StatusTooManyRequests || w.code() != CodeRateLimited || !strings.Contains(w.Error.Message, "quota") {
		t.Errorf("refusal: %d %s, want 429 and %d", rec.Code, w.raw, CodeRateLimited)
	}
	w = single(t, post(t, h, rpc(2, protocol.MethodToolsCall, params(M{"name": "hdr", "arguments": M{"region": "eu"}})), func(r *http.Request) {
		r.Header.Set(HeaderParamPrefix+"Region", "eu")
	}))
	if w.Error != nil || w.text(t, 0) != "changed by middleware" || w.Result["resultType"] != "complete" {
		t.Errorf("changed result: %s", w.raw)
	}
	if m, _ := w.Result["_meta"].(M); m[keyInfo] == nil {
		t.Errorf("R-META-04: the envelope is missing after a middleware: %s", w.raw)
	}
	if w := call(t, h, 3, protocol.MethodToolsList, params(nil)); w.Error != nil {
		t.Errorf("tools/list: %s", w.raw)
	}
	// Refused by the checks before any middleware runs.
	mismatch := post(t, h, rpc(4, protocol.MethodToolsCall, params(M{"name": "echo", "arguments": M{"text": "x"}})), func(r *http.Request) {
		r.Header.Set(HeaderName, "other")
	})
	paramMismatch := post(t, h, rpc(5, protocol.MethodToolsCall, params(M{"name": "hdr", "arguments": M{"region": "eu"}})), func(r *http.Request) {
		r.Header.Set(HeaderParamPrefix+"Region", "us")
	})
	badVersion := post(t, h, rpc(6, protocol.MethodToolsList, withMeta(meta(keyVersion, "1999-01-01"), nil)), nil)
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
	var e *Error
	if !errors.As(v.errs[0], &e) || e.Code != CodeRateLimited {
		t.Errorf("outer middleware saw error %v, want the inner refusal", v.errs[0])
	}
}

// TestMiddlewareStdio checks the same chain on stdio: the refusal's code,
// the changed result, and no headers.
func TestMiddlewareStdio(t *testing.T) {
	v := &seen{}
	s := fixture(t, WithMiddleware(v.middleware, refuser))
	msgs := stdio(t, s,
		string(rpc(1, protocol.MethodToolsCall, params(M{"name": "echo", "arguments": M{"text": "x"}}))),
		string(rpc(2, protocol.MethodToolsCall, params(M{"name": "hdr", "arguments": M{"region": "eu"}}))),
		string(rpc(3, protocol.MethodToolsList, withMeta(meta(keyVersion, "1999-01-01"), nil))),
	)
	byID := map[string]*wire{}
	for _, m := range msgs {
		byID[string(m.members["id"])] = m
	}
	if w := byID["1"]; w == nil || w.code() != CodeRateLimited {
		t.Errorf("stdio refusal: %v", w)
	}
	if w := byID["2"]; w == nil || w.Error != nil || w.text(t, 0) != "changed by middleware" {
		t.Errorf("stdio changed result: %v", w)
	}
	if w := byID["3"]; w == nil || w.code() != protocol.CodeUnsupportedProtocolVersionError {
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
	s := fixture(t, WithMiddleware(v.middleware, refuser))
	c := newLegacyHTTP(t, s.Handler(HTTPOptions{Authenticate: xUser}), "2025-11-25", "X-User", "bob", "X-Trace", "t9")
	c.open(`{}`)
	w, _, rec := c.call(1, protocol.MethodToolsCall, `{"name":"echo","arguments":{"text":"x"}}`)
	if w.code() != CodeRateLimited || rec.Code != http.StatusTooManyRequests {
		t.Errorf("legacy refusal: %d %s", rec.Code, w.raw)
	}
	w, _, _ = c.call(2, protocol.MethodToolsCall, `{"name":"hdr","arguments":{"region":"eu"}}`)
	if w.Error != nil || w.text(t, 0) != "changed by middleware" {
		t.Errorf("legacy changed result: %s", w.raw)
	}
	if _, ok := w.Result["resultType"]; ok {
		t.Errorf("legacy result carries resultType: %s", w.raw)
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
	nothing := func(Handler) Handler {
		return func(context.Context, *Request) (Result, error) { return nil, nil }
	}
	plain := func(Handler) Handler {
		return func(context.Context, *Request) (Result, error) { return nil, errors.New("secret detail") }
	}
	for name, mw := range map[string]Middleware{"nothing": nothing, "plain": plain} {
		h := fixture(t, WithMiddleware(mw)).Handler(HTTPOptions{})
		rec := post(t, h, rpc(1, protocol.MethodToolsList, params(nil)), nil)
		w := single(t, rec)
		if w.code() != protocol.CodeInternalError || rec.Code != http.StatusInternalServerError || strings.Contains(string(w.raw), "secret") {
			t.Errorf("%s: %d %s", name, rec.Code, w.raw)
		}
	}
}

// TestWrapTool checks per-tool middleware: it wraps one tool only, runs
// after argument validation (it never sees invalid arguments) and in the
// order given, and applies to a typed tool.
func TestWrapTool(t *testing.T) {
	var order []string
	mark := func(tag string) ToolMiddleware {
		return func(next ToolHandler) ToolHandler {
			return func(ctx context.Context, r *Request, args json.RawMessage) (*protocol.CallToolResult, error) {
				order = append(order, tag+":"+string(args))
				return next(ctx, r, args)
			}
		}
	}
	s := newServer(t)
	addTool(t, s, `{"name":"wrapped","inputSchema":{"type":"object","properties":{"n":{"type":"integer"}}}}`, textTool("w"), WrapTool(mark("a"), mark("b")))
	addTool(t, s, `{"name":"plain","inputSchema":{"type":"object"}}`, textTool("p"))
	type in struct {
		N int `json:"n"`
	}
	if err := AddTypedTool(s, protocol.Tool{Name: "typed"}, func(_ context.Context, _ *Request, v in) (int, error) { return v.N, nil }, WrapTool(mark("t"))); err != nil {
		t.Fatal(err)
	}
	h := s.Handler(HTTPOptions{})
	call(t, h, 1, protocol.MethodToolsCall, params(M{"name": "wrapped", "arguments": M{"n": 1}}))
	if w := call(t, h, 2, protocol.MethodToolsCall, params(M{"name": "wrapped", "arguments": M{"n": "x"}})); !w.isError() {
		t.Errorf("invalid arguments: %s", w.raw)
	}
	call(t, h, 3, protocol.MethodToolsCall, params(M{"name": "plain"}))
	call(t, h, 4, protocol.MethodToolsCall, params(M{"name": "typed", "arguments": M{"n": 5}}))
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
	mw := func(next Handler) Handler {
		return func(ctx context.Context, r *Request) (Result, error) {
			if r.Method == "resources/subscribe" && r.Principal == "eve" {
				return nil, &Error{Code: -31001, Message: "eve may not subscribe"}
			}
			res, err := next(ctx, r)
			code := int64(0)
			var e *Error
			if errors.As(err, &e) {
				code = e.Code
			}
			_, empty := res.(*protocol.Result)
			mu.Lock()
			saw = append(saw, fmt.Sprintf("%s %s legacy=%v %s empty=%v code=%d", r.Method, r.Name(), r.Legacy(), r.ProtocolVersion(), empty, code))
			mu.Unlock()
			return res, err
		}
	}
	s := fixture(t, WithMiddleware(mw))
	h := s.Handler(HTTPOptions{Authenticate: xUser})
	c := newLegacyHTTP(t, h, "2025-11-25", "X-User", "bob")
	c.open(`{}`)
	for i, call := range []struct{ method, params string }{
		{"ping", `{}`},
		{"logging/setLevel", `{"level":"debug"}`},
		{"resources/subscribe", `{"uri":"file:///a.txt"}`},
		{"resources/subscribe", `{"uri":"file:///none"}`},
		{"resources/unsubscribe", `{"uri":"file:///a.txt"}`},
	} {
		c.call(i+1, call.method, call.params)
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
	eve := newLegacyHTTP(t, h, "2025-11-25", "X-User", "eve")
	eve.open(`{}`)
	w, _, _ := eve.call(1, "resources/subscribe", `{"uri":"file:///a.txt"}`)
	if w.code() != -31001 {
		t.Errorf("refused subscribe: %s", w.raw)
	}
}

// TestMiddlewareStdioSessionPing checks that a ping of a legacy stdio
// session passes through middleware too (the second review's ATK-MW-1:
// the stdio read loop answered it before the session layer did).
func TestMiddlewareStdioSessionPing(t *testing.T) {
	refusePing := func(next Handler) Handler {
		return func(ctx context.Context, r *Request) (Result, error) {
			if r.Method == "ping" {
				return nil, &Error{Code: -31002, Message: "no pings"}
			}
			return next(ctx, r)
		}
	}
	s := fixture(t, WithMiddleware(refusePing))
	msgs := stdio(t, s,
		`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"c","version":"1"}}}`,
		`{"jsonrpc":"2.0","method":"notifications/initialized"}`,
		`{"jsonrpc":"2.0","id":2,"method":"ping"}`,
	)
	var got *wire
	for _, m := range msgs {
		if string(m.members["id"]) == "2" {
			got = m
		}
	}
	if got == nil || got.code() != -31002 {
		t.Errorf("stdio session ping: %v, want the middleware's refusal", got)
	}
	// Without a session a ping is the transport's: {} at once.
	msgs = stdio(t, s, `{"jsonrpc":"2.0","id":3,"method":"ping"}`)
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
	mw := func(next Handler) Handler {
		return func(ctx context.Context, r *Request) (Result, error) {
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
	s := fixture(t, WithMiddleware(mw))
	c := newLegacyHTTP(t, s.Handler(HTTPOptions{}), "2025-11-25")
	c.open(`{}`)
	w, _, _ := c.call(1, "resources/subscribe", `{"uri":"file:///none","_meta":{"traceparent":"00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01"}}`)
	if w.Error != nil {
		t.Errorf("the middleware's result was not sent: %s", w.raw)
	}
	if !strings.Contains(sawTrace, "4bf92f3577b34da6a3ce929d0e0e4736") {
		t.Errorf("Request.Meta lost the session method's _meta: %q", sawTrace)
	}
}
