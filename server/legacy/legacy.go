package legacy

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"slices"
	"strings"
	"time"

	"github.com/mcpwire/mcpwire/protocol"
	"github.com/mcpwire/mcpwire/protocol/mcp20251125"
	"github.com/mcpwire/mcpwire/server"
	"github.com/mcpwire/mcpwire/server/internal/legacy"
)

// Config configures how an Era serves the clients of 2024-11-05 to
// 2025-11-25, those that open a session with initialize (New). Zero
// fields take the defaults.
type Config struct {
	// Eras chooses what the endpoints of the Era serve (default ErasBoth:
	// 2026-07-28 requests and legacy sessions side by side). Under
	// ErasModern the rest of Config is ignored.
	Eras Eras

	// Versions narrows the legacy revisions served (default all four:
	// 2025-11-25, 2025-06-18, 2025-03-26, 2024-11-05). initialize
	// negotiates among them; a version left out is treated as unknown.
	// New refuses a modern or unknown version.
	Versions []string
	// DowngradeModernInitialize answers an initialize naming 2026-07-28
	// with the newest legacy version served, as the legacy negotiation
	// rule asks, instead of refusing it with -32602 (ErasBoth only; under
	// ErasLegacy such an initialize is always negotiated down). See
	// docs/dual-era.md §11 R1.
	DowngradeModernInitialize bool
	// DefaultLogLevel is the log level of a session before its client
	// sends logging/setLevel (default unset: no log messages until then,
	// as for a 2026-07-28 request without a logLevel).
	DefaultLogLevel protocol.LoggingLevel
	// MaxSubscriptions bounds the resource subscriptions of one session
	// (default 1000); resources/subscribe over it is -32602.
	MaxSubscriptions int
	// MaxSubscriptionBytes bounds the bytes the resource subscriptions of
	// one session hold, each counted as its URI's bytes and
	// SubscriptionOverheadBytes (default 512 KiB,
	// DefaultMaxSubscriptionBytes). A resources/subscribe over it is
	// -32602 naming the limit, and the session's subscriptions stay as
	// they were.
	MaxSubscriptionBytes int64
	// MaxSubscriptionBytesPerPrincipal bounds them for all the sessions
	// of one principal, or of one client address without an Authenticate
	// hook (default 4 MiB, DefaultMaxSubscriptionBytesPerPrincipal);
	// MaxSubscriptionBytesTotal for all the sessions of this instance
	// (default 64 MiB, DefaultMaxSubscriptionBytesTotal). Over either, the
	// same -32602 naming the limit. Both are counted by each instance over
	// the HTTP sessions whose subscriptions it changed (a stdio session is
	// the process: MaxSubscriptionBytes bounds it). Negative: no limit.
	MaxSubscriptionBytesPerPrincipal int64
	MaxSubscriptionBytesTotal        int64

	// Store keeps the sessions of Streamable HTTP (default
	// NewMemorySessionStore(), which serves one instance). Instances
	// behind one load balancer share a store and a Broker (WithBroker).
	// stdio sessions are never stored: the process is the session.
	Store SessionStore
	// MaxSessions bounds the live sessions of the store (default 10,000):
	// an initialize over it gets 503 with Retry-After: 30.
	MaxSessions int
	// MaxSessionsPerPrincipal bounds the live sessions of one principal,
	// or of one client address without an Authenticate hook (default
	// 100): past it the least recently used one is evicted, and its next
	// request gets 404.
	MaxSessionsPerPrincipal int
	// MaxSessionsPer56 and MaxSessionsPer48 bound the live sessions of
	// the anonymous clients (no Authenticate hook) of one IPv6 /56 and of
	// one /48, whichever /64s (or addresses) their client keys name
	// (defaults 256 and 1,024, DefaultMaxSessionsPer56 and
	// DefaultMaxSessionsPer48): past either, the least recently used
	// session of that network is evicted, as past MaxSessionsPerPrincipal,
	// so that no single network fills MaxSessions. Negative: no limit.
	MaxSessionsPer56 int
	MaxSessionsPer48 int
	// MaxSessionRecordBytes bounds what a session keeps of its client's
	// initialize: the capabilities and clientInfo, re-encoded, in bytes
	// (default 64 KiB, DefaultMaxSessionRecordBytes). An initialize over
	// it gets 200 with -32602 and no session is made. It bounds the
	// record in the Store and this instance's conversion state alike
	// (Streamable HTTP; a stdio session is the process and is bounded by
	// the message size).
	MaxSessionRecordBytes int
	// MaxSessionRecordBytesTotal bounds the same data for all the live
	// sessions of the store together (default 64 MiB,
	// DefaultMaxSessionRecordBytesTotal; SessionLimits.TotalInitBytes,
	// which MemorySessionStore honours): an initialize over it gets 503
	// with Retry-After: 30, as over MaxSessions. A session keeps one copy
	// of it, the record's; only a session whose data takes at most 1 KiB
	// also has its decoded state cached. Negative: no limit.
	MaxSessionRecordBytesTotal int64
	// IdleTimeout ends a session unused for this long (default 30
	// minutes): its next request gets 404.
	IdleTimeout time.Duration
	// MaxLifetime ends a session this long after its initialize, however
	// busy (default 24 hours).
	MaxLifetime time.Duration
	// RetryInterval is the SSE retry field the server sends before it
	// closes a session's stream that the client should reopen (take-over,
	// stream lifetime, Shutdown, DisconnectForPolling(0), PollAfter;
	// default 1 s).
	RetryInterval time.Duration

	// InputTimeout bounds the wait for the client's answers to one round
	// of the input bridge's server-to-client requests (default 5
	// minutes): past it the unanswered ones are cancelled and the call
	// answers -32603. The handler's own WithHandlerTimeout does not run
	// while it waits.
	InputTimeout time.Duration
	// MaxOutstandingRequests bounds the server-to-client requests of one
	// session awaiting an answer, or answered while their round still
	// waits (default 32): a round that would exceed it sends nothing and
	// the call answers -32603. It also caps the tombstones kept of
	// answered and abandoned requests (the oldest go first; a late answer
	// to one dropped is then a bad response).
	MaxOutstandingRequests int
	// MaxInputRounds bounds the rounds of input one legacy request may
	// ask for (default 8); the next one ends the call with -32603.
	MaxInputRounds int
	// MaxBadResponses bounds the responses of a session that answer no
	// outstanding request or are not valid responses (default 32): past
	// it the session ends (HTTP: its next request gets 404; stdio: the
	// legacy session ends, modern lines are still served).
	MaxBadResponses int
	// MaxAnswerBytes bounds the bytes of the client's answers to the input
	// bridge's requests that one session holds at once (default 4 MiB, the
	// default body limit): an answer is kept until every request of its
	// round is answered, so without it a client answering all but one
	// request of a round parks up to InputTimeout + 1 min of answers. An
	// answer that would exceed it is refused (HTTP 413, stdio dropped)
	// with -32600, counted towards MaxBadResponses, and its request stays
	// pending.
	MaxAnswerBytes int64
	// MaxBatch bounds the messages of one JSON-RPC batch, which 2025-03-26
	// sessions may send (default 64); a longer batch is refused whole
	// with -32600.
	MaxBatch int

	// Resumability (docs/dual-era.md §4.8): the events of a session's SSE
	// streams get ids and are kept in EventStore, so that a client that
	// lost a stream reconnects with Last-Event-ID and receives what it
	// missed, on any instance sharing the store.

	// EventStore keeps the event logs (default NewMemoryEventStore(0),
	// which serves one instance). New logs a warning when Store is not a
	// MemorySessionStore (shared, presumably) but EventStore is a
	// MemoryEventStore: resuming on another instance would fail.
	EventStore EventStore
	// MaxReplayEvents and MaxReplayBytes bound the events kept per stream
	// (defaults 1,000 and 4 MiB); past them the oldest go, and resuming
	// before them is refused (a request's stream) or starts afresh (the
	// standalone stream).
	MaxReplayEvents int
	MaxReplayBytes  int64
	// MaxReplayStreams bounds the streams kept per session (default 16):
	// the one with the oldest last event goes first.
	MaxReplayStreams int
	// ReplayRetention is how long a stream's log is kept after its last
	// event (default 5 minutes). Negative turns resumability off: no event
	// ids, no priming event, DisconnectForPolling does nothing, and a
	// broken connection cancels its request.
	ReplayRetention time.Duration
	// PollAfter, when positive, closes a request's SSE stream (with the
	// retry field) once the request has run this long, as
	// DisconnectForPolling does (2025-11-25 sessions; default 0: off).
	PollAfter time.Duration
	// PollInterval is how often a wait that another instance may end
	// re-reads the shared stores, in case a broker event was lost: a
	// bridge wait for the client's answers, and a resumed stream whose
	// request runs on another instance (default 1 s).
	PollInterval time.Duration
	// Clock is the time the sessions' lifetimes (IdleTimeout,
	// MaxLifetime) and the streams' leases are judged by, and the default
	// in-memory stores' (default time.Now): a test steps it instead of
	// waiting.
	Clock func() time.Time

	// MaxDetachedPerSession and MaxDetached bound the requests running
	// detached from their connection (let go by DisconnectForPolling,
	// PollAfter, or a break after an event id reached the client), per
	// session and on this instance (defaults 16 and 1,000). A request
	// that would detach over them stays attached: DisconnectForPolling
	// returns false, PollAfter does nothing, and a broken connection
	// cancels it (it keeps its streamhttp.Options.MaxConcurrent slot meanwhile).
	MaxDetachedPerSession int
	MaxDetached           int
}

