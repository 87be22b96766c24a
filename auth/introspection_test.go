package auth

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

const (
	introAudience = "https://mcp.example.com/mcp"
	introIssuer   = "https://as.example.com"
)

// fakeAS is an RFC 7662 introspection endpoint: it answers each token with
// the response set for it (inactive for any other), and records what it
// was sent.
type fakeAS struct {
	t     testing.TB
	srv   *httptest.Server
	calls atomic.Int64

	mu        sync.Mutex
	responses map[string]map[string]any
	status    int           // answer this status instead, if not 0
	raw       string        // answer this body instead, if not ""
	gate      chan struct{} // if not nil, each request waits for it to close
	entered   chan struct{} // if not nil, gets a value when a request arrives
	lastAuth  string
	lastType  string
	lastForm  map[string][]string
	lastMeth  string
}

func newFakeAS(t testing.TB) *fakeAS {
	a := &fakeAS{t: t, responses: make(map[string]map[string]any)}
	a.srv = httptest.NewServer(http.HandlerFunc(a.serve))
	t.Cleanup(a.srv.Close)
	return a
}

func (a *fakeAS) serve(w http.ResponseWriter, r *http.Request) {
	a.calls.Add(1)
	if err := r.ParseForm(); err != nil {
		a.t.Errorf("fake AS: %v", err)
	}
	a.mu.Lock()
	a.lastAuth, a.lastType, a.lastForm, a.lastMeth = r.Header.Get("Authorization"), r.Header.Get("Content-Type"), r.PostForm, r.Method
	gate, entered := a.gate, a.entered
	status, raw := a.status, a.raw
	resp, ok := a.responses[r.PostForm.Get("token")]
	a.mu.Unlock()
	if entered != nil {
		select {
		case entered <- struct{}{}:
		default:
		}
	}
	if gate != nil {
		<-gate
	}
	w.Header().Set("Content-Type", "application/json")
	if status != 0 {
		// The body is a good answer, to show that the status decides.
		w.WriteHeader(status)
	}
	if raw != "" {
		_, _ = w.Write([]byte(raw))
		return
	}
	if !ok {
		resp = map[string]any{"active": false}
	}
	_ = json.NewEncoder(w).Encode(resp)
}

// hold makes requests wait until the returned release is called; release
// also runs at cleanup, before the server closes, so that a failing test
// does not hang.
func (a *fakeAS) hold() (release func()) {
	gate := make(chan struct{})
	a.mu.Lock()
	a.gate = gate
	a.mu.Unlock()
	var once sync.Once
	release = func() { once.Do(func() { close(gate) }) }
	a.t.Cleanup(release)
	return release
}

func (a *fakeAS) set(token string, resp map[string]any) {
	a.mu.Lock()
	defer a.mu.Unlock()
	a.responses[token] = resp
}

var introEpoch = time.Date(2026, 12, 1, 12, 0, 0, 0, time.UTC)

// activeResponse is the response for a good token at introEpoch: valid for
// an hour, for introAudience, from introIssuer.
func activeResponse() map[string]any {
	return map[string]any{
		"active":    true,
		"iss":       introIssuer,
		"sub":       "user-1",
		"client_id": "client-1",
		"scope":     "tools:read tools:call",
		"aud":       []any{"https://other.example.com", introAudience},
		"exp":       float64(introEpoch.Add(time.Hour).Unix()),
		"nbf":       float64(introEpoch.Add(-time.Minute).Unix()),
		"iat":       float64(introEpoch.Add(-time.Minute).Unix()),
		"tenant":    "acme",
	}
}

func newIntroVerifier(t *testing.T, a *fakeAS, edit func(*IntrospectionConfig)) (*IntrospectionVerifier, *fakeClock) {
	t.Helper()
	cfg := IntrospectionConfig{
		Endpoint:     a.srv.URL + "/introspect",
		ClientID:     "rs",
		ClientSecret: "secret",
		Issuer:       introIssuer,
		Audience:     introAudience,
	}
	if edit != nil {
		edit(&cfg)
	}
	v, err := NewIntrospectionVerifier(cfg)
	if err != nil {
		t.Fatalf("NewIntrospectionVerifier: %v", err)
	}
	clk := &fakeClock{t: introEpoch}
	v.now = clk.now
	return v, clk
}

func wantInvalid(t *testing.T, err error) {
	t.Helper()
	if !errors.Is(err, ErrInvalidToken) {
		t.Fatalf("error %v, want one wrapping ErrInvalidToken (401)", err)
	}
}

func wantUnavailable(t *testing.T, err error) {
	t.Helper()
	if err == nil || errors.Is(err, ErrInvalidToken) {
		t.Fatalf("error %v, want one not wrapping ErrInvalidToken (503)", err)
	}
}

// newGoodVerifier is a fake server that knows the active token "good"
// (activeResponse), and a verifier on it built by newIntroVerifier with
// edit.
func newGoodVerifier(t *testing.T, edit func(*IntrospectionConfig)) (*fakeAS, *IntrospectionVerifier, *fakeClock) {
	t.Helper()
	a := newFakeAS(t)
	a.set("good", activeResponse())
	v, clk := newIntroVerifier(t, a, edit)
	return a, v, clk
}

