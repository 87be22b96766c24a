package legacy

import (
	"context"
	"fmt"
	"log/slog"
	"net/http"
	"sync/atomic"
	"time"

	"github.com/mcpwire/mcpwire/protocol"
	"github.com/mcpwire/mcpwire/server"
	"github.com/mcpwire/mcpwire/server/internal/httpwire"
	"github.com/mcpwire/mcpwire/server/internal/legacy"
	"github.com/mcpwire/mcpwire/server/internal/stdiowire"
)

// HeaderSessionID names a legacy session on Streamable HTTP (2025-03-26 to
// 2025-11-25); 2026-07-28 has no sessions.
const HeaderSessionID = "Mcp-Session-Id"

// The standard headers as net/http stores them: the map is read
// directly, without converting the name on every request.
const (
	keySessionID       = "Mcp-Session-Id"
	keyProtocolVersion = "Mcp-Protocol-Version"
	keyMethod          = "Mcp-Method"
	keyName            = "Mcp-Name"
)

// EventSession is the kind of the events that tell the instances sharing
// a broker about a legacy session (docs/dual-era.md §7.3): Key names the
// session by its store key (never its id), Op says what happened, Ref
// about what.
const EventSession server.EventKind = "session"

// The ops of an EventSession.
const (
	// SessionClosed: the session ended (DELETE, eviction, a bad-response
	// flood); its streams close and its running requests are cancelled.
	SessionClosed = "closed"
	// SessionTakeover: a new standalone GET stream (Ref) took over the
	// session's; the previous one closes.
	SessionTakeover = "takeover"
	// SessionSubs: the session's resource subscriptions changed; the
	// instance holding its GET stream reloads them.
	SessionSubs = "subs"
	// SessionCancel: notifications/cancelled named the session's request
	// Ref (its id, as JSON); the instance running it cancels it.
	SessionCancel = "cancel"
	// SessionAnswer: the client answered the input bridge's request Ref
	// (stored with SessionStore.PutAnswer); the instance waiting for it
	// takes it.
	SessionAnswer = "answer"
	// SessionAppend: the owner of the stream Ref appended an event while
	// no client was connected to it; resumers of that stream on other
	// instances read the store now instead of at their next poll.
	SessionAppend = "append"
)

// Era serves the clients of 2024-11-05 to 2025-11-25 of one Server,
// beside its 2026-07-28 requests: the era decision of every message, the
// sessions that initialize opens and their store, the session's SSE
// streams and their resumption, batches, the input bridge, and the
// conversion of every request and result between the session's revision
// and the handlers' 2026-07-28 types. It serves them through the Server's
// adapter interface (server.Adapter), with the Server's handlers and
// middleware. The transports (packages streamhttp and stdio) hand it the
// messages of their endpoints; the Handlers and the stdio stream of one
// Server share one Era to share its sessions. It is safe for concurrent
// use.
type Era struct {
	srv  *server.Server
	core *server.Adapter
	cfg  config
	log  *slog.Logger
	// closing is closed when the Server's Shutdown begins.
	closing <-chan struct{}

	// now is the clock of the sessions' lifetimes (tests replace it).
	now func() time.Time
	// sessions holds what this instance keeps about the HTTP sessions:
	// their conversion state and running requests.
	sessions *sessionState
	// subs counts the subscription bytes of the sessions, per principal
	// or client address and in all.
	subs *subLedger
	// hub routes broker events to the session streams held here.
	hub *sessionHub
	// instance names this Era among the instances sharing a session store
	// (random, made by New).
	instance string
	// logs are the event logs of the streams written here (resumers here
	// are woken by them).
	logs *streamLogs
	// runs hands a resumable session request to an idle worker
	// (session_workers.go).
	runs chan *resumableRun
	// workers counts the workers started (tests); workerIdle is how long
	// one waits for its next request.
	workers    atomic.Int64
	workerIdle time.Duration
}

// config is an Era's configuration, defaults filled in, with what it reads
// of the Server's.
type config struct {
	legacy         Config
	eras           Eras
	legacyRevs     []legacy.Rev // the legacy revisions served, newest first (from Config.Versions)
	legacyMethods  []uint16     // by revision: the client requests of it the server may serve (servedMethod's bits)
	modernVersions []string     // the versions modern _meta may name (era.go)
	advertised     []string     // server/discover's supportedVersions, -32022's data.supported (era.go)

	keepAlive   time.Duration
	decode      protocol.UnmarshalOptions
	ownBroker   bool // the broker is the one server.New made: no other instance publishes to it
	localBroker bool // the broker is an in-process one
	broker      server.Broker
	middleware  bool // the Server has middleware (server.WithMiddleware)
	completion  bool // the Server has a completion handler (server.WithCompletion)
	maxURIBytes int  // server.WithMaxURIBytes
}

