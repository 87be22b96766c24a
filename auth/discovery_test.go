package auth

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
)

// asServer serves authorization-server metadata at the given paths,
// naming issuer (the server's own URL + issuerPath unless issuer is set)
// and a JWKS.
func asServer(t *testing.T, paths []string, issuerPath, issuer string, k testKey) (*httptest.Server, *int) {
	t.Helper()
	js := newJWKSServer(t, k)
	hits := new(int)
	var srv *httptest.Server
	srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		for _, p := range paths {
			if r.URL.Path == p {
				*hits++
				iss := issuer
				if iss == "" {
					iss = srv.URL + issuerPath
				}
				_ = json.NewEncoder(w).Encode(map[string]any{"issuer": iss, "jwks_uri": js.URL})
				return
			}
		}
		http.NotFound(w, r)
	}))
	t.Cleanup(srv.Close)
	return srv, hits
}

func verifyWith(t *testing.T, issuer string, k testKey) error {
	t.Helper()
	v, err := NewJWTVerifier(context.Background(), JWTConfig{Issuer: issuer, Audience: testAudience})
	if err != nil {
		return err
	}
	c := validClaims(v.now())
	c["iss"] = issuer
	_, err = v.Verify(context.Background(), k.sign(t, c, nil))
	return err
}

// Discovery through RFC 8414 (path inserted after the host) and through
// OpenID Connect discovery (appended to the issuer), for an issuer with
// a path.
func TestDiscoveryBothWellKnowns(t *testing.T) {
	k := newRSAKey(t, "k1")
	srv, _ := asServer(t, []string{"/.well-known/oauth-authorization-server/tenant"}, "/tenant", "", k)
	if err := verifyWith(t, srv.URL+"/tenant", k); err != nil {
		t.Errorf("RFC 8414: %v", err)
	}
	srv2, _ := asServer(t, []string{"/tenant/.well-known/openid-configuration"}, "/tenant", "", k)
	if err := verifyWith(t, srv2.URL+"/tenant", k); err != nil {
		t.Errorf("OIDC: %v", err)
	}
	srv3, _ := asServer(t, []string{"/.well-known/oauth-authorization-server"}, "", "", k)
	if err := verifyWith(t, srv3.URL, k); err != nil {
		t.Errorf("RFC 8414, root issuer: %v", err)
	}
}

// A metadata document naming another issuer is refused (RFC 8414 §3.3),
// and the OIDC one is then not tried.
func TestDiscoveryIssuerMismatch(t *testing.T) {
	k := newRSAKey(t, "k1")
	srv, _ := asServer(t, []string{"/.well-known/oauth-authorization-server"}, "", "https://evil.example.com", k)
	_, err := NewJWTVerifier(context.Background(), JWTConfig{Issuer: srv.URL, Audience: testAudience})
	if err == nil || !strings.Contains(err.Error(), `names issuer "https://evil.example.com"`) {
		t.Fatalf("got %v", err)
	}
	_, err = NewJWTVerifier(context.Background(), JWTConfig{Issuer: srv.URL + "/nothing", Audience: testAudience})
	if err == nil || !strings.Contains(err.Error(), "discovery of") {
		t.Fatalf("no document: %v", err)
	}
}