// Defaults of Config's session limits.
const (
	DefaultMaxSessions             = 10000
	DefaultMaxSessionsPerPrincipal = 100
	DefaultMaxSessionsPer56        = 256
	DefaultMaxSessionsPer48        = 1024
	DefaultSessionIdleTimeout      = 30 * time.Minute
	DefaultSessionMaxLifetime      = 24 * time.Hour
	DefaultRetryInterval           = time.Second
)

// Defaults of Config's resumability limits.
const (
	DefaultMaxReplayEvents  = 1000
	DefaultMaxReplayBytes   = 4 << 20
	DefaultMaxReplayStreams = 16
	DefaultReplayRetention  = 5 * time.Minute
	// DefaultMaxDetachedPerSession and DefaultMaxDetached bound the
	// requests running detached (Config.MaxDetachedPerSession,
	// MaxDetached).
	DefaultMaxDetachedPerSession = 16
	DefaultMaxDetached           = 1000
)

// DefaultMaxSubscriptions bounds the resource subscriptions of one legacy
// session (Config.MaxSubscriptions).
const DefaultMaxSubscriptions = 1000

// legacyDefaults checks the legacy configuration and fills in its
// defaults: the revisions served, newest first.
func (c *config) legacyDefaults() error {
	l := &c.legacy
	c.legacyRevs = nil
	if len(l.Versions) == 0 {
		c.legacyRevs = legacy.Revisions()
	} else {
		for _, v := range l.Versions {
			r, ok := legacy.ParseRev(v)
			if !ok {
				if v == protocol.Revision {
					return fmt.Errorf("legacy: Config.Versions: %s is not a legacy version (it is served without initialize)", v)
				}
				return fmt.Errorf("legacy: Config.Versions: unknown version %q", v)
			}
			if slices.Contains(c.legacyRevs, r) {
				return fmt.Errorf("legacy: Config.Versions: %s is listed twice", v)
			}
			c.legacyRevs = append(c.legacyRevs, r)
		}
		slices.SortFunc(c.legacyRevs, func(a, b legacy.Rev) int { return int(b) - int(a) })
	}
	l.Versions = make([]string, len(c.legacyRevs))
	c.legacyMethods = nil
	for i, r := range c.legacyRevs {
		l.Versions[i] = r.String()
		for int(r) >= len(c.legacyMethods) {
			c.legacyMethods = append(c.legacyMethods, 0)
		}
		for _, m := range legacy.MessagesOf(r).ClientRequests {
			if b := servedMethod(m); b >= 0 {
				c.legacyMethods[r] |= 1 << b
			}
		}
	}
	if l.DefaultLogLevel != "" && !l.DefaultLogLevel.Valid() {
		return fmt.Errorf("legacy: Config.DefaultLogLevel %q is not a logging level", l.DefaultLogLevel)
	}
	if l.MaxSubscriptions <= 0 {
		l.MaxSubscriptions = DefaultMaxSubscriptions
	}
	if l.MaxSubscriptionBytes <= 0 {
		l.MaxSubscriptionBytes = DefaultMaxSubscriptionBytes
	}
	if l.MaxSubscriptionBytesPerPrincipal == 0 {
		l.MaxSubscriptionBytesPerPrincipal = DefaultMaxSubscriptionBytesPerPrincipal
	}
	if l.MaxSubscriptionBytesTotal == 0 {
		l.MaxSubscriptionBytesTotal = DefaultMaxSubscriptionBytesTotal
	}
	if l.MaxSessions <= 0 {
		l.MaxSessions = DefaultMaxSessions
	}
	if l.MaxSessionsPerPrincipal <= 0 {
		l.MaxSessionsPerPrincipal = DefaultMaxSessionsPerPrincipal
	}
	if l.MaxSessionsPer56 == 0 {
		l.MaxSessionsPer56 = DefaultMaxSessionsPer56
	}
	if l.MaxSessionsPer48 == 0 {
		l.MaxSessionsPer48 = DefaultMaxSessionsPer48
	}
	if l.MaxSessionRecordBytes <= 0 {
		l.MaxSessionRecordBytes = DefaultMaxSessionRecordBytes
	}
	if l.MaxSessionRecordBytesTotal == 0 {
		l.MaxSessionRecordBytesTotal = DefaultMaxSessionRecordBytesTotal
	}
	if l.IdleTimeout <= 0 {
		l.IdleTimeout = DefaultSessionIdleTimeout
	}
	if l.MaxLifetime <= 0 {
		l.MaxLifetime = DefaultSessionMaxLifetime
	}
	if l.RetryInterval <= 0 {
		l.RetryInterval = DefaultRetryInterval
	}
	if l.InputTimeout <= 0 {
		l.InputTimeout = DefaultInputTimeout
	}
	if l.MaxOutstandingRequests <= 0 {
		l.MaxOutstandingRequests = DefaultMaxOutstandingRequests
	}
	if l.MaxInputRounds <= 0 {
		l.MaxInputRounds = DefaultMaxInputRounds
	}
	if l.MaxBadResponses <= 0 {
		l.MaxBadResponses = DefaultMaxBadResponses
	}
	if l.MaxAnswerBytes <= 0 {
		l.MaxAnswerBytes = DefaultMaxAnswerBytes
	}
	if l.PollInterval <= 0 {
		l.PollInterval = DefaultPollInterval
	}
	if l.MaxBatch <= 0 {
		l.MaxBatch = DefaultMaxBatch
	}
	if c.eras != ErasModern && l.Store == nil {
		st := NewMemorySessionStore()
		if l.Clock != nil {
			st.now = l.Clock
		}
		l.Store = st
	}
	if l.MaxReplayEvents <= 0 {
		l.MaxReplayEvents = DefaultMaxReplayEvents
	}
	if l.MaxReplayBytes <= 0 {
		l.MaxReplayBytes = DefaultMaxReplayBytes
	}
	if l.MaxReplayStreams <= 0 {
		l.MaxReplayStreams = DefaultMaxReplayStreams
	}
	if l.MaxDetachedPerSession <= 0 {
		l.MaxDetachedPerSession = DefaultMaxDetachedPerSession
	}
	if l.MaxDetached <= 0 {
		l.MaxDetached = DefaultMaxDetached
	}
	if l.ReplayRetention == 0 {
		l.ReplayRetention = DefaultReplayRetention
	}
	if c.eras != ErasModern && l.EventStore == nil && l.ReplayRetention > 0 {
		es := NewMemoryEventStore(0)
		if l.Clock != nil {
			es.now = l.Clock
		}
		l.EventStore = es
	}
	return nil
}

