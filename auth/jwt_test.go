package auth

import (
	"context"
	"crypto/x509"
	"encoding/base64"
	"encoding/json"
	"errors"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	jose "github.com/go-jose/go-jose/v4"
)

// R-AUTH-05: a valid token of each key kind is accepted, and TokenInfo
// carries its claims.
func TestJWTVerifyValid(t *testing.T) {
	for _, mk := range []func(testing.TB, string) testKey{newRSAKey, newECKey, newEdKey} {
		k := mk(t, "k1")
		js := newJWKSServer(t, k)
		v, clk := newTestVerifier(t, js, JWTConfig{})
		ti, err := v.Verify(context.Background(), k.sign(t, validClaims(clk.now()), nil))
		if err != nil {
			t.Fatalf("%s: %v", k.alg, err)
		}
		if ti.Issuer != testIssuer || ti.Subject != "alice" || ti.ClientID != "cli" || ti.Principal() != testIssuer+" alice" {
			t.Errorf("%s: %+v", k.alg, ti)
		}
		if !ti.HasScope("read") || !ti.HasScope("write") || len(ti.Audience) != 1 || ti.Claims["jti"] != "j1" {
			t.Errorf("%s: %+v", k.alg, ti)
		}
	}
}

// Every hostile token of issue 11, each refused with its own reason and
// an error that wraps ErrInvalidToken (R-AUTH-05: 401 invalid_token).
func TestJWTHostileTokens(t *testing.T) {
	k := newRSAKey(t, "k1")
	other := newRSAKey(t, "k1") // same kid, another key
	js := newJWKSServer(t, k)
	v, clk := newTestVerifier(t, js, JWTConfig{})
	now := clk.now()
	with := claimsEditor(now)
	pubDER, err := x509.MarshalPKIXPublicKey(k.priv.Public())
	if err != nil {
		t.Fatal(err)
	}
	b64 := func(v any) string {
		b, _ := json.Marshal(v)
		return base64.RawURLEncoding.EncodeToString(b)
	}
	valid := k.sign(t, validClaims(now), nil)
	parts := strings.Split(valid, ".")
	tampered := parts[0] + "." + b64(with(func(c map[string]any) { c["sub"] = "mallory" })) + "." + parts[2]

	hmacSigner := func(key []byte) string {
		s, err := jose.NewSigner(jose.SigningKey{Algorithm: jose.HS256, Key: key}, (&jose.SignerOptions{}).WithHeader("kid", "k1").WithType("at+jwt"))
		if err != nil {
			t.Fatal(err)
		}
		p, _ := json.Marshal(validClaims(now))
		obj, err := s.Sign(p)
		if err != nil {
			t.Fatal(err)
		}
		out, _ := obj.CompactSerialize()
		return out
	}

	cases := []struct {
		name, token, want string
	}{
		{"alg none", b64(map[string]any{"alg": "none", "typ": "at+jwt", "kid": "k1"}) + "." + b64(validClaims(now)) + ".", `algorithm "none" not allowed`},
		{"HS256 signed with the public key", hmacSigner(pubDER), `algorithm "HS256" not allowed`},
		{"unknown kid", newRSAKey(t, "k9").sign(t, validClaims(now), nil), `unknown key id "k9"`},
		{"signed by another key under a known kid", other.sign(t, validClaims(now), nil), "signature invalid"},
		{"tampered payload", tampered, "signature invalid"},
		{"exp in the past", k.sign(t, with(func(c map[string]any) { c["exp"] = now.Add(-time.Minute).Unix() }), nil), "expired"},
		{"nbf in the future", k.sign(t, with(func(c map[string]any) { c["nbf"] = now.Add(time.Minute).Unix() }), nil), "not yet valid"},
		{"no exp", k.sign(t, with(func(c map[string]any) { delete(c, "exp") }), nil), "no expiry"},
		{"wrong aud", k.sign(t, with(func(c map[string]any) { c["aud"] = "https://other.example.com/mcp" }), nil), `audience "https://other.example.com/mcp" is not this resource`},
		{"missing aud", k.sign(t, with(func(c map[string]any) { delete(c, "aud") }), nil), "no audience"},
		{"array aud without us", k.sign(t, with(func(c map[string]any) { c["aud"] = []string{"https://a.example", "https://b.example"} }), nil), `audience "https://a.example https://b.example" is not this resource`},
		{"aud of another type", k.sign(t, with(func(c map[string]any) { c["aud"] = 7 }), nil), "aud is neither a string nor an array of strings"},
		{"another issuer", k.sign(t, with(func(c map[string]any) { c["iss"] = "https://evil.example.com" }), nil), `issuer "https://evil.example.com" not accepted`},
		{"issuer differing in case", k.sign(t, with(func(c map[string]any) { c["iss"] = "https://AS.example.com" }), nil), `issuer "https://AS.example.com" not accepted`},
		{"no sub", k.sign(t, with(func(c map[string]any) { delete(c, "sub") }), nil), "no subject"},
		{"typ of an ID token", k.sign(t, validClaims(now), map[jose.HeaderKey]any{jose.HeaderType: "id_token+jwt"}), `typ "id_token+jwt" is not an access token's`},
		{"1 MB token", strings.Repeat("a", 1<<20), "token of 1048576 bytes over the limit of 16384"},
		{"garbage", "not.a.jwt", "malformed token"},
		{"empty", "", "malformed token"},
	}
	for _, c := range cases {
		_, err := v.Verify(context.Background(), c.token)
		if !errors.Is(err, ErrInvalidToken) {
			t.Errorf("%s: %v, want ErrInvalidToken", c.name, err)
			continue
		}
		if want := "auth: invalid token: " + c.want; err.Error() != want {
			t.Errorf("%s:\n got %s\nwant %s", c.name, err, want)
		}
	}
}

