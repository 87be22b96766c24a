package app

import (
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"encoding/json"
	"flag"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	jose "github.com/go-jose/go-jose/v4"

	"github.com/mcpwire/mcpwire/server/legacy"
)

// serveAuthMux parses the example's auth flags from args and serves s
// behind them on ln, as the example's own URL self, until the test ends.
func serveAuthMux(t *testing.T, s *instance, ln net.Listener, self string, args ...string) {
	t.Helper()
	fs := flag.NewFlagSet("everything", flag.ContinueOnError)
	a := registerAuthFlags(fs)
	if err := fs.Parse(args); err != nil {
		t.Fatal(err)
	}
	mux, err := newMux(context.Background(), s, a, self)
	if err != nil {
		t.Fatal(err)
	}
	hs := &http.Server{Handler: mux}
	go func() { _ = hs.Serve(ln) }()
	t.Cleanup(func() { _ = hs.Close() })
}

// callSimpleText posts a 2026-07-28 tools/call of test_simple_text to url,
// with tok as its bearer token when it is not empty, and returns the
// response and its body, read to the end.
func callSimpleText(t *testing.T, url, tok string) (*http.Response, string) {
	t.Helper()
	body := `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"test_simple_text","arguments":{},"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}}`
	req, _ := http.NewRequest(http.MethodPost, url, strings.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("MCP-Protocol-Version", "2026-07-28")
	req.Header.Set("Mcp-Method", "tools/call")
	req.Header.Set("Mcp-Name", "test_simple_text")
	if tok != "" {
		req.Header.Set("Authorization", "Bearer "+tok)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	b, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	return resp, string(b)
}

// The example with -auth-issuer (and -auth-jwks, -auth-scopes) serves
// the Protected Resource Metadata at both well-known paths (R-AUTH-02,
// R-AUTH-03), 401s a request without a token with the challenge naming
// the document, 403s a tool whose scope the token lacks (R-AUTH-08), and
// serves a token with it.
func TestExampleAuth(t *testing.T) {
	key, _ := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	set, _ := json.Marshal(jose.JSONWebKeySet{Keys: []jose.JSONWebKey{{Key: key.Public(), KeyID: "e1", Algorithm: "ES256", Use: "sig"}}})
	jwks := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) { _, _ = w.Write(set) }))
	defer jwks.Close()
	const issuer = "http://127.0.0.1:1/as"

	s, err := newServer(slog.New(slog.NewTextHandler(io.Discard, nil)), legacy.ErasBoth, cluster{})
	if err != nil {
		t.Fatal(err)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	self := "http://" + ln.Addr().String() + "/mcp"
	serveAuthMux(t, s, ln, self, "-auth-issuer", issuer, "-auth-jwks", jwks.URL, "-auth-scopes", "test_simple_text=mcp:read,test_simple_text=mcp:text")
	base := "http://" + ln.Addr().String()

	for _, p := range []string{"/.well-known/oauth-protected-resource/mcp", "/.well-known/oauth-protected-resource"} {
		resp, err := http.Get(base + p)
		if err != nil {
			t.Fatal(err)
		}
		var md map[string]any
		_ = json.NewDecoder(resp.Body).Decode(&md)
		resp.Body.Close()
		if resp.StatusCode != 200 || md["resource"] != self || md["authorization_servers"].([]any)[0] != issuer || resp.Header.Get("Access-Control-Allow-Origin") != "*" {
			t.Errorf("GET %s: %d %v", p, resp.StatusCode, md)
		}
	}

	mdURL := base + "/.well-known/oauth-protected-resource/mcp"
	resp, _ := callSimpleText(t, self, "")
	if want := `Bearer resource_metadata="` + mdURL + `", scope="mcp:read mcp:text"`; resp.StatusCode != 401 || resp.Header.Get("WWW-Authenticate") != want {
		t.Errorf("no token: %d %q, want 401 %q", resp.StatusCode, resp.Header.Get("WWW-Authenticate"), want)
	}
	mint := func(scope string) string {
		sg, _ := jose.NewSigner(jose.SigningKey{Algorithm: jose.ES256, Key: key}, (&jose.SignerOptions{}).WithType("at+jwt").WithHeader("kid", "e1"))
		p, _ := json.Marshal(map[string]any{"iss": issuer, "sub": "alice", "aud": self, "scope": scope, "exp": time.Now().Add(time.Hour).Unix()})
		obj, _ := sg.Sign(p)
		out, _ := obj.CompactSerialize()
		return out
	}
	resp, body := callSimpleText(t, self, mint("mcp:read"))
	if resp.StatusCode != 403 || !strings.Contains(resp.Header.Get("WWW-Authenticate"), `scope="mcp:read mcp:text", error="insufficient_scope"`) {
		t.Errorf("one scope of two: %d %q %s", resp.StatusCode, resp.Header.Get("WWW-Authenticate"), body)
	}
	resp, body = callSimpleText(t, self, mint("mcp:read mcp:text"))
	if resp.StatusCode != 200 || !strings.Contains(body, "This is a simple text response") {
		t.Errorf("both scopes: %d %s", resp.StatusCode, body)
	}
}

