package server

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"slices"
	"strings"
	"time"

	"github.com/mcpwire/mcpwire/auth"
	"github.com/mcpwire/mcpwire/protocol"
)

// Authorization is what the HTTP handler learned from a request's verified
// token, and how its Handler judges scopes. It travels in the request's
// context (authKey) from ServeHTTP to the Request that the handler gets,
// on every path (modern, legacy session, batch, detached).
type Authorization struct {
	Token       *auth.TokenInfo
	Satisfies   func(have *auth.TokenInfo, need string) bool
	FilterLists bool // HTTPOptions.FilterListsByScope
}

type authKey struct{}

// AuthorizationFrom returns the authInfo of a request verified by
// HTTPOptions.Verifier, nil for any other (stdio, no Verifier).
func AuthorizationFrom(ctx context.Context) *Authorization {
	a, _ := ctx.Value(authKey{}).(*Authorization)
	return a
}

// Token is the verified access token of the request (HTTPOptions.Verifier),
// nil without a Verifier and on stdio. Handlers read the token's claims
// here; the token itself is never handed on (R-AUTH-06).
func (r *Request) Token() *auth.TokenInfo {
	if r.auth == nil {
		return nil
	}
	return r.auth.Token
}

// exactScope is the default HTTPOptions.ScopeSatisfies: the token holds
// the scope itself.
func exactScope(have *auth.TokenInfo, need string) bool { return have.HasScope(need) }

// The outcomes of reading the Authorization header.
const (
	credsOK        = iota // one Bearer token
	credsNone             // no header, or a well-formed header of another scheme: 401 without error=
	credsMalformed        // 400 invalid_request
)

// bearerToken reads the request's Authorization header. RFC 6750 §2.1
// and §3.1 and R-AUTH-07 decide the cases:
//   - no Authorization header, or a well-formed one of another scheme
//     ("Basic dXNlcg=="): the request carries no Bearer credentials, 401
//     with no error code (RFC 6750 §3.1: an unsupported authentication
//     method is treated as none);
//   - more than one Authorization header, an empty one, "Bearer" with no
//     token, a token that is not token68 (spaces, quotes, control or
//     non-ASCII characters), or a value that is not "scheme credentials"
//     at all: a malformed request, 400 invalid_request;
//   - "Bearer <token68>", the scheme matched case-insensitively
//     ("bearer" is accepted, RFC 7235 §2.1): the token, to verify.
func bearerToken(h http.Header) (string, int) {
	vals := h.Values("Authorization")
	switch len(vals) {
	case 0:
		return "", credsNone
	case 1:
	default:
		return "", credsMalformed
	}
	v := strings.TrimSpace(vals[0])
	scheme, rest, _ := strings.Cut(v, " ")
	if scheme == "" || !isToken(scheme) {
		return "", credsMalformed
	}
	rest = strings.TrimLeft(rest, " ")
	if !strings.EqualFold(scheme, "Bearer") {
		for i := 0; i < len(rest); i++ {
			if c := rest[i]; c < 0x20 || c > 0x7e {
				return "", credsMalformed
			}
		}
		return "", credsNone
	}
	if rest == "" || !isToken68(rest) {
		return "", credsMalformed
	}
	return rest, credsOK
}

// isToken: RFC 7230 token (tchar).
func isToken(s string) bool {
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || strings.IndexByte("!#$%&'*+-.^_`|~", c) >= 0) {
			return false
		}
	}
	return s != ""
}

// token68Lo and token68Hi are the bitmaps of the characters of RFC 7235
// token68 before its trailing '=': ALPHA, DIGIT, "-", ".", "_", "~", "+",
// "/" (bit c of Lo for c < 64, bit c-64 of Hi for 64 <= c < 128).
const (
	token68Lo = 1<<'+' | 1<<'-' | 1<<'.' | 1<<'/' | 0x3ff<<'0'
	token68Hi = 0x3ffffff<<('A'-64) | 1<<('_'-64) | 0x3ffffff<<('a'-64) | 1<<('~'-64)
)