// The legacy order of checks (docs/dual-era.md §1.6), shared by HTTP and
// stdio, for a request of a legacy session. The transport has run its own
// rows first (HTTP: S1–S7; stdio: T4–T8) and the duplicate-id check L2,
// which needs its registry of running requests.

// legacySession is a session as the legacy order of checks reads and
// changes it: a stored record (HTTP) or the process (stdio).
type legacySession interface {
	// conv is the session's conversion state (revision, client
	// capabilities, clientInfo, log level), shared by its requests and
	// never modified: a new log level makes a new one.
	conv() *legacy.Session
	// ready reports whether notifications/initialized reached the session.
	ready() bool
	// declared is what the initialize result declared.
	declared() declaredCaps
	// setLogLevel keeps the level of logging/setLevel for the session's
	// later requests.
	setLogLevel(ctx context.Context, level protocol.LoggingLevel) error
	// subscribe adds uri to the session's resource subscriptions (at most
	// lim.count, else errTooManySubscriptions; within the byte budgets,
	// else a *SubscriptionBudgetError); unsubscribe removes it.
	subscribe(ctx context.Context, uri string, lim subLimits) error
	unsubscribe(ctx context.Context, uri string) error
}

// declaredCaps is what an initialize result declared: it gates the
// session's methods (L4) and notifications (§2.4).
type declaredCaps struct {
	tools, prompts, resources, logging, completions bool
}

