package auth

import (
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/url"
	"strings"
)

// ProtectedResourceMetadata is the OAuth 2.0 Protected Resource Metadata
// document of RFC 9728 §2, which an MCP server that implements
// authorization publishes (R-AUTH-02) so that a client finds the
// authorization servers it trusts.
type ProtectedResourceMetadata struct {
	// Resource is the resource identifier: the MCP server's canonical
	// URI (R-AUTH-12), https, or http on a loopback host.
	Resource string `json:"resource"`
	// AuthorizationServers are the issuer identifiers of the
	// authorization servers that issue tokens for it; at least one.
	AuthorizationServers []string `json:"authorization_servers"`
	// JWKSURI is the resource's own JSON Web Key Set (rarely needed).
	JWKSURI string `json:"jwks_uri,omitempty"`
	// ScopesSupported are the scopes a client may ask for on this
	// resource; never offline_access (R-AUTH-10).
	ScopesSupported []string `json:"scopes_supported,omitempty"`
	// BearerMethodsSupported are the ways a token may be sent; mcpwire
	// reads the Authorization header only, so ["header"].
	BearerMethodsSupported []string `json:"bearer_methods_supported,omitempty"`
	// ResourceSigningAlgValuesSupported are the JWS algorithms the
	// resource signs its responses with.
	ResourceSigningAlgValuesSupported []string `json:"resource_signing_alg_values_supported,omitempty"`
	// ResourceName is a human-readable name of the resource.
	ResourceName string `json:"resource_name,omitempty"`
	// ResourceDocumentation, ResourcePolicyURI and ResourceTOSURI are
	// URLs of the resource's documentation, policy and terms of service.
	ResourceDocumentation string `json:"resource_documentation,omitempty"`
	ResourcePolicyURI     string `json:"resource_policy_uri,omitempty"`
	ResourceTOSURI        string `json:"resource_tos_uri,omitempty"`
	// TLSClientCertificateBoundAccessTokens (RFC 8705) and
	// DPoPBoundAccessTokensRequired (RFC 9449) declare sender-constrained
	// tokens; mcpwire verifies neither, so leave them false.
	TLSClientCertificateBoundAccessTokens bool `json:"tls_client_certificate_bound_access_tokens,omitempty"`
	DPoPBoundAccessTokensRequired         bool `json:"dpop_bound_access_tokens_required,omitempty"`
	// DPoPSigningAlgValuesSupported (RFC 9728 §2).
	DPoPSigningAlgValuesSupported []string `json:"dpop_signing_alg_values_supported,omitempty"`
	// AuthorizationDetailsTypesSupported (RFC 9396).
	AuthorizationDetailsTypesSupported []string `json:"authorization_details_types_supported,omitempty"`
}

// Validate checks what the MCP authorization pages require of the
// document: an absolute https resource (http only on a loopback host),
// without a fragment (R-AUTH-12); at least one authorization server, each
// an absolute URL (R-AUTH-02); no offline_access in scopes_supported
// (R-AUTH-10).
func (m ProtectedResourceMetadata) Validate() error {
	if err := checkServerURL("resource", m.Resource); err != nil {
		return err
	}
	if _, err := CanonicalResource(m.Resource); err != nil {
		return err
	}
	if len(m.AuthorizationServers) == 0 {
		return errors.New("auth: metadata: authorization_servers needs at least one entry (R-AUTH-02)")
	}
	for _, as := range m.AuthorizationServers {
		if err := checkServerURL("authorization server", as); err != nil {
			return err
		}
	}
	for _, s := range m.ScopesSupported {
		if s == "offline_access" {
			return errors.New("auth: metadata: scopes_supported must not list offline_access (R-AUTH-10)")
		}
		if !validScopeToken(s) {
			return fmt.Errorf("auth: metadata: scope %q is not a scope token (RFC 6749 §3.3)", s)
		}
	}
	return nil
}

