package server

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/mcpwire/mcpwire/auth"
	"github.com/mcpwire/mcpwire/protocol"
)

const (
	prmURL  = "https://mcp.example.com/.well-known/oauth-protected-resource/mcp"
	authIss = "https://as.example.com"
)

// fakeVerifier accepts the tokens it knows; "down" is an outage.
type fakeVerifier map[string]*auth.TokenInfo

func (f fakeVerifier) Verify(_ context.Context, tok string) (*auth.TokenInfo, error) {
	if tok == "down" {
		return nil, errors.New("issuer unreachable")
	}
	if ti, ok := f[tok]; ok {
		return ti, nil
	}
	return nil, fmt.Errorf("%w: expired", auth.ErrInvalidToken)
}

func tokenFor(sub string, scopes ...string) *auth.TokenInfo {
	return &auth.TokenInfo{Issuer: authIss, Subject: sub, Scopes: scopes}
}

var testTokens = fakeVerifier{
	"reader": tokenFor("alice", "read"),
	"admin":  tokenFor("root", "read", "admin", "write"),
	"files":  tokenFor("fil", "read", "files"),
}

func authOptions() HTTPOptions {
	return HTTPOptions{Verifier: testTokens, ResourceMetadataURL: prmURL, Scopes: []string{"read", "offline_access"}}
}

// authServer has a tool "whoami" that needs nothing more than a token, a
// tool "admin" that needs admin and write, a prompt and a resource that
// need admin.
func authServer(t testing.TB, opts ...Option) *Server {
	t.Helper()
	s := newServer(t, opts...)
	addTool(t, s, `{"name":"whoami","inputSchema":{"type":"object"}}`, func(_ context.Context, r *Request, _ json.RawMessage) (*protocol.CallToolResult, error) {
		sub := "<no token>"
		if ti := r.Token(); ti != nil {
			sub = ti.Subject
		}
		return TextResult(r.Principal + "|" + sub), nil
	})
	if err := s.AddTool(toolDef(t, `{"name":"admin","inputSchema":{"type":"object"}}`), textTool("done"), RequireScopes("admin", "write")); err != nil {
		t.Fatal(err)
	}
	if err := s.AddTool(toolDef(t, `{"name":"readfile","inputSchema":{"type":"object"}}`), textTool("file"), RequireScopes("files:read")); err != nil {
		t.Fatal(err)
	}
	addPrompt(t, s, protocol.Prompt{Name: "secret"}, func(context.Context, *Request, map[string]string) (*protocol.GetPromptResult, error) {
		return &protocol.GetPromptResult{}, nil
	}, RequirePromptScopes("admin"))
	addResource(t, s, protocol.Resource{URI: "test://secret", Name: "secret"}, func(_ context.Context, _ *Request, uri string, _ map[string]string) ([]protocol.ReadResourceResultContentsElem, error) {
		return TextContents(uri, "text/plain", "s"), nil
	}, RequireResourceScopes("admin"))
	return s
}

func bearer(tok string) func(r *http.Request) {
	return func(r *http.Request) { r.Header.Set("Authorization", "Bearer "+tok) }
}