// errTooManySubscriptions is a subscription over MaxSubscriptions.
var errTooManySubscriptions = errors.New("legacy: too many resource subscriptions in this session")

// Messages of the legacy order of checks.
const msgNotInitialized = "the session is not initialized: send notifications/initialized first"

// servesLegacy reports whether the server answers method in a session of
// revision r (L3, §2.3): a client request of r that this server serves.
// initialize is answered by the transport; the tasks methods of
// 2025-11-25 are not served (§0).
func (s *Era) servesLegacy(r legacy.Rev, method string) bool {
	b := servedMethod(method)
	switch {
	case b < 0:
		return false
	case method == mcp20251125.MethodCompletionComplete && !s.cfg.completion:
		return false // L4: no completion handler
	}
	return int(r) < len(s.cfg.legacyMethods) && s.cfg.legacyMethods[r]&(1<<b) != 0
}

// servedMethod is the bit of a client request the server may serve in a
// session (config.legacyMethods), or -1.
func servedMethod(method string) int {
	switch method {
	case mcp20251125.MethodPing:
		return 0
	case mcp20251125.MethodToolsList:
		return 1
	case mcp20251125.MethodToolsCall:
		return 2
	case mcp20251125.MethodPromptsList:
		return 3
	case mcp20251125.MethodPromptsGet:
		return 4
	case mcp20251125.MethodResourcesList:
		return 5
	case mcp20251125.MethodResourcesTemplatesList:
		return 6
	case mcp20251125.MethodResourcesRead:
		return 7
	case mcp20251125.MethodResourcesSubscribe:
		return 8
	case mcp20251125.MethodResourcesUnsubscribe:
		return 9
	case mcp20251125.MethodLoggingSetLevel:
		return 10
	case mcp20251125.MethodCompletionComplete:
		return 11
	}
	return -1
}

