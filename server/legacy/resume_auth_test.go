package legacy_test

import (
	"context"
	"encoding/json"
	"net/http"
	"strings"
	"testing"
	"time"

	. "github.com/mcpwire/mcpwire/server/internal/testkit"
	"github.com/mcpwire/mcpwire/server/streamhttp"

	"github.com/mcpwire/mcpwire/auth"
	"github.com/mcpwire/mcpwire/protocol"
	"github.com/mcpwire/mcpwire/server"
)

// R-AUTH-08, R-AUTH-07: a GET resuming a request's stream carries a token
// with the scopes of the request's operation, and one not past its exp,
// or it is refused as the request itself would be (403 insufficient_scope;
// 401 invalid_token "token expired"). Found by the second hostile review:
// a weak token of the same principal resumed, and read, a scoped tool's
// result. The strong token still resumes.
func TestResumeChecksScopesAndExpiry(t *testing.T) {
	f := newResumeFixture(t)
	AddTool(t, f.Server, `{"name":"secretslow","inputSchema":{"type":"object"}}`, func(ctx context.Context, r *server.Request, _ json.RawMessage) (*protocol.CallToolResult, error) {
		r.Progress(ctx, 1, 2, "first")
		select {
		case <-f.gate:
		case <-ctx.Done():
			return nil, ctx.Err()
		}
		return server.TextResult("TOPSECRET"), nil
	}, server.RequireScopes("admin"))
	ver := FakeVerifier{
		"strong":  &auth.TokenInfo{Issuer: AuthIss, Subject: "bob", Scopes: []string{"admin"}},
		"strong2": &auth.TokenInfo{Issuer: AuthIss, Subject: "bob", Scopes: []string{"admin", "read"}},
		"weak":    &auth.TokenInfo{Issuer: AuthIss, Subject: "bob", Scopes: []string{"read"}},
		"expired": &auth.TokenInfo{Issuer: AuthIss, Subject: "bob", Scopes: []string{"admin"}, Expiry: time.Now().Add(-time.Second)},
	}
	h := Handler(f.Server, streamhttp.Options{Verifier: ver, ResourceMetadataURL: PrmURL})
	srv := GetServer(t, h)
	for _, tc := range []struct {
		token     string
		status    int
		challenge string
	}{
		{"weak", http.StatusForbidden, `error="insufficient_scope"`},
		{"expired", http.StatusUnauthorized, `error_description="token expired"`},
		{"strong2", http.StatusOK, ""},
	} {
		t.Run(tc.token, func(t *testing.T) {
			f.gate = make(chan struct{})
			c := NewLegacyHTTP(t, h, "2025-11-25", "Authorization", "Bearer strong")
			c.Open("")
			cw := NewLegacyHTTP(t, h, "2025-11-25", "Authorization", "Bearer "+tc.token)
			cw.Sid = c.Sid
			_, ev := openStream(t, srv, c, http.MethodPost, EraBody(7, "tools/call", `{"name":"secretslow","_meta":{"progressToken":"p"}}`))
			first := ev.UpTo(func(e TEvent) bool { return strings.Contains(e.Data, "first") })
			resp, g := openStream(t, srv, cw, http.MethodGet, "", "Last-Event-ID", first[len(first)-1].Id)
			close(f.gate)
			if resp.StatusCode != tc.status || !strings.Contains(resp.Header.Get("WWW-Authenticate"), tc.challenge) {
				t.Fatalf("resume with %q: %d %q", tc.token, resp.StatusCode, resp.Header.Get("WWW-Authenticate"))
			}
			var onPOST, onGET bool
			if g != nil {
				for _, e := range g.All() {
					onGET = onGET || strings.Contains(e.Data, "TOPSECRET")
				}
			}
			for _, e := range ev.All() {
				onPOST = onPOST || strings.Contains(e.Data, "TOPSECRET")
			}
			if tc.status == http.StatusOK && (!onGET || onPOST) || tc.status != http.StatusOK && (onGET || !onPOST) {
				t.Errorf("the result on the resumed stream %v, on the POST %v", onGET, onPOST)
			}
		})
	}
}
