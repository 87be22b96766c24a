package server

import (
	"context"
	"encoding/json"
	"errors"
	"log/slog"
	"net/http"
	"runtime/debug"
	"time"

	"github.com/mcpwire/mcpwire/protocol"
)

// This file is the core's side of its adapters: the transports (packages
// streamhttp and stdio) and the eras that serve clients of other
// revisions (package legacy). A server author needs none of it; an
// adapter reaches a Server only through it (docs/architecture.md).

// Adapter is the narrow interface through which a transport or an era
// drives a Server: it hands messages to the order of checks and gets the
// bytes to send back (Serve, ErrorOutcome), serves requests it converted
// from another revision through the same handlers and middleware
// (ServeCall), and reads what it needs of the server's configuration and
// registrations. It is safe for concurrent use.
type Adapter struct{ s *Server }

// Adapter returns the adapter interface of s, for transports and eras.
func (s *Server) Adapter() *Adapter { return &Adapter{s: s} }

// Shared returns the value an adapter keeps once per Server under key,
// calling create the first time the key is asked for (under a lock, so
// concurrent callers get the same value). key should be a value of an
// unexported type of the adapter's package, as with context keys. It is
// how package legacy gives every transport left at its default the same
// era, and so the same sessions.
func (a *Adapter) Shared(key any, create func() any) any {
	a.s.sharedMu.Lock()
	defer a.s.sharedMu.Unlock()
	v, ok := a.s.shared[key]
	if !ok {
		v = create()
		a.s.shared[key] = v
	}
	return v
}

// Exchange is one message as a transport received it, with what the
// transport knows of where it came from.
type Exchange struct {
	// HTTP reports that the message came over Streamable HTTP: Header is
	// its request's headers, and the header checks of the order of checks
	// (steps 4 and 7) run.
	HTTP bool
	// Header is the HTTP request's headers (nil on stdio), for the checks
	// and Request.Header.
	Header http.Header
	// RemoteAddr is the HTTP request's RemoteAddr ("" on stdio), for
	// Request.RemoteAddr.
	RemoteAddr string
	// ClientKey names the client of a request without a principal, for
	// the per-client limits (the HTTP client's address, an IPv6 one by its
	// prefix; "" on stdio).
	ClientKey string
	// Principal is whom the request speaks for (Request.Principal).
	Principal string
	// Notifier carries the request's notifications (progress, log,
	// listen events) to the client; nil sends none.
	Notifier Notifier
	// Versions lists every protocol version the endpoint serves, this
	// revision's first: server/discover's supportedVersions and the
	// data.supported of -32022 (and of the -32601 answering initialize).
	// Nil means this revision only.
	Versions []string
	// ProtocolVersion is the MCP-Protocol-Version header as the transport
	// read it already (HeaderValue: present once, valid, trimmed), so that
	// the checks do not read it again; "": they read it from Header.
	ProtocolVersion string
}

// Notifier delivers the notifications of one request on its transport:
// the SSE stream of its POST, or a stdout line. Notify must be safe for
// concurrent use and report false once nothing more can be sent (the
// response is over, or the client is gone).
type Notifier interface {
	Notify(msg []byte) bool
}

// Outcome is what serving one message produced, for the transport to
// write: a JSON-RPC response (Body) with its HTTP status, an accepted
// notification, or nothing at all (Cancelled). Release gives its buffer
// back once it is written.
type Outcome struct {
	// Body is the JSON-RPC response; nil for an accepted notification and
	// a cancelled request.
	Body []byte
	// Status is the HTTP status of the answer.
	Status int
	// Notification: the message was a notification (HTTP 202, no body).
	Notification bool
	// Cancelled: the request was cancelled, and nothing is sent
	// (R-CANCEL-01).
	Cancelled bool
	// RetryAfter is the Retry-After of the answer, in seconds (0: none).
	RetryAfter int
	// Scopes, when set, marks an insufficient-scope refusal: HTTP 403 with
	// a challenge naming them (R-AUTH-08).
	Scopes []string
	// Expired marks the refusal of a stream opened with an expired token:
	// HTTP 401 with an invalid_token challenge.
	Expired bool
	// Err is the error the body carries, when it is an error response.
	Err *Error

	buf *[]byte // Body's buffer, from the server's pool (Release)
}