// R-AUTH-05, R-AUTH-07, R-AUTH-04, R-AUTH-10: every status and challenge
// of the Authorization header's cases, on the modern path.
func TestAuthStatusesAndChallenges(t *testing.T) {
	h := authServer(t).Handler(authOptions())
	body := rpc(1, "tools/call", params(M{"name": "whoami"}))
	const (
		noCreds   = `Bearer resource_metadata="` + prmURL + `", scope="read"`
		malformed = `Bearer resource_metadata="` + prmURL + `", scope="read", error="invalid_request", error_description="malformed Authorization header"`
		invalid   = `Bearer resource_metadata="` + prmURL + `", scope="read", error="invalid_token", error_description="expired"`
	)
	cases := []struct {
		name      string
		hdr       []string // Authorization values
		status    int
		challenge string
		code      int64
	}{
		{"no Authorization header", nil, 401, noCreds, protocol.CodeInvalidRequestError},
		{"another scheme (RFC 6750 §3.1: no error code)", []string{"Basic dXNlcjpwYXNz"}, 401, noCreds, protocol.CodeInvalidRequestError},
		{"two Authorization headers", []string{"Bearer reader", "Bearer reader"}, 400, malformed, protocol.CodeInvalidRequestError},
		{"Bearer with no token", []string{"Bearer"}, 400, malformed, protocol.CodeInvalidRequestError},
		{"Bearer and spaces", []string{"Bearer    "}, 400, malformed, protocol.CodeInvalidRequestError},
		{"a token with a space", []string{"Bearer read er"}, 400, malformed, protocol.CodeInvalidRequestError},
		{"a token with a quote", []string{`Bearer "reader"`}, 400, malformed, protocol.CodeInvalidRequestError},
		{"no scheme, junk", []string{"@@@ junk"}, 400, malformed, protocol.CodeInvalidRequestError},
		{"empty header", []string{""}, 400, malformed, protocol.CodeInvalidRequestError},
		{"invalid token", []string{"Bearer nope"}, 401, invalid, protocol.CodeInvalidRequestError},
		{"verifier outage", []string{"Bearer down"}, 503, "", protocol.CodeInternalError},
		{"lower-case bearer (RFC 6750, accepted)", []string{"bearer reader"}, 200, "", 0},
		{"upper-case BEARER, two spaces", []string{"BEARER  reader"}, 200, "", 0},
	}
	for _, c := range cases {
		rec := post(t, h, body, func(r *http.Request) {
			for _, v := range c.hdr {
				r.Header.Add("Authorization", v)
			}
		})
		w := single(t, rec)
		if rec.Code != c.status || w.code() != c.code || rec.Header().Get("WWW-Authenticate") != c.challenge {
			t.Errorf("%s: %d %q %s; want %d %q code %d", c.name, rec.Code, rec.Header().Get("WWW-Authenticate"), w.raw, c.status, c.challenge, c.code)
		}
		if c.status == 503 && rec.Header().Get("Retry-After") == "" {
			t.Errorf("%s: no Retry-After", c.name)
		}
		if c.status == 200 && w.text(t, 0) != authIss+" alice|alice" {
			t.Errorf("%s: principal %q", c.name, w.text(t, 0))
		}
	}
}

// failingBody fails the test when read: the body is never read before
// the token is verified (R-AUTH-05).
type failingBody struct{ t *testing.T }

func (b failingBody) Read([]byte) (int, error) {
	b.t.Error("the body was read before the token was verified")
	return 0, errors.New("read")
}
func (b failingBody) Close() error { return nil }

func TestAuthBodyNotReadBeforeVerification(t *testing.T) {
	for _, eras := range []Eras{ErasModern, ErasBoth} {
		h := authServer(t, WithEras(eras)).Handler(authOptions())
		for _, hdr := range []string{"", "Bearer nope", "Bearer", "Bearer down"} {
			r := httptest.NewRequest(http.MethodPost, "/mcp", nil)
			r.Body = failingBody{t}
			r.ContentLength = 100
			r.Host = loopback
			r.Header.Set("Content-Type", "application/json")
			if hdr != "" {
				r.Header.Set("Authorization", hdr)
			}
			rec := httptest.NewRecorder()
			h.ServeHTTP(rec, r)
			if rec.Code != 401 && rec.Code != 400 && rec.Code != 503 {
				t.Errorf("%q: %d", hdr, rec.Code)
			}
		}
	}
}

// R-AUTH-08: a tools/call (prompts/get, resources/read) whose token lacks
// a scope gets 403 with one challenge naming every scope it needs.
func TestAuthInsufficientScopeModern(t *testing.T) {
	h := authServer(t).Handler(authOptions())
	const desc = `, error="insufficient_scope", error_description="the access token lacks a scope this operation needs"`
	for _, c := range []struct {
		method string
		p      M
		scope  string
	}{
		{"tools/call", M{"name": "admin"}, "admin write"},
		{"prompts/get", M{"name": "secret"}, "admin"},
		{"resources/read", M{"uri": "test://secret"}, "admin"},
	} {
		rec := post(t, h, rpc(7, c.method, params(c.p)), bearer("reader"))
		w := single(t, rec)
		want := `Bearer resource_metadata="` + prmURL + `", scope="` + c.scope + `"` + desc
		if rec.Code != 403 || w.code() != protocol.CodeInvalidRequestError || w.id() != "7" || rec.Header().Get("WWW-Authenticate") != want {
			t.Errorf("%s: %d %q %s\nwant 403 %q", c.method, rec.Code, rec.Header().Get("WWW-Authenticate"), w.raw, want)
		}
		if d := w.data(t); fmt.Sprint(d["requiredScopes"]) != "["+c.scope+"]" {
			t.Errorf("%s: data %v", c.method, d)
		}
		// With the scopes, the operation runs.
		rec = post(t, h, rpc(8, c.method, params(c.p)), bearer("admin"))
		if w := single(t, rec); rec.Code != 200 || w.Error != nil || rec.Header().Get("WWW-Authenticate") != "" {
			t.Errorf("%s as admin: %d %s", c.method, rec.Code, w.raw)
		}
	}
}

