package streamhttp

import (
	"errors"
	"fmt"
	"net/http"
	"strings"

	"github.com/mcpwire/mcpwire/auth"
	"github.com/mcpwire/mcpwire/protocol"
	"github.com/mcpwire/mcpwire/server"
)

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
		h.refuseUnread(w, r, http.StatusUnauthorized, &server.Error{Code: protocol.CodeInvalidRequestError, Message: "Unauthorized: a Bearer access token is required"})
		return nil, false
	case credsMalformed:
		params.Error = "invalid_request"
		params.ErrorDescription = "malformed Authorization header"
		w.Header().Set("WWW-Authenticate", auth.Challenge(params))
		h.refuseUnread(w, r, http.StatusBadRequest, &server.Error{Code: protocol.CodeInvalidRequestError, Message: "Bad Request: malformed Authorization header"})
		return nil, false
	}
	ti, err := h.opts.Verifier.Verify(r.Context(), tok)
	if err == nil && ti != nil && ti.Subject == "" {
		// A token that names nobody would make every such token one
		// principal, sharing sessions, tasks and sealed state.
		h.core.Logger().Warn("the Verifier returned a token without a Subject: refused")
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
		h.refuseUnread(w, r, http.StatusUnauthorized, &server.Error{Code: protocol.CodeInvalidRequestError, Message: "Unauthorized: invalid access token"})
		return nil, false
	default:
		if r.Context().Err() == nil {
			h.core.Logger().Warn("access token verification failed", "err", err)
		}
		w.Header().Set("Retry-After", "5")
		h.refuseUnread(w, r, http.StatusServiceUnavailable, &server.Error{Code: protocol.CodeInternalError, Message: "Service Unavailable: the access token could not be verified; retry later"})
		return nil, false
	}
	a := &server.Authorization{Token: ti, Satisfies: h.opts.ScopeSatisfies, FilterLists: h.opts.FilterListsByScope}
	return r.WithContext(server.ContextWithAuthorization(r.Context(), a)), true
}
