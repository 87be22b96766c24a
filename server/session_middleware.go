package server

import (
	"context"
	"errors"

	"github.com/mcpwire/mcpwire/protocol"
	"github.com/mcpwire/mcpwire/protocol/mcp20251125"
)

// sessionAnswer is the answer of a method the session layer serves itself
// (ping, logging/setLevel, resources/subscribe, resources/unsubscribe),
// run as the middleware chain's last step (sessionMethod).
type sessionAnswer struct {
	serve  func(ctx context.Context) Outcome
	out    Outcome
	served bool
}

// run serves the method and gives the middleware what it answered: an
// empty result, or its error.
func (a *sessionAnswer) run(ctx context.Context) (Result, error) {
	a.out, a.served = a.serve(ctx), true
	if a.out.Err != nil {
		return nil, a.out.Err // the refusal the session's answer holds
	}
	return &protocol.Result{ResultType: "complete"}, nil
}

// sessionMethod serves a method the session layer answers itself through
// the middleware (WithMiddleware), as every other request of a session:
// the middleware sees the method, the session's _meta, the principal and
// the headers, and the 2025-11-25 params (nil for ping). What it may do
// is what it may do elsewhere, with one difference: the method's result is
// empty, so a result it returns in place of next's is sent as {} and the
// session does not act. Without middleware serve runs directly.
func (s *Server) sessionMethod(ctx context.Context, sess legacySession, m *rpcMessage, x *Exchange, params any, serve func(context.Context) Outcome) Outcome {
	if s.chain == nil {
		return serve(ctx)
	}
	cv := sess.conv() // never nil: a session has its conversion state from initialize on
	r := &Request{Method: m.method, ID: m.id, Principal: x.Principal, auth: AuthorizationFrom(ctx), ctx: ctx,
		maxInputs: s.cfg.maxInputs, log: s.log, header: x.Header, peer: x.RemoteAddr,
		legacy: &legacyRequest{rev: cv.Rev}}
	r.Meta = cv.Meta(sessionParamsMeta(params))
	r.rc = requestContext{Context: ctx, r: r}
	a := &sessionAnswer{serve: serve}
	r.answer = a
	_, err := s.dispatchRecovered(&r.rc, r, params, x)
	r.finish()
	switch {
	case ctx.Err() != nil || errors.Is(err, errSilent):
		return Outcome{Cancelled: true, Status: 499}
	case a.served && err != nil && err == error(a.out.Err):
		return a.out // the session's own refusal, with its status
	case a.served && err == nil && a.out.Err != nil:
		return s.emptyResult(m.id) // the middleware answered the session's refusal with a result
	case a.served && err == nil:
		return a.out
	case err != nil:
		return s.legacyFailure(cv.Rev, r, err)
	}
	return s.emptyResult(m.id) // the middleware answered without next
}

// sessionParamsMeta is the progress token and the other _meta members of
// a session method's params, for the Request's Meta.
func sessionParamsMeta(params any) (*mcp20251125.ProgressToken, mcp20251125.Members) {
	switch p := params.(type) {
	case *mcp20251125.SetLevelRequestParams:
		if p.Meta != nil {
			return p.Meta.ProgressToken, p.Meta.Extra
		}
	case *mcp20251125.SubscribeRequestParams:
		if p.Meta != nil {
			return p.Meta.ProgressToken, p.Meta.Extra
		}
	case *mcp20251125.UnsubscribeRequestParams:
		if p.Meta != nil {
			return p.Meta.ProgressToken, p.Meta.Extra
		}
	}
	return nil, nil
}