// mustVerify stops the test unless v accepts tok.
func mustVerify(t *testing.T, v *IntrospectionVerifier, tok string) {
	t.Helper()
	if _, err := v.Verify(context.Background(), tok); err != nil {
		t.Fatalf("Verify: %v", err)
	}
}

// wantVerdict has a fake server answer r for the token "tok" and checks
// that a verifier of the default test config accepts it when ok, and
// refuses it as invalid (401) otherwise.
func wantVerdict(t *testing.T, r map[string]any, ok bool) {
	t.Helper()
	a := newFakeAS(t)
	a.set("tok", r)
	v, _ := newIntroVerifier(t, a, nil)
	_, err := v.Verify(context.Background(), "tok")
	if ok {
		if err != nil {
			t.Fatalf("Verify: %v", err)
		}
		return
	}
	wantInvalid(t, err)
}

// R-AUTH-05: an active token for this server is accepted, and TokenInfo
// carries the members of the response.
func TestIntrospectionActive(t *testing.T) {
	_, v, _ := newGoodVerifier(t, nil)
	info, err := v.Verify(context.Background(), "good")
	if err != nil {
		t.Fatalf("Verify: %v", err)
	}
	if info.Issuer != introIssuer || info.Subject != "user-1" || info.ClientID != "client-1" {
		t.Errorf("iss/sub/client_id = %q %q %q", info.Issuer, info.Subject, info.ClientID)
	}
	if got := strings.Join(info.Scopes, ","); got != "tools:read,tools:call" {
		t.Errorf("Scopes = %q", got)
	}
	if got := strings.Join(info.Audience, ","); got != "https://other.example.com,"+introAudience {
		t.Errorf("Audience = %q", got)
	}
	if !info.Expiry.Equal(introEpoch.Add(time.Hour)) || !info.NotBefore.Equal(introEpoch.Add(-time.Minute)) || !info.IssuedAt.Equal(introEpoch.Add(-time.Minute)) {
		t.Errorf("exp/nbf/iat = %v %v %v", info.Expiry, info.NotBefore, info.IssuedAt)
	}
	if info.Claims["tenant"] != "acme" || info.Claims["active"] != true {
		t.Errorf("Claims = %v", info.Claims)
	}
	if info.Principal() != introIssuer+" user-1" {
		t.Errorf("Principal = %q", info.Principal())
	}
}

// A single-string "aud" is one audience.
func TestIntrospectionAudienceString(t *testing.T) {
	a := newFakeAS(t)
	r := activeResponse()
	r["aud"] = introAudience
	a.set("good", r)
	v, _ := newIntroVerifier(t, a, nil)
	info, err := v.Verify(context.Background(), "good")
	if err != nil {
		t.Fatalf("Verify: %v", err)
	}
	if len(info.Audience) != 1 || info.Audience[0] != introAudience {
		t.Errorf("Audience = %q", info.Audience)
	}
}

// R-AUTH-05: an inactive (revoked, unknown) token gets 401.
func TestIntrospectionInactive(t *testing.T) {
	a := newFakeAS(t)
	v, _ := newIntroVerifier(t, a, nil)
	_, err := v.Verify(context.Background(), "revoked")
	wantInvalid(t, err)
}

// R-AUTH-05, R-AUTH-06: a token issued for another resource is refused;
// R-AUTH-12: an audience is this server's when it names the same resource
// (SameResource): scheme and host without regard to case, the default
// port and one trailing slash dropped, the path's case and the rest kept.
func TestIntrospectionAudience(t *testing.T) {
	for _, tc := range []struct {
		name string
		aud  any
		ok   bool
	}{
		{"another resource", "https://other.example.com/mcp", false},
		{"another path", "https://mcp.example.com/other", false},
		{"path case", "https://mcp.example.com/MCP", false},
		{"upper-case scheme and host", "HTTPS://MCP.Example.COM/mcp", true},
		{"default port", "https://mcp.example.com:443/mcp", true},
		{"trailing slash", "https://mcp.example.com/mcp/", true},
		{"another port", "https://mcp.example.com:8443/mcp", false},
		{"http", "http://mcp.example.com/mcp", false},
		{"the host only", "https://mcp.example.com", false},
		{"a query", "https://mcp.example.com/mcp?x=1", false},
		{"not a URI", "mcp.example.com/mcp", false},
		{"empty", "", false},
		{"array without it", []any{"https://a.example.com", "https://b.example.com"}, false},
		{"missing", nil, false},
		{"empty array", []any{}, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := activeResponse()
			if tc.aud == nil {
				delete(r, "aud")
			} else {
				r["aud"] = tc.aud
			}
			wantVerdict(t, r, tc.ok)
		})
	}
}

// The configured Audience is compared in its canonical form: one given
// with an upper-case host, the default port and a trailing slash accepts
// a token for the canonical URI, and not one for another path.
func TestIntrospectionAudienceConfigCanonical(t *testing.T) {
	a := newFakeAS(t)
	a.set("tok", activeResponse())
	r := activeResponse()
	r["aud"] = "https://mcp.example.com/other"
	a.set("other", r)
	v, _ := newIntroVerifier(t, a, func(c *IntrospectionConfig) { c.Audience = "HTTPS://MCP.EXAMPLE.COM:443/mcp/" })
	mustVerify(t, v, "tok")
	_, err := v.Verify(context.Background(), "other")
	wantInvalid(t, err)
}

