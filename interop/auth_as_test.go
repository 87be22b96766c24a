package interop

// mcpwire as an OAuth 2.1 resource server (package auth) against a real
// authorization server: interop/oauthas, built on zitadel/oidc's op
// package, on loopback. Every token here was issued by that provider over
// HTTP; none is minted by the test. The hostile-token cases (alg none,
// HS256 with the public key, a tampered payload, ...) need hand-made
// tokens and live in the auth package's own tests.
//
// Build tag authas: these tests use the auth API of issue 11, which is
// not on main yet; `go test -tags authas ./...` runs them.

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/mcpwire/mcpwire/auth"
	"github.com/mcpwire/mcpwire/interop/oauthas"
	"github.com/mcpwire/mcpwire/protocol"
	"github.com/mcpwire/mcpwire/server"
	"github.com/mcpwire/mcpwire/server/streamhttp"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

const (
	scopeRead  = "tools:read"
	scopeAdmin = "tools:admin"
	// The resource server's own client at the provider, for introspection.
	rsClientID, rsSecret = "mcp-server", "rs-secret"
	// webClientID and webRedirect are the authorization-code client; no
	// one listens at the redirect URI: the test's user agent stops there.
	webClientID, webRedirect = "web", "http://127.0.0.1:1/callback"
	// legacyRev is the revision a legacy (initialize) client speaks.
	legacyRev = "2025-11-25"
)

// authEnv is an authorization server (as), a second one (other, "another
// issuer"), and an mcpwire server at mcpURL whose verifier trusts as.
type authEnv struct {
	as, other *oauthas.Provider
	mcpURL    string
	// metadataURL is the path-suffixed Protected Resource Metadata URL
	// the challenges name.
	metadataURL string
}

// newProviders starts the two providers with the same clients (so that a
// token of other differs from one of as only by its issuer and keys).
func newProviders(t *testing.T, opts oauthas.Options) (*oauthas.Provider, *oauthas.Provider) {
	t.Helper()
	as := oauthas.Start(t, opts)
	other := oauthas.Start(t, opts)
	return as, other
}

// addClients registers the test clients at p, for a server at mcpURL.
func addClients(p *oauthas.Provider, mcpURL string) {
	// app may have both scopes; reader only tools:read; short's tokens live
	// 2 s. Their tokens are for mcpURL unless the request names another
	// resource (RFC 8707).
	p.AddClient(oauthas.Client{ID: "app", Secret: "app-secret", Audience: mcpURL, Scopes: []string{scopeRead, scopeAdmin}})
	p.AddClient(oauthas.Client{ID: "reader", Secret: "reader-secret", Audience: mcpURL, Scopes: []string{scopeRead}})
	p.AddClient(oauthas.Client{ID: "short", Secret: "short-secret", Audience: mcpURL, TTL: 2 * time.Second})
	p.AddClient(oauthas.Client{ID: rsClientID, Secret: rsSecret})
	// web is a public client of the authorization-code grant (PKCE); its
	// tokens' audience is the resource its requests name.
	p.AddClient(oauthas.Client{ID: webClientID, RedirectURIs: []string{webRedirect}, Scopes: []string{scopeRead, scopeAdmin}})
}

// startAuthServer runs an mcpwire server (both eras, the default) whose
// HTTP handler verifies tokens with the verifier newVerifier builds for
// the environment (the providers started, the server's canonical URL
// known), mounted with auth.Mount. Its tools:
// whoami (any valid token) answers "principal|subject|client|scopes";
// admin needs tools:admin (RequireScopes).
func startAuthServer(t *testing.T, newVerifier func(t *testing.T, e *authEnv) auth.Verifier) *authEnv {
	t.Helper()
	return startAuthServerOpts(t, oauthas.Options{}, newVerifier)
}