// The same 403 reaches a legacy session (dual era), with the same status
// and challenge.
func TestAuthInsufficientScopeLegacy(t *testing.T) {
	h := authServer(t, WithEras(ErasBoth)).Handler(authOptions())
	c := newLegacyHTTP(t, h, "2025-11-25", "Authorization", "Bearer reader")
	c.open("")
	w, _, rec := c.call(3, "tools/call", `{"name":"admin","arguments":{}}`)
	want := `Bearer resource_metadata="` + prmURL + `", scope="admin write", error="insufficient_scope", error_description="the access token lacks a scope this operation needs"`
	if rec.Code != 403 || w.code() != protocol.CodeInvalidRequestError || rec.Header().Get("WWW-Authenticate") != want {
		t.Errorf("legacy tools/call: %d %q %s", rec.Code, rec.Header().Get("WWW-Authenticate"), w.raw)
	}
	w, _, rec = c.call(4, "resources/read", `{"uri":"test://secret"}`)
	if rec.Code != 403 || w.code() != protocol.CodeInvalidRequestError {
		t.Errorf("legacy resources/read: %d %s", rec.Code, w.raw)
	}
	// The session's principal is the token's; the tool sees it.
	w, _, rec = c.call(5, "tools/call", `{"name":"whoami","arguments":{}}`)
	if rec.Code != 200 || resultText(t, w) != authIss+" alice|alice" {
		t.Errorf("legacy whoami: %d %s", rec.Code, w.raw)
	}
	// Without a token, a session request is 401 too; another principal's
	// token does not find the session (404).
	if rec2 := eraRequest(t, h, http.MethodPost, eraBody(6, "tools/list", ""), HeaderSessionID, c.sid, HeaderProtocolVersion, c.rev); rec2.Code != 401 {
		t.Errorf("session request without a token: %d", rec2.Code)
	}
	if rec3 := eraRequest(t, h, http.MethodPost, eraBody(6, "tools/list", ""), HeaderSessionID, c.sid, HeaderProtocolVersion, c.rev, "Authorization", "Bearer admin"); rec3.Code != 404 {
		t.Errorf("another principal's session request: %d %s", rec3.Code, rec3.Body)
	}
}

// R-AUTH-09: ScopeSatisfies judges hierarchies.
func TestAuthScopeHierarchy(t *testing.T) {
	opts := authOptions()
	h := authServer(t).Handler(opts)
	if rec := post(t, h, rpc(1, "tools/call", params(M{"name": "readfile"})), bearer("files")); rec.Code != 403 {
		t.Errorf("exact match by default: %d", rec.Code)
	}
	opts.ScopeSatisfies = func(have *auth.TokenInfo, need string) bool {
		for _, s := range have.Scopes {
			if s == need || strings.HasPrefix(need, s+":") {
				return true
			}
		}
		return false
	}
	h = authServer(t).Handler(opts)
	if rec := post(t, h, rpc(1, "tools/call", params(M{"name": "readfile"})), bearer("files")); rec.Code != 200 {
		t.Errorf("files satisfies files:read: %d %s", rec.Code, rec.Body)
	}
}