// R-AUTH-05: a token from another issuer is refused; a response without
// "iss" is the configured issuer's.
func TestIntrospectionIssuer(t *testing.T) {
	a := newFakeAS(t)
	r := activeResponse()
	r["iss"] = "https://evil.example.com"
	a.set("other", r)
	r = activeResponse()
	r["iss"] = introIssuer + "/"
	a.set("slash", r)
	r = activeResponse()
	delete(r, "iss")
	a.set("noiss", r)
	v, _ := newIntroVerifier(t, a, nil)
	_, err := v.Verify(context.Background(), "other")
	wantInvalid(t, err)
	_, err = v.Verify(context.Background(), "slash")
	wantInvalid(t, err)
	info, err := v.Verify(context.Background(), "noiss")
	if err != nil {
		t.Fatalf("Verify without iss: %v", err)
	}
	if info.Issuer != introIssuer {
		t.Errorf("Issuer = %q, want the configured %q", info.Issuer, introIssuer)
	}

	// Without a configured Issuer, any "iss" is taken as it is.
	v, _ = newIntroVerifier(t, a, func(c *IntrospectionConfig) { c.Issuer = "" })
	info, err = v.Verify(context.Background(), "other")
	if err != nil {
		t.Fatalf("Verify without Issuer configured: %v", err)
	}
	if info.Issuer != "https://evil.example.com" {
		t.Errorf("Issuer = %q", info.Issuer)
	}
}

// R-AUTH-05: "exp" and "nbf" are checked with the leeway, even when the
// server says the token is active.
func TestIntrospectionTimes(t *testing.T) {
	for _, tc := range []struct {
		name     string
		exp, nbf time.Duration // from introEpoch; 0: absent
		ok       bool
	}{
		{"expired", -time.Minute, 0, false},
		{"expired within the leeway", -20 * time.Second, 0, true},
		{"not yet valid", 0, time.Minute, false},
		{"not yet valid within the leeway", 0, 20 * time.Second, true},
		{"no exp", 0, 0, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := activeResponse()
			delete(r, "exp")
			delete(r, "nbf")
			if tc.exp != 0 {
				r["exp"] = float64(introEpoch.Add(tc.exp).Unix())
			}
			if tc.nbf != 0 {
				r["nbf"] = float64(introEpoch.Add(tc.nbf).Unix())
			}
			wantVerdict(t, r, tc.ok)
		})
	}
}

// A negative Leeway is none.
func TestIntrospectionNoLeeway(t *testing.T) {
	a := newFakeAS(t)
	r := activeResponse()
	r["exp"] = float64(introEpoch.Add(-time.Second).Unix())
	a.set("tok", r)
	v, _ := newIntroVerifier(t, a, func(c *IntrospectionConfig) { c.Leeway = -1 })
	_, err := v.Verify(context.Background(), "tok")
	wantInvalid(t, err)
}

// A token of a client-credentials grant without "sub" speaks for its
// client, in the clients' namespace; one with neither has no principal
// and is refused.
func TestIntrospectionSubject(t *testing.T) {
	a := newFakeAS(t)
	r := activeResponse()
	delete(r, "sub")
	a.set("client", r)
	r = activeResponse()
	delete(r, "sub")
	delete(r, "client_id")
	a.set("nobody", r)
	v, _ := newIntroVerifier(t, a, nil)
	info, err := v.Verify(context.Background(), "client")
	if err != nil {
		t.Fatalf("Verify: %v", err)
	}
	if info.Subject != "client:client-1" {
		t.Errorf("Subject = %q, want client: and the client_id", info.Subject)
	}
	_, err = v.Verify(context.Background(), "nobody")
	wantInvalid(t, err)
}

// A sender-constrained token (its response has "cnf") is refused: only a
// DPoP or mutual-TLS check could accept it, and this is a bearer verifier.
func TestIntrospectionSenderConstrained(t *testing.T) {
	a := newFakeAS(t)
	r := activeResponse()
	r["cnf"] = map[string]any{"jkt": "0ZcOCORZNYy-DWpqq30jZyJGHTN0d2HglBV3uiguA4I"}
	r["token_type"] = "DPoP"
	a.set("dpop", r)
	v, _ := newIntroVerifier(t, a, nil)
	_, err := v.Verify(context.Background(), "dpop")
	wantInvalid(t, err)
}