// The example with -auth-introspect asks the endpoint about each token,
// authenticating as -auth-client-id/-auth-client-secret (RFC 7662 §2.1),
// and serves a token the endpoint calls active for its own URL with the
// tool's scope; it 403s one without the scope (R-AUTH-08) and 401s one
// the endpoint calls inactive and one of another issuer (R-AUTH-05).
func TestExampleAuthIntrospection(t *testing.T) {
	const issuer = "http://127.0.0.1:1/as"
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	self := "http://" + ln.Addr().String() + "/mcp"
	answers := map[string]map[string]any{
		"admin":  {"active": true, "iss": issuer, "sub": "alice", "aud": self, "scope": "mcp:admin"},
		"reader": {"active": true, "iss": issuer, "sub": "bob", "aud": self, "scope": "mcp:read"},
		"other":  {"active": true, "iss": "http://127.0.0.1:2/as", "sub": "eve", "aud": self, "scope": "mcp:admin"},
	}
	var badAuth atomic.Int32
	ep := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if id, secret, ok := r.BasicAuth(); !ok || id != "rs" || secret != "rs-secret" {
			badAuth.Add(1)
			http.Error(w, `{"error":"invalid_client"}`, http.StatusUnauthorized)
			return
		}
		a, ok := answers[r.PostFormValue("token")]
		if !ok {
			a = map[string]any{"active": false}
		}
		_ = json.NewEncoder(w).Encode(a)
	}))
	defer ep.Close()

	s, err := newServer(slog.New(slog.NewTextHandler(io.Discard, nil)), legacy.ErasBoth, cluster{})
	if err != nil {
		t.Fatal(err)
	}
	serveAuthMux(t, s, ln, self, "-auth-issuer", issuer, "-auth-introspect", ep.URL, "-auth-client-id", "rs", "-auth-client-secret", "rs-secret",
		"-auth-scopes", "test_simple_text=mcp:admin")

	for _, c := range []struct {
		token, want string
		status      int
	}{
		{"admin", "This is a simple text response", 200},
		{"reader", `error="insufficient_scope"`, 403},
		{"revoked", `error="invalid_token"`, 401},
		{"other", `error="invalid_token"`, 401},
	} {
		resp, b := callSimpleText(t, self, c.token)
		if resp.StatusCode != c.status || !strings.Contains(b+resp.Header.Get("WWW-Authenticate"), c.want) {
			t.Errorf("token %s: %d %q %s, want %d %s", c.token, resp.StatusCode, resp.Header.Get("WWW-Authenticate"), b, c.status, c.want)
		}
	}
	if n := badAuth.Load(); n != 0 {
		t.Errorf("%d introspection requests without the client credentials", n)
	}
}

// The -auth-* flags that cannot work together are refused before the
// server starts.
func TestAuthFlagsCheck(t *testing.T) {
	for _, args := range [][]string{
		{"-auth-introspect", "http://127.0.0.1:1/introspect"},
		{"-auth-scopes", "test_simple_text=mcp:read"},
		{"-auth-issuer", "http://127.0.0.1:1/as", "-auth-client-id", "rs", "-auth-client-secret", "x"},
		{"-auth-issuer", "http://127.0.0.1:1/as", "-auth-introspect", "http://127.0.0.1:1/introspect", "-auth-jwks", "http://127.0.0.1:1/jwks"},
		{"-auth-issuer", "http://127.0.0.1:1/as", "-auth-introspect", "http://127.0.0.1:1/introspect", "-auth-client-id", "rs"},
		{"-auth-issuer", "http://127.0.0.1:1/as", "-auth-introspect", "http://example.com/introspect"},
	} {
		fs := flag.NewFlagSet("everything", flag.ContinueOnError)
		a := registerAuthFlags(fs)
		if err := fs.Parse(args); err != nil {
			t.Fatal(err)
		}
		s, err := newServer(slog.New(slog.NewTextHandler(io.Discard, nil)), legacy.ErasBoth, cluster{})
		if err != nil {
			t.Fatal(err)
		}
		if _, err := newMux(context.Background(), s, a, "http://127.0.0.1:1/mcp"); err == nil {
			t.Errorf("%q: accepted", args)
		}
	}
}
