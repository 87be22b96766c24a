package oauthas

import (
	"context"
	"encoding/json"
	"net/http"
	"slices"
	"strings"
	"testing"
	"time"

	jose "github.com/go-jose/go-jose/v4"
)

const (
	testResource = "http://127.0.0.1:1/mcp"
	otherAud     = "http://127.0.0.1:2/other"
)

func startWithClients(t *testing.T, opts Options) *Provider {
	t.Helper()
	begin := time.Now()
	p := Start(t, opts)
	t.Logf("provider (%s) started in %v", opts.Algorithm, time.Since(begin))
	p.AddClient(Client{ID: "app", Secret: "app-secret", Audience: testResource, Scopes: []string{"tools:read", "tools:admin"}})
	p.AddClient(Client{ID: "short", Secret: "short-secret", Audience: testResource, TTL: time.Second})
	p.AddClient(Client{ID: "mcp-server", Secret: "rs-secret"})
	p.AddClient(Client{ID: "web", RedirectURIs: []string{"http://127.0.0.1:3/callback"}})
	return p
}

func getJSON(t *testing.T, url string, v any) {
	t.Helper()
	resp, err := http.Get(url)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("GET %s: %s", url, resp.Status)
	}
	if err := json.NewDecoder(resp.Body).Decode(v); err != nil {
		t.Fatalf("GET %s: %v", url, err)
	}
}

// verify checks tok's signature against the provider's JWKS with go-jose
// directly (no mcpwire code) and returns its header kid and claims.
func verify(t *testing.T, p *Provider, alg jose.SignatureAlgorithm, tok string) (string, map[string]any) {
	t.Helper()
	var jwks jose.JSONWebKeySet
	getJSON(t, p.JWKSURL(), &jwks)
	jws, err := jose.ParseSignedCompact(tok, []jose.SignatureAlgorithm{alg})
	if err != nil {
		t.Fatalf("parse %q: %v", tok, err)
	}
	kid := jws.Signatures[0].Header.KeyID
	keys := jwks.Key(kid)
	if len(keys) != 1 {
		t.Fatalf("kid %q: %d keys in the JWKS %+v", kid, len(keys), jwks)
	}
	if !keys[0].IsPublic() {
		t.Fatalf("JWKS key %q is not a public key", kid)
	}
	payload, err := jws.Verify(keys[0])
	if err != nil {
		t.Fatalf("verify: %v", err)
	}
	var claims map[string]any
	if err := json.Unmarshal(payload, &claims); err != nil {
		t.Fatal(err)
	}
	return kid, claims
}

func TestProviderDiscovery(t *testing.T) {
	p := startWithClients(t, Options{})
	var doc map[string]any
	getJSON(t, p.DiscoveryURL(), &doc)
	for k, want := range map[string]string{
		"issuer":                 p.URL,
		"jwks_uri":               p.JWKSURL(),
		"token_endpoint":         p.TokenURL(),
		"authorization_endpoint": p.AuthorizationURL(),
		"introspection_endpoint": p.IntrospectionURL(),
		"revocation_endpoint":    p.RevocationURL(),
	} {
		if doc[k] != want {
			t.Errorf("discovery %s = %v, want %s", k, doc[k], want)
		}
	}
	grants, _ := doc["grant_types_supported"].([]any)
	if !slices.Contains(grants, any("client_credentials")) || !slices.Contains(grants, any("authorization_code")) {
		t.Errorf("grant_types_supported = %v", grants)
	}
}

func TestProviderTokens(t *testing.T) {
	for _, alg := range []jose.SignatureAlgorithm{jose.ES256, jose.RS256} {
		t.Run(string(alg), func(t *testing.T) {
			ctx := context.Background()
			p := startWithClients(t, Options{Algorithm: alg})

			tok, err := p.ClientCredentials(ctx, "app", "app-secret", []string{"tools:read", "not-allowed"}, "")
			if err != nil {
				t.Fatal(err)
			}
			kid, claims := verify(t, p, alg, tok.AccessToken)
			if kid != p.KeyID() {
				t.Errorf("kid %q, want the current key %q", kid, p.KeyID())
			}
			for k, want := range map[string]any{
				"iss": p.URL, "sub": "app", "client_id": "app", "scope": "tools:read",
			} {
				if claims[k] != want {
					t.Errorf("claim %s = %v, want %v", k, claims[k], want)
				}
			}
			if aud, _ := claims["aud"].([]any); len(aud) != 1 || aud[0] != testResource {
				t.Errorf("aud = %v, want [%s]", claims["aud"], testResource)
			}
			exp, _ := claims["exp"].(float64)
			if left := time.Until(time.Unix(int64(exp), 0)); left < 4*time.Minute || left > 6*time.Minute {
				t.Errorf("exp in %v, want about 5 min", left)
			}

			// RFC 8707: the resource parameter sets the audience.
			other, err := p.ClientCredentials(ctx, "app", "app-secret", nil, otherAud)
			if err != nil {
				t.Fatal(err)
			}
			if _, c := verify(t, p, alg, other.AccessToken); !slices.Equal(c["aud"].([]any), []any{otherAud}) {
				t.Errorf("aud with resource = %v, want [%s]", c["aud"], otherAud)
			}

			// Two resources: an audience array of both.
			both, err := p.ClientCredentials(ctx, "app", "app-secret", nil, otherAud, testResource)
			if err != nil {
				t.Fatal(err)
			}
			if _, c := verify(t, p, alg, both.AccessToken); !slices.Equal(c["aud"].([]any), []any{otherAud, testResource}) {
				t.Errorf("aud with two resources = %v", c["aud"])
			}

			// A wrong secret gets no token.
			if _, err := p.ClientCredentials(ctx, "app", "wrong", nil, ""); err == nil {
				t.Error("token for a wrong client secret")
			}

			// Rotation: a new kid signs, the JWKS serves both keys, the
			// old token still verifies.
			newKid, err := p.RotateKey()
			if err != nil {
				t.Fatal(err)
			}
			if newKid == kid {
				t.Fatalf("rotation kept kid %q", kid)
			}
			rotated, err := p.ClientCredentials(ctx, "app", "app-secret", []string{"tools:read"}, "")
			if err != nil {
				t.Fatal(err)
			}
			if k, _ := verify(t, p, alg, rotated.AccessToken); k != newKid {
				t.Errorf("after rotation kid %q, want %q", k, newKid)
			}
			if k, _ := verify(t, p, alg, tok.AccessToken); k != kid {
				t.Errorf("old token kid %q, want %q", k, kid)
			}

			// A second provider is another issuer with other keys.
			q := startWithClients(t, Options{Algorithm: alg})
			if q.URL == p.URL {
				t.Fatal("two providers at one URL")
			}
			qt, err := q.ClientCredentials(ctx, "app", "app-secret", nil, "")
			if err != nil {
				t.Fatal(err)
			}
			if _, c := verify(t, q, alg, qt.AccessToken); c["iss"] != q.URL {
				t.Errorf("second provider iss = %v", c["iss"])
			}
			var pk jose.JSONWebKeySet
			getJSON(t, p.JWKSURL(), &pk)
			jws, _ := jose.ParseSignedCompact(qt.AccessToken, []jose.SignatureAlgorithm{alg})
			if len(pk.Key(jws.Signatures[0].Header.KeyID)) != 0 {
				t.Error("the second provider's kid is in the first one's JWKS")
			}
		})
	}
}