// serveLegacy runs a request of a legacy session through the legacy order
// of checks from L1 (docs/dual-era.md §1.6) and answers it as the
// session's revision declares (L11). Errors produced by the method are
// sent with HTTP 200, those of the session layer (L1, S7) with 400, the
// rate limit with 429 (§1.6, Choice).
func (s *Era) serveLegacy(ctx context.Context, sess legacySession, m *rpcMessage, x *exchange) server.Outcome {
	out, params, run := s.legacyPrepare(ctx, sess, m, x)
	if !run {
		return out
	}
	return s.legacyRun(ctx, sess.conv().Rev, m.id, m.method, params, x)
}

// legacyPrepare is serveLegacy up to the handler: the checks from L1 to
// L9, and the methods the session layer answers itself (ping, setLevel,
// subscribe, unsubscribe). It returns the outcome of a request that is
// answered already (run false), or the converted params that legacyRun
// serves.
func (s *Era) legacyPrepare(ctx context.Context, sess legacySession, m *rpcMessage, x *exchange) (out server.Outcome, params any, run bool) {
	conv := sess.conv()
	rev, id := conv.Rev, m.id
	if m.method == mcp20251125.MethodPing {
		return s.sessionMethod(ctx, sess, m, x, nil, func(context.Context) server.Outcome { return s.emptyResult(id) }), nil, false // at any state (§2.2)
	}
	if !sess.ready() {
		return s.legacyErrorFor(rev, id, invalidRequest(msgNotInitialized), http.StatusBadRequest), nil, false // L1
	}
	if !s.servesLegacy(rev, m.method) {
		return s.legacyErrorFor(rev, id, server.MethodNotFound(m.method), http.StatusOK), nil, false // L3
	}
	caps := sess.declared()
	switch m.method { // L4
	case mcp20251125.MethodResourcesSubscribe, mcp20251125.MethodResourcesUnsubscribe:
		if !caps.resources {
			return s.legacyErrorFor(rev, id, server.MethodNotFound(m.method), http.StatusOK), nil, false
		}
	case mcp20251125.MethodLoggingSetLevel:
		if !caps.logging {
			return s.legacyErrorFor(rev, id, server.MethodNotFound(m.method), http.StatusOK), nil, false
		}
	}
	typed, e := s.legacyParams(m)
	if e != nil { // L5
		return s.legacyErrorFor(rev, id, e, http.StatusOK), nil, false
	}
	switch p := typed.(type) {
	case *mcp20251125.SetLevelRequestParams:
		return s.sessionMethod(ctx, sess, m, x, p, func(ctx context.Context) server.Outcome { return s.legacySetLevel(ctx, sess, rev, id, p) }), nil, false
	case *mcp20251125.SubscribeRequestParams:
		return s.sessionMethod(ctx, sess, m, x, p, func(ctx context.Context) server.Outcome {
			return s.legacySubscribe(ctx, sess, rev, id, p.URI, x.Principal)
		}), nil, false
	case *mcp20251125.UnsubscribeRequestParams:
		return s.sessionMethod(ctx, sess, m, x, p, func(ctx context.Context) server.Outcome { return s.legacyUnsubscribe(ctx, sess, rev, id, p.URI) }), nil, false
	}
	var le *legacy.Error
	if p, ok := typed.(*mcp20251125.CallToolRequestParams); ok {
		// Into the exchange's memory (it serves one request, so legacyPrepare
		// runs once on it).
		if le = conv.CallToolInto(&x.callParams, p); le == nil {
			params = &x.callParams
		}
	} else {
		params, le = conv.ConvertParams(typed) // L6-L8
	}
	if le != nil {
		return s.legacyErrorFor(rev, id, &server.Error{Code: le.Code, Message: le.Message, Data: le.Data}, http.StatusOK), nil, false
	}
	if p, ok := params.(*protocol.CallToolRequestParams); ok { // L9
		if out, refused := s.legacyToolChecks(rev, id, p, x); refused {
			return out, nil, false
		}
	}
	return server.Outcome{}, params, true // L10, L11: legacyRun
}