// R-TOOL-02: lists filtered by scope on request, then private.
func TestAuthFilteredLists(t *testing.T) {
	names := func(h http.Handler, tok string) (string, string) {
		rec := post(t, h, rpc(1, "tools/list", params(nil)), bearer(tok))
		w := single(t, rec)
		var out []string
		for _, x := range w.Result["tools"].([]any) {
			out = append(out, x.(M)["name"].(string))
		}
		scope, _ := w.Result["cacheScope"].(string)
		return strings.Join(out, ","), scope
	}
	plain := authServer(t, WithCacheHint(protocol.MethodToolsList, CacheHint{TTL: 60e9, Scope: protocol.CacheScopePublic})).Handler(authOptions())
	if got, scope := names(plain, "reader"); got != "admin,readfile,whoami" || scope != "public" {
		t.Errorf("unfiltered: %q %q", got, scope)
	}
	opts := authOptions()
	opts.FilterListsByScope = true
	filtered := authServer(t, WithCacheHint(protocol.MethodToolsList, CacheHint{TTL: 60e9, Scope: protocol.CacheScopePublic})).Handler(opts)
	if got, scope := names(filtered, "reader"); got != "whoami" || scope != "private" {
		t.Errorf("filtered for reader: %q %q", got, scope)
	}
	if got, _ := names(filtered, "admin"); got != "admin,whoami" {
		t.Errorf("filtered for admin: %q", got)
	}
}

// R-STDIO-06: stdio has no token; scoped tools are served as they are.
func TestAuthStdioUntouched(t *testing.T) {
	ss := startStdio(t, authServer(t))
	ss.send(string(rpc(1, "tools/call", params(M{"name": "admin"}))))
	if w := ss.recv(); w.Error != nil || w.isError() || w.text(t, 0) != "done" {
		t.Errorf("stdio tools/call of a scoped tool: %s", w.raw)
	}
	ss.send(string(rpc(2, "tools/call", params(M{"name": "whoami"}))))
	if w := ss.recv(); w.text(t, 0) != "|<no token>" {
		t.Errorf("stdio Request.Token: %s", w.raw)
	}
}

func TestAuthVerifierAndAuthenticateExclusive(t *testing.T) {
	defer func() {
		if recover() == nil {
			t.Error("Handler accepted Verifier and Authenticate together")
		}
	}()
	opts := authOptions()
	opts.Authenticate = xUser
	authServer(t).Handler(opts)
}

// The principal of a verified request is the token's issuer and subject,
// and what the Authenticate principal bound binds to it: sealed
// requestState (R-MRTR-08) opens only for the same issuer and subject —
// not for another subject, nor for the same subject of another issuer.
func TestAuthPrincipalBindsState(t *testing.T) {
	v := fakeVerifier{
		"alice":       tokenFor("alice"),
		"bob":         tokenFor("bob"),
		"alice-other": {Issuer: "https://other-as.example.com", Subject: "alice"},
	}
	m := newMRTR(t, HTTPOptions{Verifier: v})
	st := m.first(t, bearer("alice"))
	before := m.calls.Load()
	for _, tok := range []string{"bob", "alice-other"} {
		if w, _ := m.retry(t, protocol.MethodToolsCall, "ask", st, accepted, bearer(tok)); w.code() != protocol.CodeInvalidParamsError || m.calls.Load() != before {
			t.Errorf("R-MRTR-08: %s opened alice's state: %s", tok, w.raw)
		}
	}
	if w, _ := m.retry(t, protocol.MethodToolsCall, "ask", st, accepted, bearer("alice")); w.Error != nil {
		t.Errorf("alice's retry: %s", w.raw)
	}
}

// The 401 and 400 answers on the legacy era's own requests: initialize,
// and GET and DELETE of a session, each refused before anything else.
func TestAuthStatusesLegacy(t *testing.T) {
	h := authServer(t, WithEras(ErasBoth)).Handler(authOptions())
	init := eraBody(0, "initialize", initParams("2025-06-18", ""))
	for _, c := range []struct {
		name   string
		hdr    []string
		status int
		errStr string
	}{
		{"initialize without a token", nil, 401, ""},
		{"initialize with an invalid token", []string{"Authorization", "Bearer nope"}, 401, `error="invalid_token"`},
		{"initialize with two Authorization headers", []string{"Authorization", "Bearer reader", "Authorization", "Bearer reader"}, 400, `error="invalid_request"`},
		{"initialize with Bearer and no token", []string{"Authorization", "Bearer"}, 400, `error="invalid_request"`},
	} {
		rec := eraRequest(t, h, http.MethodPost, init, c.hdr...)
		ch := rec.Header().Get("WWW-Authenticate")
		if rec.Code != c.status || !strings.Contains(ch, `resource_metadata="`+prmURL+`"`) || (c.errStr == "") != !strings.Contains(ch, "error=") || !strings.Contains(ch, c.errStr) {
			t.Errorf("%s: %d %q", c.name, rec.Code, ch)
		}
		if rec.Header().Get(HeaderSessionID) != "" {
			t.Errorf("%s: a session was minted", c.name)
		}
	}
	c := newLegacyHTTP(t, h, "2025-11-25", "Authorization", "Bearer reader")
	c.open("")
	for _, verb := range []string{http.MethodGet, http.MethodDelete} {
		if rec := eraRequest(t, h, verb, "", HeaderSessionID, c.sid, HeaderProtocolVersion, c.rev); rec.Code != 401 {
			t.Errorf("%s of a session without a token: %d", verb, rec.Code)
		}
	}
}