// isToken68: RFC 7235 token68, the syntax of RFC 6750's b64token. It runs
// on every request over the whole token, hence the bitmaps.
func isToken68(s string) bool {
	i := 0
	for ; i < len(s); i++ {
		c := s[i]
		var ok bool
		if c < 64 {
			ok = token68Lo>>c&1 != 0
		} else if c < 128 {
			ok = token68Hi>>(c-64)&1 != 0
		}
		if !ok {
			break
		}
	}
	if i == 0 {
		return false
	}
	for ; i < len(s); i++ {
		if s[i] != '=' {
			return false
		}
	}
	return true
}

// maxChallengeDescription bounds the error_description of a 401.
const maxChallengeDescription = 200

// authorize verifies the request's bearer token before anything of the
// body is read (R-AUTH-05), or answers it: 400 for a malformed
// Authorization header, 401 with the challenge for no or an invalid
// token, 503 with Retry-After when the Verifier could not decide. It
// returns the request with the verified token in its context.
func (h *httpHandler) authorize(w http.ResponseWriter, r *http.Request) (*http.Request, bool) {
	tok, kind := bearerToken(r.Header)
	params := auth.ChallengeParams{ResourceMetadata: h.opts.ResourceMetadataURL, Scopes: h.opts.Scopes}
	switch kind {
	case credsNone:
		w.Header().Set("WWW-Authenticate", auth.Challenge(params))
		h.refuseUnread(w, r, http.StatusUnauthorized, &Error{Code: protocol.CodeInvalidRequestError, Message: "Unauthorized: a Bearer access token is required"})
		return nil, false
	case credsMalformed:
		params.Error = "invalid_request"
		params.ErrorDescription = "malformed Authorization header"
		w.Header().Set("WWW-Authenticate", auth.Challenge(params))
		h.refuseUnread(w, r, http.StatusBadRequest, &Error{Code: protocol.CodeInvalidRequestError, Message: "Bad Request: malformed Authorization header"})
		return nil, false
	}
	ti, err := h.opts.Verifier.Verify(r.Context(), tok)
	if err == nil && ti != nil && ti.Subject == "" {
		// A token that names nobody would make every such token one
		// principal, sharing sessions, tasks and sealed state.
		h.s.log.Warn("the Verifier returned a token without a Subject: refused")
		err = fmt.Errorf("%w: the token names no subject", auth.ErrInvalidToken)
	}
	switch {
	case err == nil && ti != nil:
	case err == nil || errors.Is(err, auth.ErrInvalidToken):
		desc := "invalid access token"
		if err != nil {
			desc = strings.TrimPrefix(err.Error(), auth.ErrInvalidToken.Error()+": ")
		}
		if len(desc) > maxChallengeDescription {
			desc = desc[:maxChallengeDescription]
		}
		params.Error, params.ErrorDescription = "invalid_token", desc
		w.Header().Set("WWW-Authenticate", auth.Challenge(params))
		h.refuseUnread(w, r, http.StatusUnauthorized, &Error{Code: protocol.CodeInvalidRequestError, Message: "Unauthorized: invalid access token"})
		return nil, false
	default:
		if r.Context().Err() == nil {
			h.s.log.Warn("access token verification failed", "err", err)
		}
		w.Header().Set("Retry-After", "5")
		h.refuseUnread(w, r, http.StatusServiceUnavailable, &Error{Code: protocol.CodeInternalError, Message: "Service Unavailable: the access token could not be verified; retry later"})
		return nil, false
	}
	a := &Authorization{Token: ti, Satisfies: h.opts.ScopeSatisfies, FilterLists: h.opts.FilterListsByScope}
	if a.Satisfies == nil {
		a.Satisfies = exactScope
	}
	return r.WithContext(context.WithValue(r.Context(), authKey{}, a)), true
}