// legacyParams is L5: a request's params decoded by its method's type
// (those of a tools/call were, with the envelope: readCall).
func (s *Era) legacyParams(m *rpcMessage) (any, *server.Error) {
	if m.call != nil {
		return m.call, nil
	}
	info, _ := mcp20251125.LookupMethod(m.method)
	typed := info.NewParams()
	raw := m.params
	if raw == nil {
		raw = json.RawMessage("{}") // required members are then reported missing
	}
	if err := s.legacyDecode().Unmarshal(raw, typed); err != nil {
		return nil, server.InvalidParams("Invalid params: "+strings.TrimPrefix(err.Error(), "mcp20251125: "), nil)
	}
	return typed, nil
}

// legacyToolChecks is L9 before the rate limit: the tool exists, it does
// not require an extension (H5: the tasks extension, say), and the Mcp-Param-* headers that
// are present match their arguments (S7; an absent one is not checked:
// legacy clients do not send them).
func (s *Era) legacyToolChecks(rev legacy.Rev, id protocol.RequestId, p *protocol.CallToolRequestParams, x *exchange) (server.Outcome, bool) {
	ext, exists, mismatch := s.core.CheckToolCall(p.Name, p.Arguments, x.Header)
	if !exists {
		return s.legacyErrorFor(rev, id, server.InvalidParams("Unknown tool: "+p.Name, nil), http.StatusOK), true
	}
	if ext != "" {
		le := legacy.ExtensionRequired(p.Name, ext)
		return s.legacyErrorFor(rev, id, &server.Error{Code: le.Code, Message: le.Message}, http.StatusOK), true
	}
	// A Mcp-Param-* header that is present must match its argument; an
	// absent one is not checked (legacy clients do not send them). A
	// mismatch is -32600, as every transport-level refusal in a session.
	if mismatch != nil {
		return s.legacyErrorFor(rev, id, invalidRequest(mismatch.Message), http.StatusBadRequest), true
	}
	return server.Outcome{}, false
}