// The request is an RFC 7662 POST form with the client authenticated by
// HTTP Basic of the form-urlencoded id and secret (RFC 6749 §2.3.1).
func TestIntrospectionRequest(t *testing.T) {
	a, v, _ := newGoodVerifier(t, func(c *IntrospectionConfig) {
		c.ClientID, c.ClientSecret = "my client:1", "s&e/cr%t+é"
	})
	mustVerify(t, v, "good")
	a.mu.Lock()
	defer a.mu.Unlock()
	want := "Basic " + base64.StdEncoding.EncodeToString([]byte("my+client%3A1:s%26e%2Fcr%25t%2B%C3%A9"))
	if a.lastAuth != want {
		t.Errorf("Authorization = %q, want %q", a.lastAuth, want)
	}
	if a.lastMeth != http.MethodPost || a.lastType != "application/x-www-form-urlencoded" {
		t.Errorf("method %q, Content-Type %q", a.lastMeth, a.lastType)
	}
	if got := a.lastForm["token"]; len(got) != 1 || got[0] != "good" {
		t.Errorf("token = %q", got)
	}
	if got := a.lastForm["token_type_hint"]; len(got) != 1 || got[0] != "access_token" {
		t.Errorf("token_type_hint = %q", got)
	}
	if len(a.lastForm) != 2 {
		t.Errorf("form %v, want only token and token_type_hint", a.lastForm)
	}
}

// With neither ClientID nor ClientSecret, no Authorization header is sent
// (the HTTPClient authenticates, mutual TLS say).
func TestIntrospectionNoClientAuth(t *testing.T) {
	a, v, _ := newGoodVerifier(t, func(c *IntrospectionConfig) { c.ClientID, c.ClientSecret = "", "" })
	mustVerify(t, v, "good")
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.lastAuth != "" {
		t.Errorf("Authorization = %q, want none", a.lastAuth)
	}
}

// An active result is cached: the server is asked once.
func TestIntrospectionCacheHit(t *testing.T) {
	a, v, _ := newGoodVerifier(t, nil)
	for i := 0; i < 5; i++ {
		if _, err := v.Verify(context.Background(), "good"); err != nil {
			t.Fatalf("Verify %d: %v", i, err)
		}
	}
	if n := a.calls.Load(); n != 1 {
		t.Errorf("%d introspection requests, want 1", n)
	}
}

// The cache is keyed by the token's digest, never the token.
func TestIntrospectionCacheKey(t *testing.T) {
	_, v, _ := newGoodVerifier(t, nil)
	mustVerify(t, v, "good")
	v.mu.Lock()
	defer v.mu.Unlock()
	if _, ok := v.active.byKey[cacheKey("good")]; !ok || v.active.len() != 1 {
		t.Errorf("the cache holds %d entries, not the token's digest", v.active.len())
	}
}

// A caller changing the returned TokenInfo does not change the cache.
func TestIntrospectionCacheCopy(t *testing.T) {
	_, v, _ := newGoodVerifier(t, nil)
	info, err := v.Verify(context.Background(), "good")
	if err != nil {
		t.Fatalf("Verify: %v", err)
	}
	info.Scopes[0] = "admin"
	info.Audience[0] = "x"
	info.Claims["tenant"] = "evil"
	info.Subject = "root"
	info, err = v.Verify(context.Background(), "good")
	if err != nil {
		t.Fatalf("Verify: %v", err)
	}
	if info.Scopes[0] != "tools:read" || info.Audience[0] != "https://other.example.com" || info.Claims["tenant"] != "acme" || info.Subject != "user-1" {
		t.Errorf("the cached TokenInfo was changed through a returned one: %+v", info)
	}
}

// The cache holds at most CacheSize active results, least recently used
// evicted first.
func TestIntrospectionCacheBound(t *testing.T) {
	a := newFakeAS(t)
	for _, tok := range []string{"a", "b", "c"} {
		a.set(tok, activeResponse())
	}
	v, _ := newIntroVerifier(t, a, func(c *IntrospectionConfig) { c.CacheSize = 2 })
	verify := func(tok string) {
		t.Helper()
		if _, err := v.Verify(context.Background(), tok); err != nil {
			t.Fatalf("Verify %s: %v", tok, err)
		}
	}
	verify("a")
	verify("b")
	verify("a") // a is now the most recently used
	verify("c") // evicts b
	if n := a.calls.Load(); n != 3 {
		t.Fatalf("%d requests, want 3", n)
	}
	verify("a")
	verify("c")
	if n := a.calls.Load(); n != 3 {
		t.Errorf("%d requests after a and c again, want 3 (both cached)", n)
	}
	verify("b")
	if n := a.calls.Load(); n != 4 {
		t.Errorf("%d requests after b again, want 4 (evicted)", n)
	}
	v.mu.Lock()
	defer v.mu.Unlock()
	if n := v.active.len(); n != 2 {
		t.Errorf("%d cache entries, want 2", n)
	}
}

// A flood of bad tokens does not evict the cached good ones: inactive
// results have a cache of their own.
func TestIntrospectionCacheBadFlood(t *testing.T) {
	a, v, _ := newGoodVerifier(t, func(c *IntrospectionConfig) { c.CacheSize = 2 })
	mustVerify(t, v, "good")
	for i := 0; i < 10; i++ {
		_, err := v.Verify(context.Background(), "bad"+string(rune('a'+i)))
		wantInvalid(t, err)
	}
	mustVerify(t, v, "good")
	if n := a.calls.Load(); n != 11 {
		t.Errorf("%d requests, want 11 (good once, each bad once)", n)
	}
}

