package testkit

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"testing"

	"github.com/mcpwire/mcpwire/auth"
	"github.com/mcpwire/mcpwire/protocol"
	"github.com/mcpwire/mcpwire/server"
	"github.com/mcpwire/mcpwire/server/streamhttp"
)

const (
	PrmURL  = "https://mcp.example.com/.well-known/oauth-protected-resource/mcp"
	AuthIss = "https://as.example.com"
)

// fakeVerifier accepts the tokens it knows; "down" is an outage.
type FakeVerifier map[string]*auth.TokenInfo

func (f FakeVerifier) Verify(_ context.Context, tok string) (*auth.TokenInfo, error) {
	if tok == "down" {
		return nil, errors.New("issuer unreachable")
	}
	if ti, ok := f[tok]; ok {
		return ti, nil
	}
	return nil, fmt.Errorf("%w: expired", auth.ErrInvalidToken)
}

func TokenFor(sub string, scopes ...string) *auth.TokenInfo {
	return &auth.TokenInfo{Issuer: AuthIss, Subject: sub, Scopes: scopes}
}

var TestTokens = FakeVerifier{
	"reader": TokenFor("alice", "read"),
	"admin":  TokenFor("root", "read", "admin", "write"),
	"files":  TokenFor("fil", "read", "files"),
}

func AuthOptions() streamhttp.Options {
	return streamhttp.Options{Verifier: TestTokens, ResourceMetadataURL: PrmURL, Scopes: []string{"read", "offline_access"}}
}

// authServer has a tool "whoami" that needs nothing more than a token, a
// tool "admin" that needs admin and write, a prompt and a resource that
// need admin.
func AuthServer(t testing.TB, opts ...any) *server.Server {
	t.Helper()
	s := NewServer(t, opts...)
	AddTool(t, s, `{"name":"whoami","inputSchema":{"type":"object"}}`, func(_ context.Context, r *server.Request, _ json.RawMessage) (*protocol.CallToolResult, error) {
		sub := "<no token>"
		if ti := r.Token(); ti != nil {
			sub = ti.Subject
		}
		return server.TextResult(r.Principal + "|" + sub), nil
	})
	if err := s.AddTool(ToolDef(t, `{"name":"admin","inputSchema":{"type":"object"}}`), TextTool("done"), server.RequireScopes("admin", "write")); err != nil {
		t.Fatal(err)
	}
	if err := s.AddTool(ToolDef(t, `{"name":"readfile","inputSchema":{"type":"object"}}`), TextTool("file"), server.RequireScopes("files:read")); err != nil {
		t.Fatal(err)
	}
	AddPrompt(t, s, protocol.Prompt{Name: "secret"}, func(context.Context, *server.Request, map[string]string) (*protocol.GetPromptResult, error) {
		return &protocol.GetPromptResult{}, nil
	}, server.RequirePromptScopes("admin"))
	AddResource(t, s, protocol.Resource{URI: "test://secret", Name: "secret"}, func(_ context.Context, _ *server.Request, uri string, _ map[string]string) ([]protocol.ReadResourceResultContentsElem, error) {
		return server.TextContents(uri, "text/plain", "s"), nil
	}, server.RequireResourceScopes("admin"))
	return s
}

func Bearer(tok string) func(r *http.Request) {
	return func(r *http.Request) { r.Header.Set("Authorization", "Bearer "+tok) }
}