// startAuthServerOpts is startAuthServer with providers of opts.
func startAuthServerOpts(t *testing.T, opts oauthas.Options, newVerifier func(t *testing.T, e *authEnv) auth.Verifier) *authEnv {
	t.Helper()
	as, other := newProviders(t, opts)
	hs := httptest.NewUnstartedServer(nil)
	mcpURL := "http://" + hs.Listener.Addr().String() + "/mcp"
	addClients(as, mcpURL)
	addClients(other, mcpURL)
	mdURL, err := auth.MetadataURL(mcpURL)
	if err != nil {
		t.Fatal(err)
	}
	e := &authEnv{as: as, other: other, mcpURL: mcpURL, metadataURL: mdURL}

	s, err := server.New(protocol.Implementation{Name: "mcpwire-auth-interop", Version: "0.0.1"})
	if err != nil {
		t.Fatal(err)
	}
	whoami := func(_ context.Context, req *server.Request, _ json.RawMessage) (*protocol.CallToolResult, error) {
		tok := req.Token()
		if tok == nil {
			return server.TextResult("no token"), nil
		}
		return server.TextResult(strings.Join([]string{req.Principal, tok.Subject, tok.ClientID, strings.Join(tok.Scopes, " ")}, "|")), nil
	}
	if err := s.AddTool(toolDef("whoami"), whoami); err != nil {
		t.Fatal(err)
	}
	if err := s.AddTool(toolDef("admin"), whoami, server.RequireScopes(scopeAdmin)); err != nil {
		t.Fatal(err)
	}
	h := streamhttp.Handler(s, streamhttp.Options{
		Verifier:            newVerifier(t, e),
		ResourceMetadataURL: mdURL,
		Scopes:              []string{scopeRead},
	})
	mux := http.NewServeMux()
	md := auth.ProtectedResourceMetadata{
		Resource:             mcpURL,
		AuthorizationServers: []string{as.URL},
		ScopesSupported:      []string{scopeRead, scopeAdmin},
	}
	if err := md.Validate(); err != nil {
		t.Fatal(err)
	}
	if err := auth.Mount(mux, "/mcp", h, md); err != nil {
		t.Fatal(err)
	}
	hs.Config.Handler = mux
	hs.Start()
	t.Cleanup(hs.Close)
	return e
}

func toolDef(name string) protocol.Tool {
	t := protocol.Tool{Name: name}
	t.InputSchema.Extra = protocol.Members{{Name: "properties", Value: json.RawMessage(`{}`)}}
	return t
}

// jwtVerifier builds the JWT verifier for e.as, discovering the JWKS
// from the issuer (OIDC discovery: zitadel's op serves no RFC 8414
// document). Leeway is 1 s so that the expired case waits only a few
// seconds; MinRefreshInterval is short so that the rotation case need
// not wait the default interval after the verifier's first fetch.
func jwtVerifier(t *testing.T, e *authEnv) auth.Verifier {
	t.Helper()
	v, err := auth.NewJWTVerifier(context.Background(), auth.JWTConfig{
		Issuer:             e.as.URL,
		Audience:           e.mcpURL,
		Leeway:             time.Second,
		MinRefreshInterval: 100 * time.Millisecond,
	})
	if err != nil {
		t.Fatalf("NewJWTVerifier: %v", err)
	}
	return v
}

// introspectionVerifier builds the RFC 7662 verifier for e.as, the
// resource server authenticating as its own client.
func introspectionVerifier(t *testing.T, e *authEnv) auth.Verifier {
	return introspectionVerifierTTL(0)(t, e)
}

// introspectionVerifierTTL is introspectionVerifier with MaxCacheTTL
// (0: the default).
func introspectionVerifierTTL(ttl time.Duration) func(*testing.T, *authEnv) auth.Verifier {
	return func(t *testing.T, e *authEnv) auth.Verifier {
		t.Helper()
		v, err := auth.NewIntrospectionVerifier(auth.IntrospectionConfig{
			Endpoint:     e.as.IntrospectionURL(),
			ClientID:     rsClientID,
			ClientSecret: rsSecret,
			Issuer:       e.as.URL,
			Audience:     e.mcpURL,
			MaxCacheTTL:  ttl,
		})
		if err != nil {
			t.Fatalf("NewIntrospectionVerifier: %v", err)
		}
		return v
	}
}