// The leeway (default 30 s) lets a token just past exp or just before
// nbf through; RFC 9068 types and a plain JWT type are accepted; an
// array aud naming us, and R-AUTH-12's upper-case scheme and host, match.
func TestJWTAccepted(t *testing.T) {
	k := newECKey(t, "e1")
	js := newJWKSServer(t, k)
	v, clk := newTestVerifier(t, js, JWTConfig{})
	now := clk.now()
	with := claimsEditor(now)
	cases := []struct {
		name   string
		claims map[string]any
		hdr    map[jose.HeaderKey]any
	}{
		{"exp within leeway", with(func(c map[string]any) { c["exp"] = now.Add(-20 * time.Second).Unix() }), nil},
		{"nbf within leeway", with(func(c map[string]any) { c["nbf"] = now.Add(20 * time.Second).Unix() }), nil},
		{"typ application/at+jwt", validClaims(now), map[jose.HeaderKey]any{jose.HeaderType: "application/at+jwt"}},
		{"typ JWT", validClaims(now), map[jose.HeaderKey]any{jose.HeaderType: "JWT"}},
		{"no typ", validClaims(now), map[jose.HeaderKey]any{jose.HeaderType: nil}},
		{"array aud", with(func(c map[string]any) { c["aud"] = []string{"https://other.example", testAudience} }), nil},
		{"R-AUTH-12 upper-case scheme and host, default port, trailing slash", with(func(c map[string]any) { c["aud"] = "HTTPS://MCP.Example.COM:443/mcp/" }), nil},
		{"scp array", with(func(c map[string]any) { delete(c, "scope"); c["scp"] = []string{"read"} }), nil},
	}
	for _, c := range cases {
		ti, err := v.Verify(context.Background(), k.sign(t, c.claims, c.hdr))
		if err != nil {
			t.Errorf("%s: %v", c.name, err)
			continue
		}
		if !ti.HasScope("read") {
			t.Errorf("%s: scopes %v", c.name, ti.Scopes)
		}
	}
	// The path's case is significant.
	if _, err := v.Verify(context.Background(), k.sign(t, with(func(c map[string]any) { c["aud"] = "https://mcp.example.com/MCP" }), nil)); !errors.Is(err, ErrInvalidToken) {
		t.Errorf("path case: %v", err)
	}
}

// An algorithm outside the allow-list is refused even with a fitting
// key, and a key whose own alg or kind does not fit the token's alg is
// not used.
func TestJWTAllowListAndKeyFit(t *testing.T) {
	k := newECKey(t, "e1")
	js := newJWKSServer(t, k)
	v, clk := newTestVerifier(t, js, JWTConfig{Algorithms: []string{"RS256"}})
	if _, err := v.Verify(context.Background(), k.sign(t, validClaims(clk.now()), nil)); err == nil || err.Error() != `auth: invalid token: algorithm "ES256" not allowed` {
		t.Errorf("ES256 outside the list: %v", err)
	}
	// An RSA token whose kid names the EC key.
	r := newRSAKey(t, "e1")
	v2, clk2 := newTestVerifier(t, js, JWTConfig{})
	if _, err := v2.Verify(context.Background(), r.sign(t, validClaims(clk2.now()), nil)); err == nil || err.Error() != `auth: invalid token: key "e1" does not fit algorithm RS256` {
		t.Errorf("kty mismatch: %v", err)
	}
	for _, bad := range [][]string{{"none"}, {"HS256"}, {"RS256", "HS512"}} {
		if _, err := NewJWTVerifier(context.Background(), JWTConfig{Issuer: testIssuer, Audience: testAudience, JWKSURL: js.URL, Algorithms: bad}); err == nil {
			t.Errorf("Algorithms %v accepted", bad)
		}
	}
}