// challenge is the WWW-Authenticate of a 403 for the scopes need
// (R-AUTH-08): every scope the operation needs, in one challenge.
func (h *httpHandler) insufficientScopeChallenge(need []string) string {
	return auth.Challenge(auth.ChallengeParams{ResourceMetadata: h.opts.ResourceMetadataURL, Scopes: need, Error: "insufficient_scope",
		ErrorDescription: "the access token lacks a scope this operation needs"})
}

// RequireScopes makes a tool need every one of scopes: a tools/call by a
// request whose verified token (HTTPOptions.Verifier) lacks one gets HTTP
// 403 with `WWW-Authenticate: Bearer error="insufficient_scope",
// scope="<all of scopes>", resource_metadata="…"` and a JSON-RPC error
// CodeInvalidRequestError whose data is {"requiredScopes": scopes}, in
// either era (R-AUTH-08). Whether a token's scope satisfies a needed one
// is HTTPOptions.ScopeSatisfies (R-AUTH-09). On stdio, and over HTTP
// without a Verifier, there is no token and the scopes are not checked
// (R-STDIO-06: stdio takes its credentials from the environment).
func RequireScopes(scopes ...string) ToolOption {
	need := slices.Clone(scopes)
	return func(_ *Server, t *tool) error {
		t.scopes = append(t.scopes, need...)
		return nil
	}
}

// A PromptOption configures a prompt (AddPrompt).
type PromptOption func(p *prompt)

// RequirePromptScopes is RequireScopes for prompts/get.
func RequirePromptScopes(scopes ...string) PromptOption {
	need := slices.Clone(scopes)
	return func(p *prompt) { p.scopes = append(p.scopes, need...) }
}

// A ResourceOption configures a resource or a resource template
// (AddResource, AddResourceTemplate).
type ResourceOption func(o *resourceOpts)

type resourceOpts struct {
	scopes []string
}

// RequireResourceScopes is RequireScopes for resources/read of a
// resource, or of any URI a template matches.
func RequireResourceScopes(scopes ...string) ResourceOption {
	need := slices.Clone(scopes)
	return func(o *resourceOpts) { o.scopes = append(o.scopes, need...) }
}

// checkScopes refuses a request whose token lacks one of need.
func checkScopes(r *Request, need []string) error {
	if len(need) == 0 || r.auth == nil {
		return nil
	}
	for _, s := range need {
		if !r.auth.Satisfies(r.auth.Token, s) {
			return InsufficientScope(need)
		}
	}
	return nil
}

// listable reports whether a list entry that needs scopes is shown to r:
// always, unless HTTPOptions.FilterListsByScope is on and r's token
// lacks one of them.
func listable(r *Request, need []string) bool {
	return r == nil || r.auth == nil || !r.auth.FilterLists || checkScopes(r, need) == nil
}

// filtersLists reports whether r's list answers depend on its token.
func filtersLists(r *Request) bool {
	return r != nil && r.auth != nil && r.auth.FilterLists
}

// SetToolScopes sets the scopes a registered tool needs, as RequireScopes
// does at AddTool (none: the tool needs no scope), for a server whose
// scopes come from configuration. It fails for a tool that is not
// registered.
func (s *Server) SetToolScopes(name string, scopes ...string) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	t := s.tools[name]
	if t == nil {
		return fmt.Errorf("server: SetToolScopes: no tool %q", name)
	}
	nt := *t // a request may be using t: it is replaced, not changed
	nt.scopes = slices.Clone(scopes)
	s.tools[name] = &nt
	return nil
}

// streamLifetime is how long a long-lived stream (a listen stream, a
// legacy session's GET stream) may last: WithMaxStreamLifetime, and no
// longer than the access token that opened it (a, nil without one), so
// that a stream does not outlive its authorization. It then ends as at
// its lifetime, and the client opens a new one with a fresh token. 0: no
// bound.
func (s *Server) streamLifetime(a *Authorization) time.Duration {
	d := s.cfg.streamLifetime
	if a == nil || a.Token.Expiry.IsZero() {
		return d
	}
	left := max(time.Until(a.Token.Expiry), time.Millisecond)
	if d <= 0 || left < d {
		return left
	}
	return d
}