// A JSON-RPC batch of a 2025-03-26 session checks scopes too: the
// refused element is the -32600 insufficient-scope error in the array
// (one status answers the whole batch, so it stays 200), the others run.
func TestAuthInsufficientScopeBatch(t *testing.T) {
	h := authServer(t, WithEras(ErasBoth)).Handler(authOptions())
	c := newLegacyHTTP(t, h, "2025-03-26", "Authorization", "Bearer reader")
	c.open("")
	rec := c.send(http.MethodPost, `[`+eraBody(1, "tools/call", `{"name":"admin","arguments":{}}`)+`,`+eraBody(2, "tools/call", `{"name":"whoami","arguments":{}}`)+`]`)
	var out []struct {
		ID     int             `json:"id"`
		Error  *wireError      `json:"error"`
		Result json.RawMessage `json:"result"`
	}
	if err := json.Unmarshal(rec.Body.Bytes(), &out); err != nil || len(out) != 2 {
		t.Fatalf("%d %s", rec.Code, rec.Body)
	}
	for _, o := range out {
		switch o.ID {
		case 1:
			if o.Error == nil || o.Error.Code != protocol.CodeInvalidRequestError || !strings.Contains(string(o.Error.Data), `"requiredScopes":["admin","write"]`) {
				t.Errorf("admin in a batch: %+v", o)
			}
		case 2:
			if o.Error != nil || !strings.Contains(string(o.Result), authIss+" alice|alice") {
				t.Errorf("whoami in a batch: %+v %s", o.Error, o.Result)
			}
		}
	}
}

// A listen stream does not outlive the token that opened it: it ends, as
// at WithMaxStreamLifetime, with its result when the token expires.
func TestAuthListenEndsAtTokenExpiry(t *testing.T) {
	s := authServer(t)
	short := tokenFor("alice")
	short.Expiry = time.Now().Add(300 * time.Millisecond)
	srv := httptest.NewServer(s.Handler(HTTPOptions{Verifier: fakeVerifier{"short": short}}))
	t.Cleanup(srv.Close)
	st := openListenWith(t, srv, "sub-1", params(M{"notifications": M{"toolsListChanged": true}}), bearer("short"))
	if m := st.message(2 * time.Second); m.method() != protocol.MethodNotificationsSubscriptionsAcknowledged {
		t.Fatalf("first frame %s", m.raw)
	}
	if m := st.message(5 * time.Second); m.method() != "" || m.Result == nil {
		t.Fatalf("the stream did not end with its result at the token's expiry: %s", m.raw)
	}
}

// The same for a legacy session's GET stream: it ends (with a retry
// field, as at its lifetime) when the token that opened it expires.
func TestAuthLegacyStreamEndsAtTokenExpiry(t *testing.T) {
	s := authServer(t, WithEras(ErasBoth))
	short := tokenFor("alice")
	short.Expiry = time.Now().Add(300 * time.Millisecond)
	h := s.Handler(HTTPOptions{Verifier: fakeVerifier{"long": tokenFor("alice"), "short": short}})
	c := newLegacyHTTP(t, h, "2025-11-25", "Authorization", "Bearer long")
	c.open("")
	srv := httptest.NewServer(h)
	t.Cleanup(srv.Close)
	req, _ := http.NewRequest(http.MethodGet, srv.URL+"/mcp", nil)
	req.Header.Set("Accept", "text/event-stream")
	req.Header.Set(HeaderSessionID, c.sid)
	req.Header.Set(HeaderProtocolVersion, c.rev)
	req.Header.Set("Authorization", "Bearer short")
	cl := &http.Client{Timeout: 5 * time.Second}
	resp, err := cl.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if resp.StatusCode != 200 || err != nil || !strings.Contains(string(body), "retry:") {
		t.Fatalf("GET stream: %d %v %q", resp.StatusCode, err, body)
	}
}
