package server

import (
	"context"
	"encoding/json"
	"net/http"
	"strings"

	"github.com/mcpwire/mcpwire/protocol"
)

// Handler serves one request that passed the protocol checks: the
// method's own handler, or the middleware (WithMiddleware) between the
// runtime and it.
type Handler func(ctx context.Context, req *Request) (Result, error)

// Result is what a Handler returns: a pointer to the generated result
// type of the request's method (*protocol.CallToolResult for tools/call,
// *protocol.ListToolsResult, *protocol.GetPromptResult,
// *protocol.ReadResourceResult, *protocol.CompleteResult,
// *protocol.DiscoverResult, *protocol.SubscriptionsListenResult, an
// extension's own), or *protocol.InputRequiredResult when the handler
// asks the client for input. A result in a legacy session has the same
// 2026-07-28 types: it is converted to the session's revision after the
// middleware (docs/conversion.md).
type Result any

// Middleware wraps a Handler: it may look at the request, refuse it by
// returning an error, call next, and look at or replace what next
// returned.
type Middleware func(next Handler) Handler

// WithMiddleware runs mw around the handler of every request, on both
// transports and in both eras; the first is the outermost: with
// WithMiddleware(a, b), a calls b, which calls the handler. Given more
// than once, the lists add up in that order.
//
// Middleware runs after the protocol checks (the package's "Order of
// checks": steps 1 to 6, and for tools/call the Mcp-Param-* headers of
// step 7; in a legacy session steps 1 to 8) and before the handler. So it
// never sees a request a check refused, and it sees the request's
// method, id, _meta, principal, era, headers (Request.Header) and
// decoded params (Request.Params, Request.Name). Inside it, in this
// order: the rate limit of tools/call, the tool's existence and scopes,
// argument validation and the sealed request state (an unknown tool, a
// missing scope or invalid arguments come back to it as the error or
// isError result the client gets), then the handler.
//
// A middleware may:
//   - refuse: return an *Error, which reaches the client with its code and
//     HTTP status (a plain error becomes -32603, as a handler's does;
//     see "Handler errors");
//   - replace the result with another of the same type, or change it:
//     the envelope (resultType, serverInfo) is added after it, and a
//     result of a legacy session is converted after it;
//   - add to the context it passes to next: the handler sees it, in a
//     task (AsTask) too, where the values outlive the request but not
//     its cancellation.
//
// It may not change the Request, its Meta or its params, which the
// handler and the runtime read after it; it must return a result or an
// error, not both nil (that is -32603, logged). subscriptions/listen's
// handler returns when the stream ends, so a middleware sees its
// duration. In a legacy session the methods the session layer serves
// (ping, logging/setLevel, resources/subscribe, resources/unsubscribe)
// pass through middleware too, with an empty result; initialize, which
// makes the session, does not.
//
// With no middleware the runtime calls the handler directly, at no cost.
func WithMiddleware(mw ...Middleware) Option {
	return func(c *config) { c.middleware = append(c.middleware, mw...) }
}

// ToolMiddleware wraps one tool's handler (WrapTool).
type ToolMiddleware func(next ToolHandler) ToolHandler

// WrapTool wraps the handler of one tool in mw, the first outermost, for
// policy that concerns that tool alone: a rate limit, an audit. It runs
// inside the server's middleware, after the tool's arguments were
// validated, and sees them as the handler does; a task (AsTask) runs it
// inside the task. For typed.AddTool the handler it wraps is the typed
// handler's adapter: args are the JSON arguments, and the result is the
// CallToolResult built from Out.
func WrapTool(mw ...ToolMiddleware) ToolOption {
	return func(_ *Server, t *tool) error {
		t.wrap = append(t.wrap, mw...)
		return nil
	}
}

// wrapTool applies a tool's WrapTool middleware to its handler.
func wrapTool(h ToolHandler, mw []ToolMiddleware) ToolHandler {
	for i := len(mw) - 1; i >= 0; i-- {
		h = mw[i](h)
	}
	return h
}

// buildChain wraps the runtime's dispatch in the configured middleware.
func (s *Server) buildChain() Handler {
	if len(s.cfg.middleware) == 0 {
		return nil
	}
	var h Handler = func(ctx context.Context, r *Request) (Result, error) {
		if r.final != nil {
			return r.final(ctx, r) // an adapter's own method (Call.Final)
		}
		return s.dispatch(ctx, r, r.params, r.mwx)
	}
	for i := len(s.cfg.middleware) - 1; i >= 0; i-- {
		h = s.cfg.middleware[i](h)
	}
	return h
}

