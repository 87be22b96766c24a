package server

import (
	"context"
	"encoding/json"
	"log/slog"
	"net/http"
	"sync"
	"time"

	"github.com/mcpwire/mcpwire/protocol"
	"github.com/mcpwire/mcpwire/server/internal/jsonline"
)

// Request is what a handler knows about the request it serves. Everything
// comes from the request itself: nothing is kept between requests.
type Request struct {
	// Method is the JSON-RPC method, e.g. "tools/call".
	Method string
	// ID is the request's JSON-RPC id.
	ID protocol.RequestId
	// Meta is the request's _meta: protocol version, client capabilities,
	// client info, log level, progress token, and any other keys in Extra.
	Meta protocol.RequestMetaObject
	// Principal is whom the request speaks for: the verified token's
	// issuer and subject (TokenInfo.Principal) with streamhttp.Options.Verifier,
	// what the HTTP Authenticate hook returned with that, "" otherwise.
	// Sealed request state, tasks, legacy sessions and listen streams are
	// bound to it.
	Principal string

	inputResponses protocol.InputResponses
	inputErrors    map[string]*Error // the client's error answers to held input (InputError; Call.Errors)
	maxInputs      int
	state          []byte
	target         string     // tool or prompt name, resource URI (MRTR binding)
	salient        []byte     // the arguments' JSON, bound into sealed state (MRTR binding)
	cache          *CacheHint // the handler's own cache hint (SetCacheHint)
	trusted        []byte     // the result's structuredContent, written unvalidated (StructuredContentValid)

	auth   *Authorization // the verified token (streamhttp.Options.Verifier), nil without one
	log    *slog.Logger   // the server's log (WithLogger), for LogHandler
	params any            // the decoded params (Params)
	header http.Header    // the HTTP request's headers (Header); nil on stdio
	mwx    *Exchange      // a copy of the exchange, for the middleware chain's last step
	final  Handler        // the chain's last step in place of dispatch (Call.Final)
	peer   string         // the HTTP request's RemoteAddr (RemoteAddr)
	srv    *Server        // the server serving it (Registered); nil in NewTestRequest
	// notifyMeta adds _meta members to the notifications sent for the
	// request (WithNotificationMeta).
	notifyMeta func(ctx context.Context, set func(key, value string))
	// hooks and holdInput are those of the Call that made the request (an
	// adapter's): its notifications' encoding, and what becomes of the
	// input its handler asks for.
	hooks     CallHooks
	holdInput bool
	name      string // Call.Name
	out       Notifier
	ctx       context.Context // the request's own context: cancelled means send nothing
	rc        requestContext  // the handler's context, carrying r
	mu        sync.Mutex
	progress  float64 // the last progress sent, when sentAny
	sentAny   bool
	done      bool
}

// ProtocolVersion is the revision the client speaks on this request:
// protocol.Revision, or for a client of an earlier revision served by an
// era (package legacy) the version it negotiated (e.g. "2025-06-18").
// Its Meta then comes from what that client declared once, for its
// session. Handlers need not care: results are converted to the client's
// revision by the era (docs/conversion.md).
func (r *Request) ProtocolVersion() string { return r.Meta.ProtocolVersion }

// ClientCapabilities are the capabilities declared on this request
// (R-META-02: never inferred from earlier requests).
func (r *Request) ClientCapabilities() protocol.ClientCapabilities {
	return r.Meta.ClientCapabilities
}

// ClientInfo is the client's self-description, if it sent one. It is
// informational only (R-META-05).
func (r *Request) ClientInfo() (protocol.Implementation, bool) {
	if r.Meta.ClientInfo == nil {
		return protocol.Implementation{}, false
	}
	return *r.Meta.ClientInfo, true
}

// SetCacheHint sets the caching hint of this request's result, in place
// of the one configured for its method (WithCacheHint): a resources/read
// handler serving per-user data marks its result private, or gives it its
// own TTL. A result reached through a multi round-trip retry (one that
// carried input responses or requestState) is private whatever the hint
// says, since it depends on what this client answered. An empty Scope
// means private. It returns an error for a negative TTL or an unknown
// scope (R-CACHE-03, R-CACHE-04) and leaves the hint unchanged; on
// methods whose results carry no hint it has no effect.
func (r *Request) SetCacheHint(h CacheHint) error {
	if err := h.check(); err != nil {
		return err
	}
	r.cache = &h
	return nil
}

