package server

import (
	"context"
	"fmt"
	"slices"
	"time"

	"github.com/mcpwire/mcpwire/auth"
)

// Authorization is what a transport learned from a request's verified
// access token, and how the scopes that operations need are judged
// against it. The transport puts it in the request's context
// (ContextWithAuthorization) before the request reaches the server; it
// travels from there to the Request the handler gets, on every path.
type Authorization struct {
	// Token is the verified token.
	Token *auth.TokenInfo
	// Satisfies reports whether the token satisfies a scope an operation
	// needs (streamhttp.Options.ScopeSatisfies); nil: the token carries
	// the scope itself.
	Satisfies func(have *auth.TokenInfo, need string) bool
	// FilterLists leaves out of the lists what the token may not use
	// (streamhttp.Options.FilterListsByScope).
	FilterLists bool
}

type authKey struct{}

// ContextWithAuthorization returns ctx carrying a, for the requests served
// with it.
func ContextWithAuthorization(ctx context.Context, a *Authorization) context.Context {
	if a.Satisfies == nil {
		a.Satisfies = exactScope
	}
	return context.WithValue(ctx, authKey{}, a)
}

// AuthorizationFrom returns the Authorization a transport put in ctx, nil
// for a request without a verified token (stdio, HTTP without a
// Verifier).
func AuthorizationFrom(ctx context.Context) *Authorization {
	a, _ := ctx.Value(authKey{}).(*Authorization)
	return a
}

// Token is the verified access token of the request (streamhttp.Options.Verifier),
// nil without a Verifier and on stdio. Handlers read the token's claims
// here; the token itself is never handed on (R-AUTH-06).
func (r *Request) Token() *auth.TokenInfo {
	if r.auth == nil {
		return nil
	}
	return r.auth.Token
}

// exactScope is the default streamhttp.Options.ScopeSatisfies: the token holds
// the scope itself.
func exactScope(have *auth.TokenInfo, need string) bool { return have.HasScope(need) }

// RequireScopes makes a tool need every one of scopes: a tools/call by a
// request whose verified token (streamhttp.Options.Verifier) lacks one gets HTTP
// 403 with `WWW-Authenticate: Bearer error="insufficient_scope",
// scope="<all of scopes>", resource_metadata="…"` and a JSON-RPC error
// CodeInvalidRequestError whose data is {"requiredScopes": scopes}, in
// either era (R-AUTH-08). Whether a token's scope satisfies a needed one
// is streamhttp.Options.ScopeSatisfies (R-AUTH-09). On stdio, and over HTTP
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
// always, unless streamhttp.Options.FilterListsByScope is on and r's token
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