// legacyRun runs the handler of a converted legacy request (L10) and
// projects its outcome to rev (L11), as run does for a modern request.
// A handler asking for input is served by the input bridge (§6): each
// round's requests go to the client, and the handler is called again
// with the answers, at most MaxInputRounds times.
func (s *Era) legacyRun(ctx context.Context, rev legacy.Rev, id protocol.RequestId, method string, params any, x *exchange) server.Outcome {
	// The session's requests are served by the modern handlers: the
	// legacy exchange has no headers left to check (S7 is done).
	var next bridged
	var prev server.Answer
	rounds := 0
	// A call that asks for input waits for the client between its calls:
	// Shutdown waits for the whole call, so it is held from before its
	// first round (after would leave a gap between rounds), unless its
	// request is held already.
	if !x.held {
		s.core.Hold()
		defer s.core.Unhold()
	}
	for {
		lc := &x.first // allocated with the exchange, which serves one request
		if lc.Exchange != nil {
			lc = new(legacyCall) // a Call serves once: a later round
		}
		// Member by member, on a zero call: a composite literal would be
		// built aside and copied in.
		lc.Method, lc.ID, lc.Params, lc.Exchange, lc.HoldInput = method, id, params, &x.Exchange, true
		lc.rev, lc.bridge = rev, x.bridge
		c := &lc.Call
		c.Hooks = lc
		if rounds > 0 {
			p := prev // on the heap only for a request that asked for input
			c.Responses, c.Errors, c.State, c.Previous = next.responses, next.errors, next.state, &p
		}
		a := s.core.ServeCall(ctx, c)
		switch {
		case a.Cancelled:
			return server.Outcome{Cancelled: true, Status: 499}
		case a.Err != nil:
			return s.legacyFailure(rev, id, a.Err)
		case a.Input != nil:
			rounds++
			out, done := s.bridgeRound(ctx, rev, id, x.bridge, a.Input, rounds, &next)
			if done {
				return out
			}
			// The same request, called again (§6.1): progress keeps
			// increasing across the calls.
			prev = a
			continue
		}
		res := a.Result
		switch v := res.(type) {
		case *protocol.InputRequiredResult:
			// H8: a legacy client never sees input_required; every
			// InputRequired of a session is held for the bridge.
			return s.legacyErrorFor(rev, id, server.InternalError(msgNoBridge), http.StatusOK)
		case *protocol.ListToolsResult:
			res = s.withoutExtensionOnly(v)
		}
		return s.legacyResultOutcome(rev, id, res, a.Trusted())
	}
}

// legacyCall is a request of a legacy session as the core serves it (its
// Call, which holds its Request) with what the session adds: the
// revision its notifications are encoded for, and its input bridge. One
// allocation for the three.
type legacyCall struct {
	server.Call
	rev    legacy.Rev
	bridge inputChannel
}

// EncodeNotification encodes a progress or log notification for the
// session's revision.
func (c *legacyCall) EncodeNotification(params any) ([]byte, error) {
	return legacyNotification(c.rev, params)
}

// CheckInput refuses input the session's revision or transport cannot
// carry.
func (c *legacyCall) CheckInput(requests map[string]protocol.InputRequest) error {
	return checkLegacyInput(c.rev, c.bridge, requests)
}

