package legacy

import (
	"context"
	"errors"
	"fmt"
	"net/http"

	"github.com/mcpwire/mcpwire/protocol"
	"github.com/mcpwire/mcpwire/protocol/mcp20251125"
	"github.com/mcpwire/mcpwire/server"
	"github.com/mcpwire/mcpwire/server/internal/legacy"
)

// The methods only a legacy session has, served by the runtime with no
// handler (docs/dual-era.md §2.3, §2.4): logging/setLevel and
// resources/subscribe|unsubscribe (ping is answered by the transport and
// serveLegacy). Each answers {} exactly.

// errStore wraps a failure of the session store: HTTP answers 503 with
// Retry-After, never 404 (a client would drop its session on a blip).
type errStore struct{ err error }

func (e *errStore) Error() string { return "legacy: session store: " + e.err.Error() }
func (e *errStore) Unwrap() error { return e.err }

// sessionStateError answers a failed change of the session's state.
func (s *Era) sessionStateError(rev legacy.Rev, id protocol.RequestId, method string, err error) server.Outcome {
	var se *errStore
	if errors.As(err, &se) {
		s.log.Error("session store", "method", method, "err", err)
		out := s.legacyErrorOutcome(rev, &id, server.InternalError(msgStoreUnavailable), http.StatusServiceUnavailable)
		out.RetryAfter = 1
		return out
	}
	if errors.Is(err, ErrSessionNotFound) {
		return s.legacyErrorOutcome(rev, &id, invalidRequest(msgSessionNotFound), http.StatusNotFound) // ended meanwhile
	}
	s.log.Error("session state", "method", method, "err", err)
	return s.legacyErrorOutcome(rev, &id, server.InternalError("Internal error"), http.StatusOK)
}

// legacySetLevel serves logging/setLevel (§2.4): the level (a strict enum,
// checked by the decode) applies to the session's later requests, read
// when each starts; never to modern requests on the same stdio stream.
func (s *Era) legacySetLevel(ctx context.Context, sess legacySession, rev legacy.Rev, id protocol.RequestId, p *mcp20251125.SetLevelRequestParams) server.Outcome {
	if err := sess.setLogLevel(ctx, protocol.LoggingLevel(p.Level)); err != nil {
		return s.sessionStateError(rev, id, mcp20251125.MethodLoggingSetLevel, err)
	}
	return s.emptyResult(id)
}

// legacySubscribe serves resources/subscribe (§2.4): the URI must name a
// resource or match a template of this server, and be one that
// WithSubscriptionAuthorizer lets the principal watch; otherwise -32002,
// the legacy not-found code, the same for both (a refusal tells nothing).
// A URI whose scopes (RequireResourceScopes) the request's token lacks
// gets what resources/read of it gets in the session: HTTP 403
// insufficient_scope with the challenge (R-AUTH-08). At most
// MaxSubscriptions per session, and within the byte budgets of
// MaxSubscriptionBytes, MaxSubscriptionBytesPerPrincipal and
// MaxSubscriptionBytesTotal (-32602 naming the limit).
func (s *Era) legacySubscribe(ctx context.Context, sess legacySession, rev legacy.Rev, id protocol.RequestId, uri, principal string) server.Outcome {
	if max := s.cfg.maxURIBytes; len(uri) > max {
		return s.legacyErrorOutcome(rev, &id, server.InvalidParams(fmt.Sprintf("Invalid params: uri has %d bytes, more than the limit of %d", len(uri), max), nil), http.StatusOK)
	}
	a := server.AuthorizationFrom(ctx)
	if need, known := s.core.ResourceScopes(uri); known && a.Lacks(need) {
		e := server.InsufficientScope(need)
		out := s.legacyErrorOutcome(rev, &id, e, http.StatusForbidden)
		out.Scopes = e.RequiredScopes()
		return out
	}
	watchable, err := s.core.MayWatch(ctx, a, principal, uri)
	if err != nil {
		return s.legacyErrorOutcome(rev, &id, server.InternalError("Internal error"), http.StatusOK)
	}
	if !watchable {
		le := legacy.ResourceNotFound(uri)
		return s.legacyErrorOutcome(rev, &id, &server.Error{Code: le.Code, Message: le.Message, Data: le.Data}, http.StatusOK)
	}
	lim := subLimits{count: s.cfg.legacy.MaxSubscriptions, sessionBytes: s.cfg.legacy.MaxSubscriptionBytes}
	if err := sess.subscribe(ctx, uri, lim); err != nil {
		var be *SubscriptionBudgetError
		switch {
		case errors.Is(err, errTooManySubscriptions):
			return s.legacyErrorOutcome(rev, &id, server.InvalidParams(fmt.Sprintf("Invalid params: at most %d resource subscriptions per session", lim.count), nil), http.StatusOK)
		case errors.As(err, &be):
			return s.legacyErrorOutcome(rev, &id, server.InvalidParams(be.Error(), nil), http.StatusOK)
		}
		return s.sessionStateError(rev, id, mcp20251125.MethodResourcesSubscribe, err)
	}
	return s.emptyResult(id)
}

// legacyUnsubscribe serves resources/unsubscribe: a URI not subscribed is
// no error.
func (s *Era) legacyUnsubscribe(ctx context.Context, sess legacySession, rev legacy.Rev, id protocol.RequestId, uri string) server.Outcome {
	if err := sess.unsubscribe(ctx, uri); err != nil {
		return s.sessionStateError(rev, id, mcp20251125.MethodResourcesUnsubscribe, err)
	}
	return s.emptyResult(id)
}