// checkServerURL: an absolute https URL, or http on a loopback host.
func checkServerURL(what, s string) error {
	u, err := url.Parse(s)
	if err != nil {
		return fmt.Errorf("auth: metadata: %s %q: %w", what, s, err)
	}
	switch {
	case u.Host == "":
		return fmt.Errorf("auth: metadata: %s %q is not an absolute URL", what, s)
	case u.Fragment != "":
		return fmt.Errorf("auth: metadata: %s %q has a fragment", what, s)
	case strings.EqualFold(u.Scheme, "https"):
		return nil
	case strings.EqualFold(u.Scheme, "http") && isLoopback(u.Hostname()):
		return nil
	}
	return fmt.Errorf("auth: metadata: %s %q: want https (http only on a loopback host)", what, s)
}

func isLoopback(host string) bool {
	if strings.EqualFold(host, "localhost") {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}

// wellKnownPRM is the well-known suffix of RFC 9728 §3.
const wellKnownPRM = "/.well-known/oauth-protected-resource"

// MetadataURL returns the URL of the metadata document of resource, as
// RFC 9728 §3.1 builds it: the well-known suffix inserted between the
// host and the path ("https://a.example/mcp" has
// "https://a.example/.well-known/oauth-protected-resource/mcp"). The
// resource is first put in its canonical form (CanonicalResource).
func MetadataURL(resource string) (string, error) {
	c, err := CanonicalResource(resource)
	if err != nil {
		return "", err
	}
	u, err := url.Parse(c)
	if err != nil {
		return "", fmt.Errorf("auth: resource %q: %w", resource, err)
	}
	out := u.Scheme + "://" + u.Host + wellKnownPRM + u.EscapedPath()
	if u.RawQuery != "" {
		out += "?" + u.RawQuery
	}
	return out, nil
}

// Mount mounts mcp at mcpPath on mux, and the metadata document md at
// the path-suffixed well-known path
// (/.well-known/oauth-protected-resource<mcpPath>) and at the root one
// (/.well-known/oauth-protected-resource), as R-AUTH-03 allows either
// (RFC 9728 §3.1; a client tries the path-suffixed one first). The
// document answers GET and HEAD with application/json and
// Access-Control-Allow-Origin: * (a browser-based client reads it
// cross-origin), OPTIONS as a CORS preflight, and anything else with
// 405. md is validated first (Validate); mcpPath must start with "/".
func Mount(mux *http.ServeMux, mcpPath string, mcp http.Handler, md ProtectedResourceMetadata) error {
	if mux == nil || mcp == nil {
		return errors.New("auth: Mount needs a mux and a handler")
	}
	if !strings.HasPrefix(mcpPath, "/") {
		return fmt.Errorf("auth: Mount: path %q must start with /", mcpPath)
	}
	h, err := MetadataHandler(md)
	if err != nil {
		return err
	}
	mux.Handle(mcpPath, mcp)
	mux.Handle(wellKnownPRM, h)
	if suffix := strings.TrimSuffix(mcpPath, "/"); suffix != "" {
		mux.Handle(wellKnownPRM+suffix, h)
	}
	return nil
}

// MetadataHandler serves md as Mount does, for a server that routes
// the well-known paths itself.
func MetadataHandler(md ProtectedResourceMetadata) (http.Handler, error) {
	if err := md.Validate(); err != nil {
		return nil, err
	}
	doc, err := json.Marshal(md)
	if err != nil {
		return nil, fmt.Errorf("auth: metadata: %w", err)
	}
	return metadataHandler(doc), nil
}

func metadataHandler(doc []byte) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		h := w.Header()
		h.Set("Access-Control-Allow-Origin", "*")
		switch r.Method {
		case http.MethodGet, http.MethodHead:
		case http.MethodOptions:
			h.Set("Access-Control-Allow-Methods", "GET, HEAD, OPTIONS")
			h.Set("Access-Control-Allow-Headers", "*")
			w.WriteHeader(http.StatusNoContent)
			return
		default:
			h.Set("Allow", "GET, HEAD, OPTIONS")
			http.Error(w, "method not allowed", http.StatusMethodNotAllowed)
			return
		}
		h.Set("Content-Type", "application/json")
		h.Set("Content-Length", fmt.Sprint(len(doc)))
		w.WriteHeader(http.StatusOK)
		if r.Method == http.MethodGet {
			_, _ = w.Write(doc)
		}
	})
}
