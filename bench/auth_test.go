package bench

// BenchmarkToolsCallAuth: the tools/call of BenchmarkToolsCall/mcpwire
// through ServeHTTP with a verified JWT access token (auth.JWTVerifier,
// keys cached: the JWKS is fetched once, before the timed loop), next to
// the same call without authorization, in the same run. Rows:
//
//	none          HTTPOptions without a Verifier
//	RS256, ES256  a token signed with that algorithm (RSA 2048, P-256),
//	              the same token on every iteration: after the first, a
//	              hit of the verified-token cache (JWTConfig.CacheSize)
//	*-nocache     the same with the cache off: every iteration checks
//	              the signature
//
// Run from this folder:
//
//	go test -run '^$' -bench 'ToolsCallAuth' -benchmem -count 6

import (
	"context"
	"crypto/ecdsa"
	"crypto/rsa"
	"crypto/x509"
	"encoding/json"
	"encoding/pem"
	"net/http"
	"net/http/httptest"
	"os"
	"testing"
	"time"

	jose "github.com/go-jose/go-jose/v4"

	"github.com/mcpwire/mcpwire/auth"
	"github.com/mcpwire/mcpwire/server/streamhttp"
)

const (
	benchIssuer   = "https://as.example.com"
	benchAudience = "https://mcp.example.com/mcp"
)

// authHandler is mcpwireHandler's server behind v.
func authHandler(tb testing.TB, v auth.Verifier) http.Handler {
	tb.Helper()
	return streamhttp.Handler(mcpwireServer(tb, 1), streamhttp.Options{Verifier: v, ResourceMetadataURL: "https://mcp.example.com/.well-known/oauth-protected-resource/mcp"})
}

// jwtSetup returns a verifier on a JWKS holding key, and a token it signed.
func jwtSetup(tb testing.TB, alg jose.SignatureAlgorithm, key any, pub any, cfg auth.JWTConfig) (auth.Verifier, string) {
	tb.Helper()
	set, _ := json.Marshal(jose.JSONWebKeySet{Keys: []jose.JSONWebKey{{Key: pub, KeyID: "k1", Algorithm: string(alg), Use: "sig"}}})
	js := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) { _, _ = w.Write(set) }))
	tb.Cleanup(js.Close)
	cfg.Issuer, cfg.Audience, cfg.JWKSURL = benchIssuer, benchAudience, js.URL
	v, err := auth.NewJWTVerifier(context.Background(), cfg)
	if err != nil {
		tb.Fatal(err)
	}
	sg, err := jose.NewSigner(jose.SigningKey{Algorithm: alg, Key: key}, (&jose.SignerOptions{}).WithType("at+jwt").WithHeader("kid", "k1"))
	if err != nil {
		tb.Fatal(err)
	}
	now := time.Now()
	claims, _ := json.Marshal(map[string]any{"iss": benchIssuer, "sub": "alice", "aud": benchAudience, "client_id": "bench",
		"scope": "mcp:tools", "iat": now.Unix(), "exp": now.Add(24 * time.Hour).Unix(), "jti": "b1"})
	obj, err := sg.Sign(claims)
	if err != nil {
		tb.Fatal(err)
	}
	tok, err := obj.CompactSerialize()
	if err != nil {
		tb.Fatal(err)
	}
	return v, tok
}

func loadKey(tb testing.TB, path string) any {
	tb.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		tb.Fatal(err)
	}
	blk, _ := pem.Decode(b)
	if blk == nil {
		tb.Fatalf("%s: no PEM block", path)
	}
	k, err := x509.ParsePKCS8PrivateKey(blk.Bytes)
	if err != nil {
		tb.Fatal(err)
	}
	return k
}

func withBearer(tmpl *http.Request, tok string) *http.Request {
	r := tmpl.Clone(context.Background())
	r.Header.Set("Authorization", "Bearer "+tok)
	return r
}

func BenchmarkToolsCallAuth(b *testing.B) {
	tmpl := requestTemplate("tools/call", "echo")
	// Fixed keys (throwaway, made for this benchmark only), so that a run
	// does the same work every time (no key generation): instruction
	// counts under callgrind repeat.
	rk := loadKey(b, "testdata/bench-rsa2048.pem").(*rsa.PrivateKey)
	ek := loadKey(b, "testdata/bench-p256.pem").(*ecdsa.PrivateKey)
	b.Run("none", func(b *testing.B) {
		benchServe(b, authHandler(b, nil), tmpl, callBody, checkCall)
	})
	for _, c := range []struct {
		name     string
		alg      jose.SignatureAlgorithm
		key, pub any
	}{
		{"RS256", jose.RS256, rk, rk.Public()},
		{"ES256", jose.ES256, ek, ek.Public()},
	} {
		b.Run(c.name, func(b *testing.B) {
			v, tok := jwtSetup(b, c.alg, c.key, c.pub, auth.JWTConfig{})
			benchServe(b, authHandler(b, v), withBearer(tmpl, tok), callBody, checkCall)
		})
		b.Run(c.name+"-nocache", func(b *testing.B) {
			v, tok := jwtSetup(b, c.alg, c.key, c.pub, auth.JWTConfig{CacheSize: -1})
			benchServe(b, authHandler(b, v), withBearer(tmpl, tok), callBody, checkCall)
		})
	}
}