// A symmetric key in the JWKS is ignored: an HS256 token signed with its
// secret is refused, and the set's asymmetric keys still work.
func TestJWKSIgnoresSymmetricKeys(t *testing.T) {
	k := newRSAKey(t, "k1")
	js := newJWKSServer(t)
	oct, _ := json.Marshal(jose.JSONWebKey{Key: []byte("0123456789abcdef0123456789abcdef"), KeyID: "h1", Algorithm: "HS256"})
	rsaJWK, _ := json.Marshal(k.jwk())
	js.setRaw(oct, json.RawMessage(`{"kty":"weird"}`), rsaJWK)
	v, clk := newTestVerifier(t, js, JWTConfig{})
	if n := len(v.keys.snapshot()); n != 1 {
		t.Fatalf("%d keys kept, want 1 (the RSA one)", n)
	}
	// A key for encryption only ("use": "enc") is not used either.
	enc := newRSAKey(t, "e1")
	ej := enc.jwk()
	ej.Use = "enc"
	encJWK, _ := json.Marshal(ej)
	js.setRaw(oct, encJWK, rsaJWK)
	clk0 := time.Now()
	v2, _ := newTestVerifier(t, js, JWTConfig{})
	if _, err := v2.Verify(context.Background(), enc.sign(t, validClaims(clk0), nil)); err == nil || err.Error() != `auth: invalid token: unknown key id "e1"` {
		t.Errorf("a use=enc key verified: %v", err)
	}
	if _, err := v.Verify(context.Background(), k.sign(t, validClaims(clk.now()), nil)); err != nil {
		t.Fatal(err)
	}
}

// Key rotation: a token signed by a key added to the JWKS after start is
// accepted after one refresh (its kid is unknown).
func TestJWKSRotation(t *testing.T) {
	k1, k2 := newRSAKey(t, "k1"), newECKey(t, "k2")
	js := newJWKSServer(t, k1)
	v, clk := newTestVerifier(t, js, JWTConfig{})
	clk.advance(2 * DefaultMinRefreshInterval)
	js.set(t, k1, k2)
	if _, err := v.Verify(context.Background(), k2.sign(t, validClaims(clk.now()), nil)); err != nil {
		t.Fatalf("rotated key: %v", err)
	}
	if n := js.fetches.Load(); n != 2 {
		t.Errorf("%d fetches, want 2 (start and one refresh)", n)
	}
	// The known key needs no fetch.
	if _, err := v.Verify(context.Background(), k1.sign(t, validClaims(clk.now()), nil)); err != nil || js.fetches.Load() != 2 {
		t.Errorf("known key: %v, %d fetches", err, js.fetches.Load())
	}
}

// A flood of unknown kids, concurrent and sequential, costs at most one
// fetch per MinRefreshInterval; the next interval allows one more.
func TestJWKSRefreshRateLimit(t *testing.T) {
	k := newRSAKey(t, "k1")
	js := newJWKSServer(t, k)
	v, clk := newTestVerifier(t, js, JWTConfig{MinRefreshInterval: time.Minute})
	clk.advance(2 * time.Minute)
	var wg sync.WaitGroup
	for i := range 200 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			bad := newECKey(t, "x"+string(rune('a'+i%26)))
			_, _ = v.Verify(context.Background(), bad.sign(t, validClaims(clk.now()), nil))
		}()
	}
	wg.Wait()
	if n := js.fetches.Load(); n != 2 {
		t.Fatalf("%d fetches after the flood, want 2 (start and one refresh)", n)
	}
	bad := newECKey(t, "zz")
	if _, err := v.Verify(context.Background(), bad.sign(t, validClaims(clk.now()), nil)); err == nil || js.fetches.Load() != 2 {
		t.Fatalf("within the interval: %v, %d fetches", err, js.fetches.Load())
	}
	clk.advance(time.Minute)
	_, _ = v.Verify(context.Background(), bad.sign(t, validClaims(clk.now()), nil))
	if n := js.fetches.Load(); n != 3 {
		t.Errorf("%d fetches after the interval, want 3", n)
	}
}

// An unreachable JWKS on refresh is not the token's fault: the error
// does not wrap ErrInvalidToken (the server answers 503).
func TestJWKSRefreshFailureIsNotInvalid(t *testing.T) {
	k := newRSAKey(t, "k1")
	js := newJWKSServer(t, k)
	v, clk := newTestVerifier(t, js, JWTConfig{})
	clk.advance(2 * time.Minute)
	js.Close()
	_, err := v.Verify(context.Background(), newRSAKey(t, "k2").sign(t, validClaims(clk.now()), nil))
	if err == nil || errors.Is(err, ErrInvalidToken) {
		t.Fatalf("got %v, want an error that is not ErrInvalidToken", err)
	}
}

