package legacy

import (
	"context"
	"sync"
	"sync/atomic"

	"github.com/mcpwire/mcpwire/protocol"
	"github.com/mcpwire/mcpwire/protocol/mcp20251125"
	"github.com/mcpwire/mcpwire/server"
	"github.com/mcpwire/mcpwire/server/internal/legacy"
)

// The era decision of stdio (docs/dual-era.md §1.8), for a Server that
// serves legacy clients: stdio has no headers, so only the shape of a line,
// its params._meta (bm) and its method decide. Under ErasModern none of
// this runs.
//
// One stdioSession (at most one per stdio.Serve call) holds the legacy
// state of the process (§5): opened by the first legacy initialize, ended
// at end of input, read error or ctx cancellation. Modern lines on the
// same stream stay stateless (R-STATE-01): they never see the session's
// version, capabilities or log level.

// dualLine serves one line when legacy clients are served (rows T1–T13).
// Lines come from readLine, which allocates each one: the message may keep
// slices of it.
func (c *Stdio) dualLine(line []byte) {
	s := c.s
	m := s.readMessage(line)
	switch {
	case m.kind == msgBad:
		c.Out.Write(s.errorOutcome(m.badID, m.badErr).Body) // T1, and lines that are not JSON-RPC messages
	case m.kind == msgBatch:
		c.batch(line) // T12: in 2025-03-26 sessions only (§2.8)
	case m.modern:
		if s.cfg.eras == ErasLegacy {
			if m.kind == msgRequest {
				c.Out.Write(s.errorOutcome(m.requestID(), c.notServedModern(&m)).Body) // T13, T7'
			}
			return // a modern notification: nothing to do
		}
		c.Spawn(line, m.requestID(), s.core.Serve) // T2: stateless, whatever the session
	case m.kind == msgRequest:
		c.legacyRequest(line, &m)
	case m.kind == msgResponse:
		if c.sess == nil {
			// T10: no session, so no request of the server is outstanding.
			c.Out.Write(s.errorOutcome(nil, invalidRequest("Invalid Request: a client sends requests and notifications only")).Body)
			return
		}
		// T9: to the bridge's pending request; a response is never
		// answered.
		c.sess.answer(&m)
	case c.sess != nil:
		c.sessionNotification(&m) // T11
	default:
		// T11': a notification outside a session is ignored
		// (notifications/cancelled was handled by line).
	}
}

// notServedModern is the refusal of a 2026-07-28 request under ErasLegacy
// (T13, T7'): never a 2026-07-28 code (§1.9); server/discover is -32601,
// which a dual-era client reads as "fall back to initialize".
func (c *Stdio) notServedModern(m *rpcMessage) *server.Error {
	if m.method == protocol.MethodServerDiscover {
		return server.MethodNotFound(m.method)
	}
	if c.sess != nil {
		return invalidRequest("Invalid Request: 2026-07-28 requests are not served (this server serves MCP " + c.s.legacySpan() + ")")
	}
	return invalidRequest("Invalid Request: send initialize first (this server serves MCP " + c.s.legacySpan() + ")")
}

// legacyRequest serves a request without modern _meta (T4–T8).
func (c *Stdio) legacyRequest(line []byte, m *rpcMessage) {
	s := c.s
	switch {
	case c.sess != nil && c.running(m.id):
		// L2: the stream's requests, legacy and modern, share one id
		// space; a session request may not reuse an id still running
		// (L1125/basic/index.mdx#requests), not even a ping.
		c.Out.Write(s.legacyErrorOutcome(c.sess.rev, m.requestID(), invalidRequest("Invalid Request: request id already in use in this session"), 0).Body)
	case m.method == mcp20251125.MethodPing && c.sess != nil && s.cfg.middleware && !c.sess.ended():
		// T6 in a session, through the middleware (sessionMethod).
		sess := c.sess
		c.Spawn(line, m.requestID(), func(ctx context.Context, _ []byte, x *server.Exchange) server.Outcome {
			return s.serveLegacy(ctx, sess, m, &exchange{Exchange: *x, bridge: sess})
		})
	case m.method == mcp20251125.MethodPing:
		c.Out.Write(s.emptyResult(m.id).Body) // T6, with or without a session
	case m.method == mcp20251125.MethodInitialize && c.sess != nil:
		c.Out.Write(s.legacyErrorOutcome(c.sess.rev, m.requestID(), invalidRequest("Invalid Request: already initialized"), 0).Body) // T5
	case m.method == mcp20251125.MethodInitialize:
		c.open(m) // T4, in the read loop: the next line finds the session
	case c.sess == nil && s.cfg.eras == ErasLegacy:
		c.Out.Write(s.errorOutcome(m.requestID(), c.notServedModern(m)).Body) // T7'
	case c.sess == nil:
		// T7: not a valid modern request, and no session.
		c.Out.Write(s.errorOutcome(m.requestID(), server.InvalidParams("Invalid params: params._meta with protocolVersion and clientCapabilities is required (or send initialize first)", nil)).Body)
	case c.sess.ended():
		// The legacy session ended (a bad-response flood, §6.4); modern
		// lines are still served.
		c.Out.Write(s.legacyErrorOutcome(c.sess.rev, m.requestID(), invalidRequest("Invalid Request: the legacy session has ended"), 0).Body)
	case !c.sess.ready():
		// L1, decided in the read loop: a request read before
		// notifications/initialized is refused even if its goroutine would
		// run after it.
		c.Out.Write(s.legacyErrorOutcome(c.sess.rev, m.requestID(), invalidRequest(msgNotInitialized), 0).Body)
	default:
		// T8, L2 passed above.
		sess := c.sess
		c.Spawn(line, m.requestID(), func(ctx context.Context, _ []byte, x *server.Exchange) server.Outcome {
			return s.serveLegacy(ctx, sess, m, &exchange{Exchange: *x, bridge: sess})
		})
	}
}

