package server

import (
	"time"

	"github.com/mcpwire/mcpwire/protocol"
)

// This file holds the scope rules that reach beyond the operation a scope
// was declared on: the resources a subscription watches, the prompt or
// resource a completion names, a stream opened with an expired token, and
// what a resumed stream may replay.

// Lacks reports whether a's token Lacks one of need (false without a
// token: stdio, or HTTP without a Verifier, checks no scope).
func (a *Authorization) Lacks(need []string) bool {
	if a == nil || len(need) == 0 {
		return false
	}
	for _, sc := range need {
		if !a.Satisfies(a.Token, sc) {
			return true
		}
	}
	return false
}

// InsufficientScope is the refusal of an operation needing scopes a
// token lacks: -32600 with data {"requiredScopes": need}, and HTTP 403
// with a challenge naming them (R-AUTH-08).
func InsufficientScope(need []string) *Error {
	e := newError(protocol.CodeInvalidRequestError, "Forbidden: insufficient scope", map[string]any{"requiredScopes": need})
	e.scopes = need
	return e
}

// resourceScopes returns the scopes resources/read of uri needs, and
// whether uri names a resource or matches a template at all: the static
// resource's, else those of the first template that matches, exactly as
// readResource picks its handler. Templates are matched without holding
// s.mu (see readResource).
func (s *Server) resourceScopes(uri string) (need []string, known bool) {
	s.mu.RLock()
	res := s.resources[uri]
	templates := s.templates
	s.mu.RUnlock()
	if res != nil {
		return res.scopes, true
	}
	for _, t := range templates {
		if t.tmpl.Match(uri) != nil {
			return t.scopes, true
		}
	}
	return nil, false
}

// completionScopes returns the scopes of what a completion/complete ref
// names: a prompt's (prompts/get), or for ref/resource those of the
// static resource with that URI, else of the template whose text it is,
// else of the first template matching it (resources/read). A ref that
// names nothing needs none: the completion handler answers it as before.
func (s *Server) completionScopes(ref protocol.CompleteRequestParamsRef) []string {
	switch v := ref.Value.(type) {
	case *protocol.PromptReference:
		if p, _ := lookup(s, s.prompts, v.Name); p != nil {
			return p.scopes
		}
	case *protocol.ResourceTemplateReference:
		s.mu.RLock()
		res := s.resources[v.URI]
		templates := s.templates
		s.mu.RUnlock()
		if res != nil {
			return res.scopes
		}
		for _, t := range templates {
			if t.def.URITemplate == v.URI {
				return t.scopes
			}
		}
		need, _ := s.resourceScopes(v.URI)
		return need
	}
	return nil
}

// operationScopes returns the scopes the operation of a request's params
// needs (tools/call, prompts/get, resources/read; none for the rest; a GET
// resuming its stream needs them too), and whether it names one at all.
func (s *Server) operationScopes(params any) (need []string, known bool) {
	switch p := params.(type) {
	case *protocol.CallToolRequestParams:
		if t, _ := lookup(s, s.tools, p.Name); t != nil {
			return t.scopes, true
		}
	case *protocol.GetPromptRequestParams:
		if pr, _ := lookup(s, s.prompts, p.Name); pr != nil {
			return pr.scopes, true
		}
	case *protocol.ReadResourceRequestParams:
		return s.resourceScopes(p.URI)
	}
	return nil, false
}

// TokenExpired reports whether a's token is already past its exp, though
// the Verifier accepted it (within its leeway). A long-lived stream opened
// with it would end at once, and the client, reopening it with the same
// token, would loop: such a stream is refused with 401 invalid_token
// instead (expiredToken), so that the client refreshes first.
func (a *Authorization) TokenExpired() bool {
	return a != nil && !a.Token.Expiry.IsZero() && !time.Now().Before(a.Token.Expiry)
}

// ExpiredToken is the refusal of a stream opened with an expired token:
// HTTP 401 with `error="invalid_token", error_description="token expired"`.
func ExpiredToken() *Error {
	return &Error{Code: protocol.CodeInvalidRequestError, Message: "Unauthorized: the access token has expired", expired: true}
}

// mayReceiveUpdate re-checks, as notifications/resources/updated of uri
// is delivered on a stream opened with token a, that a still holds the
// scopes the URI needs: its scopes may have changed since the stream
// acknowledged it (a resource registered again with other scopes, a
// scoped static resource added at a URI that a template matched). A URI no longer served
// is left to the filter, as before. Without a token there is no check.
func (s *Server) mayReceiveUpdate(a *Authorization, uri string) bool {
	if a == nil {
		return true
	}
	need, _ := s.resourceScopes(uri)
	return !a.Lacks(need)
}
