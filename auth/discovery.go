package auth

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"strings"
)

// The well-known suffixes of authorization-server metadata: RFC 8414 §3
// (inserted between the host and the issuer's path) and OpenID Connect
// Discovery 1.0 §4 (appended to the issuer).
const (
	wellKnownOAuthAS = "/.well-known/oauth-authorization-server"
	wellKnownOIDC    = "/.well-known/openid-configuration"
)

// discoveryURLs are the metadata URLs of issuer, in the order they are
// tried: RFC 8414 first, then OpenID Connect.
func discoveryURLs(issuer string) ([]string, error) {
	u, err := url.Parse(issuer)
	if err != nil || u.Host == "" || (u.Scheme != "https" && u.Scheme != "http") {
		return nil, fmt.Errorf("auth: issuer %q is not an absolute http(s) URL", issuer)
	}
	if u.RawQuery != "" || u.Fragment != "" {
		return nil, fmt.Errorf("auth: issuer %q must have no query or fragment (RFC 8414 §2)", issuer)
	}
	base := u.Scheme + "://" + u.Host
	path := strings.TrimSuffix(u.EscapedPath(), "/")
	return []string{base + wellKnownOAuthAS + path, base + path + wellKnownOIDC}, nil
}

// discoverJWKS finds the jwks_uri of issuer from its metadata. The first
// document that answers is used, and its "issuer" must be issuer exactly
// (RFC 8414 §3.3, OIDC Discovery §4.3): a document that names another
// issuer is refused, without trying the next one.
func discoverJWKS(ctx context.Context, client *http.Client, issuer string, maxBytes int64) (string, error) {
	urls, err := discoveryURLs(issuer)
	if err != nil {
		return "", err
	}
	var errs []error
	for _, u := range urls {
		body, err := getJSON(ctx, client, u, maxBytes)
		if err != nil {
			errs = append(errs, err)
			continue
		}
		var md struct {
			Issuer  string `json:"issuer"`
			JWKSURI string `json:"jwks_uri"`
		}
		if err := json.Unmarshal(body, &md); err != nil {
			errs = append(errs, fmt.Errorf("%s: %w", u, err))
			continue
		}
		if md.Issuer != issuer {
			return "", fmt.Errorf("auth: discovery: %s names issuer %q, not %q", u, md.Issuer, issuer)
		}
		if md.JWKSURI == "" {
			return "", fmt.Errorf("auth: discovery: %s has no jwks_uri", u)
		}
		if j, err := url.Parse(md.JWKSURI); err != nil || j.Host == "" || (j.Scheme != "https" && j.Scheme != "http") {
			return "", fmt.Errorf("auth: discovery: %s: jwks_uri %q is not an absolute http(s) URL", u, md.JWKSURI)
		}
		return md.JWKSURI, nil
	}
	return "", fmt.Errorf("auth: discovery of %s failed: %w", issuer, errors.Join(errs...))
}