// Serve runs one JSON-RPC message of this revision through the order of
// checks and its handler, and returns what to send back.
func (a *Adapter) Serve(ctx context.Context, body []byte, x *Exchange) Outcome {
	return a.s.process(ctx, body, x)
}

// ErrorOutcome is the error response to id (nil: none can be echoed)
// carrying e, with its HTTP status.
func (a *Adapter) ErrorOutcome(id *protocol.RequestId, e *Error) Outcome {
	return a.s.errorOutcome(id, e)
}

// Release returns an outcome's buffer for reuse once the transport has
// written its Body (which must not be used after).
func (a *Adapter) Release(o Outcome) { a.s.recycle(o.buf) }

// EncodeResult builds the response to id whose result appendResult
// appends to the buffer it is given (an era's own encoding of a result),
// in one of the server's pooled buffers.
func (a *Adapter) EncodeResult(id protocol.RequestId, appendResult func(buf []byte) ([]byte, error)) (Outcome, error) {
	bp, buf := a.s.responseStart(id)
	buf, err := appendResult(buf)
	out, ok := a.s.responseEnd(bp, buf, err)
	if !ok {
		return Outcome{}, err
	}
	return out, nil
}

// Logger is the server's log (WithLogger).
func (a *Adapter) Logger() *slog.Logger { return a.s.log }

// Done is closed once Shutdown begins: an adapter's long-lived work
// (streams, waits) ends then.
func (a *Adapter) Done() <-chan struct{} { return a.s.closing }

// Hold counts one piece of an adapter's work that Shutdown waits for (a
// stream, a request running apart from its connection); Unhold ends it.
func (a *Adapter) Hold() { a.s.work.add() }

// Unhold ends what Hold counted.
func (a *Adapter) Unhold() { a.s.work.done() }

// Settings are the server's options that adapters read.
type Settings struct {
	// KeepAlive is the interval of keep-alive comments on a quiet stream
	// (WithKeepAlive; 0: none).
	KeepAlive time.Duration
	// HandlerTimeout bounds one request's handler (WithHandlerTimeout).
	HandlerTimeout time.Duration
	// MaxConcurrent bounds the requests one stdio stream runs at once
	// (WithMaxConcurrent).
	MaxConcurrent int
	// MaxLineBytes bounds one stdio line (WithMaxStdioLine).
	MaxLineBytes int
	// ShutdownTimeout bounds the wait for running requests at the end of
	// stdio input (WithShutdownTimeout).
	ShutdownTimeout time.Duration
	// Decode is the decoder's limits (WithDecodeLimits).
	Decode protocol.UnmarshalOptions
	// MaxInputs bounds the input requests of one round
	// (WithMaxInputRequests).
	MaxInputs int
	// MaxURIBytes bounds a resource URI (WithMaxURIBytes).
	MaxURIBytes int
	// OwnBroker: the broker is the in-process one New made, so no other
	// instance publishes to it; LocalBroker: it is an in-process one
	// (NewLocalBroker), whoever made it.
	OwnBroker, LocalBroker bool
	// Middleware: the server has middleware (WithMiddleware), which sees
	// an adapter's own methods too (Call.Final).
	Middleware bool
	// HasCompletion: a completion handler is installed (WithCompletion).
	HasCompletion bool
}

