package legacy

import (
	"context"

	"github.com/mcpwire/mcpwire/protocol"
	"github.com/mcpwire/mcpwire/protocol/mcp20251125"
	"github.com/mcpwire/mcpwire/server"
)

// sessionMethod serves a method the session layer answers itself through
// the middleware (WithMiddleware), as every other request of a session:
// the middleware sees the method, the session's _meta, the principal and
// the headers, and the 2025-11-25 params (nil for ping). What it may do
// is what it may do elsewhere, with one difference: the method's result is
// empty, so a result it returns in place of next's is sent as {} and the
// session does not act. Without middleware serve runs directly.
func (s *Era) sessionMethod(ctx context.Context, sess legacySession, m *rpcMessage, x *exchange, params any, serve func(context.Context) server.Outcome) server.Outcome {
	if !s.cfg.middleware {
		return serve(ctx)
	}
	cv := sess.conv() // never nil: a session has its conversion state from initialize on
	meta := cv.Meta(sessionParamsMeta(params))
	var out server.Outcome
	served := false
	final := func(ctx context.Context, _ *server.Request) (server.Result, error) {
		out, served = serve(ctx), true
		if out.Err != nil {
			return nil, out.Err // the refusal the session's answer holds
		}
		return &protocol.Result{ResultType: "complete"}, nil
	}
	name := ""
	switch p := params.(type) {
	case *mcp20251125.SubscribeRequestParams:
		name = p.URI
	case *mcp20251125.UnsubscribeRequestParams:
		name = p.URI
	}
	ex := x.Exchange
	ex.Notifier = nil // the session's own methods send no notifications
	lc := &legacyCall{Call: server.Call{Method: m.method, ID: m.id, Params: params, Meta: &meta, Name: name, Exchange: &ex, Final: final}, rev: cv.Rev}
	lc.Hooks = lc
	a := s.core.ServeCall(ctx, &lc.Call)
	switch {
	case a.Cancelled:
		return server.Outcome{Cancelled: true, Status: 499}
	case served && a.Returned != nil && a.Returned == error(out.Err):
		return out // the session's own refusal, with its status
	case served && a.Returned == nil && out.Err != nil:
		return s.emptyResult(m.id) // the middleware answered the session's refusal with a result
	case served && a.Returned == nil:
		return out
	case a.Err != nil:
		return s.legacyFailure(cv.Rev, m.id, a.Err)
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