// DisconnectForPolling closes the SSE stream of this request's POST while
// the request goes on (SSE polling, docs/dual-era.md §4.8): the stream
// starts if it has not (with its priming event), gets an event holding
// only the retry field (retry, or legacy.Config.RetryInterval when retry
// <= 0), and the HTTP response ends. What the handler sends afterwards,
// its result included, is kept in the session's event log, and the client
// receives it by reconnecting with GET and Last-Event-ID. It reports
// whether it did so: only in a legacy HTTP session of 2025-11-25 with
// resumability on (legacy.Config.ReplayRetention), in a tool registered
// with AllowPolling (or with legacy.Config.PollAfter set), and only once;
// elsewhere (a 2026-07-28 request, stdio, older revisions, another tool)
// it does nothing.
func (r *Request) DisconnectForPolling(retry time.Duration) bool {
	p, ok := r.out.(interface{ DisconnectForPolling(time.Duration) bool })
	if !ok {
		return false
	}
	r.mu.Lock()
	done := r.done
	r.mu.Unlock()
	return !done && p.DisconnectForPolling(retry)
}

// finish ends the request: nothing is sent for it any more, and what it
// held of its exchange (the decoded params, the headers, the arguments'
// JSON, the middleware's copy of the exchange) is let go, so that a
// context that outlives the request (a task's, a goroutine's) does not
// keep them reachable through it.
func (r *Request) finish() {
	r.mu.Lock()
	r.done = true
	r.params, r.header, r.salient, r.mwx, r.final = nil, nil, nil, nil, nil
	r.mu.Unlock()
	r.rc.finish()
}

// cancelled reports whether the request's own context is done, whatever
// context the handler passed to Progress or Log (R-HTTP-14, R-STDIO-04).
func (r *Request) cancelled() bool {
	return r.ctx != nil && r.ctx.Err() != nil
}