// Settings returns the options adapters read, defaults filled in.
func (a *Adapter) Settings() Settings {
	c := &a.s.cfg
	_, local := c.broker.(*localBroker)
	return Settings{
		KeepAlive: c.keepAlive, HandlerTimeout: c.handlerTimeout, MaxConcurrent: c.maxConcurrent,
		MaxLineBytes: c.maxStdioLineBytes, ShutdownTimeout: c.shutdownTimeout, Decode: c.decode,
		MaxInputs: c.maxInputs, MaxURIBytes: a.s.maxURIBytes(), OwnBroker: c.ownBroker, LocalBroker: local,
		Middleware: a.s.chain != nil, HasCompletion: c.completion != nil,
	}
}

// StreamLifetime is how long a stream opened with authorization z may
// last: WithMaxStreamLifetime, and no longer than its token (0: no
// bound).
func (a *Adapter) StreamLifetime(z *Authorization) time.Duration { return a.s.streamLifetime(z) }

// Features is what the registrations offer, for an era that declares
// capabilities in its own terms.
type Features struct {
	// Tools: a tool is registered that requires no extension.
	Tools bool
	// Prompts, Resources (a resource or a template), Completions (a
	// completion handler) and Logging are registered or declared.
	Prompts, Resources, Completions, Logging bool
}

// Features reads what the registrations offer now.
func (a *Adapter) Features() Features {
	s := a.s
	s.mu.RLock()
	defer s.mu.RUnlock()
	f := Features{
		Prompts:     len(s.prompts) > 0,
		Resources:   len(s.resources) > 0 || len(s.templates) > 0,
		Completions: s.cfg.completion != nil,
		Logging:     s.cfg.declareLogging,
	}
	for _, t := range s.tools {
		if t.requiredExtension() == nil {
			f.Tools = true
			break
		}
	}
	return f
}

// Implementation is the Implementation given to New, and instructions
// what WithInstructions set.
func (a *Adapter) Implementation() (impl protocol.Implementation, instructions string) {
	return a.s.impl, a.s.cfg.instructions
}

// ToolAllowsPolling reports whether the tool name was registered with
// AllowPolling.
func (a *Adapter) ToolAllowsPolling(name string) bool {
	t, _ := lookup(a.s, a.s.tools, name)
	return t != nil && t.polling
}

// ResourceScopes returns the scopes resources/read of uri needs, and
// whether uri names a resource or matches a template.
func (a *Adapter) ResourceScopes(uri string) (need []string, known bool) {
	return a.s.resourceScopes(uri)
}

// OperationScopes returns the scopes the operation of a request's params
// needs (tools/call, prompts/get, resources/read; none for the rest).
func (a *Adapter) OperationScopes(params any) []string {
	need, _ := a.s.operationScopes(params)
	return need
}

// MayWatch reports whether principal, with authorization z, may watch uri:
// it names a resource or matches a template, and
// WithSubscriptionAuthorizer allows it (the rule of subscriptions/listen).
func (a *Adapter) MayWatch(ctx context.Context, z *Authorization, principal, uri string) (bool, error) {
	var f listenFilter
	if err := a.s.knownResources(ctx, z, principal, []string{uri}, &f); err != nil {
		return false, err
	}
	return f.resources.Has(uri), nil
}

// CheckFormContent validates the content of an accepted form elicitation
// (result, the ElicitResult's JSON) against the form's requestedSchema: a
// mismatch is -32602 naming where.
func (a *Adapter) CheckFormContent(ctx context.Context, where string, form *protocol.ElicitRequestFormParams, result json.RawMessage) *Error {
	return a.s.checkFormContent(ctx, where, form, result)
}