// A negative CacheSize caches nothing.
func TestIntrospectionNoCache(t *testing.T) {
	a, v, _ := newGoodVerifier(t, func(c *IntrospectionConfig) { c.CacheSize = -1 })
	for i := 0; i < 3; i++ {
		mustVerify(t, v, "good")
		_, err := v.Verify(context.Background(), "bad")
		wantInvalid(t, err)
	}
	if n := a.calls.Load(); n != 6 {
		t.Errorf("%d requests, want 6", n)
	}
}

// An active entry lives for MaxCacheTTL at most, and not past the token's
// "exp".
func TestIntrospectionCacheExpiry(t *testing.T) {
	t.Run("MaxCacheTTL", func(t *testing.T) {
		a := newFakeAS(t)
		a.set("good", activeResponse()) // exp in an hour
		v, clk := newIntroVerifier(t, a, nil)
		verify := func(wantCalls int64) {
			t.Helper()
			mustVerify(t, v, "good")
			if n := a.calls.Load(); n != wantCalls {
				t.Fatalf("%d requests, want %d", n, wantCalls)
			}
		}
		verify(1)
		clk.advance(DefaultIntrospectionMaxCacheTTL - time.Second)
		verify(1)
		clk.advance(time.Second)
		verify(2)
	})
	t.Run("exp", func(t *testing.T) {
		a := newFakeAS(t)
		r := activeResponse()
		r["exp"] = float64(introEpoch.Add(time.Minute).Unix())
		a.set("short", r)
		v, clk := newIntroVerifier(t, a, nil)
		mustVerify(t, v, "short")
		clk.advance(59 * time.Second)
		mustVerify(t, v, "short")
		if n := a.calls.Load(); n != 1 {
			t.Fatalf("%d requests before exp, want 1", n)
		}
		clk.advance(time.Second)
		a.set("short", map[string]any{"active": false}) // the server now says so
		_, err := v.Verify(context.Background(), "short")
		wantInvalid(t, err)
		if n := a.calls.Load(); n != 2 {
			t.Errorf("%d requests at exp, want 2 (the entry ended at exp)", n)
		}
	})
	t.Run("no exp", func(t *testing.T) {
		a := newFakeAS(t)
		r := activeResponse()
		delete(r, "exp")
		a.set("forever", r)
		v, clk := newIntroVerifier(t, a, func(c *IntrospectionConfig) { c.MaxCacheTTL = time.Minute })
		mustVerify(t, v, "forever")
		clk.advance(time.Minute)
		mustVerify(t, v, "forever")
		if n := a.calls.Load(); n != 2 {
			t.Errorf("%d requests, want 2 (cached for MaxCacheTTL only)", n)
		}
	})
}

// A revocation is seen once the entry ends: MaxCacheTTL bounds how long an
// active answer is trusted.
func TestIntrospectionRevocation(t *testing.T) {
	a, v, clk := newGoodVerifier(t, func(c *IntrospectionConfig) { c.MaxCacheTTL = 30 * time.Second })
	mustVerify(t, v, "good")
	a.set("good", map[string]any{"active": false})
	if _, err := v.Verify(context.Background(), "good"); err != nil {
		t.Fatalf("Verify within MaxCacheTTL: %v", err)
	}
	clk.advance(30 * time.Second)
	_, err := v.Verify(context.Background(), "good")
	wantInvalid(t, err)
}

// An inactive result is cached for NegativeCacheTTL, so a repeated bad
// token reaches the server once in that time.
func TestIntrospectionNegativeCache(t *testing.T) {
	a := newFakeAS(t)
	v, clk := newIntroVerifier(t, a, nil)
	for i := 0; i < 3; i++ {
		_, err := v.Verify(context.Background(), "bad")
		wantInvalid(t, err)
	}
	if n := a.calls.Load(); n != 1 {
		t.Fatalf("%d requests, want 1", n)
	}
	clk.advance(DefaultIntrospectionNegativeCacheTTL)
	a.set("bad", activeResponse()) // issued now, say
	if _, err := v.Verify(context.Background(), "bad"); err != nil {
		t.Fatalf("Verify after NegativeCacheTTL: %v", err)
	}
	if n := a.calls.Load(); n != 2 {
		t.Errorf("%d requests, want 2", n)
	}

	// Negative: inactive results are not cached.
	a2 := newFakeAS(t)
	v, _ = newIntroVerifier(t, a2, func(c *IntrospectionConfig) { c.NegativeCacheTTL = -1 })
	for i := 0; i < 3; i++ {
		_, err := v.Verify(context.Background(), "bad")
		wantInvalid(t, err)
	}
	if n := a2.calls.Load(); n != 3 {
		t.Errorf("%d requests without negative caching, want 3", n)
	}
}

// waitJoined waits until n callers wait for the request of token besides
// the one that started it.
func waitJoined(t *testing.T, v *IntrospectionVerifier, token string, n int) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for {
		v.mu.Lock()
		call := v.inflight[cacheKey(token)]
		joined := call != nil && call.waiters == n
		v.mu.Unlock()
		if joined {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("%d callers did not join the request", n)
		}
		time.Sleep(time.Millisecond)
	}
}

