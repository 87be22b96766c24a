package auth

import (
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
)

// R-AUTH-12: scheme and host compare case-insensitively; the default
// port and a trailing slash do not matter; the path does.
func TestCanonicalResource(t *testing.T) {
	for in, want := range map[string]string{
		"https://mcp.example.com/mcp":        "https://mcp.example.com/mcp",
		"HTTPS://MCP.EXAMPLE.COM/mcp":        "https://mcp.example.com/mcp",
		"https://mcp.example.com:443/mcp/":   "https://mcp.example.com/mcp",
		"https://mcp.example.com/":           "https://mcp.example.com",
		"https://mcp.example.com":            "https://mcp.example.com",
		"http://127.0.0.1:80/x":              "http://127.0.0.1/x",
		"http://127.0.0.1:8080/X":            "http://127.0.0.1:8080/X",
		"https://mcp.example.com:8443/a?b=c": "https://mcp.example.com:8443/a?b=c",
	} {
		got, err := CanonicalResource(in)
		if err != nil || got != want {
			t.Errorf("%s: %q, %v; want %q", in, got, err, want)
		}
	}
	for _, bad := range []string{"", "/mcp", "mcp.example.com", "ftp://x/", "https://u:p@x/", "https://x/#frag", "https:opaque"} {
		if got, err := CanonicalResource(bad); err == nil {
			t.Errorf("%q accepted as %q", bad, got)
		}
	}
	if !SameResource("https://A.example/mcp", "https://a.example:443/mcp/") || SameResource("https://a.example/mcp", "https://a.example/MCP") || SameResource("", "") {
		t.Error("SameResource")
	}
}

// R-AUTH-04, R-AUTH-08, R-AUTH-10: the challenge's parameters, quoting,
// and never offline_access.
func TestChallenge(t *testing.T) {
	for _, c := range []struct {
		p    ChallengeParams
		want string
	}{
		{ChallengeParams{}, "Bearer"},
		{ChallengeParams{ResourceMetadata: "https://a/.well-known/oauth-protected-resource/mcp", Scopes: []string{"read", "offline_access", "write", "read"}},
			`Bearer resource_metadata="https://a/.well-known/oauth-protected-resource/mcp", scope="read write"`},
		{ChallengeParams{Scopes: []string{"offline_access"}, Error: "invalid_token", ErrorDescription: "bad \"quote\" \\ é\n"},
			`Bearer error="invalid_token", error_description="bad quote  "`},
		{ChallengeParams{Scopes: []string{`a"b`, "ok", "sp ace"}, Error: "insufficient_scope"}, `Bearer scope="ok", error="insufficient_scope"`},
	} {
		if got := Challenge(c.p); got != c.want {
			t.Errorf("got  %s\nwant %s", got, c.want)
		}
	}
}

// R-AUTH-02, R-AUTH-03, R-AUTH-10: the document validates, and Mount
// serves it at both well-known paths with JSON and CORS, GET and HEAD
// only.
func TestMetadataMount(t *testing.T) {
	md := ProtectedResourceMetadata{Resource: "https://mcp.example.com/mcp", AuthorizationServers: []string{"https://as.example.com"}, ScopesSupported: []string{"read"}, BearerMethodsSupported: []string{"header"}}
	for _, bad := range []ProtectedResourceMetadata{
		{Resource: "https://mcp.example.com/mcp"},
		{Resource: "http://mcp.example.com/mcp", AuthorizationServers: []string{"https://as"}},
		{Resource: "https://mcp.example.com/mcp#x", AuthorizationServers: []string{"https://as"}},
		{Resource: "https://mcp.example.com/mcp", AuthorizationServers: []string{"https://as"}, ScopesSupported: []string{"offline_access"}},
		{Resource: "https://mcp.example.com/mcp", AuthorizationServers: []string{"as.example"}},
	} {
		if bad.Validate() == nil {
			t.Errorf("%+v validated", bad)
		}
	}
	if err := (ProtectedResourceMetadata{Resource: "http://127.0.0.1:8080/mcp", AuthorizationServers: []string{"http://localhost:9000"}}).Validate(); err != nil {
		t.Errorf("loopback http: %v", err)
	}
	if u, err := MetadataURL("HTTPS://mcp.example.com:443/mcp/"); err != nil || u != "https://mcp.example.com/.well-known/oauth-protected-resource/mcp" {
		t.Errorf("MetadataURL: %q %v", u, err)
	}
	mux := http.NewServeMux()
	mcp := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { w.WriteHeader(299) })
	if err := Mount(mux, "/mcp", mcp, md); err != nil {
		t.Fatal(err)
	}
	for _, p := range []string{"/.well-known/oauth-protected-resource/mcp", "/.well-known/oauth-protected-resource"} {
		rec := httptest.NewRecorder()
		mux.ServeHTTP(rec, httptest.NewRequest("GET", p, nil))
		if rec.Code != 200 || rec.Header().Get("Content-Type") != "application/json" || rec.Header().Get("Access-Control-Allow-Origin") != "*" ||
			!strings.Contains(rec.Body.String(), `"authorization_servers":["https://as.example.com"]`) || !strings.Contains(rec.Body.String(), `"resource":"https://mcp.example.com/mcp"`) {
			t.Errorf("GET %s: %d %v %s", p, rec.Code, rec.Header(), rec.Body)
		}
		rec = httptest.NewRecorder()
		mux.ServeHTTP(rec, httptest.NewRequest("POST", p, nil))
		if rec.Code != 405 {
			t.Errorf("POST %s: %d", p, rec.Code)
		}
		rec = httptest.NewRecorder()
		mux.ServeHTTP(rec, httptest.NewRequest("HEAD", p, nil))
		if rec.Code != 200 || rec.Body.Len() != 0 {
			t.Errorf("HEAD %s: %d %q", p, rec.Code, rec.Body)
		}
	}
	rec := httptest.NewRecorder()
	mux.ServeHTTP(rec, httptest.NewRequest("POST", "/mcp", nil))
	if rec.Code != 299 {
		t.Errorf("mcp handler not mounted: %d", rec.Code)
	}
	if Mount(http.NewServeMux(), "mcp", mcp, md) == nil || Mount(http.NewServeMux(), "/mcp", mcp, ProtectedResourceMetadata{}) == nil {
		t.Error("bad Mount accepted")
	}
}
