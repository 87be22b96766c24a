package interop

// The official Go SDK's (v1.8.0) own OAuth client support, driven
// headlessly against the real provider and an mcpwire resource server:
// StreamableClientTransport.OAuthHandler gets the 401 (or 403) and its
// WWW-Authenticate challenge, follows resource_metadata to the Protected
// Resource Metadata, discovers the authorization server (RFC 8414 first,
// then OIDC discovery, which is what zitadel's op serves), obtains a token
// and retries the request.
//
//   - extauth.ClientCredentialsHandler: the client-credentials grant with
//     pre-registered credentials (SEP-1046). It sends no RFC 8707
//     resource parameter, so the token's audience is the one the provider
//     configures for the client.
//   - auth.AuthorizationCodeHandler: the authorization-code grant with
//     PKCE and a pre-registered public client; its
//     AuthorizationCodeFetcher is the only place a browser would be
//     needed, and oauthas.Provider.FollowAuthorization plays the user
//     agent (the provider's login step approves at once). It sends the
//     resource parameter (the PRM's resource) in both requests.
//
// Both do step-up authorization (SEP-2350): a 403 insufficient_scope
// makes them ask again for the union of the scopes granted and the scopes
// the challenge names.

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/mcpwire/mcpwire/auth"
	"github.com/mcpwire/mcpwire/interop/oauthas"
	sdkauth "github.com/modelcontextprotocol/go-sdk/auth"
	"github.com/modelcontextprotocol/go-sdk/auth/extauth"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/modelcontextprotocol/go-sdk/oauthex"
)

// sdkWhoami connects the SDK client with h and calls whoami, then admin
// (which needs the step-up to tools:admin), and returns both answers.
func sdkWhoami(t *testing.T, e *authEnv, h sdkauth.OAuthHandler) (string, string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), stepTimeout)
	defer cancel()
	c := mcp.NewClient(&mcp.Implementation{Name: "auth-interop-oauth", Version: "0.0.1"}, nil)
	cs, err := c.Connect(ctx, &mcp.StreamableClientTransport{Endpoint: e.mcpURL, OAuthHandler: h, MaxRetries: -1}, nil)
	if err != nil {
		t.Fatalf("connect with OAuth: %v", err)
	}
	defer cs.Close()
	var out []string
	for _, tool := range []string{"whoami", "admin"} {
		res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: tool, Arguments: map[string]any{}})
		if err != nil {
			t.Fatalf("%s: %v", tool, err)
		}
		if res.IsError || len(res.Content) == 0 {
			t.Fatalf("%s: error result %+v", tool, res)
		}
		out = append(out, res.Content[0].(*mcp.TextContent).Text)
	}
	return out[0], out[1]
}

// TestAuthSDKClientCredentials: R-AUTH-01..05, R-AUTH-08 (step-up) with
// the SDK's client-credentials handler.
func TestAuthSDKClientCredentials(t *testing.T) {
	for name, newVerifier := range map[string]func(*testing.T, *authEnv) auth.Verifier{"jwt": jwtVerifier, "introspection": introspectionVerifier} {
		t.Run(name, func(t *testing.T) {
			e := startAuthServer(t, newVerifier)
			h, err := extauth.NewClientCredentialsHandler(&extauth.ClientCredentialsHandlerConfig{
				Credentials: &oauthex.ClientCredentials{
					ClientID:         "app",
					ClientSecretAuth: &oauthex.ClientSecretAuth{ClientSecret: "app-secret"},
					Issuer:           e.as.URL,
				},
			})
			if err != nil {
				t.Fatal(err)
			}
			who, admin := sdkWhoami(t, e, h)
			// First token: the 401's scope= (tools:read) only; after the
			// 403 on admin, both.
			if who != e.as.URL+" app|app|app|"+scopeRead {
				t.Errorf("whoami = %q, want the principal %q with scope %s", who, e.as.URL+" app", scopeRead)
			}
			if !strings.HasPrefix(admin, e.as.URL+" app|app|app|") || !strings.Contains(admin, scopeAdmin) {
				t.Errorf("admin = %q, want a token with %s after step-up", admin, scopeAdmin)
			}
		})
	}
}

// TestAuthSDKAuthorizationCode: the same with the SDK's
// authorization-code handler; the subject is the provider's test user.
func TestAuthSDKAuthorizationCode(t *testing.T) {
	e := startAuthServer(t, jwtVerifier)
	fetches := 0
	h, err := sdkauth.NewAuthorizationCodeHandler(&sdkauth.AuthorizationCodeHandlerConfig{
		PreregisteredClient:      &oauthex.ClientCredentials{ClientID: webClientID, Issuer: e.as.URL},
		RedirectURL:              webRedirect,
		AuthorizationCodeFetcher: userAgent(e.as, &fetches),
	})
	if err != nil {
		t.Fatal(err)
	}
	who, admin := sdkWhoami(t, e, h)
	if want := e.as.URL + " alice|alice|" + webClientID + "|" + scopeRead; who != want {
		t.Errorf("whoami = %q, want %q", who, want)
	}
	if !strings.HasPrefix(admin, e.as.URL+" alice|alice|") || !strings.Contains(admin, scopeAdmin) {
		t.Errorf("admin = %q, want a token with %s after step-up", admin, scopeAdmin)
	}
	if fetches != 2 {
		t.Errorf("%d authorizations, want 2 (the first 401, the step-up 403)", fetches)
	}
}

// userAgent is an AuthorizationCodeFetcher that plays the browser: it
// opens the authorization URL at the provider, whose login step approves
// at once, and hands back what the redirect to webRedirect carries (an
// error redirect is an error). It counts its runs in *n when n is not nil.
func userAgent(as *oauthas.Provider, n *int) sdkauth.AuthorizationCodeFetcher {
	return func(ctx context.Context, args *sdkauth.AuthorizationArgs) (*sdkauth.AuthorizationResult, error) {
		if n != nil {
			*n++
		}
		back, err := as.FollowAuthorization(ctx, args.URL, webRedirect)
		if err != nil {
			return nil, err
		}
		q := back.Query()
		if e := q.Get("error"); e != "" {
			return nil, fmt.Errorf("authorization refused: %s: %s", e, q.Get("error_description"))
		}
		return &sdkauth.AuthorizationResult{Code: q.Get("code"), State: q.Get("state"), Iss: q.Get("iss")}, nil
	}
}