// Concurrent lookups of one uncached token share one request (run with
// -race). The cache is off, so a caller that did not join would make a
// request of its own.
func TestIntrospectionSingleFlight(t *testing.T) {
	a := newFakeAS(t)
	a.set("good", activeResponse())
	release := a.hold()
	v, _ := newIntroVerifier(t, a, func(c *IntrospectionConfig) { c.CacheSize = -1 })
	const n = 50
	var wg sync.WaitGroup
	errs := make(chan error, n)
	for i := 0; i < n; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			info, err := v.Verify(context.Background(), "good")
			if err == nil && info.Subject != "user-1" {
				err = errors.New("wrong subject " + info.Subject)
			}
			errs <- err
		}()
	}
	waitJoined(t, v, "good", n-1)
	release()
	wg.Wait()
	close(errs)
	for err := range errs {
		if err != nil {
			t.Errorf("Verify: %v", err)
		}
	}
	if c := a.calls.Load(); c != 1 {
		t.Errorf("%d requests for %d concurrent lookups, want 1", c, n)
	}
}

// The caller that started a shared request going away does not end it for
// the others.
func TestIntrospectionSingleFlightCancel(t *testing.T) {
	a := newFakeAS(t)
	a.set("good", activeResponse())
	release := a.hold()
	entered := make(chan struct{}, 1)
	a.entered = entered
	v, _ := newIntroVerifier(t, a, nil)
	ctx, cancel := context.WithCancel(context.Background())
	first := make(chan error, 1)
	go func() {
		_, err := v.Verify(ctx, "good")
		first <- err
	}()
	<-entered
	second := make(chan error, 1)
	go func() {
		_, err := v.Verify(context.Background(), "good")
		second <- err
	}()
	waitJoined(t, v, "good", 1)
	cancel()
	if err := <-first; !errors.Is(err, context.Canceled) || errors.Is(err, ErrInvalidToken) {
		t.Errorf("canceled caller: %v, want context.Canceled and not ErrInvalidToken", err)
	}
	release()
	if err := <-second; err != nil {
		t.Errorf("other caller: %v", err)
	}
	if c := a.calls.Load(); c != 1 {
		t.Errorf("%d requests, want 1", c)
	}
}

// A canceled context makes no request.
func TestIntrospectionCanceled(t *testing.T) {
	a := newFakeAS(t)
	v, _ := newIntroVerifier(t, a, nil)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	_, err := v.Verify(ctx, "tok")
	wantUnavailable(t, err)
	if c := a.calls.Load(); c != 0 {
		t.Errorf("%d requests, want 0", c)
	}
}

// A token over MaxTokenBytes, empty, or with bytes no bearer token has is
// refused without a request.
func TestIntrospectionTokenRefusedLocally(t *testing.T) {
	a := newFakeAS(t)
	v, _ := newIntroVerifier(t, a, nil)
	for name, tok := range map[string]string{
		"oversize":  strings.Repeat("a", DefaultMaxTokenBytes+1),
		"1 MB":      strings.Repeat("a", 1<<20),
		"empty":     "",
		"space":     "a b",
		"newline":   "a\nb",
		"non-ASCII": "é",
	} {
		_, err := v.Verify(context.Background(), tok)
		if !errors.Is(err, ErrInvalidToken) {
			t.Errorf("%s: %v, want ErrInvalidToken", name, err)
		}
	}
	if c := a.calls.Load(); c != 0 {
		t.Errorf("%d requests, want 0", c)
	}
	// At the limit it is asked about.
	_, err := v.Verify(context.Background(), strings.Repeat("a", DefaultMaxTokenBytes))
	wantInvalid(t, err)
	if c := a.calls.Load(); c != 1 {
		t.Errorf("%d requests for a token at the limit, want 1", c)
	}
	// The limit is an option.
	v, _ = newIntroVerifier(t, a, func(c *IntrospectionConfig) { c.MaxTokenBytes = 8 })
	_, err = v.Verify(context.Background(), "123456789")
	wantInvalid(t, err)
	if c := a.calls.Load(); c != 1 {
		t.Errorf("%d requests, want still 1", c)
	}
}

// A server error is not the token's fault: 503, not 401, and not cached.
func TestIntrospectionServerError(t *testing.T) {
	for _, status := range []int{http.StatusInternalServerError, http.StatusUnauthorized, http.StatusBadRequest, http.StatusServiceUnavailable} {
		a := newFakeAS(t)
		a.set("good", activeResponse())
		a.status = status
		v, _ := newIntroVerifier(t, a, nil)
		_, err := v.Verify(context.Background(), "good")
		wantUnavailable(t, err)
		_, err = v.Verify(context.Background(), "good")
		wantUnavailable(t, err)
		if c := a.calls.Load(); c != 2 {
			t.Errorf("status %d: %d requests, want 2 (errors are not cached)", status, c)
		}
		a.mu.Lock()
		a.status = 0
		a.mu.Unlock()
		if _, err := v.Verify(context.Background(), "good"); err != nil {
			t.Errorf("status %d, then 200: %v", status, err)
		}
	}
}