// token asks p for a client-credentials token (resources: the RFC 8707
// parameters, none or "" for the client's default audience).
func token(t *testing.T, p *oauthas.Provider, client string, scopes []string, resources ...string) string {
	t.Helper()
	secrets := map[string]string{"app": "app-secret", "reader": "reader-secret", "short": "short-secret"}
	tok, err := p.ClientCredentials(context.Background(), client, secrets[client], scopes, resources...)
	if err != nil {
		t.Fatalf("token for %s: %v", client, err)
	}
	return tok.AccessToken
}

// answer is one HTTP exchange with the MCP endpoint.
type answer struct {
	status    int
	header    http.Header
	body      []byte
	challenge map[string]string // the Bearer challenge's parameters
}

// call POSTs a modern (2026-07-28) tools/call of tool with the bearer
// token (none when empty).
func call(t *testing.T, mcpURL, bearer, tool string) answer {
	t.Helper()
	return callAuthz(t, mcpURL, bearer, tool, "")
}

// callAuthz is call with the Authorization header authz instead, when
// authz is not empty.
func callAuthz(t *testing.T, mcpURL, bearer, tool, authz string) answer {
	t.Helper()
	body, _ := json.Marshal(map[string]any{
		"jsonrpc": "2.0", "id": 1, "method": "tools/call",
		"params": map[string]any{
			"name": tool, "arguments": map[string]any{},
			"_meta": map[string]any{
				"io.modelcontextprotocol/protocolVersion":    protocol.Revision,
				"io.modelcontextprotocol/clientCapabilities": map[string]any{},
			},
		},
	})
	headers := map[string]string{
		server.HeaderProtocolVersion: protocol.Revision,
		server.HeaderMethod:          "tools/call",
		server.HeaderName:            tool,
	}
	if authz != "" {
		headers["Authorization"] = authz
	}
	return postMCP(t, mcpURL, bearer, body, headers)
}