// send writes one notification unless the request is over. admit, when
// not nil, runs under the same lock as the write, so that a check and the
// write it guards are atomic.
func (r *Request) send(ctx context.Context, method string, params any, admit func() bool) bool {
	if ctx.Err() != nil || r.out == nil || r.cancelled() {
		return false
	}
	if r.notifyMeta != nil {
		addNotificationMeta(ctx, r.notifyMeta, params)
	}
	var msg []byte
	if r.hooks != nil {
		b, err := r.hooks.EncodeNotification(params)
		if err != nil {
			return false
		}
		msg = b
	} else {
		p, err := protocol.Marshal(params)
		if err != nil {
			return false
		}
		msg = notification(method, p)
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.done || r.cancelled() {
		return false // R-PROG-01: nothing after completion or cancellation
	}
	if admit != nil && !admit() {
		return false
	}
	return r.out.Notify(msg)
}

// Progress reports progress when the request carries a progressToken, and
// does nothing otherwise (R-PROG-01). progress must increase with each call
// (R-PROG-02); a value that does not is dropped. total and message are
// optional (0 and "" leave them out). It reports whether the notification
// was sent.
func (r *Request) Progress(ctx context.Context, progress, total float64, message string) bool {
	if r.Meta.ProgressToken == nil {
		return false
	}
	p := protocol.ProgressNotificationParams{ProgressToken: *r.Meta.ProgressToken, Progress: progress}
	if total > 0 {
		p.Total = &total
	}
	if message != "" {
		p.Message = &message
	}
	return r.send(ctx, protocol.MethodNotificationsProgress, &p, func() bool {
		if r.sentAny && progress <= r.progress {
			return false // R-PROG-02: progress must increase
		}
		r.progress, r.sentAny = progress, true
		return true
	})
}

// levelRank orders the syslog levels of RFC 5424, debug lowest.
func levelRank(l protocol.LoggingLevel) int {
	switch l {
	case protocol.LoggingLevelDebug:
		return 0
	case protocol.LoggingLevelInfo:
		return 1
	case protocol.LoggingLevelNotice:
		return 2
	case protocol.LoggingLevelWarning:
		return 3
	case protocol.LoggingLevelError:
		return 4
	case protocol.LoggingLevelCritical:
		return 5
	case protocol.LoggingLevelAlert:
		return 6
	case protocol.LoggingLevelEmergency:
		return 7
	}
	return -1
}

// Log sends a notifications/message for this request, only when the
// request's _meta set io.modelcontextprotocol/logLevel and level is at or
// above it (R-LOG-03, R-LOG-04). data must be valid JSON; logger may be "".
// It reports whether the message was sent.
func (r *Request) Log(ctx context.Context, level protocol.LoggingLevel, logger string, data json.RawMessage) bool {
	if r.Meta.LogLevel == nil || levelRank(level) < levelRank(*r.Meta.LogLevel) || !level.Valid() {
		return false
	}
	p := protocol.LoggingMessageNotificationParams{Level: level, Data: data}
	if logger != "" {
		p.Logger = &logger
	}
	return r.send(ctx, protocol.MethodNotificationsMessage, &p, nil)
}

// requestContext is the handler's context: the request's own, plus the
// Request for RequestFrom, plus the handler deadline (WithHandlerTimeout).
// It is done when the request's own context is, when the deadline passes,
// and once the request is over (finish), as an http.Request's context is
// once ServeHTTP returns; so a goroutine a handler leaves waiting on Done
// always wakes up.
//
// It lives inside the Request, so that serving a request allocates no
// separate context. Nothing watches the parent or the clock until a
// handler asks for Done: then context.AfterFunc and a timer close the
// channel, and finish stops them. Err agrees with Done: once Done has been
// handed out, Err is non-nil exactly when the channel is closed.
type requestContext struct {
	context.Context
	r        *Request
	deadline time.Time // zero: none

	mu         sync.Mutex
	done       chan struct{} // made by the first Done (closed at once if the context is already over)
	err        error         // why done is closed; set once
	stopParent func() bool   // context.AfterFunc's stop, while watching
	timer      *time.Timer   // the deadline's timer, while watching
}

// Value returns the Request for RequestFrom's key.
func (c *requestContext) Value(key any) any {
	if _, ok := key.(ctxKey); ok {
		return c.r
	}
	return c.Context.Value(key)
}

// Deadline is the earlier of the parent's deadline and the handler's.
func (c *requestContext) Deadline() (time.Time, bool) {
	pd, ok := c.Context.Deadline()
	if c.deadline.IsZero() || (ok && pd.Before(c.deadline)) {
		return pd, ok
	}
	return c.deadline, true
}

// over reports why the context is over, judged now: the parent's error,
// or DeadlineExceeded past the handler deadline; nil while it is live.
func (c *requestContext) over() error {
	if err := c.Context.Err(); err != nil {
		return err
	}
	if !c.deadline.IsZero() && !time.Now().Before(c.deadline) {
		return context.DeadlineExceeded
	}
	return nil
}

// Err reports the parent's error, DeadlineExceeded past the handler
// deadline, or Canceled once the request is over.
func (c *requestContext) Err() error {
	c.mu.Lock()
	defer c.mu.Unlock()
	switch {
	case c.err != nil:
		return c.err
	case c.done != nil:
		return nil // watched: the watchers set err as they close done
	}
	return c.over()
}

// Done returns a channel closed when the parent is done, the handler
// deadline passes or the request is over.
func (c *requestContext) Done() <-chan struct{} {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.done != nil {
		return c.done
	}
	c.done = make(chan struct{})
	if c.err == nil {
		c.err = c.over()
	}
	if c.err != nil {
		close(c.done)
		return c.done
	}
	c.stopParent = context.AfterFunc(c.Context, func() { c.end(c.Context.Err()) })
	if !c.deadline.IsZero() {
		c.timer = time.AfterFunc(time.Until(c.deadline), func() { c.end(context.DeadlineExceeded) })
	}
	return c.done
}

// end closes the context with err, unless it ended already, and stops
// its watchers. Invariant: once err is set, done is nil or closed.
func (c *requestContext) end(err error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.err != nil {
		return
	}
	c.err = err
	if c.done != nil {
		close(c.done)
	}
	if c.stopParent != nil {
		c.stopParent()
		c.stopParent = nil
	}
	if c.timer != nil {
		c.timer.Stop()
		c.timer = nil
	}
}

// finish ends the context once the request is over (Canceled, unless it
// ended for another reason first).
func (c *requestContext) finish() {
	err := c.over()
	if err == nil {
		err = context.Canceled
	}
	c.end(err)
}

// notification builds a JSON-RPC notification from its params' JSON.
func notification(method string, params []byte) []byte {
	msg := make([]byte, 0, len(params)+len(method)+48)
	msg = append(msg, `{"jsonrpc":"2.0","method":`...)
	msg = jsonline.AppendString(msg, method)
	msg = append(msg, `,"params":`...)
	msg = append(msg, params...)
	return append(msg, '}')
}