// A Call is a request an adapter serves through the server's handlers and
// middleware after its own checks: a request of another revision, whose
// params it converted to this revision's types (an era), or a method it
// answers itself but lets the middleware see (Final).
type Call struct {
	// Method, ID and Params are the request's, Params in this revision's
	// types (*protocol.CallToolRequestParams, ...), carrying _meta.
	Method string
	ID     protocol.RequestId
	Params any
	// Meta, when set, is the request's _meta, for Params that have none
	// (a Final call's own params).
	Meta *protocol.RequestMetaObject
	// Name is what Request.Name returns for a Final call.
	Name string
	// Exchange is where the request came from. Its header checks are the
	// adapter's: they do not run again.
	Exchange *Exchange
	// Hooks, when set, encodes the request's notifications for the
	// client's revision and checks the input its handler asks for; nil:
	// this revision's encoding, no check.
	Hooks CallHooks
	// HoldInput makes an input request of the handler (Request.AskInput)
	// come back as Answer.Input, nothing sealed, for the adapter to carry
	// to the client itself.
	HoldInput bool
	// Responses, Errors and State are the input of a request called again
	// with the client's answers (Request.InputResponse, InputError,
	// State), and Previous the Answer of its previous call, whose progress
	// goes on increasing.
	Responses protocol.InputResponses
	Errors    map[string]*Error
	State     []byte
	Previous  *Answer
	// Final, when set, is the last step of the middleware chain in place
	// of the method's handler (and without middleware it runs alone).
	Final Handler

	// req is the Request ServeCall serves, allocated with the Call: a
	// Call serves once.
	req Request
}

// CallHooks is what an adapter adds to the requests it serves (Call.Hooks).
type CallHooks interface {
	// EncodeNotification encodes a notification the request sends
	// (params *protocol.ProgressNotificationParams or
	// *protocol.LoggingMessageNotificationParams) for the client's
	// revision.
	EncodeNotification(params any) ([]byte, error)
	// CheckInput refuses the input requests the client's revision cannot
	// carry: Request.AskInput returns its error.
	CheckInput(requests map[string]protocol.InputRequest) error
}

// Answer is what ServeCall produced: a result (before the envelope, in
// this revision's types), an error for the client, input to ask for
// (Call.HoldInput), or nothing (Cancelled).
type Answer struct {
	Result    Result
	Err       *Error
	Input     *InputRequired
	Cancelled bool
	// Returned is the error the middleware chain (or the handler)
	// returned, before the error policy made Err of it.
	Returned error

	progress float64 // the last progress sent, when sentAny
	sentAny  bool
	trusted  []byte // Trusted
}

// Trusted is raw JSON of the result that the server made itself and
// need not validate again when it encodes the result: an adapter passes
// it on as protocol.MarshalOptions.Trusted (StructuredContentValid).
func (a *Answer) Trusted() []byte { return a.trusted }

// ServeCall runs a Call through the middleware and its handler, on the
// server's error policy (see "Handler errors"): a plain error of a
// prompt, resource or completion handler is -32603, a panic is -32603, a
// handler past WithHandlerTimeout is -32603 "Request timed out".
func (a *Adapter) ServeCall(ctx context.Context, c *Call) Answer {
	return a.s.serveCall(ctx, c)
}