// An unreachable server is 503.
func TestIntrospectionUnreachable(t *testing.T) {
	a := newFakeAS(t)
	v, _ := newIntroVerifier(t, a, nil)
	a.srv.Close()
	_, err := v.Verify(context.Background(), "good")
	wantUnavailable(t, err)
}

// A server that does not answer in Timeout is 503.
func TestIntrospectionTimeout(t *testing.T) {
	a := newFakeAS(t)
	a.hold()
	// A client of the caller's, without a timeout of its own.
	v, _ := newIntroVerifier(t, a, func(c *IntrospectionConfig) {
		c.Timeout, c.HTTPClient = 50*time.Millisecond, &http.Client{}
	})
	_, err := v.Verify(context.Background(), "good")
	wantUnavailable(t, err)
	if !errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("error %v, want context.DeadlineExceeded", err)
	}
}

// A response over MaxResponseBytes is refused (503).
func TestIntrospectionOversizeResponse(t *testing.T) {
	a := newFakeAS(t)
	r := activeResponse()
	r["padding"] = strings.Repeat("x", 2048)
	a.set("big", r)
	a.set("small", activeResponse())
	v, _ := newIntroVerifier(t, a, func(c *IntrospectionConfig) { c.MaxResponseBytes = 1024 })
	_, err := v.Verify(context.Background(), "big")
	wantUnavailable(t, err)
	if !strings.Contains(err.Error(), "over the limit of 1024 bytes") {
		t.Errorf("error %v, want it to name the limit", err)
	}
	if _, err := v.Verify(context.Background(), "small"); err != nil {
		t.Errorf("a response under the limit: %v", err)
	}
	// The default is 64 KiB.
	r["padding"] = strings.Repeat("x", DefaultIntrospectionMaxResponseBytes)
	a.set("huge", r)
	v, _ = newIntroVerifier(t, a, nil)
	_, err = v.Verify(context.Background(), "huge")
	wantUnavailable(t, err)
}

// A response that is not RFC 7662's is the server's fault: 503.
func TestIntrospectionMalformedResponse(t *testing.T) {
	for _, body := range []string{
		` `, // an empty body (the fake sends the set responses for "")
		`not json`,
		`[]`,
		`null`,
		`{}`,
		`{"active":"true"}`,
		`{"active":1}`,
		`{"active":true,"aud":5}`,
		`{"active":true,"aud":["https://mcp.example.com/mcp",5]}`,
		`{"active":true,"exp":"soon"}`,
		`{"active":true,"exp":1e300}`,
		`{"active":true,"exp":-1}`,
		`{"active":true,"scope":["a"]}`,
		`{"active":true,"sub":1}`,
		`{"active":true}{"active":true}`,
	} {
		a := newFakeAS(t)
		a.raw = body
		v, _ := newIntroVerifier(t, a, nil)
		_, err := v.Verify(context.Background(), "tok")
		if err == nil || errors.Is(err, ErrInvalidToken) {
			t.Errorf("response %q: %v, want an error not wrapping ErrInvalidToken", body, err)
		}
	}
}

// The default client follows no redirect: the token and the secret go to
// Endpoint only (R-AUTH-06).
func TestIntrospectionNoRedirect(t *testing.T) {
	other := newFakeAS(t)
	other.set("good", activeResponse())
	redirect := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, other.srv.URL, http.StatusTemporaryRedirect)
	}))
	defer redirect.Close()
	v, err := NewIntrospectionVerifier(IntrospectionConfig{
		Endpoint: redirect.URL, ClientID: "rs", ClientSecret: "secret", Audience: introAudience,
	})
	if err != nil {
		t.Fatal(err)
	}
	_, err = v.Verify(context.Background(), "good")
	wantUnavailable(t, err)
	if c := other.calls.Load(); c != 0 {
		t.Errorf("the redirect target got %d requests", c)
	}
}

// The configuration is checked.
func TestIntrospectionConfig(t *testing.T) {
	good := IntrospectionConfig{Endpoint: "https://as.example.com/introspect", ClientID: "a", ClientSecret: "b", Audience: introAudience}
	if _, err := NewIntrospectionVerifier(good); err != nil {
		t.Fatalf("good config: %v", err)
	}
	for _, ep := range []string{"http://127.0.0.1:8080/i", "http://localhost/i", "http://[::1]:9/i", "HTTPS://AS.example.com/i"} {
		c := good
		c.Endpoint = ep
		if _, err := NewIntrospectionVerifier(c); err != nil {
			t.Errorf("Endpoint %q: %v", ep, err)
		}
	}
	for name, edit := range map[string]func(*IntrospectionConfig){
		"no endpoint":         func(c *IntrospectionConfig) { c.Endpoint = "" },
		"relative endpoint":   func(c *IntrospectionConfig) { c.Endpoint = "/introspect" },
		"plain http":          func(c *IntrospectionConfig) { c.Endpoint = "http://as.example.com/introspect" },
		"other scheme":        func(c *IntrospectionConfig) { c.Endpoint = "ftp://as.example.com/introspect" },
		"user info":           func(c *IntrospectionConfig) { c.Endpoint = "https://u:p@as.example.com/introspect" },
		"no audience":         func(c *IntrospectionConfig) { c.Audience = "" },
		"audience not a URI":  func(c *IntrospectionConfig) { c.Audience = "urn:mcp" },
		"audience fragment":   func(c *IntrospectionConfig) { c.Audience = introAudience + "#x" },
		"id without secret":   func(c *IntrospectionConfig) { c.ClientSecret = "" },
		"secret without id":   func(c *IntrospectionConfig) { c.ClientID = "" },
		"negative token size": func(c *IntrospectionConfig) { c.MaxTokenBytes = -1 },
		"negative response":   func(c *IntrospectionConfig) { c.MaxResponseBytes = -1 },
		"negative timeout":    func(c *IntrospectionConfig) { c.Timeout = -1 },
	} {
		c := good
		edit(&c)
		if _, err := NewIntrospectionVerifier(c); err == nil {
			t.Errorf("%s: no error", name)
		}
	}
}