// The JWKS body is bounded (MaxJWKSBytes).
func TestJWKSBodyBound(t *testing.T) {
	k := newRSAKey(t, "k1")
	js := newJWKSServer(t, k)
	_, err := NewJWTVerifier(context.Background(), JWTConfig{Issuer: testIssuer, Audience: testAudience, JWKSURL: js.URL, MaxJWKSBytes: 100})
	if err == nil || !strings.Contains(err.Error(), "over the limit of 100") {
		t.Fatalf("got %v", err)
	}
}

// A key the issuer removed stops verifying once the set is older than
// JWKSMaxAge (the next token starts a fetch in the background, and is
// verified with the held keys meanwhile); while the issuer is unreachable
// the keys held keep serving.
func TestJWKSMaxAge(t *testing.T) {
	k := newRSAKey(t, "k1")
	js := newJWKSServer(t, k)
	v, clk := newTestVerifier(t, js, JWTConfig{JWKSMaxAge: 10 * time.Minute, CacheSize: -1})
	if _, err := v.Verify(context.Background(), k.sign(t, validClaims(clk.now()), nil)); err != nil {
		t.Fatal(err)
	}
	clk.advance(5 * time.Minute)
	js.set(t, newECKey(t, "k-other")) // k1 revoked (an empty set would be a failed fetch)
	if _, err := v.Verify(context.Background(), k.sign(t, validClaims(clk.now()), nil)); err != nil || js.fetches.Load() != 1 {
		t.Fatalf("within JWKSMaxAge: %v, %d fetches", err, js.fetches.Load())
	}
	clk.advance(6 * time.Minute)
	gate := make(chan struct{})
	js.answer(func(w http.ResponseWriter, _ *http.Request) { <-gate; js.serveKeys(w) })
	if _, err := v.Verify(context.Background(), k.sign(t, validClaims(clk.now()), nil)); err != nil {
		t.Fatalf("after JWKSMaxAge, before the re-fetch is done: %v", err)
	}
	close(gate)
	v.keys.wait(t)
	js.answer(nil)
	if _, err := v.Verify(context.Background(), k.sign(t, validClaims(clk.now()), nil)); err == nil || js.fetches.Load() != 2 {
		t.Fatalf("after JWKSMaxAge and its re-fetch a removed key verified: %v, %d fetches", err, js.fetches.Load())
	}
	// The issuer down at the next refresh: the held keys (now k2) serve.
	k2 := newECKey(t, "k2")
	js.set(t, k2)
	clk.advance(11 * time.Minute)
	if _, err := v.Verify(context.Background(), k2.sign(t, validClaims(clk.now()), nil)); err != nil {
		t.Fatal(err)
	}
	v.keys.wait(t)
	clk.advance(11 * time.Minute)
	js.Close()
	for range 2 {
		if _, err := v.Verify(context.Background(), k2.sign(t, validClaims(clk.now()), nil)); err != nil {
			t.Fatalf("the issuer down: %v", err)
		}
		v.keys.wait(t)
	}
}

// The JWT path never takes the subject from client_id (a JWT without sub
// is refused, even with client_id), and a sub that begins like an
// introspected client's subject ("client:alice") is escaped, so that a
// server using both verifiers cannot confuse that user with the client
// "alice" (issue 26, B7).
func TestJWTClientNamespace(t *testing.T) {
	k := newRSAKey(t, "k1")
	v, clk := newTestVerifier(t, newJWKSServer(t, k), JWTConfig{})
	with := claimsEditor(clk.now())
	_, err := v.Verify(context.Background(), k.sign(t, with(func(c map[string]any) { delete(c, "sub"); c["client_id"] = "alice" }), nil))
	if !errors.Is(err, ErrInvalidToken) {
		t.Errorf("no sub, client_id alice: %v, want ErrInvalidToken", err)
	}
	for sub, want := range map[string]string{"alice": "alice", "client:alice": "user:client:alice", "user:x": "user:user:x"} {
		ti, err := v.Verify(context.Background(), k.sign(t, with(func(c map[string]any) { c["sub"] = sub }), nil))
		if err != nil {
			t.Fatalf("sub %q: %v", sub, err)
		}
		if ti.Subject != want || ti.Principal() != testIssuer+" "+want {
			t.Errorf("sub %q: Subject %q, principal %q; want %q", sub, ti.Subject, ti.Principal(), want)
		}
	}
}
