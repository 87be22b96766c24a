package auth

import "strings"

// ChallengeParams are the parameters of a Bearer challenge (RFC 6750
// §3), as a resource server sends them in WWW-Authenticate.
type ChallengeParams struct {
	// ResourceMetadata is the URL of the Protected Resource Metadata
	// document (RFC 9728 §5.1, R-AUTH-03).
	ResourceMetadata string
	// Scopes are the scopes the request needs (R-AUTH-04, R-AUTH-08).
	// offline_access is never sent (R-AUTH-10), nor a scope with a
	// character that RFC 6750 does not allow in one.
	Scopes []string
	// Error is the error code: "invalid_request", "invalid_token" or
	// "insufficient_scope"; empty when the request had no credentials
	// (RFC 6750 §3.1: no error code then).
	Error string
	// ErrorDescription is a human-readable text; characters RFC 6750
	// does not allow in it (controls, non-ASCII, '"' and '\') are left
	// out.
	ErrorDescription string
}

// Challenge builds the value of a WWW-Authenticate header:
// `Bearer resource_metadata="…", scope="…", error="…", error_description="…"`,
// each parameter only when set, "Bearer" alone when none is.
func Challenge(c ChallengeParams) string {
	var b strings.Builder
	b.WriteString("Bearer")
	n := 0
	param := func(name, value string) {
		if n == 0 {
			b.WriteByte(' ')
		} else {
			b.WriteString(", ")
		}
		n++
		b.WriteString(name)
		b.WriteString(`="`)
		b.WriteString(value)
		b.WriteByte('"')
	}
	if v := clean(c.ResourceMetadata); v != "" {
		param("resource_metadata", v)
	}
	if s := challengeScopes(c.Scopes); s != "" {
		param("scope", s)
	}
	if v := clean(c.Error); v != "" {
		param("error", v)
	}
	if v := clean(c.ErrorDescription); v != "" {
		param("error_description", v)
	}
	return b.String()
}

// challengeScopes joins the scopes that may go into a challenge, each
// once, in order.
func challengeScopes(scopes []string) string {
	var out []string
	for _, s := range scopes {
		if s == "" || s == "offline_access" || !validScopeToken(s) {
			continue
		}
		dup := false
		for _, o := range out {
			dup = dup || o == s
		}
		if !dup {
			out = append(out, s)
		}
	}
	return strings.Join(out, " ")
}

// validScopeToken: RFC 6749 §3.3 scope-token, %x21 / %x23-5B / %x5D-7E.
func validScopeToken(s string) bool {
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c < 0x21 || c > 0x7e || c == '"' || c == '\\' {
			return false
		}
	}
	return true
}

// clean keeps the characters RFC 6750 allows in error and
// error_description values: %x20-21 / %x23-5B / %x5D-7E.
func clean(s string) string {
	ok := true
	for i := 0; i < len(s) && ok; i++ {
		c := s[i]
		ok = c >= 0x20 && c <= 0x7e && c != '"' && c != '\\'
	}
	if ok {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if c := s[i]; c >= 0x20 && c <= 0x7e && c != '"' && c != '\\' {
			b.WriteByte(c)
		}
	}
	return b.String()
}