// withoutExtensionOnly is H5 on a page of tools/list: the tools that
// require an extension (ToolExtensionOptions.Required: a task-only tool)
// are left out, since a legacy client can never declare one. The page may
// be shorter than the page size; its cursor stays right, since it names
// the last tool of the whole page.
func (s *Era) withoutExtensionOnly(res *protocol.ListToolsResult) *protocol.ListToolsResult {
	keep := res.Tools[:0:0]
	dropped := false
	for _, d := range res.Tools {
		if ext, _, _ := s.core.CheckToolCall(d.Name, nil, nil); ext != "" {
			dropped = true
			continue
		}
		keep = append(keep, d)
	}
	if !dropped {
		return res
	}
	c := *res
	c.Tools = keep
	return &c
}

// legacyResultOutcome encodes a result for rev (L11): the hand rules, the
// generated zero pass and the envelope strip of package legacy; never
// the envelope's resultType or serverInfo. trusted is raw JSON of res not
// to validate again (server.Answer.Trusted).
func (s *Era) legacyResultOutcome(rev legacy.Rev, id protocol.RequestId, res any, trusted []byte) server.Outcome {
	out, err := s.core.EncodeResult(id, func(buf []byte) ([]byte, error) { return legacy.AppendResultTrusting(buf, rev, res, trusted) })
	if err == nil {
		return out
	}
	s.log.Error("result does not project to the session's revision", "revision", rev, "err", err)
	return s.legacyErrorFor(rev, id, server.InternalError("Internal error: invalid result"), http.StatusOK)
}

// legacyFailure is the answer of a session's request whose handler (or
// middleware) failed with e (the server's error policy applied): its code
// and the HTTP status that goes with it in a session (a throttle 429, a
// missing scope 403, anything else 200).
func (s *Era) legacyFailure(rev legacy.Rev, id protocol.RequestId, e *server.Error) server.Outcome {
	status := http.StatusOK
	switch {
	case e.Code == server.CodeRateLimited:
		status = http.StatusTooManyRequests // a throttle is a transport signal
	case e.RequiredScopes() != nil:
		out := s.legacyErrorFor(rev, id, e, http.StatusForbidden) // R-AUTH-08 in a session too
		out.Scopes = e.RequiredScopes()
		return out
	}
	return s.legacyErrorFor(rev, id, e, status)
}

// legacyErrorFor is legacyErrorOutcome for an id held by value: only this
// copy escapes, on the error path, instead of the caller's id on every
// request (taking &id of a parameter moves it to the heap at entry).
func (s *Era) legacyErrorFor(rev legacy.Rev, id protocol.RequestId, e *server.Error, status int) server.Outcome {
	return s.legacyErrorOutcome(rev, &id, e, status)
}

// legacyErrorOutcome encodes an error response for rev with the given
// HTTP status: the server's resource-not-found becomes -32002 (H6), every
// other code is kept (§3.4).
func (s *Era) legacyErrorOutcome(rev legacy.Rev, id *protocol.RequestId, e *server.Error, status int) server.Outcome {
	le := legacy.ProjectError(legacy.Error{Code: e.Code, Message: e.Message, Data: e.Data}, rev, e.ResourceNotFound())
	body, err := legacy.AppendError(nil, rev, id, le)
	if err != nil {
		s.log.Error("error response does not encode", "err", err)
		out := withStatus(s.errorOutcome(id, e), status)
		out.Err = e
		return out
	}
	return server.Outcome{Body: body, Status: status, RetryAfter: e.RetryAfter(), Err: &server.Error{Code: le.Code, Message: le.Message, Data: le.Data}}
}

// legacyNotification encodes a notification a request of a legacy session
// sends (progress, log messages) as rev declares it.
func legacyNotification(rev legacy.Rev, params any) ([]byte, error) {
	switch p := params.(type) {
	case *protocol.ProgressNotificationParams:
		return legacy.AppendNotification(nil, rev, &protocol.ProgressNotification{Params: *p})
	case *protocol.LoggingMessageNotificationParams:
		return legacy.AppendNotification(nil, rev, &protocol.LoggingMessageNotification{Params: *p})
	}
	return nil, fmt.Errorf("legacy: no notification of a legacy session has params %T", params)
}
