// Package oauthas runs a real OAuth 2.1 / OpenID Connect authorization
// server on loopback for tests, built on the op package of
// github.com/zitadel/oidc/v3 (a maintained provider library), so that
// mcpwire's resource server (package auth) is tested against tokens a
// real provider issued and not only against tokens a test minted.
//
// A Provider serves, at its URL (the issuer):
//
//   - OpenID Connect discovery, /.well-known/openid-configuration (the
//     library serves no RFC 8414 /.well-known/oauth-authorization-server
//     document, so a verifier that discovers through RFC 8414 first must
//     fall back to OIDC discovery here);
//   - the JWKS, /keys, with every signing key the provider has used (so a
//     token signed before a rotation still verifies);
//   - the token endpoint, /oauth/token: the client-credentials grant and
//     the authorization-code grant (with PKCE), both issuing JWT access
//     tokens (RFC 9068 claims: iss, sub, aud, exp, iat, nbf, jti,
//     client_id, scope);
//   - the authorization endpoint, /authorize, whose login step (/login)
//     approves the request at once as the provider's test user, so that an
//     HTTP client following redirects completes the flow headlessly;
//   - token introspection (RFC 7662), /oauth/introspect, for a client
//     authenticating with client_secret_basic;
//   - token revocation (RFC 7009), /revoke; a revoked token then
//     introspects as inactive.
//
// The audience of an access token is the RFC 8707 "resource" parameter
// of the token request (or of the authorization request), else the
// client's Audience. A client's TTL sets its tokens' lifetime, so a test
// can take tokens that expire within a second or two. RotateKey switches
// the signing key at run time (a new kid).
//
// Keys are ECDSA P-256 (ES256) by default: generating one takes well under
// a millisecond, where an RSA 2048 key takes 100-400 ms under the race
// detector. Options.Algorithm = jose.RS256 gives RSA keys, the algorithm
// RFC 9068 §2.1 requires every party to support.
package oauthas

import (
	"context"
	"crypto"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/rsa"
	"crypto/sha256"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"
	"time"

	jose "github.com/go-jose/go-jose/v4"
	"github.com/zitadel/oidc/v3/pkg/op"
)

// Options configure a Provider. The zero value is ready to use.
type Options struct {
	// Algorithm is the signature algorithm of the provider's keys: ES256
	// (the default) or RS256.
	Algorithm jose.SignatureAlgorithm
	// Subject is the test user that the authorization-code flow's login
	// step signs in; "alice" when empty.
	Subject string
}

// Client is an OAuth client registered at a Provider.
type Client struct {
	// ID and Secret are the client's credentials (client_secret_basic or
	// client_secret_post at the token endpoint, client_secret_basic at
	// the introspection endpoint).
	ID, Secret string
	// Audience is the "aud" of the client's access tokens when the token
	// request carries no "resource" parameter (RFC 8707). Empty means the
	// client ID, the library's default.
	Audience string
	// Scopes are the scopes the client may be granted; a requested scope
	// outside them is dropped from the grant. Nil allows every scope.
	Scopes []string
	// TTL is the lifetime of the client's access tokens; 5 minutes when
	// zero.
	TTL time.Duration
	// RedirectURIs enable the authorization-code grant for the client.
	RedirectURIs []string
}

// Provider is a running authorization server. Its methods are safe for
// concurrent use.
type Provider struct {
	// URL is the issuer, http://127.0.0.1:port with no trailing slash.
	URL string

	srv *httptest.Server
	st  *storage
}

// Start runs a Provider on loopback until the test ends.
func Start(tb testing.TB, opts Options) *Provider {
	tb.Helper()
	p, err := New(opts)
	if err != nil {
		tb.Fatalf("oauthas: %v", err)
	}
	tb.Cleanup(p.Close)
	return p
}