// New returns the Era of s configured by c, or an error for a
// configuration it cannot serve.
func New(s *server.Server, c Config) (*Era, error) {
	a := s.Adapter()
	set := a.Settings()
	cfg := config{legacy: c, eras: c.Eras, keepAlive: set.KeepAlive, decode: set.Decode, ownBroker: set.OwnBroker,
		localBroker: set.LocalBroker, broker: s.Broker(), middleware: set.Middleware, completion: set.HasCompletion, maxURIBytes: set.MaxURIBytes}
	if cfg.eras != ErasBoth && cfg.eras != ErasModern && cfg.eras != ErasLegacy {
		return nil, fmt.Errorf("legacy: unknown %v", cfg.eras)
	}
	if err := cfg.legacyDefaults(); err != nil {
		return nil, err
	}
	cfg.versionLists()
	e := &Era{srv: s, core: a, cfg: cfg, log: a.Logger(), closing: a.Done(), now: time.Now}
	if cfg.legacy.Clock != nil {
		e.now = cfg.legacy.Clock
	}
	if !e.dual() {
		return e, nil
	}
	var err error
	if e.instance, err = newStreamID(); err != nil {
		return nil, fmt.Errorf("legacy: instance id: %w", err)
	}
	e.sessions = newSessionState(cfg.legacy.MaxSessions)
	e.subs = newSubLedger(cfg.legacy.MaxSubscriptionBytesPerPrincipal, cfg.legacy.MaxSubscriptionBytesTotal)
	e.hub = newSessionHub(e)
	e.logs = newStreamLogs()
	e.runs = make(chan *resumableRun)
	e.workerIdle = workerIdle
	if !cfg.localBroker {
		if _, mem := cfg.legacy.Store.(*MemorySessionStore); mem {
			e.log.Warn("legacy sessions are kept in memory while events go through a shared broker: behind a load balancer a session made on one instance is unknown on the others (set legacy.Config.Store)")
		}
	}
	if _, memStore := cfg.legacy.Store.(*MemorySessionStore); !memStore {
		if _, memEvents := cfg.legacy.EventStore.(*MemoryEventStore); memEvents {
			e.log.Warn("legacy sessions are kept in a shared store while their event logs stay in this process: a client that resumes a stream (Last-Event-ID) on another instance loses what it missed (set legacy.Config.EventStore)")
		}
	}
	return e, nil
}

// Default returns the default Era of s, made with the defaults of Config
// (both eras, sessions and event logs kept in memory) the first time it
// is asked for and the same one after that. It is what a transport
// serves when it is given no Era, so every transport of s left at its
// default shares its sessions.
func Default(s *server.Server) *Era {
	return s.Adapter().Shared(defaultEraKey{}, func() any {
		e, err := New(s, Config{})
		if err != nil {
			panic("legacy: the default configuration is refused: " + err.Error()) // a bug: the defaults are valid
		}
		return e
	}).(*Era)
}

// defaultEraKey is the key of Default's Era among s's shared values.
type defaultEraKey struct{}

// Config returns the Era's configuration, defaults filled in (the stores
// it made among them).
func (s *Era) Config() Config { return s.cfg.legacy }

// Eras reports what the Era's endpoints serve (Config.Eras).
func (s *Era) Eras() Eras { return s.cfg.eras }

// Dual reports whether the Era serves legacy clients at all (Eras is not
// ErasModern).
func (s *Era) Dual() bool { return s.dual() }

// Versions lists every version the Era's endpoints serve, 2026-07-28
// first unless ErasLegacy: server/discover's supportedVersions and the
// data.supported of -32022 (server.Exchange.Versions).
func (s *Era) Versions() []string { return s.cfg.advertised }

// errorOutcome is the error response to id carrying e.
func (s *Era) errorOutcome(id *protocol.RequestId, e *server.Error) server.Outcome {
	return s.core.ErrorOutcome(id, e)
}

// publish hands an event to the Server's broker, logging a failure.
func (s *Era) publish(ev server.Event) error {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if err := s.srv.Publish(ctx, ev); err != nil {
		s.log.Error("publishing an event", "kind", ev.Kind, "err", err)
		return err
	}
	return nil
}

// HTTP is the Era's side of one Streamable HTTP endpoint (package
// streamhttp hands it the messages of the endpoint that are not served
// by the modern pipeline alone).
type HTTP struct {
	s *Era
	*httpwire.Endpoint
}

// HTTP returns the Era's side of the endpoint ep.
func (s *Era) HTTP(ep *httpwire.Endpoint) *HTTP { return &HTTP{s: s, Endpoint: ep} }

// ServePOST serves a POST whose body was read (principal and client as
// the endpoint found them): the era decision of docs/dual-era.md §1.4,
// and a modern message through ep.Modern.
func (h *HTTP) ServePOST(r *http.Request, sse *httpwire.Stream, body []byte, principal, client string) {
	h.serveDual(r, sse, body, principal, client)
}

// ServeVerb serves a GET or DELETE (§1.7): they exist only with a
// session.
func (h *HTTP) ServeVerb(w http.ResponseWriter, r *http.Request, principal string) {
	h.serveSessionVerb(w, r, principal)
}

// Stdio is the Era's side of one stdio stream: the stream's era decision
// and, once a legacy client sent initialize, its legacy session.
type Stdio struct {
	s *Era
	*stdiowire.Conn
	// sess is the legacy session, set and read by the read loop; its
	// requests get it when they start.
	sess *stdioSession
}

// Stdio returns the Era's side of the stream c.
func (s *Era) Stdio(c *stdiowire.Conn) *Stdio { return &Stdio{s: s, Conn: c} }

// Line serves one line read from the stream (not a cancellation), in the
// read loop: rows T1–T13 of docs/dual-era.md §1.8.
func (c *Stdio) Line(line []byte) { c.dualLine(line) }

// End ends the stream's legacy session, at end of input.
func (c *Stdio) End() { c.end() }

// exchange is a message of a session as the era serves it: the core's
// Exchange, and the request's input bridge (nil where the transport has
// none: AskInput then refuses).
type exchange struct {
	server.Exchange
	bridge inputChannel
	// held: the request is held for Shutdown as a whole already (a
	// resumable run), so its calls need no hold of their own.
	held bool
	// first is the call of legacyRun's first round, allocated with the
	// exchange (an exchange serves one request, a Call once).
	first legacyCall
	// callParams is the converted params of the exchange's tools/call
	// (legacyPrepare), allocated with it.
	callParams protocol.CallToolRequestParams
}
