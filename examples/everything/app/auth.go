package app

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"net/http"
	"slices"
	"strings"

	"github.com/mcpwire/mcpwire/auth"
	"github.com/mcpwire/mcpwire/server/streamhttp"
)

// authFlags turn the example into an OAuth 2.1 resource server (package
// auth): access tokens of -auth-issuer, for -auth-audience, with the
// scopes of -auth-scopes on the tools named there. The tokens are JWTs
// checked against the issuer's keys, or, with -auth-introspect, opaque
// tokens the issuer's introspection endpoint vouches for (RFC 7662).
type authFlags struct {
	issuer, audience, jwks, scopes string
	introspect, clientID, secret   string
}

func registerAuthFlags(fs *flag.FlagSet) *authFlags {
	a := &authFlags{}
	fs.StringVar(&a.issuer, "auth-issuer", "", "require JWT access tokens (RFC 9068) of this issuer on Streamable HTTP; the Protected Resource\n"+
		"Metadata is then served at /.well-known/oauth-protected-resource[/mcp]")
	fs.StringVar(&a.audience, "auth-audience", "", "the audience the tokens must name (default: this server's own URL, http://<-http address>/mcp)")
	fs.StringVar(&a.jwks, "auth-jwks", "", "the issuer's JWKS URL (default: discovered from the issuer's RFC 8414 or OpenID metadata)")
	fs.StringVar(&a.scopes, "auth-scopes", "", "the scopes tools need: tool=scope,tool=scope,... (a tool named twice needs both)")
	fs.StringVar(&a.introspect, "auth-introspect", "", "verify tokens at this RFC 7662 introspection endpoint of -auth-issuer instead of as JWTs\n"+
		"(https, or http on loopback); -auth-issuer is still required (metadata, and the response's iss)")
	fs.StringVar(&a.clientID, "auth-client-id", "", "with -auth-introspect: this server's client id at the introspection endpoint (HTTP Basic)")
	fs.StringVar(&a.secret, "auth-client-secret", "", "with -auth-introspect: this server's client secret at the introspection endpoint")
	return a
}

// check reports the flag combinations that cannot work: the
// introspection flags without -auth-issuer or -auth-introspect, and
// -auth-jwks beside -auth-introspect (which uses no keys).
func (a *authFlags) check() error {
	switch {
	case a.issuer == "" && (a.audience != "" || a.jwks != "" || a.scopes != "" || a.introspect != "" || a.clientID != "" || a.secret != ""):
		return errors.New("the -auth-* flags need -auth-issuer")
	case a.introspect == "" && (a.clientID != "" || a.secret != ""):
		return errors.New("-auth-client-id and -auth-client-secret need -auth-introspect")
	case a.introspect != "" && a.jwks != "":
		return errors.New("-auth-jwks and -auth-introspect exclude each other (introspection checks no signature)")
	}
	return nil
}

func (a *authFlags) enabled() bool { return a.issuer != "" }

// parseToolScopes reads -auth-scopes: tool=scope entries, comma-separated.
func parseToolScopes(v string) (map[string][]string, []string, error) {
	byTool := map[string][]string{}
	var all []string
	for _, e := range strings.Split(v, ",") {
		e = strings.TrimSpace(e)
		if e == "" {
			continue
		}
		tool, scope, ok := strings.Cut(e, "=")
		if !ok || tool == "" || scope == "" || strings.ContainsAny(scope, " \"\\") {
			return nil, nil, fmt.Errorf("-auth-scopes: %q is not tool=scope", e)
		}
		byTool[tool] = append(byTool[tool], scope)
		if !slices.Contains(all, scope) {
			all = append(all, scope)
		}
	}
	return byTool, all, nil
}

// newMux mounts s at /mcp; with -auth-issuer, behind a JWTVerifier (or,
// with -auth-introspect, an IntrospectionVerifier), with the metadata
// document at both well-known paths (auth.Mount). self is the server's
// own URL, the default audience.
func newMux(ctx context.Context, s *instance, a *authFlags, self string) (*http.ServeMux, error) {
	if err := a.check(); err != nil {
		return nil, err
	}
	mux := http.NewServeMux()
	if !a.enabled() {
		mux.Handle("/mcp", s.Handler(streamhttp.Options{}))
		return mux, nil
	}
	audience := a.audience
	if audience == "" {
		audience = self
	}
	resource, err := auth.CanonicalResource(audience)
	if err != nil {
		return nil, fmt.Errorf("-auth-audience: %w", err)
	}
	byTool, all, err := parseToolScopes(a.scopes)
	if err != nil {
		return nil, err
	}
	for tool, scopes := range byTool {
		if err := s.SetToolScopes(tool, scopes...); err != nil {
			return nil, fmt.Errorf("-auth-scopes: %w", err)
		}
	}
	v, err := a.verifier(ctx, resource)
	if err != nil {
		return nil, err
	}
	mdURL, err := auth.MetadataURL(resource)
	if err != nil {
		return nil, err
	}
	h := s.Handler(streamhttp.Options{Verifier: v, ResourceMetadataURL: mdURL, Scopes: all})
	md := auth.ProtectedResourceMetadata{
		Resource: resource, AuthorizationServers: []string{a.issuer}, ScopesSupported: all,
		BearerMethodsSupported: []string{"header"}, ResourceName: "mcpwire everything",
	}
	if err := auth.Mount(mux, "/mcp", h, md); err != nil {
		return nil, err
	}
	return mux, nil
}

// verifier is the token check of the flags: introspection at
// -auth-introspect, else JWTs against the issuer's (or -auth-jwks's)
// keys; tokens must name resource as their audience.
func (a *authFlags) verifier(ctx context.Context, resource string) (auth.Verifier, error) {
	if a.introspect == "" {
		return auth.NewJWTVerifier(ctx, auth.JWTConfig{Issuer: a.issuer, Audience: resource, JWKSURL: a.jwks})
	}
	v, err := auth.NewIntrospectionVerifier(auth.IntrospectionConfig{
		Endpoint: a.introspect, ClientID: a.clientID, ClientSecret: a.secret,
		Issuer: a.issuer, Audience: resource,
	})
	if err != nil {
		return nil, fmt.Errorf("-auth-introspect: %w", err)
	}
	return v, nil
}