// New runs a Provider on loopback; Close stops it.
func New(opts Options) (*Provider, error) {
	alg := opts.Algorithm
	if alg == "" {
		alg = jose.ES256
	}
	if alg != jose.ES256 && alg != jose.RS256 {
		return nil, fmt.Errorf("oauthas: algorithm %s: want ES256 or RS256", alg)
	}
	subject := opts.Subject
	if subject == "" {
		subject = "alice"
	}
	st := newStorage(alg, subject)
	if _, err := st.rotate(); err != nil {
		return nil, err
	}
	srv := httptest.NewUnstartedServer(nil)
	issuer := "http://" + srv.Listener.Addr().String()
	cfg := &op.Config{
		// The key of the library's opaque tokens, which this provider
		// never issues (every client's tokens are JWTs).
		CryptoKey:      sha256.Sum256([]byte(issuer)),
		CodeMethodS256: true,
		AuthMethodPost: true,
	}
	provider, err := op.NewProvider(cfg, st, op.StaticIssuer(issuer), op.WithAllowInsecure())
	if err != nil {
		srv.Close()
		return nil, fmt.Errorf("oauthas: provider: %w", err)
	}
	callback := op.AuthCallbackURL(provider)
	mux := http.NewServeMux()
	mux.Handle("/login", op.NewIssuerInterceptor(provider.IssuerFromRequest).Handler(
		http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			id := r.URL.Query().Get("id")
			if err := st.approve(id); err != nil {
				http.Error(w, err.Error(), http.StatusBadRequest)
				return
			}
			http.Redirect(w, r, callback(r.Context(), id), http.StatusFound)
		})))
	mux.Handle("/", provider)
	srv.Config.Handler = withResource(mux)
	srv.Start()
	return &Provider{URL: issuer, srv: srv, st: st}, nil
}

// Close stops the provider.
func (p *Provider) Close() { p.srv.Close() }

// AddClient registers (or replaces) a client.
func (p *Provider) AddClient(c Client) { p.st.addClient(c) }

// RotateKey makes a new signing key current and returns its kid. Tokens
// signed with the previous keys stay valid: the JWKS keeps serving them.
func (p *Provider) RotateKey() (string, error) { return p.st.rotate() }

// KeyID is the kid of the current signing key.
func (p *Provider) KeyID() string { return p.st.currentKeyID() }

// DiscoveryURL, JWKSURL, TokenURL, AuthorizationURL, IntrospectionURL and
// RevocationURL are the provider's endpoints.
func (p *Provider) DiscoveryURL() string     { return p.URL + "/.well-known/openid-configuration" }
func (p *Provider) JWKSURL() string          { return p.URL + "/keys" }
func (p *Provider) TokenURL() string         { return p.URL + "/oauth/token" }
func (p *Provider) AuthorizationURL() string { return p.URL + "/authorize" }
func (p *Provider) IntrospectionURL() string { return p.URL + "/oauth/introspect" }
func (p *Provider) RevocationURL() string    { return p.URL + "/revoke" }

// Token is a token endpoint's answer (RFC 6749 §5.1).
type Token struct {
	AccessToken string `json:"access_token"`
	TokenType   string `json:"token_type"`
	ExpiresIn   int64  `json:"expires_in"`
	Scope       string `json:"scope"`
}

// ClientCredentials asks the token endpoint, over HTTP as any client
// would, for an access token of the client-credentials grant. Each
// resource that is not empty is sent as an RFC 8707 "resource" parameter;
// together they become the token's audience (an array of them all).
func (p *Provider) ClientCredentials(ctx context.Context, clientID, secret string, scopes []string, resources ...string) (*Token, error) {
	form := url.Values{"grant_type": {"client_credentials"}}
	if len(scopes) > 0 {
		form.Set("scope", strings.Join(scopes, " "))
	}
	for _, r := range resources {
		if r != "" {
			form.Add("resource", r)
		}
	}
	return p.token(ctx, form, clientID, secret)
}

// token posts form to the token endpoint, with the client's credentials
// in Basic authentication when it has a secret, and returns the token.
func (p *Provider) token(ctx context.Context, form url.Values, clientID, secret string) (*Token, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, p.TokenURL(), strings.NewReader(form.Encode()))
	if err != nil {
		return nil, fmt.Errorf("oauthas: token request: %w", err)
	}
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	if secret != "" {
		req.SetBasicAuth(url.QueryEscape(clientID), url.QueryEscape(secret))
	}
	var tok Token
	if err := doJSON(req, &tok); err != nil {
		return nil, err
	}
	if tok.AccessToken == "" {
		return nil, errors.New("oauthas: token response without access_token")
	}
	return &tok, nil
}

// Introspection is an introspection endpoint's answer (RFC 7662 §2.2),
// the members the tests look at.
type Introspection struct {
	Active    bool   `json:"active"`
	Scope     string `json:"scope"`
	ClientID  string `json:"client_id"`
	Subject   string `json:"sub"`
	Audience  any    `json:"aud"`
	Issuer    string `json:"iss"`
	Expiry    int64  `json:"exp"`
	TokenType string `json:"token_type"`
}