// Verifier is implemented.
var _ Verifier = (*IntrospectionVerifier)(nil)

// An endless response is read only up to MaxResponseBytes: the verifier
// stops reading and answers 503, and the server's writes fail.
func TestIntrospectionEndlessResponse(t *testing.T) {
	var written atomic.Int64
	done := make(chan struct{})
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		defer close(done)
		w.Header().Set("Content-Type", "application/json")
		chunk := []byte(`{"active":true,"padding":"` + strings.Repeat("x", 4096))
		for written.Load() < 1<<30 {
			n, err := w.Write(chunk)
			written.Add(int64(n))
			if err != nil {
				return
			}
			chunk = chunk[:4096]
		}
	}))
	defer srv.Close()
	v, err := NewIntrospectionVerifier(IntrospectionConfig{
		Endpoint: srv.URL, ClientID: "rs", ClientSecret: "secret", Audience: introAudience,
		MaxResponseBytes: 1024, Timeout: time.Minute,
	})
	if err != nil {
		t.Fatal(err)
	}
	_, err = v.Verify(context.Background(), "tok")
	wantUnavailable(t, err)
	<-done
	if n := written.Load(); n >= 1<<30 {
		t.Errorf("the server wrote %d bytes: the response was read to the end", n)
	}
}

// An answer that is already expired by our clock is kept only briefly:
// for NegativeCacheTTL, or not at all without negative caching.
func TestIntrospectionCacheExpiredAnswer(t *testing.T) {
	for _, tc := range []struct {
		name     string
		negative time.Duration
		entries  int
	}{
		{"negative caching", 0, 1},
		{"no negative caching", -1, 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			a := newFakeAS(t)
			r := activeResponse()
			r["exp"] = float64(introEpoch.Add(-time.Hour).Unix())
			a.set("old", r)
			v, clk := newIntroVerifier(t, a, func(c *IntrospectionConfig) { c.NegativeCacheTTL = tc.negative })
			_, err := v.Verify(context.Background(), "old")
			wantInvalid(t, err)
			v.mu.Lock()
			n := v.active.len()
			v.mu.Unlock()
			if n != tc.entries {
				t.Errorf("%d cache entries, want %d", n, tc.entries)
			}
			clk.advance(DefaultIntrospectionNegativeCacheTTL)
			_, err = v.Verify(context.Background(), "old")
			wantInvalid(t, err)
			if c := a.calls.Load(); c != 2 {
				t.Errorf("%d requests, want 2", c)
			}
		})
	}
}

// The client "alice" (a token without sub, client_id alice) and the user
// "alice" (sub alice) are two principals; so is a user whose sub is
// "client:alice", the client's subject, or "user:client:alice", what
// that user's is escaped to (issue 26, B7).
func TestIntrospectionClientNamespace(t *testing.T) {
	a := newFakeAS(t)
	client := activeResponse()
	delete(client, "sub")
	client["client_id"] = "alice"
	a.set("client", client)
	subs := map[string]string{"user": "alice", "lookalike": "client:alice", "escaped": "user:client:alice"}
	for tok, sub := range subs {
		r := activeResponse()
		r["sub"] = sub
		a.set(tok, r)
	}
	v, _ := newIntroVerifier(t, a, nil)
	seen := map[string]string{}
	for _, tok := range []string{"client", "user", "lookalike", "escaped"} {
		info, err := v.Verify(context.Background(), tok)
		if err != nil {
			t.Fatalf("%s: %v", tok, err)
		}
		p := info.Principal()
		if other, ok := seen[p]; ok {
			t.Errorf("tokens %q and %q are one principal %q", other, tok, p)
		}
		seen[p] = tok
	}
	if got := v.mustSubject(t, "client"); got != "client:alice" {
		t.Errorf("client's Subject %q, want client:alice", got)
	}
	if got := v.mustSubject(t, "user"); got != "alice" {
		t.Errorf("user's Subject %q, want alice (unchanged)", got)
	}
}

func (v *IntrospectionVerifier) mustSubject(t *testing.T, tok string) string {
	t.Helper()
	info, err := v.Verify(context.Background(), tok)
	if err != nil {
		t.Fatal(err)
	}
	return info.Subject
}
