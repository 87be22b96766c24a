package auth

import (
	"context"
	"crypto"
	"crypto/ecdsa"
	"crypto/ed25519"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/rsa"
	"encoding/json"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	jose "github.com/go-jose/go-jose/v4"
)

// testKey is a signing key minted for a test, with its kid and alg.
type testKey struct {
	kid  string
	alg  jose.SignatureAlgorithm
	priv crypto.Signer
}

func newRSAKey(t testing.TB, kid string) testKey {
	t.Helper()
	k, err := rsa.GenerateKey(rand.Reader, 2048)
	if err != nil {
		t.Fatal(err)
	}
	return testKey{kid: kid, alg: jose.RS256, priv: k}
}

func newECKey(t testing.TB, kid string) testKey {
	t.Helper()
	k, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	return testKey{kid: kid, alg: jose.ES256, priv: k}
}

func newEdKey(t testing.TB, kid string) testKey {
	t.Helper()
	_, k, err := ed25519.GenerateKey(rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	return testKey{kid: kid, alg: jose.EdDSA, priv: k}
}

func (k testKey) jwk() jose.JSONWebKey {
	return jose.JSONWebKey{Key: k.priv.Public(), KeyID: k.kid, Algorithm: string(k.alg), Use: "sig"}
}

// sign mints a compact JWS of claims with the extra headers hdr.
func (k testKey) sign(t testing.TB, claims map[string]any, hdr map[jose.HeaderKey]any) string {
	t.Helper()
	opts := &jose.SignerOptions{ExtraHeaders: map[jose.HeaderKey]any{jose.HeaderType: "at+jwt"}}
	for h, v := range hdr {
		if v == nil {
			delete(opts.ExtraHeaders, h)
			continue
		}
		opts.ExtraHeaders[h] = v
	}
	if k.kid != "" {
		opts.ExtraHeaders["kid"] = k.kid
	}
	s, err := jose.NewSigner(jose.SigningKey{Algorithm: k.alg, Key: k.priv}, opts)
	if err != nil {
		t.Fatal(err)
	}
	payload, err := json.Marshal(claims)
	if err != nil {
		t.Fatal(err)
	}
	obj, err := s.Sign(payload)
	if err != nil {
		t.Fatal(err)
	}
	out, err := obj.CompactSerialize()
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// jwksServer serves a key set that the test may change, counting the
// fetches; a handler the test sets with override answers instead.
type jwksServer struct {
	*httptest.Server
	mu       sync.Mutex
	keys     []json.RawMessage
	fetches  atomic.Int64
	override atomic.Pointer[http.HandlerFunc]
}

func newJWKSServer(t testing.TB, keys ...testKey) *jwksServer {
	t.Helper()
	js := &jwksServer{}
	js.set(t, keys...)
	js.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		js.fetches.Add(1)
		if h := js.override.Load(); h != nil {
			(*h)(w, r)
			return
		}
		js.serveKeys(w)
	}))
	t.Cleanup(js.Close)
	return js
}

// serveKeys writes the key set.
func (js *jwksServer) serveKeys(w http.ResponseWriter) {
	js.mu.Lock()
	doc, _ := json.Marshal(map[string]any{"keys": js.keys})
	js.mu.Unlock()
	w.Header().Set("Content-Type", "application/json")
	_, _ = w.Write(doc)
}

// answer makes h answer the fetches from now on (nil: the key set again).
func (js *jwksServer) answer(h http.HandlerFunc) {
	if h == nil {
		js.override.Store(nil)
		return
	}
	js.override.Store(&h)
}

func (js *jwksServer) set(t testing.TB, keys ...testKey) {
	t.Helper()
	var raw []json.RawMessage
	for _, k := range keys {
		b, err := json.Marshal(k.jwk())
		if err != nil {
			t.Fatal(err)
		}
		raw = append(raw, b)
	}
	js.setRaw(raw...)
}

func (js *jwksServer) setRaw(raw ...json.RawMessage) {
	js.mu.Lock()
	js.keys = raw
	js.mu.Unlock()
}

const (
	testIssuer   = "https://as.example.com"
	testAudience = "https://mcp.example.com/mcp"
)

// claims are valid claims for testIssuer and testAudience at now.
func validClaims(now time.Time) map[string]any {
	return map[string]any{
		"iss": testIssuer, "sub": "alice", "aud": testAudience, "client_id": "cli",
		"scope": "read write", "exp": now.Add(time.Hour).Unix(), "iat": now.Unix(), "jti": "j1",
	}
}

// claimsEditor returns a func that gives validClaims(now) as changed by
// mod, for a case that differs from a valid token in one claim.
func claimsEditor(now time.Time) func(mod func(c map[string]any)) map[string]any {
	return func(mod func(c map[string]any)) map[string]any {
		c := validClaims(now)
		mod(c)
		return c
	}
}

// newTestVerifier builds a verifier on js's URL with a clock the test
// moves.
func newTestVerifier(t testing.TB, js *jwksServer, cfg JWTConfig) (*JWTVerifier, *fakeClock) {
	t.Helper()
	cfg.Issuer = testIssuer
	if cfg.Audience == "" {
		cfg.Audience = testAudience
	}
	cfg.JWKSURL = js.URL
	if cfg.Logger == nil {
		cfg.Logger = slog.New(slog.DiscardHandler)
	}
	v, err := NewJWTVerifier(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	clk := &fakeClock{t: time.Now()}
	v.now = clk.now
	return v, clk
}

type fakeClock struct {
	mu sync.Mutex
	t  time.Time
}

func (c *fakeClock) now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.t
}

func (c *fakeClock) advance(d time.Duration) {
	c.mu.Lock()
	c.t = c.t.Add(d)
	c.mu.Unlock()
}

// wait blocks until the key set has no fetch in flight; a fetch that
// does not end within 10 s fails the test.
func (ks *keySet) wait(t testing.TB) {
	t.Helper()
	ks.mu.Lock()
	c := ks.pending
	ks.mu.Unlock()
	if c == nil {
		return
	}
	select {
	case <-c.done:
	case <-time.After(10 * time.Second):
		t.Fatal("a JWKS fetch is still running after 10 s")
	}
}

// fetchCount is how many fetches the key set started.
func (ks *keySet) fetchCount() int {
	ks.mu.Lock()
	defer ks.mu.Unlock()
	return ks.fetches
}
