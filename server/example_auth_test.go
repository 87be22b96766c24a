package server_test

import (
	"context"
	"log"
	"net/http"

	"github.com/mcpwire/mcpwire/auth"
	"github.com/mcpwire/mcpwire/protocol"
	"github.com/mcpwire/mcpwire/server"
	"github.com/mcpwire/mcpwire/server/streamhttp"
	"github.com/mcpwire/mcpwire/server/typed"
)

// An MCP server behind OAuth: JWT access tokens of one issuer, for this
// server's own URL, and a scope on one tool. The README's "Authorization"
// section is this example.
func Example_authorization() {
	const (
		issuer = "https://auth.example.com"    // the authorization server
		self   = "https://mcp.example.com/mcp" // this server: the tokens' audience
	)
	ctx := context.Background()
	s, err := server.New(protocol.Implementation{Name: "notes", Version: "1.0.0"})
	if err != nil {
		log.Fatal(err)
	}
	type In struct {
		ID string `json:"id"`
	}
	type Out struct {
		Deleted bool `json:"deleted"`
	}
	err = typed.AddTool(s, protocol.Tool{Name: "delete_note"},
		func(ctx context.Context, req *server.Request, in In) (Out, error) {
			log.Printf("%s deletes %s", req.Principal, in.ID) // "https://auth.example.com alice"
			return Out{Deleted: true}, nil
		}, server.RequireScopes("notes:write")) // without it: 403 insufficient_scope
	if err != nil {
		log.Fatal(err)
	}
	// The JWKS is found through the issuer's metadata (RFC 8414 / OIDC).
	v, err := auth.NewJWTVerifier(ctx, auth.JWTConfig{Issuer: issuer, Audience: self})
	if err != nil {
		log.Fatal(err)
	}
	mdURL, err := auth.MetadataURL(self) // https://mcp.example.com/.well-known/oauth-protected-resource/mcp
	if err != nil {
		log.Fatal(err)
	}
	h := streamhttp.Handler(s, streamhttp.Options{
		AllowedHosts:        []string{"mcp.example.com"},
		Verifier:            v,
		ResourceMetadataURL: mdURL,
		Scopes:              []string{"notes:read"}, // what a 401 tells the client to ask for
	})
	mux := http.NewServeMux()
	err = auth.Mount(mux, "/mcp", h, auth.ProtectedResourceMetadata{
		Resource:               self,
		AuthorizationServers:   []string{issuer},
		ScopesSupported:        []string{"notes:read", "notes:write"},
		BearerMethodsSupported: []string{"header"},
	})
	if err != nil {
		log.Fatal(err)
	}
	log.Fatal(http.ListenAndServeTLS(":443", "cert.pem", "key.pem", mux))
}