// viaMiddleware runs a request's handler through the middleware chain.
// The exchange is copied into the Request for the chain's last step, so
// that without middleware x stays where its caller put it.
func (s *Server) viaMiddleware(ctx context.Context, r *Request, params any, x *Exchange) (wireResult, error) {
	if p, ok := params.(*protocol.CallToolRequestParams); ok && x.HTTP {
		// Step 7's header checks, before any middleware sees the request.
		if t, _ := lookup(s, s.tools, p.Name); t != nil && len(t.headers) > 0 {
			if e := checkParamHeaders(t.headers, headerArgs(p.Arguments, t.headers), x.Header); e != nil {
				return nil, e
			}
		}
	}
	xc := *x
	r.mwx = &xc
	res, err := s.chain(ctx, r)
	if res == nil && err == nil {
		s.log.Error("server: middleware returned neither a result nor an error", "method", r.Method)
		return nil, InternalError("Internal error")
	}
	return res, err
}

// Params returns the request's params decoded into the method's
// generated type: *protocol.CallToolRequestParams for tools/call,
// *protocol.GetPromptRequestParams, *protocol.ReadResourceRequestParams,
// *protocol.CompleteRequestParams,
// *protocol.SubscriptionsListenRequestParams,
// *protocol.PaginatedRequestParams for the lists,
// *protocol.RequestParams for server/discover, and the params' JSON
// (json.RawMessage) for an extension's method. In a legacy session they
// are the converted 2026-07-28 params, except for the methods the session
// layer serves: logging/setLevel, resources/subscribe and
// resources/unsubscribe have their 2025-11-25 params
// (*mcp20251125.SetLevelRequestParams, ...), ping none. In a task
// (Request.Detach), nil; for subscriptions/listen, nil once the stream
// is open, since a filter's params are not kept for the stream's
// lifetime; and nil once the request is answered, since a context that
// outlives it must not keep them. Treat them as read-only.
func (r *Request) Params() any {
	r.mu.Lock()
	params := r.params
	r.mu.Unlock()
	if p, ok := params.(*extParams); ok {
		return json.RawMessage(p.raw)
	}
	return params
}

// Name returns the tool or prompt name of tools/call and prompts/get, or
// the URI of resources/read (and of resources/subscribe and unsubscribe
// in a legacy session): what the Mcp-Name header mirrors. It is "" for
// other methods.
func (r *Request) Name() string {
	r.mu.Lock()
	params := r.params
	r.mu.Unlock()
	switch p := params.(type) {
	case *protocol.CallToolRequestParams:
		return p.Name
	case *protocol.GetPromptRequestParams:
		return p.Name
	case *protocol.ReadResourceRequestParams:
		return p.URI
	case nil:
		return r.target // a task's Request, or one answered: the tool's name
	}
	return r.name // an adapter's own method (Call.Name)
}

// Registered reports whether the tool (tools/call), prompt (prompts/get)
// or resource (resources/read: a resource's URI or one a template
// matches) the request names is the server's, else false: for telemetry.
func (r *Request) Registered() bool {
	if r.srv == nil {
		return false
	}
	_, known := r.srv.operationScopes(r.Params())
	return known
}

// RemoteAddr returns the network address of the HTTP client that sent
// the request (http.Request.RemoteAddr), "" on stdio and in a task.
func (r *Request) RemoteAddr() string { return r.peer }

// WithNotificationMeta sets f to add members to the _meta of every
// notification a request sends while it runs (Progress, Log, Logger):
// f gets the context the handler passed and calls set for each member.
// It is how trace context reaches the client (the _meta keys traceparent,
// tracestate and baggage, SEP-414): an OpenTelemetry propagator's Inject
// with a carrier whose Set is set. A key f sets twice keeps the last
// value; keys with a prefix MCP reserves (one whose second label is
// modelcontextprotocol or mcp, such as io.modelcontextprotocol/ or
// dev.mcp/) are not f's to set and are dropped.
func WithNotificationMeta(f func(ctx context.Context, set func(key, value string))) Option {
	return func(c *config) { c.notifyMeta = f }
}

// addNotificationMeta runs f on the _meta of a notification's params.
func addNotificationMeta(ctx context.Context, f func(ctx context.Context, set func(key, value string)), params any) {
	var meta **protocol.NotificationMetaObject
	switch p := params.(type) {
	case *protocol.ProgressNotificationParams:
		meta = &p.Meta
	case *protocol.LoggingMessageNotificationParams:
		meta = &p.Meta
	default:
		return
	}
	f(ctx, func(key, value string) {
		if reservedMetaKey(key) {
			return
		}
		if *meta == nil {
			*meta = &protocol.NotificationMetaObject{}
		}
		(*meta).Extra.Set(key, jsonText(value))
	})
}

// reservedMetaKey reports whether a _meta key has a prefix MCP reserves:
// one whose second label is "modelcontextprotocol" or "mcp".
func reservedMetaKey(key string) bool {
	prefix, _, ok := strings.Cut(key, "/")
	if !ok {
		return false
	}
	_, rest, ok := strings.Cut(prefix, ".")
	if !ok {
		return false
	}
	second, _, _ := strings.Cut(rest, ".")
	return second == "modelcontextprotocol" || second == "mcp"
}

// Header returns the headers of the HTTP request that carried this
// request, the session's POST in a legacy session; nil on stdio and in
// a task, and once the request is answered. Treat it as read-only.
func (r *Request) Header() http.Header {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.header
}