// running reports whether a request with id is running on the stream.
func (c *Stdio) running(id protocol.RequestId) bool {
	c.Mu.Lock()
	defer c.Mu.Unlock()
	_, ok := c.InFlight[id]
	return ok
}

// open opens the legacy session of the process with the initialize m
// (T4, §2.1), and answers it.
func (c *Stdio) open(m *rpcMessage) {
	s := c.s
	o, e := s.openLegacy(m)
	if e != nil {
		c.Out.Write(s.errorOutcome(m.requestID(), e).Body)
		return
	}
	ss := &stdioSession{c: c, rev: o.rev, caps: o.caps, subs: map[string]struct{}{}, b: newStdioBridge()}
	ss.cur.Store(o.conv)
	c.sess = ss
	out := s.legacyResultOutcome(o.rev, m.id, o.result, nil)
	c.Out.Write(out.Body)
	s.core.Release(out)
}

// sessionNotification serves a notification of the session (T11):
// notifications/initialized makes it ready, in the read loop, so that the
// next line finds it so; the others are accepted and ignored
// (notifications/cancelled was handled by line).
func (c *Stdio) sessionNotification(m *rpcMessage) {
	if m.method != mcp20251125.MethodNotificationsInitialized {
		return
	}
	if !c.s.initializedParams(m) {
		c.Out.Write(c.s.errorOutcome(nil, invalidRequest("Invalid Request: notifications/initialized params must be an object")).Body)
		return
	}
	c.sess.start()
}

// end ends the stdio connection's legacy session, if any: its list changes
// and resource updates stop before stdio.Serve returns.
func (c *Stdio) end() {
	if c.sess != nil {
		c.sess.end()
	}
}

// stdioSession is the legacy session of one stdio.Serve call. rev and caps
// never change; the conversion state is replaced, never modified, when the
// log level changes; the read loop alone sets ready.
type stdioSession struct {
	c    *Stdio
	rev  legacy.Rev
	caps declaredCaps
	cur  atomic.Pointer[legacy.Session]
	rdy  atomic.Bool

	mu       sync.Mutex
	subs     map[string]struct{}
	subBytes int64 // what subs count towards MaxSubscriptionBytes

	stop    func()        // ends the broker subscription; nil before ready
	done    chan struct{} // closed when the forwarder returns
	endOnce sync.Once

	b stdioBridge // the input bridge's requests (stdio_bridge.go)
}

func (ss *stdioSession) conv() *legacy.Session  { return ss.cur.Load() }
func (ss *stdioSession) ready() bool            { return ss.rdy.Load() }
func (ss *stdioSession) declared() declaredCaps { return ss.caps }

func (ss *stdioSession) setLogLevel(_ context.Context, level protocol.LoggingLevel) error {
	ss.mu.Lock()
	defer ss.mu.Unlock()
	next := *ss.cur.Load()
	next.LogLevel = &level
	ss.cur.Store(&next)
	return nil
}

func (ss *stdioSession) subscribe(_ context.Context, uri string, lim subLimits) error {
	ss.mu.Lock()
	defer ss.mu.Unlock()
	if _, ok := ss.subs[uri]; ok {
		return nil
	}
	if len(ss.subs) >= lim.count {
		return errTooManySubscriptions
	}
	if need := ss.subBytes + subscriptionCost(uri); need > lim.sessionBytes {
		return &SubscriptionBudgetError{Limit: "MaxSubscriptionBytes", Max: lim.sessionBytes, Need: need}
	}
	ss.subs[uri] = struct{}{}
	ss.subBytes += subscriptionCost(uri)
	return nil
}

func (ss *stdioSession) unsubscribe(_ context.Context, uri string) error {
	ss.mu.Lock()
	if _, ok := ss.subs[uri]; ok {
		delete(ss.subs, uri)
		ss.subBytes -= subscriptionCost(uri)
	}
	ss.mu.Unlock()
	return nil
}

func (ss *stdioSession) subscribed(uri string) bool {
	ss.mu.Lock()
	defer ss.mu.Unlock()
	_, ok := ss.subs[uri]
	return ok
}

// start makes the session ready (once) and from then on writes its list
// changes and resource updates to stdout (§2.4, §5): a broker subscription
// taken now and dropped at the session's end.
func (ss *stdioSession) start() {
	if ss.rdy.Swap(true) || ss.ended() {
		return // a second notifications/initialized changes nothing
	}
	s := ss.c.s
	events, stop, err := s.cfg.broker.Subscribe(ss.c.Ctx)
	if err != nil {
		s.log.Error("subscribing to the broker for a legacy stdio session", "err", err)
		return
	}
	ss.stop, ss.done = stop, make(chan struct{})
	go func() {
		defer close(ss.done)
		for ev := range events {
			var msg []byte
			switch ev.Kind {
			case server.EventToolsChanged, server.EventPromptsChanged, server.EventResourcesChanged:
				msg = listChanged(ss.rev, ss.caps, ev.Kind)
			case server.EventResourceUpdated:
				if ss.subscribed(ev.URI) {
					msg = resourceUpdated(ss.rev, ev.URI)
				}
			}
			if msg != nil {
				ss.c.Out.Write(msg)
			}
		}
	}()
}

// end ends the session, once: the bridge's waits end without sending
// anything, the broker subscription is dropped and the forwarder waited
// for. It runs in the read loop (end of input, a bad-response flood).
func (ss *stdioSession) end() {
	ss.endOnce.Do(func() {
		ss.closeBridge()
		if ss.stop != nil {
			ss.stop()
			<-ss.done
		}
	})
}