func postMCP(t *testing.T, mcpURL, bearer string, body []byte, headers map[string]string) answer {
	t.Helper()
	req, err := http.NewRequest(http.MethodPost, mcpURL, bytes.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	for k, v := range headers {
		req.Header.Set(k, v)
	}
	if bearer != "" {
		req.Header.Set("Authorization", "Bearer "+bearer)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return answer{status: resp.StatusCode, header: resp.Header, body: b, challenge: bearerChallenge(resp.Header.Get("WWW-Authenticate"))}
}

// bearerChallenge parses `Bearer k="v", k2="v2"` (RFC 6750 §3) into its
// parameters; nil when the header is not a Bearer challenge.
func bearerChallenge(h string) map[string]string {
	scheme, rest, _ := strings.Cut(strings.TrimSpace(h), " ")
	if !strings.EqualFold(scheme, "Bearer") {
		return nil
	}
	params := map[string]string{}
	for rest = strings.TrimSpace(rest); rest != ""; rest = strings.TrimLeft(strings.TrimSpace(rest), ", ") {
		k, v, ok := strings.Cut(rest, "=")
		if !ok {
			break
		}
		k = strings.TrimSpace(k)
		if strings.HasPrefix(v, `"`) {
			var b strings.Builder
			i := 1
			for ; i < len(v) && v[i] != '"'; i++ {
				if v[i] == '\\' && i+1 < len(v) {
					i++
				}
				b.WriteByte(v[i])
			}
			params[k] = b.String()
			rest = v[min(i+1, len(v)):]
		} else {
			val, tail, _ := strings.Cut(v, ",")
			params[k] = strings.TrimSpace(val)
			rest = tail
		}
	}
	return params
}

// text is the first text content of a tools/call result in a (JSON or
// SSE) answer.
func (a answer) text(t *testing.T) string {
	t.Helper()
	body := a.body
	if strings.HasPrefix(a.header.Get("Content-Type"), "text/event-stream") {
		for _, line := range strings.Split(string(body), "\n") {
			if data, ok := strings.CutPrefix(line, "data: "); ok && strings.Contains(data, `"result"`) {
				body = []byte(data)
			}
		}
	}
	var m struct {
		Result struct {
			Content []struct {
				Text string `json:"text"`
			} `json:"content"`
			IsError bool `json:"isError"`
		} `json:"result"`
		Error *struct {
			Code    int    `json:"code"`
			Message string `json:"message"`
		} `json:"error"`
	}
	if err := json.Unmarshal(body, &m); err != nil {
		t.Fatalf("answer %q: %v", a.body, err)
	}
	if m.Error != nil || m.Result.IsError || len(m.Result.Content) == 0 {
		t.Fatalf("answer is not a successful tool result: %s", a.body)
	}
	return m.Result.Content[0].Text
}

// wantOK checks a 200 tools/call of whoami answered for client's token
// of issuer iss.
func (a answer) wantOK(t *testing.T, iss, client string) {
	t.Helper()
	if a.status != http.StatusOK {
		t.Fatalf("status %d, want 200; WWW-Authenticate %q; body %s", a.status, a.header.Get("WWW-Authenticate"), a.body)
	}
	got := strings.Split(a.text(t), "|")
	// R-AUTH principal: issuer + " " + subject (client credentials: the
	// subject is the client).
	if len(got) != 4 || got[0] != iss+" "+client || got[1] != client || got[2] != client {
		t.Fatalf("whoami = %q, want principal %q, subject and client %q", got, iss+" "+client, client)
	}
}

// wantChallenge checks status and the challenge's error, and that it
// names the resource metadata (R-AUTH-05/07) and no offline_access
// (R-AUTH-10).
func (a answer) wantChallenge(t *testing.T, e *authEnv, status int, errCode string) {
	t.Helper()
	if a.status != status {
		t.Fatalf("status %d, want %d; WWW-Authenticate %q; body %s", a.status, status, a.header.Get("WWW-Authenticate"), a.body)
	}
	c := a.challenge
	if c == nil {
		t.Fatalf("no Bearer challenge: WWW-Authenticate %q", a.header.Get("WWW-Authenticate"))
	}
	if c["error"] != errCode {
		t.Errorf("challenge error=%q, want %q (WWW-Authenticate %q)", c["error"], errCode, a.header.Get("WWW-Authenticate"))
	}
	if c["resource_metadata"] != e.metadataURL {
		t.Errorf("challenge resource_metadata=%q, want %q", c["resource_metadata"], e.metadataURL)
	}
	if strings.Contains(c["scope"], "offline_access") {
		t.Errorf("challenge scope %q has offline_access", c["scope"])
	}
}

// legacyInitialize opens a legacy-era session (initialize at 2025-11-25,
// then notifications/initialized) with the bearer token and returns its
// Mcp-Session-Id.
func legacyInitialize(t *testing.T, mcpURL, bearer string) string {
	t.Helper()
	a := postMCP(t, mcpURL, bearer, []byte(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"`+legacyRev+`","capabilities":{},"clientInfo":{"name":"legacy-auth","version":"1"}}}`), nil)
	sid := a.header.Get("Mcp-Session-Id")
	if a.status != http.StatusOK || sid == "" {
		t.Fatalf("initialize: status %d, session %q, WWW-Authenticate %q, body %s", a.status, sid, a.header.Get("WWW-Authenticate"), a.body)
	}
	a = postMCP(t, mcpURL, bearer, []byte(`{"jsonrpc":"2.0","method":"notifications/initialized"}`), map[string]string{"Mcp-Session-Id": sid, server.HeaderProtocolVersion: legacyRev})
	if a.status != http.StatusAccepted {
		t.Fatalf("notifications/initialized: status %d, body %s", a.status, a.body)
	}
	return sid
}

// legacyCall is a tools/call of tool in the legacy session sid.
func legacyCall(t *testing.T, mcpURL, bearer, sid, tool string) answer {
	t.Helper()
	return postMCP(t, mcpURL, bearer, []byte(`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"`+tool+`","arguments":{}}}`),
		map[string]string{"Mcp-Session-Id": sid, server.HeaderProtocolVersion: legacyRev})
}

// bearerTransport adds a fixed Authorization header, as a client holding
// a token does.
type bearerTransport struct{ token string }

func (b bearerTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	r.Header.Set("Authorization", "Bearer "+b.token)
	return http.DefaultTransport.RoundTrip(r)
}

// jwsHeader is a JWS's protected header (unverified).
func jwsHeader(t *testing.T, jwt string) (h struct {
	Kid string `json:"kid"`
	Alg string `json:"alg"`
}) {
	t.Helper()
	seg, _, _ := strings.Cut(jwt, ".")
	b, err := base64URL(seg)
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(b, &h); err != nil {
		t.Fatal(err)
	}
	return h
}

// kid and jwsAlg are the key id and algorithm of a JWS.
func kid(t *testing.T, jwt string) string    { t.Helper(); return jwsHeader(t, jwt).Kid }
func jwsAlg(t *testing.T, jwt string) string { t.Helper(); return jwsHeader(t, jwt).Alg }

// TestAuthJWT: the JWT verifier (RFC 9068 access tokens checked against
// the issuer's JWKS, found by discovery) against the real provider.
func TestAuthJWT(t *testing.T) {
	e := startAuthServer(t, jwtVerifier)
	otherAud := strings.Replace(e.mcpURL, "/mcp", "/other", 1)

	// R-AUTH-02/03: the Protected Resource Metadata at the path-suffixed
	// well-known URL names the resource and its authorization server.
	t.Run("protected resource metadata", func(t *testing.T) {
		wantResourceMetadata(t, e.metadataURL, e.mcpURL, e.as.URL)
	})

	// R-AUTH-05, R-AUTH-04: no token is 401 naming the metadata and the
	// scopes; no error code (RFC 6750 §3.1: the request had no token).
	t.Run("no token", func(t *testing.T) {
		a := call(t, e.mcpURL, "", "whoami")
		a.wantChallenge(t, e, http.StatusUnauthorized, "")
		if a.challenge["scope"] != scopeRead {
			t.Errorf("challenge scope=%q, want %q", a.challenge["scope"], scopeRead)
		}
	})

	// R-AUTH-01, R-AUTH-07: a client obtains a token (client credentials)
	// and calls a tool with it; the principal is issuer + subject.
	t.Run("valid token", func(t *testing.T) {
		call(t, e.mcpURL, token(t, e.as, "app", []string{scopeRead}, ""), "whoami").wantOK(t, e.as.URL, "app")
	})

	// RFC 6750 §2.1 / RFC 9110 §11.1: the scheme is case-insensitive.
	t.Run("lower-case bearer", func(t *testing.T) {
		callAuthz(t, e.mcpURL, "", "whoami", "bearer "+token(t, e.as, "app", []string{scopeRead})).wantOK(t, e.as.URL, "app")
	})

	// The same through the official Go SDK client (server/discover, then
	// tools/call), carrying the token on every request.
	t.Run("sdk client with token", func(t *testing.T) {
		ctx, cancel := context.WithTimeout(context.Background(), stepTimeout)
		defer cancel()
		hc := &http.Client{Transport: bearerTransport{token(t, e.as, "app", []string{scopeRead}, "")}}
		c := mcp.NewClient(&mcp.Implementation{Name: "auth-interop", Version: "0.0.1"}, nil)
		cs, err := c.Connect(ctx, &mcp.StreamableClientTransport{Endpoint: e.mcpURL, HTTPClient: hc, MaxRetries: -1}, nil)
		if err != nil {
			t.Fatal(err)
		}
		defer cs.Close()
		if v := cs.InitializeResult().ProtocolVersion; v != protocol.Revision {
			t.Errorf("negotiated %q, want %q", v, protocol.Revision)
		}
		res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "whoami", Arguments: map[string]any{}})
		if err != nil {
			t.Fatal(err)
		}
		if txt := res.Content[0].(*mcp.TextContent).Text; !strings.HasPrefix(txt, e.as.URL+" app|") {
			t.Errorf("whoami = %q", txt)
		}
	})

	// R-AUTH-12: the audience is compared as a canonical URI: a token
	// requested for the server's URL with an upper-case scheme is for
	// this server.
	t.Run("audience case-insensitive scheme", func(t *testing.T) {
		upper := "HTTP://" + strings.TrimPrefix(e.mcpURL, "http://")
		call(t, e.mcpURL, token(t, e.as, "app", []string{scopeRead}, upper), "whoami").wantOK(t, e.as.URL, "app")
	})

	// R-AUTH-08: a tool that needs tools:admin, called with a token
	// without it, is 403 insufficient_scope naming the scope; with it, 200.
	t.Run("insufficient scope", func(t *testing.T) {
		a := call(t, e.mcpURL, token(t, e.as, "reader", []string{scopeRead}, ""), "admin")
		a.wantChallenge(t, e, http.StatusForbidden, "insufficient_scope")
		if !strings.Contains(" "+a.challenge["scope"]+" ", " "+scopeAdmin+" ") {
			t.Errorf("challenge scope=%q, want it to name %s", a.challenge["scope"], scopeAdmin)
		}
		call(t, e.mcpURL, token(t, e.as, "app", []string{scopeRead, scopeAdmin}, ""), "admin").wantOK(t, e.as.URL, "app")
	})

	// R-AUTH-11, R-AUTH-12: tokens for another resource or of another
	// issuer are 401 invalid_token.
	foreignTokensRefused(t, e, otherAud)

	// RFC 9068 §3 / RFC 8707: a token for two resources (an "aud" array)
	// is for this server when one of them is this server; an array of
	// two other resources is not.
	t.Run("audience array", func(t *testing.T) {
		call(t, e.mcpURL, token(t, e.as, "app", []string{scopeRead}, otherAud, e.mcpURL), "whoami").wantOK(t, e.as.URL, "app")
		call(t, e.mcpURL, token(t, e.as, "app", []string{scopeRead}, otherAud, otherAud+"2"), "whoami").
			wantChallenge(t, e, http.StatusUnauthorized, "invalid_token")
	})

	// The provider rotates its signing key at run time: the verifier
	// fetches the JWKS again on the unknown kid (past
	// MinRefreshInterval) without a restart; the previous key's tokens
	// stay valid while the JWKS serves it.
	t.Run("key rotation", func(t *testing.T) {
		before := token(t, e.as, "app", []string{scopeRead}, "")
		call(t, e.mcpURL, before, "whoami").wantOK(t, e.as.URL, "app")
		newKid, err := e.as.RotateKey()
		if err != nil {
			t.Fatal(err)
		}
		time.Sleep(150 * time.Millisecond) // past MinRefreshInterval
		after := token(t, e.as, "app", []string{scopeRead}, "")
		if kid(t, after) != newKid || kid(t, before) == newKid {
			t.Fatalf("kids: before %q, after %q, want after = %q", kid(t, before), kid(t, after), newKid)
		}
		call(t, e.mcpURL, after, "whoami").wantOK(t, e.as.URL, "app")
		call(t, e.mcpURL, before, "whoami").wantOK(t, e.as.URL, "app")
	})

	// The legacy era: a session opened by initialize with the token; its
	// tools/call with the same token is 200; the session is bound to the
	// principal: another principal's valid token does not find it (404),
	// and no token is 401.
	t.Run("legacy session", func(t *testing.T) {
		tok := token(t, e.as, "app", []string{scopeRead}, "")
		sid := legacyInitialize(t, e.mcpURL, tok)
		legacyCall(t, e.mcpURL, tok, sid, "whoami").wantOK(t, e.as.URL, "app")
		if a := legacyCall(t, e.mcpURL, token(t, e.as, "reader", []string{scopeRead}, ""), sid, "whoami"); a.status != http.StatusNotFound {
			t.Errorf("another principal in the session: status %d, want 404; body %s", a.status, a.body)
		}
		legacyCall(t, e.mcpURL, "", sid, "whoami").wantChallenge(t, e, http.StatusUnauthorized, "")
		// R-AUTH-08 in a legacy session too.
		reader := token(t, e.as, "reader", []string{scopeRead}, "")
		rsid := legacyInitialize(t, e.mcpURL, reader)
		legacyCall(t, e.mcpURL, reader, rsid, "admin").wantChallenge(t, e, http.StatusForbidden, "insufficient_scope")
	})

	// R-AUTH-11: a token valid when first used is refused once expired
	// (exp + the 1 s leeway in the past): 401 invalid_token. Last, since it
	// waits for the expiry.
	t.Run("expired token", func(t *testing.T) {
		tok := token(t, e.as, "short", nil, "")
		call(t, e.mcpURL, tok, "whoami").wantOK(t, e.as.URL, "short")
		exp := expiry(t, tok)
		time.Sleep(time.Until(exp) + time.Second + 500*time.Millisecond)
		call(t, e.mcpURL, tok, "whoami").wantChallenge(t, e, http.StatusUnauthorized, "invalid_token")
	})
}

// TestAuthIntrospection: the RFC 7662 verifier against the provider's
// introspection endpoint.
func TestAuthIntrospection(t *testing.T) {
	e := startAuthServer(t, introspectionVerifier)
	otherAud := strings.Replace(e.mcpURL, "/mcp", "/other", 1)

	t.Run("valid token", func(t *testing.T) {
		call(t, e.mcpURL, token(t, e.as, "app", []string{scopeRead}, ""), "whoami").wantOK(t, e.as.URL, "app")
	})
	// A token revoked at the provider (RFC 7009) before its first use
	// introspects as inactive: 401 invalid_token.
	t.Run("revoked token", func(t *testing.T) {
		tok := token(t, e.as, "app", []string{scopeRead}, "")
		if err := e.as.Revoke(context.Background(), "app", "app-secret", tok); err != nil {
			t.Fatal(err)
		}
		call(t, e.mcpURL, tok, "whoami").wantChallenge(t, e, http.StatusUnauthorized, "invalid_token")
	})
	t.Run("invalid token", func(t *testing.T) {
		call(t, e.mcpURL, "not-a-token", "whoami").wantChallenge(t, e, http.StatusUnauthorized, "invalid_token")
	})
	// The provider cannot verify another issuer's token: inactive.
	foreignTokensRefused(t, e, otherAud)
	// R-AUTH-08 with the scopes the introspection response lists.
	t.Run("insufficient scope", func(t *testing.T) {
		call(t, e.mcpURL, token(t, e.as, "reader", []string{scopeRead}, ""), "admin").
			wantChallenge(t, e, http.StatusForbidden, "insufficient_scope")
		call(t, e.mcpURL, token(t, e.as, "app", []string{scopeRead, scopeAdmin}, ""), "admin").wantOK(t, e.as.URL, "app")
	})
	t.Run("legacy session", func(t *testing.T) {
		tok := token(t, e.as, "app", []string{scopeRead}, "")
		sid := legacyInitialize(t, e.mcpURL, tok)
		legacyCall(t, e.mcpURL, tok, sid, "whoami").wantOK(t, e.as.URL, "app")
	})
}

// foreignTokensRefused runs the subtests of the tokens that are not for
// this server, each refused with 401 invalid_token, whichever verifier e
// has: "another audience", one the same issuer issued for otherAud
// (R-AUTH-11, R-AUTH-12: RFC 8707 resource parameter), and "another
// issuer", one of e.other (its own keys, its own iss) for this very
// resource (R-AUTH-11).
func foreignTokensRefused(t *testing.T, e *authEnv, otherAud string) {
	t.Helper()
	t.Run("another audience", func(t *testing.T) {
		call(t, e.mcpURL, token(t, e.as, "app", []string{scopeRead}, otherAud), "whoami").
			wantChallenge(t, e, http.StatusUnauthorized, "invalid_token")
	})
	t.Run("another issuer", func(t *testing.T) {
		call(t, e.mcpURL, token(t, e.other, "app", []string{scopeRead}, ""), "whoami").
			wantChallenge(t, e, http.StatusUnauthorized, "invalid_token")
	})
}

// wantResourceMetadata fetches the Protected Resource Metadata at
// metadataURL and checks that it names resource and, as its one
// authorization server, asURL (R-AUTH-02, R-AUTH-03).
func wantResourceMetadata(t *testing.T, metadataURL, resource, asURL string) {
	t.Helper()
	resp, err := http.Get(metadataURL)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var md struct {
		Resource             string   `json:"resource"`
		AuthorizationServers []string `json:"authorization_servers"`
	}
	if err := json.NewDecoder(resp.Body).Decode(&md); err != nil || resp.StatusCode != http.StatusOK {
		t.Fatalf("GET %s: %s, %v", metadataURL, resp.Status, err)
	}
	if md.Resource != resource || len(md.AuthorizationServers) != 1 || md.AuthorizationServers[0] != asURL {
		t.Errorf("metadata = %+v, want resource %s, authorization_servers [%s]", md, resource, asURL)
	}
}

// base64URL decodes unpadded base64url (a JWS segment).
func base64URL(s string) ([]byte, error) {
	return base64.RawURLEncoding.DecodeString(s)
}

// expiry is a JWT's "exp" (unverified: the test reads its own token).
func expiry(t *testing.T, jwt string) time.Time {
	t.Helper()
	parts := strings.Split(jwt, ".")
	if len(parts) != 3 {
		t.Fatalf("not a JWS: %q", jwt)
	}
	b, err := base64URL(parts[1])
	if err != nil {
		t.Fatal(err)
	}
	var c struct {
		Exp int64 `json:"exp"`
	}
	if err := json.Unmarshal(b, &c); err != nil {
		t.Fatal(err)
	}
	return time.Unix(c.Exp, 0)
}

// TestAuthIntrospectionCache: the verifier's cache of active answers is
// bounded by MaxCacheTTL and by the token's expiry (issue 11), checked
// against the provider's real answers: a token revoked after its first
// use is refused once MaxCacheTTL has passed, and an expired token once
// its exp has passed, though both were cached as active.
func TestAuthIntrospectionCache(t *testing.T) {
	const ttl = 300 * time.Millisecond
	e := startAuthServer(t, introspectionVerifierTTL(ttl))

	t.Run("revoked after use", func(t *testing.T) {
		tok := token(t, e.as, "app", []string{scopeRead})
		call(t, e.mcpURL, tok, "whoami").wantOK(t, e.as.URL, "app")
		if err := e.as.Revoke(context.Background(), "app", "app-secret", tok); err != nil {
			t.Fatal(err)
		}
		time.Sleep(ttl + 200*time.Millisecond)
		call(t, e.mcpURL, tok, "whoami").wantChallenge(t, e, http.StatusUnauthorized, "invalid_token")
	})

	t.Run("expired after use", func(t *testing.T) {
		// A long MaxCacheTTL: only the token's exp can end its entry.
		e := startAuthServer(t, introspectionVerifierTTL(time.Hour))
		tok := token(t, e.as, "short", nil)
		call(t, e.mcpURL, tok, "whoami").wantOK(t, e.as.URL, "short")
		time.Sleep(time.Until(expiry(t, tok)) + 1500*time.Millisecond)
		call(t, e.mcpURL, tok, "whoami").wantChallenge(t, e, http.StatusUnauthorized, "invalid_token")
	})
}

// TestAuthJWTRS256: RS256, the algorithm RFC 9068 §2.1 requires every
// party to support (the other tests use the provider's default ES256):
// a token, then a rotation to a new RSA key.
func TestAuthJWTRS256(t *testing.T) {
	e := startAuthServerOpts(t, oauthas.Options{Algorithm: "RS256"}, jwtVerifier)
	tok := token(t, e.as, "app", []string{scopeRead})
	if h := jwsAlg(t, tok); h != "RS256" {
		t.Fatalf("alg %q, want RS256", h)
	}
	call(t, e.mcpURL, tok, "whoami").wantOK(t, e.as.URL, "app")
	if _, err := e.as.RotateKey(); err != nil {
		t.Fatal(err)
	}
	time.Sleep(150 * time.Millisecond) // past MinRefreshInterval
	call(t, e.mcpURL, token(t, e.as, "app", []string{scopeRead}), "whoami").wantOK(t, e.as.URL, "app")
	call(t, e.mcpURL, token(t, e.other, "app", []string{scopeRead}), "whoami").wantChallenge(t, e, http.StatusUnauthorized, "invalid_token")
}
