package auth_test

import (
	"log"
	"os"

	"github.com/mcpwire/mcpwire/auth"
)

// A verifier for opaque access tokens: the authorization server's
// introspection endpoint is asked about each one, with this server's own
// client credentials. The README's introspection snippet is this example;
// the verifier goes into streamhttp.Options.Verifier as a JWTVerifier does.
func ExampleNewIntrospectionVerifier() {
	const (
		issuer = "https://auth.example.com"    // the authorization server
		self   = "https://mcp.example.com/mcp" // this server: the tokens' audience
	)
	v, err := auth.NewIntrospectionVerifier(auth.IntrospectionConfig{
		Endpoint:     issuer + "/oauth/introspect", // https (http on loopback only)
		ClientID:     "notes-mcp",                  // this server's own credentials there
		ClientSecret: os.Getenv("INTROSPECTION_SECRET"),
		Issuer:       issuer,
		Audience:     self, // an answer without this aud is refused
	})
	if err != nil {
		log.Fatal(err)
	}
	_ = v // streamhttp.Options{Verifier: v, ...}
}
