package streamhttp_test

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	. "github.com/mcpwire/mcpwire/server/internal/testkit"
	"github.com/mcpwire/mcpwire/server/legacy"
	"github.com/mcpwire/mcpwire/server/streamhttp"

	"github.com/mcpwire/mcpwire/auth"
	"github.com/mcpwire/mcpwire/protocol"
	"github.com/mcpwire/mcpwire/server"
)

// R-AUTH-05, R-AUTH-07, R-AUTH-04, R-AUTH-10: every status and challenge
// of the Authorization header's cases, on the modern path.
func TestAuthStatusesAndChallenges(t *testing.T) {
	h := Handler(AuthServer(t), AuthOptions())
	body := Rpc(1, "tools/call", Params(M{"name": "whoami"}))
	const (
		noCreds   = `Bearer resource_metadata="` + PrmURL + `", scope="read"`
		malformed = `Bearer resource_metadata="` + PrmURL + `", scope="read", error="invalid_request", error_description="malformed Authorization header"`
		invalid   = `Bearer resource_metadata="` + PrmURL + `", scope="read", error="invalid_token", error_description="expired"`
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
		rec := Post(t, h, body, func(r *http.Request) {
			for _, v := range c.hdr {
				r.Header.Add("Authorization", v)
			}
		})
		w := Single(t, rec)
		if rec.Code != c.status || w.Code() != c.code || rec.Header().Get("WWW-Authenticate") != c.challenge {
			t.Errorf("%s: %d %q %s; want %d %q code %d", c.name, rec.Code, rec.Header().Get("WWW-Authenticate"), w.Raw, c.status, c.challenge, c.code)
		}
		if c.status == 503 && rec.Header().Get("Retry-After") == "" {
			t.Errorf("%s: no Retry-After", c.name)
		}
		if c.status == 200 && w.Text(t, 0) != AuthIss+" alice|alice" {
			t.Errorf("%s: principal %q", c.name, w.Text(t, 0))
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
	for _, eras := range []legacy.Eras{legacy.ErasModern, legacy.ErasBoth} {
		h := Handler(AuthServer(t, Eras(eras)), AuthOptions())
		for _, hdr := range []string{"", "Bearer nope", "Bearer", "Bearer down"} {
			r := httptest.NewRequest(http.MethodPost, "/mcp", nil)
			r.Body = failingBody{t}
			r.ContentLength = 100
			r.Host = Loopback
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
	h := Handler(AuthServer(t), AuthOptions())
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
		rec := Post(t, h, Rpc(7, c.method, Params(c.p)), Bearer("reader"))
		w := Single(t, rec)
		want := `Bearer resource_metadata="` + PrmURL + `", scope="` + c.scope + `"` + desc
		if rec.Code != 403 || w.Code() != protocol.CodeInvalidRequestError || w.Id() != "7" || rec.Header().Get("WWW-Authenticate") != want {
			t.Errorf("%s: %d %q %s\nwant 403 %q", c.method, rec.Code, rec.Header().Get("WWW-Authenticate"), w.Raw, want)
		}
		if d := w.Data(t); fmt.Sprint(d["requiredScopes"]) != "["+c.scope+"]" {
			t.Errorf("%s: data %v", c.method, d)
		}
		// With the scopes, the operation runs.
		rec = Post(t, h, Rpc(8, c.method, Params(c.p)), Bearer("admin"))
		if w := Single(t, rec); rec.Code != 200 || w.Error != nil || rec.Header().Get("WWW-Authenticate") != "" {
			t.Errorf("%s as admin: %d %s", c.method, rec.Code, w.Raw)
		}
	}
}

// The same 403 reaches a legacy session (dual era), with the same status
// and challenge.
func TestAuthInsufficientScopeLegacy(t *testing.T) {
	h := Handler(AuthServer(t, Eras(legacy.ErasBoth)), AuthOptions())
	c := NewLegacyHTTP(t, h, "2025-11-25", "Authorization", "Bearer reader")
	c.Open("")
	w, _, rec := c.Call(3, "tools/call", `{"name":"admin","arguments":{}}`)
	want := `Bearer resource_metadata="` + PrmURL + `", scope="admin write", error="insufficient_scope", error_description="the access token lacks a scope this operation needs"`
	if rec.Code != 403 || w.Code() != protocol.CodeInvalidRequestError || rec.Header().Get("WWW-Authenticate") != want {
		t.Errorf("legacy tools/call: %d %q %s", rec.Code, rec.Header().Get("WWW-Authenticate"), w.Raw)
	}
	w, _, rec = c.Call(4, "resources/read", `{"uri":"test://secret"}`)
	if rec.Code != 403 || w.Code() != protocol.CodeInvalidRequestError {
		t.Errorf("legacy resources/read: %d %s", rec.Code, w.Raw)
	}
	// The session's principal is the token's; the tool sees it.
	w, _, rec = c.Call(5, "tools/call", `{"name":"whoami","arguments":{}}`)
	if rec.Code != 200 || ResultText(t, w) != AuthIss+" alice|alice" {
		t.Errorf("legacy whoami: %d %s", rec.Code, w.Raw)
	}
	// Without a token, a session request is 401 too; another principal's
	// token does not find the session (404).
	if rec2 := EraRequest(t, h, http.MethodPost, EraBody(6, "tools/list", ""), legacy.HeaderSessionID, c.Sid, server.HeaderProtocolVersion, c.Rev); rec2.Code != 401 {
		t.Errorf("session request without a token: %d", rec2.Code)
	}
	if rec3 := EraRequest(t, h, http.MethodPost, EraBody(6, "tools/list", ""), legacy.HeaderSessionID, c.Sid, server.HeaderProtocolVersion, c.Rev, "Authorization", "Bearer admin"); rec3.Code != 404 {
		t.Errorf("another principal's session request: %d %s", rec3.Code, rec3.Body)
	}
}

// R-AUTH-09: ScopeSatisfies judges hierarchies.
func TestAuthScopeHierarchy(t *testing.T) {
	opts := AuthOptions()
	h := Handler(AuthServer(t), opts)
	if rec := Post(t, h, Rpc(1, "tools/call", Params(M{"name": "readfile"})), Bearer("files")); rec.Code != 403 {
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
	h = Handler(AuthServer(t), opts)
	if rec := Post(t, h, Rpc(1, "tools/call", Params(M{"name": "readfile"})), Bearer("files")); rec.Code != 200 {
		t.Errorf("files satisfies files:read: %d %s", rec.Code, rec.Body)
	}
}

// R-TOOL-02: lists filtered by scope on request, then private.
func TestAuthFilteredLists(t *testing.T) {
	names := func(h http.Handler, tok string) (string, string) {
		rec := Post(t, h, Rpc(1, "tools/list", Params(nil)), Bearer(tok))
		w := Single(t, rec)
		var out []string
		for _, x := range w.Result["tools"].([]any) {
			out = append(out, x.(M)["name"].(string))
		}
		scope, _ := w.Result["cacheScope"].(string)
		return strings.Join(out, ","), scope
	}
	plain := Handler(AuthServer(t, server.WithCacheHint(protocol.MethodToolsList, server.CacheHint{TTL: 60e9, Scope: protocol.CacheScopePublic})), AuthOptions())
	if got, scope := names(plain, "reader"); got != "admin,readfile,whoami" || scope != "public" {
		t.Errorf("unfiltered: %q %q", got, scope)
	}
	opts := AuthOptions()
	opts.FilterListsByScope = true
	filtered := Handler(AuthServer(t, server.WithCacheHint(protocol.MethodToolsList, server.CacheHint{TTL: 60e9, Scope: protocol.CacheScopePublic})), opts)
	if got, scope := names(filtered, "reader"); got != "whoami" || scope != "private" {
		t.Errorf("filtered for reader: %q %q", got, scope)
	}
	if got, _ := names(filtered, "admin"); got != "admin,whoami" {
		t.Errorf("filtered for admin: %q", got)
	}
}

// R-STDIO-06: stdio has no token; scoped tools are served as they are.
func TestAuthStdioUntouched(t *testing.T) {
	ss := StartStdio(t, AuthServer(t))
	ss.Send(string(Rpc(1, "tools/call", Params(M{"name": "admin"}))))
	if w := ss.Recv(); w.Error != nil || w.IsError() || w.Text(t, 0) != "done" {
		t.Errorf("stdio tools/call of a scoped tool: %s", w.Raw)
	}
	ss.Send(string(Rpc(2, "tools/call", Params(M{"name": "whoami"}))))
	if w := ss.Recv(); w.Text(t, 0) != "|<no token>" {
		t.Errorf("stdio Request.Token: %s", w.Raw)
	}
}

func TestAuthVerifierAndAuthenticateExclusive(t *testing.T) {
	defer func() {
		if recover() == nil {
			t.Error("Handler accepted Verifier and Authenticate together")
		}
	}()
	opts := AuthOptions()
	opts.Authenticate = XUser
	Handler(AuthServer(t), opts)
}

// The principal of a verified request is the token's issuer and subject,
// and what the Authenticate principal bound binds to it: sealed
// requestState (R-MRTR-08) opens only for the same issuer and subject —
// not for another subject, nor for the same subject of another issuer.
func TestAuthPrincipalBindsState(t *testing.T) {
	v := FakeVerifier{
		"alice":       TokenFor("alice"),
		"bob":         TokenFor("bob"),
		"alice-other": {Issuer: "https://other-as.example.com", Subject: "alice"},
	}
	m := NewMRTR(t, streamhttp.Options{Verifier: v})
	st := m.First(t, Bearer("alice"))
	before := m.Calls.Load()
	for _, tok := range []string{"bob", "alice-other"} {
		if w, _ := m.Retry(t, protocol.MethodToolsCall, "ask", st, Accepted, Bearer(tok)); w.Code() != protocol.CodeInvalidParamsError || m.Calls.Load() != before {
			t.Errorf("R-MRTR-08: %s opened alice's state: %s", tok, w.Raw)
		}
	}
	if w, _ := m.Retry(t, protocol.MethodToolsCall, "ask", st, Accepted, Bearer("alice")); w.Error != nil {
		t.Errorf("alice's retry: %s", w.Raw)
	}
}

// The 401 and 400 answers on the legacy era's own requests: initialize,
// and GET and DELETE of a session, each refused before anything else.
func TestAuthStatusesLegacy(t *testing.T) {
	h := Handler(AuthServer(t, Eras(legacy.ErasBoth)), AuthOptions())
	init := EraBody(0, "initialize", InitParams("2025-06-18", ""))
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
		rec := EraRequest(t, h, http.MethodPost, init, c.hdr...)
		ch := rec.Header().Get("WWW-Authenticate")
		if rec.Code != c.status || !strings.Contains(ch, `resource_metadata="`+PrmURL+`"`) || (c.errStr == "") != !strings.Contains(ch, "error=") || !strings.Contains(ch, c.errStr) {
			t.Errorf("%s: %d %q", c.name, rec.Code, ch)
		}
		if rec.Header().Get(legacy.HeaderSessionID) != "" {
			t.Errorf("%s: a session was minted", c.name)
		}
	}
	c := NewLegacyHTTP(t, h, "2025-11-25", "Authorization", "Bearer reader")
	c.Open("")
	for _, verb := range []string{http.MethodGet, http.MethodDelete} {
		if rec := EraRequest(t, h, verb, "", legacy.HeaderSessionID, c.Sid, server.HeaderProtocolVersion, c.Rev); rec.Code != 401 {
			t.Errorf("%s of a session without a token: %d", verb, rec.Code)
		}
	}
}

// A JSON-RPC batch of a 2025-03-26 session checks scopes too: the
// refused element is the -32600 insufficient-scope error in the array
// (one status answers the whole batch, so it stays 200), the others run.
func TestAuthInsufficientScopeBatch(t *testing.T) {
	h := Handler(AuthServer(t, Eras(legacy.ErasBoth)), AuthOptions())
	c := NewLegacyHTTP(t, h, "2025-03-26", "Authorization", "Bearer reader")
	c.Open("")
	rec := c.Send(http.MethodPost, `[`+EraBody(1, "tools/call", `{"name":"admin","arguments":{}}`)+`,`+EraBody(2, "tools/call", `{"name":"whoami","arguments":{}}`)+`]`)
	var out []struct {
		ID     int             `json:"id"`
		Error  *WireError      `json:"error"`
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
			if o.Error != nil || !strings.Contains(string(o.Result), AuthIss+" alice|alice") {
				t.Errorf("whoami in a batch: %+v %s", o.Error, o.Result)
			}
		}
	}
}

// A listen stream does not outlive the token that opened it: it ends, as
// at WithMaxStreamLifetime, with its result when the token expires.
func TestAuthListenEndsAtTokenExpiry(t *testing.T) {
	s := AuthServer(t)
	short := TokenFor("alice")
	short.Expiry = time.Now().Add(300 * time.Millisecond)
	srv := httptest.NewServer(Handler(s, streamhttp.Options{Verifier: FakeVerifier{"short": short}}))
	t.Cleanup(srv.Close)
	st := OpenListenWith(t, srv, "sub-1", Params(M{"notifications": M{"toolsListChanged": true}}), Bearer("short"))
	if m := st.Message(2 * time.Second); m.Method() != protocol.MethodNotificationsSubscriptionsAcknowledged {
		t.Fatalf("first frame %s", m.Raw)
	}
	if m := st.Message(5 * time.Second); m.Method() != "" || m.Result == nil {
		t.Fatalf("the stream did not end with its result at the token's expiry: %s", m.Raw)
	}
}

// The same for a legacy session's GET stream: it ends (with a retry
// field, as at its lifetime) when the token that opened it expires.
func TestAuthLegacyStreamEndsAtTokenExpiry(t *testing.T) {
	s := AuthServer(t, Eras(legacy.ErasBoth))
	short := TokenFor("alice")
	short.Expiry = time.Now().Add(300 * time.Millisecond)
	h := Handler(s, streamhttp.Options{Verifier: FakeVerifier{"long": TokenFor("alice"), "short": short}})
	c := NewLegacyHTTP(t, h, "2025-11-25", "Authorization", "Bearer long")
	c.Open("")
	srv := httptest.NewServer(h)
	t.Cleanup(srv.Close)
	req, _ := http.NewRequest(http.MethodGet, srv.URL+"/mcp", nil)
	req.Header.Set("Accept", "text/event-stream")
	req.Header.Set(legacy.HeaderSessionID, c.Sid)
	req.Header.Set(server.HeaderProtocolVersion, c.Rev)
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
