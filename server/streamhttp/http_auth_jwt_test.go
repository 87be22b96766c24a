package streamhttp_test

import (
	"context"
	"crypto/rand"
	"crypto/rsa"
	"crypto/x509"
	"encoding/base64"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	. "github.com/mcpwire/mcpwire/server/internal/testkit"
	"github.com/mcpwire/mcpwire/server/legacy"
	"github.com/mcpwire/mcpwire/server/streamhttp"

	jose "github.com/go-jose/go-jose/v4"

	"github.com/mcpwire/mcpwire/auth"
)

const jwtAudience = "https://mcp.example.com/mcp"

// jwtFixture is a JWTVerifier on a JWKS served by the test, and a signer
// with the JWKS's key.
type jwtFixture struct {
	key *rsa.PrivateKey
	v   *auth.JWTVerifier
}

func newJWTFixture(t testing.TB) *jwtFixture {
	t.Helper()
	k, err := rsa.GenerateKey(rand.Reader, 2048)
	if err != nil {
		t.Fatal(err)
	}
	set, _ := json.Marshal(jose.JSONWebKeySet{Keys: []jose.JSONWebKey{{Key: k.Public(), KeyID: "k1", Algorithm: "RS256", Use: "sig"}}})
	js := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) { _, _ = w.Write(set) }))
	t.Cleanup(js.Close)
	v, err := auth.NewJWTVerifier(context.Background(), auth.JWTConfig{Issuer: AuthIss, Audience: jwtAudience, JWKSURL: js.URL})
	if err != nil {
		t.Fatal(err)
	}
	return &jwtFixture{key: k, v: v}
}

func (f *jwtFixture) claims(mod func(M)) M {
	now := time.Now()
	c := M{"iss": AuthIss, "sub": "alice", "aud": jwtAudience, "scope": "read", "exp": now.Add(time.Hour).Unix(), "iat": now.Unix()}
	if mod != nil {
		mod(c)
	}
	return c
}

func (f *jwtFixture) sign(t testing.TB, alg jose.SignatureAlgorithm, key any, kid string, c M) string {
	t.Helper()
	s, err := jose.NewSigner(jose.SigningKey{Algorithm: alg, Key: key}, (&jose.SignerOptions{}).WithType("at+jwt").WithHeader("kid", kid))
	if err != nil {
		t.Fatal(err)
	}
	p, _ := json.Marshal(c)
	obj, err := s.Sign(p)
	if err != nil {
		t.Fatal(err)
	}
	out, err := obj.CompactSerialize()
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// The hostile tokens of issue 11 through the HTTP handler, on both eras:
// each 401 with error="invalid_token" and its reason (R-AUTH-05), and a
// valid token served with the token's principal.
func TestAuthHostileJWTs(t *testing.T) {
	f := newJWTFixture(t)
	other, _ := rsa.GenerateKey(rand.Reader, 2048)
	pubDER, _ := x509.MarshalPKIXPublicKey(f.key.Public())
	enc := func(v any) string { b, _ := json.Marshal(v); return base64.RawURLEncoding.EncodeToString(b) }
	valid := f.sign(t, jose.RS256, f.key, "k1", f.claims(nil))
	parts := strings.Split(valid, ".")
	cases := []struct{ name, token, reason string }{
		{"alg none", enc(M{"alg": "none", "kid": "k1"}) + "." + enc(f.claims(nil)) + ".", `algorithm none not allowed`},
		{"HS256 signed with the public key", f.sign(t, jose.HS256, pubDER, "k1", f.claims(nil)), `algorithm HS256 not allowed`},
		{"unknown kid", f.sign(t, jose.RS256, other, "k2", f.claims(nil)), `unknown key id k2`},
		{"tampered payload", parts[0] + "." + enc(f.claims(func(c M) { c["sub"] = "root" })) + "." + parts[2], "signature invalid"},
		{"exp in the past", f.sign(t, jose.RS256, f.key, "k1", f.claims(func(c M) { c["exp"] = time.Now().Add(-time.Hour).Unix() })), "expired"},
		{"nbf in the future", f.sign(t, jose.RS256, f.key, "k1", f.claims(func(c M) { c["nbf"] = time.Now().Add(time.Hour).Unix() })), "not yet valid"},
		{"wrong aud", f.sign(t, jose.RS256, f.key, "k1", f.claims(func(c M) { c["aud"] = "https://other.example.com/mcp" })), "audience https://other.example.com/mcp is not this resource"},
		{"missing aud", f.sign(t, jose.RS256, f.key, "k1", f.claims(func(c M) { delete(c, "aud") })), "no audience"},
		{"array aud without us", f.sign(t, jose.RS256, f.key, "k1", f.claims(func(c M) { c["aud"] = []string{"https://a.example"} })), "audience https://a.example is not this resource"},
		{"another issuer", f.sign(t, jose.RS256, f.key, "k1", f.claims(func(c M) { c["iss"] = "https://evil.example" })), "issuer https://evil.example not accepted"},
		{"1 MB token", strings.Repeat("A", 1<<20), "token of 1048576 bytes over the limit of 16384"},
	}
	for _, eras := range []legacy.Eras{legacy.ErasModern, legacy.ErasBoth} {
		h := Handler(AuthServer(t, Eras(eras)), streamhttp.Options{Verifier: f.v, ResourceMetadataURL: PrmURL, Scopes: []string{"read"}})
		body := Rpc(1, "tools/call", Params(M{"name": "whoami"}))
		for _, c := range cases {
			rec := Post(t, h, body, Bearer(c.token))
			want := `Bearer resource_metadata="` + PrmURL + `", scope="read", error="invalid_token", error_description="` + c.reason + `"`
			if rec.Code != 401 || rec.Header().Get("WWW-Authenticate") != want {
				t.Errorf("%v %s: %d %q\nwant 401 %q", eras, c.name, rec.Code, rec.Header().Get("WWW-Authenticate"), want)
			}
		}
		rec := Post(t, h, body, Bearer(f.sign(t, jose.RS256, f.key, "k1", f.claims(func(c M) { c["aud"] = []string{"https://a.example", "HTTPS://MCP.EXAMPLE.COM/mcp"} }))))
		if w := Single(t, rec); rec.Code != 200 || w.Text(t, 0) != AuthIss+" alice|alice" {
			t.Errorf("%v valid token (array aud, R-AUTH-12 case): %d %s", eras, rec.Code, w.Raw)
		}
	}
}