func TestProviderIntrospection(t *testing.T) {
	ctx := context.Background()
	p := startWithClients(t, Options{})
	tok, err := p.ClientCredentials(ctx, "app", "app-secret", []string{"tools:read"}, "")
	if err != nil {
		t.Fatal(err)
	}
	in, err := p.Introspect(ctx, "mcp-server", "rs-secret", tok.AccessToken)
	if err != nil {
		t.Fatal(err)
	}
	if !in.Active || in.Subject != "app" || in.ClientID != "app" || in.Scope != "tools:read" || in.Issuer != p.URL {
		t.Errorf("introspection = %+v", in)
	}
	if aud, _ := in.Audience.([]any); len(aud) != 1 || aud[0] != testResource {
		if in.Audience != testResource {
			t.Errorf("introspection aud = %v", in.Audience)
		}
	}
	if _, err := p.Introspect(ctx, "mcp-server", "wrong", tok.AccessToken); err == nil {
		t.Error("introspection with a wrong secret answered")
	}
	if in, err := p.Introspect(ctx, "mcp-server", "rs-secret", "not-a-token"); err != nil || in.Active {
		t.Errorf("garbage token: %+v, %v", in, err)
	}
	if err := p.Revoke(ctx, "app", "app-secret", tok.AccessToken); err != nil {
		t.Fatal(err)
	}
	if in, err := p.Introspect(ctx, "mcp-server", "rs-secret", tok.AccessToken); err != nil || in.Active {
		t.Errorf("revoked token: %+v, %v", in, err)
	}
}

func TestProviderShortLivedToken(t *testing.T) {
	ctx := context.Background()
	p := startWithClients(t, Options{})
	tok, err := p.ClientCredentials(ctx, "short", "short-secret", nil, "")
	if err != nil {
		t.Fatal(err)
	}
	_, claims := verify(t, p, jose.ES256, tok.AccessToken)
	exp := time.Unix(int64(claims["exp"].(float64)), 0)
	if left := time.Until(exp); left > 2*time.Second {
		t.Fatalf("exp in %v, want at most 1-2 s", left)
	}
	if in, err := p.Introspect(ctx, "mcp-server", "rs-secret", tok.AccessToken); err != nil || !in.Active {
		t.Fatalf("fresh short-lived token: %+v, %v", in, err)
	}
	time.Sleep(time.Until(exp) + 1100*time.Millisecond)
	if in, err := p.Introspect(ctx, "mcp-server", "rs-secret", tok.AccessToken); err != nil || in.Active {
		t.Errorf("expired token: %+v, %v", in, err)
	}
}

func TestProviderAuthorizationCode(t *testing.T) {
	ctx := context.Background()
	p := startWithClients(t, Options{})
	tok, err := p.AuthorizationCode(ctx, "web", "", "http://127.0.0.1:3/callback", []string{"openid", "tools:read"}, testResource)
	if err != nil {
		t.Fatal(err)
	}
	_, claims := verify(t, p, jose.ES256, tok.AccessToken)
	if claims["sub"] != "alice" || claims["client_id"] != "web" || !strings.Contains(claims["scope"].(string), "tools:read") {
		t.Errorf("claims = %v", claims)
	}
	if aud, _ := claims["aud"].([]any); len(aud) != 1 || aud[0] != testResource {
		t.Errorf("aud = %v, want [%s]", claims["aud"], testResource)
	}
	// A redirect URI the client did not register is refused.
	if _, _, err := p.Authorize(ctx, "web", "http://127.0.0.1:4/evil", []string{"tools:read"}, ""); err == nil {
		t.Error("authorization with an unregistered redirect URI succeeded")
	}
}
