package auth

import (
	"errors"
	"fmt"
	"net/url"
	"strings"
)

// CanonicalResource returns the canonical form of an MCP server's URI, the
// form in which it is an access token's audience (RFC 8707, R-AUTH-12):
//
//   - the URI must be absolute, http or https, with a host, no user
//     information and no fragment;
//   - the scheme and the host are lower-cased (R-AUTH-12: a client may
//     send them in upper case);
//   - the default port of the scheme (:443 for https, :80 for http) is
//     dropped;
//   - one trailing slash is dropped from the path, the root's included
//     ("https://mcp.example.com/" is "https://mcp.example.com"), as the
//     MCP authorization pages recommend the form without it;
//   - the path's case and the query are kept as they are.
func CanonicalResource(uri string) (string, error) {
	u, err := url.Parse(uri)
	if err != nil {
		return "", fmt.Errorf("auth: resource %q: %w", uri, err)
	}
	scheme := strings.ToLower(u.Scheme)
	switch {
	case scheme != "https" && scheme != "http":
		return "", fmt.Errorf("auth: resource %q: want an absolute http or https URI", uri)
	case u.Host == "" || u.Opaque != "":
		return "", fmt.Errorf("auth: resource %q: no host", uri)
	case u.User != nil:
		return "", fmt.Errorf("auth: resource %q: user information is not allowed", uri)
	case u.Fragment != "" || strings.Contains(uri, "#"):
		return "", fmt.Errorf("auth: resource %q: a fragment is not allowed", uri)
	}
	host := strings.ToLower(u.Host)
	if scheme == "https" {
		host = strings.TrimSuffix(host, ":443")
	} else {
		host = strings.TrimSuffix(host, ":80")
	}
	if strings.HasSuffix(host, ":") {
		return "", errors.New("auth: resource " + uri + ": empty port")
	}
	path := strings.TrimSuffix(u.EscapedPath(), "/")
	out := scheme + "://" + host + path
	if u.RawQuery != "" || u.ForceQuery {
		out += "?" + u.RawQuery
	}
	return out, nil
}

// SameResource reports whether a and b name the same resource: equal
// canonical forms (CanonicalResource). A URI that has no canonical form
// is the same as nothing.
func SameResource(a, b string) bool {
	ca, err := CanonicalResource(a)
	if err != nil {
		return false
	}
	cb, err := CanonicalResource(b)
	return err == nil && ca == cb
}