// serveCall is ServeCall: run for a request an adapter converted.
func (s *Server) serveCall(ctx context.Context, c *Call) Answer {
	s.work.add()
	defer s.work.done()
	x := c.Exchange
	// The Request is the Call's own, zero until now: only what is set is
	// written.
	r := &c.req
	if c.Meta != nil {
		r.Meta = *c.Meta
	} else {
		r.Meta, _ = metaAndName(c.Params)
	}
	r.Method, r.ID, r.Principal, r.auth, r.out, r.ctx = c.Method, c.ID, x.Principal, AuthorizationFrom(ctx), x.Notifier, ctx
	r.maxInputs, r.log, r.header, r.peer, r.notifyMeta, r.srv = s.cfg.maxInputs, s.log, x.Header, x.RemoteAddr, s.cfg.notifyMeta, s
	r.hooks, r.holdInput, r.final, r.name = c.Hooks, c.HoldInput, c.Final, c.Name
	r.inputResponses, r.inputErrors, r.state = c.Responses, c.Errors, c.State
	if p := c.Previous; p != nil {
		r.progress, r.sentAny = p.progress, p.sentAny // progress keeps increasing across the calls
	}
	r.rc = requestContext{Context: ctx, r: r}
	if s.cfg.handlerTimeout > 0 && c.Final == nil { // a Final is the adapter's own method, not a handler
		r.rc.deadline = time.Now().Add(s.cfg.handlerTimeout) // each call has its own
	}
	// The adapter checked the headers: the exchange the handlers see has
	// none left to check.
	lx := *x
	lx.HTTP, lx.Header = false, nil
	var res wireResult
	var err error
	if c.Final != nil && s.chain == nil {
		res, err = s.finalRecovered(&r.rc, r, c.Final)
	} else {
		res, err = s.dispatchRecovered(&r.rc, r, c.Params, &lx)
	}
	r.finish()
	a := Answer{Returned: err, progress: r.progress, sentAny: r.sentAny, trusted: r.trusted}
	switch {
	case ctx.Err() != nil || errors.Is(err, errSilent):
		a.Cancelled = true
	case r.rc.Err() == context.DeadlineExceeded:
		s.log.Warn("handler deadline passed", "method", c.Method, "timeout", s.cfg.handlerTimeout)
		a.Err = InternalError("Request timed out")
	case err != nil:
		a.Err = s.clientError(r, err)
	default:
		if h, ok := res.(*heldInput); ok {
			a.Input = h.InputRequired
		} else {
			a.Result = res
		}
	}
	return a
}

// finalRecovered runs an adapter's own method without middleware, a
// panic answered as dispatchRecovered answers it.
func (s *Server) finalRecovered(ctx context.Context, r *Request, final Handler) (res wireResult, err error) {
	defer func() {
		if p := recover(); p != nil {
			s.log.Error("handler panicked", "method", r.Method, "panic", p, "stack", string(debug.Stack()))
			res, err = nil, InternalError("Internal error")
		}
	}()
	return final(ctx, r)
}

// versions is what x's endpoint serves (Exchange.Versions).
func (x *Exchange) versions() []string {
	if x.Versions == nil {
		return []string{protocol.Revision} // on the error path and server/discover only
	}
	return x.Versions
}

// MessageID finds a valid id in a message that may be otherwise invalid,
// so that an answer to it can echo it (R-BASE-07): only an exact, single
// "id" member of a top-level object counts. Nil when there is none.
func (a *Adapter) MessageID(msg []byte) *protocol.RequestId { return recoverID(msg) }

// CheckToolCall is what an era checks of a tools/call of the tool name
// before it serves it: whether the tool exists, the extension it requires
// (ToolExtensionOptions.Required; "" for none), and, when h is not nil,
// the Mcp-Param-* headers present in h against its arguments (R-HDR-07):
// each must match its argument after decoding (integers compare
// numerically). A header that is absent is not required, as a client of
// an earlier revision sends none; arguments that do not parse are left to
// the handler's own checks. A mismatch is -32020 naming the header.
func (a *Adapter) CheckToolCall(name string, args json.RawMessage, h http.Header) (ext string, exists bool, mismatch *Error) {
	t, _ := lookup(a.s, a.s.tools, name)
	if t == nil {
		return "", false, nil
	}
	if e := t.requiredExtension(); e != nil {
		return e.ID, true, nil
	}
	if h == nil {
		return "", true, nil
	}
	return "", true, checkPresentParamHeaders(t, args, h, a.s.valueLimits())
}

// MayReceiveUpdate re-checks, as notifications/resources/updated of uri
// is delivered on a stream opened with authorization z, that z still
// holds the scopes the URI needs (nil z: no check).
func (a *Adapter) MayReceiveUpdate(z *Authorization, uri string) bool {
	return a.s.mayReceiveUpdate(z, uri)
}

// OpenListenStreams is the number of listen streams open on this
// instance, which WithMaxListenStreams bounds.
func (a *Adapter) OpenListenStreams() int {
	c := &a.s.streams
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.total
}
