// Package auth makes an MCP server an OAuth 2.1 resource server, as the
// 2026-07-28 authorization pages require of an HTTP server that
// implements authorization (R-AUTH-01..12): it publishes OAuth 2.0
// Protected Resource Metadata (RFC 9728), verifies access tokens
// (RFC 9068 JWTs against the issuer's JWKS, or RFC 7662 introspection),
// audience included (RFC 8707), and builds the WWW-Authenticate
// challenges of RFC 6750.
//
// Package auth does not import package server: streamhttp.Options takes a
// Verifier, and handlers read the verified token with Request.Token.
package auth

import (
	"context"
	"errors"
	"strings"
	"time"
)

// TokenInfo is what a Verifier learned from a valid access token.
type TokenInfo struct {
	// Issuer is the authorization server that issued the token ("iss").
	Issuer string
	// Subject is whom the token was issued for ("sub"): a user, or the
	// client itself in a client-credentials grant. Without "sub" (an
	// introspection answer), it is ClientSubjectPrefix and the client_id;
	// a "sub" beginning with ClientSubjectPrefix or UserSubjectPrefix is
	// prefixed with UserSubjectPrefix.
	Subject string
	// ClientID is the OAuth client the token was issued to ("client_id",
	// or "azp" where the issuer uses that).
	ClientID string
	// Scopes are the token's scopes ("scope", space separated on the wire).
	Scopes []string
	// Audience is the token's audience ("aud"), one entry or several.
	Audience []string
	// Expiry is when the token stops being valid ("exp"); the zero time
	// when the issuer set none (a JWT verifier refuses such a token).
	Expiry time.Time
	// NotBefore and IssuedAt are "nbf" and "iat", the zero time when absent.
	NotBefore time.Time
	IssuedAt  time.Time
	// Claims holds every claim of the token (or member of the
	// introspection response) as decoded JSON.
	Claims map[string]any
}

// ClientSubjectPrefix begins the Subject that IntrospectionVerifier
// gives a token without "sub" (a client-credentials grant): the
// client_id after it, so that the client "alice" ("client:alice") and the
// user "alice" are two principals.
const ClientSubjectPrefix = "client:"

// UserSubjectPrefix begins the Subject of a token whose "sub" itself
// begins with ClientSubjectPrefix or UserSubjectPrefix: the sub after it,
// so that no user's subject is a client's (the user "client:alice" is
// "user:client:alice"). Both verifiers apply it; any other sub is the
// Subject as it is.
const UserSubjectPrefix = "user:"

// principalSubject is the Subject of a token with sub and client_id:
// sub, escaped with UserSubjectPrefix when it begins like a client's or
// an escaped one; without sub, the client's (ClientSubjectPrefix); ""
// without either.
func principalSubject(sub, clientID string) string {
	switch {
	case sub == "" && clientID != "":
		return ClientSubjectPrefix + clientID
	case strings.HasPrefix(sub, ClientSubjectPrefix), strings.HasPrefix(sub, UserSubjectPrefix):
		return UserSubjectPrefix + sub
	}
	return sub
}

// Principal is whom the token speaks for, as the server binds state to
// it: the issuer and the subject, so that equal subjects of two issuers
// are two principals, and a client's subject is never a user's
// (ClientSubjectPrefix).
func (t *TokenInfo) Principal() string {
	return t.Issuer + " " + t.Subject
}

// HasScope reports whether the token carries scope exactly.
func (t *TokenInfo) HasScope(scope string) bool {
	for _, s := range t.Scopes {
		if s == scope {
			return true
		}
	}
	return false
}

// A Verifier checks an access token and returns what it carries. It is
// called for every HTTP request before the body is read, so it must be
// safe for concurrent use and should answer from cached keys.
//
// An error that wraps ErrInvalidToken means the token is not acceptable
// (bad signature, expired, another audience or issuer, revoked): the
// client gets 401 with error="invalid_token". Any other error means the
// verifier could not decide (the issuer unreachable, say): the client
// gets 503, and may retry.
//
// The TokenInfo of a valid token must name its Subject: the server binds
// sessions, tasks and sealed state to Principal, and refuses a token
// without a subject (401 invalid_token) rather than make every such token
// one principal.
type Verifier interface {
	Verify(ctx context.Context, token string) (*TokenInfo, error)
}

// ErrInvalidToken is wrapped by a Verifier's error when the token itself
// is not acceptable.
var ErrInvalidToken = errors.New("auth: invalid token")