// Introspect asks the introspection endpoint about token, authenticating
// as the client clientID (client_secret_basic).
func (p *Provider) Introspect(ctx context.Context, clientID, secret, token string) (*Introspection, error) {
	form := url.Values{"token": {token}}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, p.IntrospectionURL(), strings.NewReader(form.Encode()))
	if err != nil {
		return nil, fmt.Errorf("oauthas: introspection request: %w", err)
	}
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	req.SetBasicAuth(url.QueryEscape(clientID), url.QueryEscape(secret))
	var in Introspection
	if err := doJSON(req, &in); err != nil {
		return nil, err
	}
	return &in, nil
}

// Revoke revokes token at the revocation endpoint (RFC 7009) as the
// client that holds it.
func (p *Provider) Revoke(ctx context.Context, clientID, secret, token string) error {
	form := url.Values{"token": {token}, "token_type_hint": {"access_token"}}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, p.RevocationURL(), strings.NewReader(form.Encode()))
	if err != nil {
		return fmt.Errorf("oauthas: revocation request: %w", err)
	}
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	req.SetBasicAuth(url.QueryEscape(clientID), url.QueryEscape(secret))
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return fmt.Errorf("oauthas: revoke: %w", err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		b, _ := io.ReadAll(io.LimitReader(resp.Body, 4096))
		return fmt.Errorf("oauthas: revoke: %s: %s", resp.Status, b)
	}
	return nil
}

func doJSON(req *http.Request, v any) error {
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return fmt.Errorf("oauthas: %s: %w", req.URL.Path, err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(io.LimitReader(resp.Body, 1<<20))
	if err != nil {
		return fmt.Errorf("oauthas: %s: %w", req.URL.Path, err)
	}
	if resp.StatusCode != http.StatusOK {
		return fmt.Errorf("oauthas: %s: %s: %s", req.URL.Path, resp.Status, b)
	}
	if err := json.Unmarshal(b, v); err != nil {
		return fmt.Errorf("oauthas: %s: %w", req.URL.Path, err)
	}
	return nil
}

// newKey makes a signing key of alg with a fresh random kid.
func newKey(alg jose.SignatureAlgorithm) (*signingKey, error) {
	var priv crypto.Signer
	var err error
	switch alg {
	case jose.RS256:
		priv, err = rsa.GenerateKey(rand.Reader, 2048)
	default:
		priv, err = ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	}
	if err != nil {
		return nil, fmt.Errorf("oauthas: key: %w", err)
	}
	return &signingKey{id: rand.Text()[:16], alg: alg, priv: priv}, nil
}

// signingKey is one of the provider's keys; it is both the op.SigningKey
// (the private half) and the op.Key of the JWKS (the public half).
type signingKey struct {
	id   string
	alg  jose.SignatureAlgorithm
	priv crypto.Signer
}

func (k *signingKey) SignatureAlgorithm() jose.SignatureAlgorithm { return k.alg }
func (k *signingKey) Algorithm() jose.SignatureAlgorithm          { return k.alg }
func (k *signingKey) ID() string                                  { return k.id }
func (k *signingKey) Use() string                                 { return "sig" }

// Key is the private key for signing; the JWKS asks publicKey for the
// public one (the two interfaces share the method name).
func (k *signingKey) Key() any { return k.priv }

// publicKey is the op.Key the JWKS serves.
type publicKey struct{ *signingKey }

func (k publicKey) Key() any { return k.priv.Public() }

// withResource records the RFC 8707 "resource" parameter of a request
// (query or form) in its context, where the storage reads it: the op
// library does not parse it.
func withResource(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method == http.MethodGet || r.Method == http.MethodPost {
			// ParseForm keeps what it read in r.Form and r.PostForm, so
			// the library's own ParseForm sees the same values.
			if err := r.ParseForm(); err == nil {
				if res := r.Form["resource"]; len(res) > 0 {
					r = r.WithContext(context.WithValue(r.Context(), resourceKey{}, res))
				}
			}
		}
		next.ServeHTTP(w, r)
	})
}

type resourceKey struct{}

func resourceFrom(ctx context.Context) []string {
	res, _ := ctx.Value(resourceKey{}).([]string)
	return res
}
