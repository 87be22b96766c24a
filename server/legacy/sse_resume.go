package legacy

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"strconv"
	"sync"
	"time"

	"github.com/mcpwire/mcpwire/protocol"
	"github.com/mcpwire/mcpwire/server"
	"github.com/mcpwire/mcpwire/server/internal/httpwire"
	"github.com/mcpwire/mcpwire/server/internal/jsonline"
	"github.com/mcpwire/mcpwire/server/internal/legacy"
)

// Resumability of the legacy SSE streams (docs/dual-era.md §4.8): event
// ids, the priming event of 2025-11-25, the event log, leases, the server
// closing a request's stream for polling (DisconnectForPolling,
// PollAfter), and GET with Last-Event-ID.
//
// Every message sent on a legacy stream goes through one entry point,
// streamLog.send (reached as sseWriter.notify when the writer has a log):
// it numbers the event, appends it to the EventStore, and writes it with
// its id while the client is connected. After the connection is let go
// (polling, or broken once an id reached the client) the events go to the
// log only, and the client reads them with GET + Last-Event-ID.

// Leases of the streams of running requests (§7.2): renewed every 15 s,
// valid 45 s. A resumer that finds a stream not done with its lease passed
// answers for the instance that stopped.
const (
	streamLease      = 45 * time.Second
	streamLeaseRenew = 15 * time.Second
)

// Messages of resumption.
const (
	msgLastEventIDRepeated  = "Last-Event-ID is repeated"
	msgLastEventIDMalformed = "Last-Event-ID is not an event id of this server"
	msgLastEventIDForeign   = "Last-Event-ID names no stream of this session"
	msgOwnerStopped         = "the server instance handling this request stopped"
)

func msgCannotResume(id string) string {
	return "cannot resume: the events after " + id + " are no longer kept"
}

// sharedBroker reports whether events reach other instances (a broker
// other than the in-process one).
func (s *Era) sharedBroker() bool {
	return !s.cfg.localBroker
}

// replayOn reports whether the legacy streams are resumable.
func (s *Era) replayOn() bool {
	return s.cfg.legacy.ReplayRetention > 0 && s.cfg.legacy.EventStore != nil
}

func (s *Era) replayLimits() ReplayLimits {
	l := &s.cfg.legacy
	return ReplayLimits{MaxEvents: l.MaxReplayEvents, MaxBytes: l.MaxReplayBytes, MaxStreams: l.MaxReplayStreams, Retention: l.ReplayRetention}
}

// streamLog is the event log of one legacy SSE stream as its writer (the
// owner) sees it: a request's POST stream, or the standalone GET stream.
type streamLog struct {
	s                  *Era
	principal, session string
	id                 string          // minted when a request's stream opens (a JSON answer needs none)
	reqID              json.RawMessage // the request's id as JSON, set at open; nil for the standalone stream
	rid                *protocol.RequestId
	priming            bool     // V = 2025-11-25: a priming event first, polling allowed
	scopes             []string // the scopes the request's operation needs (StreamMeta.Scopes)
	inline             bool     // served on its HTTP request's goroutine: no polling (AllowPolling)

	mu        sync.Mutex
	sse       *httpwire.Stream // the client's connection; nil once let go
	seq       int64            // the last seq given
	opened    bool             // the stream is an event stream, and is in the store
	idSent    bool             // an event with an id reached the connection
	done      bool
	released  chan struct{} // closed when the handler may return: the connection was let go, or the request is over (nil for an inline request: nobody waits)
	freed     bool          // released is closed, or would be
	wake      chan struct{} // closed at the next event (local resumers); nil until one waits
	renewed   time.Time
	detached  bool               // holds a slot of the detached bounds (detach)
	expiresAt time.Time          // the session's ExpiresAt (a request's log)
	expiry    *time.Timer        // cancels a detached request at expiresAt
	cancel    context.CancelFunc // cancels the request (its session ended); nil for the standalone stream
	stop      chan struct{}      // ends the renewer
	stopped   chan struct{}      // closed by the renewer when it returns
}

// newStreamLog returns the log of the standalone stream id, or of the
// POST stream of request rid (id nil: minted when the stream opens).
func (s *Era) newStreamLog(sse *httpwire.Stream, rec *SessionRecord, id string, rid *protocol.RequestId, rev legacy.Rev) *streamLog {
	l := &streamLog{}
	s.initStreamLog(l, sse, rec, id, rid, rev)
	return l
}

// initStreamLog is newStreamLog on a log allocated by the caller (as part
// of a resumableRun).
func (s *Era) initStreamLog(l *streamLog, sse *httpwire.Stream, rec *SessionRecord, id string, rid *protocol.RequestId, rev legacy.Rev) {
	l.s, l.principal, l.session, l.id, l.rid = s, rec.Principal, rec.Key, id, rid
	l.priming, l.sse = rev == legacy.Rev20251125, sse
}

// wakeLocked wakes the local resumers waiting for the stream's next event.
func (l *streamLog) wakeLocked() {
	if l.wake != nil {
		close(l.wake)
		l.wake = nil
	}
}

func (l *streamLog) store() EventStore { return l.s.cfg.legacy.EventStore }

// storeCtx bounds a store call of the log, which outlives the request's
// connection.
func storeCtx() (context.Context, context.CancelFunc) {
	return context.WithTimeout(context.Background(), 10*time.Second)
}

// openLocked makes the connection an event stream (with the priming event
// of 2025-11-25 unless resuming) and the stream a log in the store. It
// runs once, at the stream's first event.
func (l *streamLog) openLocked(prime bool) {
	if l.opened {
		return
	}
	l.opened = true
	s := l.s
	if l.rid != nil {
		id, err := newSessionStreamID(l.session, false)
		if err != nil {
			s.log.Error("minting a stream id", "err", err)
		}
		l.id = id
		if l.reqID, err = protocol.Marshal(l.rid); err != nil {
			s.log.Error("encoding a request id", "err", err)
		}
	}
	now := s.now()
	ctx, cancel := storeCtx()
	err := l.store().Open(ctx, l.principal, l.session, l.id, StreamMeta{RequestID: l.reqID, Owner: s.instance, LeaseUntil: now.Add(streamLease), Scopes: l.scopes}, s.replayLimits())
	cancel()
	if err != nil {
		s.log.Error("event store", "op", "open", "err", err)
	}
	l.renewed = now
	s.logs.add(l)
	if l.rid != nil {
		l.stop, l.stopped = make(chan struct{}), make(chan struct{})
		go l.renewer()
	}
	if l.sse == nil {
		return
	}
	l.sse.Mu.Lock()
	defer l.sse.Mu.Unlock()
	if !l.sse.Started {
		l.sse.Start()
	}
	if prime && l.priming {
		if l.sse.Write([]byte("id: "+eventID(l.id, 0)+"\ndata: \n\n")) == nil {
			l.idSent = true
		}
		return
	}
	_ = l.sse.Write(nil) // the headers go out now
}

// Send is the one entry point for a message on the stream: it takes the
// next seq, appends the event to the log, and writes it with its id while
// the client is connected. It reports false once the stream is over (or
// when the event reached neither the client nor the log).
func (l *streamLog) Send(msg []byte) bool {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.done {
		return false
	}
	l.openLocked(true)
	return l.eventLocked(jsonline.Compact(msg))
}

func (l *streamLog) eventLocked(msg []byte) bool {
	l.seq++
	ctx, cancel := storeCtx()
	err := l.store().Append(ctx, l.principal, l.session, l.id, StoredEvent{Seq: l.seq, Data: msg})
	cancel()
	if err != nil {
		l.s.log.Error("event store", "op", "append", "err", err)
	}
	l.wakeLocked()
	if l.sse == nil {
		if err == nil && l.s.sharedBroker() {
			// Nobody reads this stream here: wake its resumers elsewhere.
			_ = l.s.publish(server.Event{Kind: EventSession, Key: l.session, Op: SessionAppend, Ref: l.id})
		}
		return err == nil
	}
	l.sse.Mu.Lock()
	defer l.sse.Mu.Unlock()
	if l.sse.Done || l.sse.Broken {
		return err == nil
	}
	if l.sse.EventWithID(eventID(l.id, l.seq), msg) != nil {
		return err == nil
	}
	l.idSent = true
	return true
}

// waiter returns a channel closed at the stream's next event.
func (l *streamLog) waiter() <-chan struct{} {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.wake == nil {
		l.wake = make(chan struct{})
	}
	return l.wake
}

// letGoLocked lets the client's connection go while the request runs: what
// follows goes to the log only.
func (l *streamLog) letGoLocked() {
	if l.sse == nil {
		return
	}
	l.sse.Mu.Lock()
	l.sse.Done = true
	l.sse.Mu.Unlock()
	l.sse = nil
	l.releaseLocked()
}

func (l *streamLog) releaseLocked() {
	if !l.freed {
		l.freed = true
		if l.released != nil {
			close(l.released)
		}
	}
}

// over tells the handler that the request is over (answered and
// unregistered): it may return.
func (l *streamLog) over() {
	l.mu.Lock()
	l.releaseLocked()
	l.mu.Unlock()
}

// DisconnectForPolling is Request.DisconnectForPolling (§4.8): on a
// 2025-11-25 stream still connected, the stream starts (priming event) if
// it has not, gets an event holding only retry, and the connection is let
// go; the request goes on.
func (l *streamLog) DisconnectForPolling(retry time.Duration) bool {
	if retry <= 0 {
		retry = l.s.cfg.legacy.RetryInterval
	}
	if l.inline {
		l.s.log.Warn("DisconnectForPolling does nothing in a tool registered without server.AllowPolling")
		return false
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.done || l.sse == nil || !l.priming || l.rid == nil || !l.detachLocked() {
		return false
	}
	l.openLocked(true)
	l.sse.Mu.Lock()
	if !l.sse.Broken && !l.sse.Done {
		_ = l.sse.Write([]byte("retry: " + strconv.FormatInt(retry.Milliseconds(), 10) + "\n\n"))
	}
	l.sse.Mu.Unlock()
	l.letGoLocked()
	return true
}

// attached reports whether the request's own connection still receives
// the stream.
func (l *streamLog) attached() bool {
	l.mu.Lock()
	defer l.mu.Unlock()
	return !l.done && l.sse != nil && l.rid != nil
}

// takeOver lets the request's own connection go when a GET resumes its
// stream while that connection is still attached: the client resumed, so
// what follows reaches it on the resumed stream only, never on both (a
// message goes on one stream, L1125/basic/transports.mdx, Multiple
// Connections). The resume is checked first (a refused one changes
// nothing), and reads the log again after it. It reports false when the
// request may not detach (the detached bounds are full): the resume is
// then refused.
func (l *streamLog) takeOver() bool {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.done || l.sse == nil || l.rid == nil {
		return true
	}
	if !l.detachLocked() {
		return false
	}
	l.letGoLocked()
	return true
}

// connectionLost is called when the client's connection breaks while the
// request runs: once an event with an id reached the client it can resume,
// and the request goes on; otherwise nothing could ever deliver its
// answer, and the request is cancelled (§2.6, Choice).
func (l *streamLog) connectionLost(cancel context.CancelFunc) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.done || l.sse == nil {
		return
	}
	if l.idSent && l.detachLocked() {
		l.letGoLocked()
		return
	}
	cancel()
}

// finish ends a request's stream with its outcome: as JSON when the answer
// never became a stream, else as the stream's last event, and the log is
// marked done (kept ReplayRetention more).
func (l *streamLog) finish(out server.Outcome) {
	l.mu.Lock()
	if l.done {
		l.mu.Unlock()
		return
	}
	l.done = true
	l.undetachLocked()
	if !l.opened {
		if l.sse != nil {
			l.sse.Finish(out) // a JSON answer stores nothing
		}
		l.mu.Unlock()
		return
	}
	if !out.Cancelled {
		l.eventLocked(jsonline.Compact(out.Body))
	}
	l.end()
	if l.sse != nil {
		l.sse.Mu.Lock()
		l.sse.Done = true
		l.sse.Mu.Unlock()
	}
	l.mu.Unlock()
	l.stopRenewer()
}

// end marks the log done in the store, wakes the resumers, and forgets the
// log here.
func (l *streamLog) end() {
	s := l.s
	ctx, cancel := storeCtx()
	if err := l.store().Finish(ctx, l.principal, l.session, l.id, s.now().Add(s.cfg.legacy.ReplayRetention)); err != nil && !errors.Is(err, ErrStreamNotFound) {
		s.log.Error("event store", "op", "finish", "err", err)
	}
	cancel()
	l.wakeLocked()
	s.logs.remove(l)
	if l.sse == nil && l.rid != nil && s.sharedBroker() {
		// Resumers elsewhere learn that the stream is done (an append's
		// event may reach them before Finish did).
		_ = s.publish(server.Event{Kind: EventSession, Key: l.session, Op: SessionAppend, Ref: l.id})
	}
}

// close ends the standalone stream's log (its connection closed).
func (l *streamLog) close() {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.done {
		return
	}
	l.done = true
	if l.opened {
		l.end()
	}
}

// renew moves the owner's lease forward (the standalone stream, at its
// record refresh; a request's stream, from its renewer).
func (l *streamLog) renew() {
	s := l.s
	ctx, cancel := storeCtx()
	defer cancel()
	if err := l.store().Renew(ctx, l.principal, l.session, l.id, s.now().Add(streamLease)); err != nil {
		s.log.Warn("event store", "op", "renew", "err", err)
	}
}

// renewer keeps a request's stream alive while the request runs: keep-alive
// comments on the connection (WithKeepAlive), the lease every 15 s.
func (l *streamLog) renewer() {
	defer close(l.stopped)
	every := streamLeaseRenew
	if ka := l.s.cfg.keepAlive; ka > 0 && ka < every {
		every = ka
	}
	t := time.NewTicker(every)
	defer t.Stop()
	for {
		select {
		case <-l.stop:
			return
		case <-t.C:
		}
		l.mu.Lock()
		if l.done {
			l.mu.Unlock()
			return
		}
		if l.sse != nil && l.s.cfg.keepAlive > 0 {
			l.sse.KeepAlive()
		}
		due := l.s.now().Sub(l.renewed) >= streamLeaseRenew-time.Second
		if due {
			l.renewed = l.s.now()
		}
		l.mu.Unlock()
		if due {
			l.renew()
			l.checkSession()
		}
	}
}

// checkSession cancels the request when its session has ended meanwhile
// (idle, lifetime, evicted, deleted elsewhere): a detached request does
// not outlive its session (§8, §9).
func (l *streamLog) checkSession() {
	if l.cancel == nil {
		return
	}
	ctx, cancel := storeCtx()
	defer cancel()
	if _, err := l.s.cfg.legacy.Store.Get(ctx, l.principal, l.session); errors.Is(err, ErrSessionNotFound) {
		l.cancel()
	}
}

func (l *streamLog) stopRenewer() {
	if l.stop != nil {
		close(l.stop)
		<-l.stopped
	}
}

// streamLogs are the logs written by this instance, by session and stream:
// a resumer here is woken at each of their events instead of polling.
type streamLogs struct {
	mu        sync.Mutex
	m         map[string]*streamLog
	detached  detachedCounts
	followers map[string]*follower // by session and stream (sse_followers.go)
}

func newStreamLogs() *streamLogs { return &streamLogs{m: map[string]*streamLog{}} }

func (r *streamLogs) add(l *streamLog) {
	r.mu.Lock()
	r.m[l.session+"/"+l.id] = l
	r.mu.Unlock()
}

func (r *streamLogs) remove(l *streamLog) {
	r.mu.Lock()
	if r.m[l.session+"/"+l.id] == l {
		delete(r.m, l.session+"/"+l.id)
	}
	r.mu.Unlock()
}

func (r *streamLogs) get(session, stream string) *streamLog {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.m[session+"/"+stream]
}

// len is how many logs are open here (tests).
func (r *streamLogs) len() int {
	r.mu.Lock()
	defer r.mu.Unlock()
	return len(r.m)
}

// sessionRequestResumable serves a request of a found session when its
// stream is resumable (§2.6, §4.8): the request runs on a context detached
// from the connection (notifications/cancelled, DELETE, the session's end,
// the handler timeout end it), and its POST stream is logged, so that the
// connection can be let go — by DisconnectForPolling, PollAfter, or a
// break once an id reached the client — while the request goes on.
func (h *HTTP) sessionRequestResumable(r *http.Request, sse *httpwire.Stream, rec *SessionRecord, in *rpcMessage, principal, client string, conv *legacy.Session, caps declaredCaps, sc *sessionConv) {
	s := h.s
	rev := conv.Rev
	ctx, cancel := s.detachedContext(r.Context())
	if !s.sessions.start(rec.Key, sc, in.id, cancel) {
		cancel()
		writeAnswer(sse, s.legacyErrorOutcome(rev, in.requestID(), invalidRequest(msgIDInUse), http.StatusOK)) // L2
		return
	}
	run := &resumableRun{s: s, ctx: ctx, cancel: cancel, msg: *in, sc: sc}
	m := &run.msg // the run's copy: the caller's message stays on its stack
	l := &run.log
	s.initStreamLog(l, sse, rec, "", &m.id, rev)
	sse.Tee, l.cancel, l.expiresAt = l, cancel, rec.ExpiresAt
	// The parts of a fresh run are set member by member: a composite
	// literal assigned to them would be built aside and copied in.
	run.sess.s, run.sess.rec, run.sess.cv, run.sess.caps = s, rec, conv, caps
	run.bridge.s, run.bridge.principal, run.bridge.key, run.bridge.sse = s, rec.Principal, rec.Key, sse
	x := &run.x
	x.HTTP, x.Header, x.RemoteAddr, x.Principal, x.Notifier, x.ClientKey, x.Versions = true, r.Header, r.RemoteAddr, principal, sse, client, s.cfg.advertised
	x.bridge, x.held = &run.bridge, true
	s.core.Hold() // for Shutdown, until serve returns (Unhold)
	var call bool
	run.out, run.params, call = s.legacyPrepare(ctx, &run.sess, m, &run.x)
	if call && server.AuthorizationFrom(ctx) != nil {
		l.scopes = s.core.OperationScopes(run.params) // only a verified token is checked against them
	}
	if !call || !s.mayPoll(run.params) {
		// Served here, on the request's goroutine: the handler cannot let
		// the connection go (DisconnectForPolling does nothing), but a
		// break once an id reached the client still lets the request go
		// on (connectionLost), while this goroutine serves it.
		l.inline = true
		stop := context.AfterFunc(r.Context(), func() { l.connectionLost(cancel) })
		run.serve()
		stop()
		return
	}
	l.released = make(chan struct{})
	s.goServe(run)
	var poll <-chan time.Time
	if d := s.cfg.legacy.PollAfter; d > 0 {
		t := time.NewTimer(d)
		defer t.Stop()
		poll = t.C
	}
	// The connection's end is watched here, where the handler waits anyway
	// (no AfterFunc): a break lets the connection go or cancels.
	lost := r.Context().Done()
	for {
		select {
		case <-l.released: // let go, or over
			return
		case <-lost:
			l.connectionLost(cancel)
			lost = nil
		case <-poll:
			l.DisconnectForPolling(0)
			poll = nil
		}
	}
}

// resumableRun is one request of sessionRequestResumable: what its
// goroutine needs, in one allocation (the stream log, the session, the
// exchange and its bridge), and what legacyPrepare made of it: the
// converted params of a call, or the outcome of a request answered
// already (params nil).
type resumableRun struct {
	s      *Era
	ctx    context.Context
	cancel context.CancelFunc
	sc     *sessionConv // the session's, for its running set
	msg    rpcMessage   // the request, copied from the caller's
	log    streamLog
	sess   httpSession
	x      exchange
	bridge httpBridge
	params any
	out    server.Outcome
}

// mayPoll reports whether a prepared legacy call may let its connection
// go for polling, and so runs on a worker of its own: under
// Config.PollAfter every call does, otherwise the calls of a tool
// registered with AllowPolling.
func (s *Era) mayPoll(params any) bool {
	if s.cfg.legacy.PollAfter > 0 {
		return true
	}
	p, ok := params.(*protocol.CallToolRequestParams)
	if !ok {
		return false
	}
	return s.core.ToolAllowsPolling(p.Name)
}

// serve runs the request detached from its connection and ends its
// stream with the outcome.
func (run *resumableRun) serve() {
	s := run.s
	defer s.core.Unhold()
	defer run.log.over()
	defer run.cancel()
	defer s.sessions.done(run.sess.rec.Key, run.sc, run.msg.id)
	out := run.out
	if run.params != nil {
		// While it runs, the request hears the session's cancel, closed
		// and answer events from other instances (§7.3), as in
		// runSessionRequest.
		if !s.cfg.ownBroker {
			if err := s.hub.acquire(); err != nil {
				s.log.Warn("subscribing to the broker for a session request", "err", err)
			} else {
				defer s.hub.release()
			}
		}
		out = s.legacyRun(run.ctx, run.sess.cv.Rev, run.msg.id, run.msg.method, run.params, &run.x)
	}
	run.log.finish(out)
	s.core.Release(out)
}

// lastEventID reads the Last-Event-ID of a GET (G5): absent (ok, "" ), or
// a well-formed id of this session (its stream, seq, kind), or a refusal,
// written here (400 -32600: repeated, malformed, another session's).
func (h *HTTP) lastEventID(r *http.Request, sse *httpwire.Stream, rec *SessionRecord) (stream string, seq int64, standalone, ok bool) {
	vals := r.Header.Values("Last-Event-Id")
	if len(vals) == 0 {
		return "", 0, false, true
	}
	s := h.s
	if len(vals) > 1 {
		writeAnswer(sse, s.errorOutcome(nil, invalidRequest(msgLastEventIDRepeated)))
		return "", 0, false, false
	}
	stream, seq, good := parseLastEventID(vals[0])
	if !good {
		writeAnswer(sse, s.errorOutcome(nil, invalidRequest(msgLastEventIDMalformed)))
		return "", 0, false, false
	}
	standalone, good = checkStreamID(rec.Key, stream)
	if !good {
		writeAnswer(sse, s.errorOutcome(nil, invalidRequest(msgLastEventIDForeign)))
		return "", 0, false, false
	}
	return stream, seq, standalone, true
}

// standaloneResume reads what a GET resuming the standalone stream replays
// (§4.8 case 4): the events after seq and the stream's last seq, or found
// false when the log is gone or truncated (a fresh stream is opened: its
// messages are notifications only).
func (s *Era) standaloneResume(ctx context.Context, rec *SessionRecord, stream string, seq int64) (replay []StoredEvent, last int64, found bool) {
	if !s.replayOn() {
		return nil, 0, false
	}
	evs, meta, err := s.cfg.legacy.EventStore.Read(ctx, rec.Principal, rec.Key, stream, seq, 0)
	if err != nil || seq > meta.Last {
		if err != nil && !errors.Is(err, ErrStreamNotFound) && !errors.Is(err, ErrEventsTruncated) {
			s.log.Warn("event store", "op", "read", "err", err)
		}
		return nil, 0, false
	}
	return evs, meta.Last, true
}

// begin starts the standalone stream: a fresh one with the priming event
// of 2025-11-25, a resumed one with the events it replays.
func (l *streamLog) begin(replay []StoredEvent, resumed bool) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.openLocked(!resumed)
	if l.sse == nil {
		return
	}
	l.sse.Mu.Lock()
	defer l.sse.Mu.Unlock()
	for _, ev := range replay {
		if l.sse.EventWithID(eventID(l.id, ev.Seq), ev.Data) != nil {
			return
		}
		l.idSent = true
	}
}

// resumeRequest serves a GET resuming a request's POST stream (§4.8
// cases 1–3): 400 -32600 when its events are gone; otherwise an event
// stream replaying the events after seq, then those that follow, until the
// response event. The request may run here (woken at each event) or on
// another instance (the store is re-read every PollInterval); when its
// owner stopped renewing its lease before the response, this answers the
// request with -32603 itself and records it.
func (h *HTTP) resumeRequest(r *http.Request, sse *httpwire.Stream, rec *SessionRecord, stream string, seq int64) {
	s := h.s
	ctx := r.Context()
	leid := eventID(stream, seq)
	if !s.replayOn() {
		writeAnswer(sse, s.errorOutcome(nil, invalidRequest(msgCannotResume(leid))))
		return
	}
	st := s.cfg.legacy.EventStore
	// A stream written on another instance: its owner's append events
	// (and the broker's resync) wake this resumer before its next poll.
	// Subscribed before the first read, so that none is missed.
	var woken <-chan server.Event
	if s.sharedBroker() && s.logs.get(rec.Key, stream) == nil {
		if evs, stop, err := s.cfg.broker.Subscribe(ctx); err == nil {
			defer stop()
			woken = evs
		} else {
			s.log.Warn("subscribing to the broker for a resumed stream", "err", err)
		}
	}
	read := func(after int64) ([]StoredEvent, StreamMeta, <-chan struct{}, error) {
		var wake <-chan struct{}
		if l := s.logs.get(rec.Key, stream); l != nil {
			wake = l.waiter() // subscribed before reading
		}
		evs, meta, err := st.Read(ctx, rec.Principal, rec.Key, stream, after, 0)
		return evs, meta, wake, err
	}
	evs, meta, wake, err := read(seq)
	a := server.AuthorizationFrom(ctx)
	if err == nil && seq <= meta.Last && !a.TokenExpired() && !a.Lacks(meta.Scopes) {
		if l := s.logs.get(rec.Key, stream); l != nil && l.attached() {
			// The resume is valid: it takes the stream over from the
			// request's own connection, then reads what was written up
			// to that moment.
			if !l.takeOver() {
				// The request may not detach (the bounds are full).
				writeAnswer(sse, s.errorOutcome(nil, invalidRequest(msgCannotResume(leid))))
				return
			}
			evs, meta, wake, err = read(seq)
		}
	}
	switch {
	case errors.Is(err, ErrStreamNotFound), errors.Is(err, ErrEventsTruncated), err == nil && seq > meta.Last:
		writeAnswer(sse, s.errorOutcome(nil, invalidRequest(msgCannotResume(leid))))
		return
	case err != nil:
		s.log.Error("event store", "op", "read", "err", err)
		out := withStatus(s.errorOutcome(nil, server.InternalError("Event store unavailable")), http.StatusServiceUnavailable)
		out.RetryAfter = 1
		writeAnswer(sse, out)
		return
	case a.TokenExpired():
		writeAnswer(sse, s.errorOutcome(nil, server.ExpiredToken())) // as a GET stream: refresh first
		return
	case a.Lacks(meta.Scopes):
		writeAnswer(sse, s.errorOutcome(nil, server.InsufficientScope(meta.Scopes))) // what the request itself would get (R-AUTH-08)
		return
	}
	s.core.Hold()
	defer s.core.Unhold()
	taken, release := s.logs.follow(rec.Key, stream)
	defer release()
	sse.Mu.Lock()
	sse.Start()
	err = sse.Write(nil)
	sse.Mu.Unlock()
	if err != nil {
		return
	}
	var tick <-chan time.Time
	if s.cfg.keepAlive > 0 {
		t := time.NewTicker(s.cfg.keepAlive)
		defer t.Stop()
		tick = t.C
	}
	poll := time.NewTicker(s.cfg.legacy.PollInterval)
	defer poll.Stop()
	// Like a GET stream, the resumed one lasts no longer than the token
	// that opened it (streamLifetime); the client then resumes again with
	// a fresh one.
	var lifetime <-chan time.Time
	if d := s.core.StreamLifetime(a); d > 0 {
		t := time.NewTimer(d)
		defer t.Stop()
		lifetime = t.C
	}
	after := seq
	for {
		for _, ev := range evs {
			if ev.Seq <= after {
				continue
			}
			sse.Mu.Lock()
			err := sse.EventWithID(eventID(stream, ev.Seq), ev.Data)
			sse.Mu.Unlock()
			if err != nil {
				return
			}
			after = ev.Seq
			if isResponseData(ev.Data) {
				return // the request's response ends its stream (even before Finish is seen)
			}
		}
		if meta.Done {
			return // the response was the last event
		}
		if s.ownerStopped(rec, stream, meta) {
			h.answerForStoppedOwner(sse, rec, stream, meta)
			return
		}
	wait:
		for {
			select {
			case <-ctx.Done():
				return
			case <-s.closing:
				sse.RetryField(s.cfg.legacy.RetryInterval)
				return
			case <-taken:
				sse.RetryField(s.cfg.legacy.RetryInterval) // another resume took the stream over
				return
			case <-lifetime:
				sse.RetryField(s.cfg.legacy.RetryInterval)
				return
			case <-tick:
				if !sse.KeepAlive() {
					return
				}
			case <-wake:
				break wait
			case <-poll.C:
				break wait
			case ev, ok := <-woken:
				switch {
				case !ok:
					woken = nil
				case ev.Kind == server.EventResync:
					break wait
				case ev.Kind != EventSession:
				case ev.Key == rec.Key && (ev.Op == SessionAppend && ev.Ref == stream || ev.Op == SessionClosed):
					break wait
				}
			}
		}
		evs, meta, wake, err = read(after)
		if err != nil {
			// Gone or truncated while we followed it (the client reading
			// too slowly), or the store failed: the client reconnects.
			sse.RetryField(s.cfg.legacy.RetryInterval)
			return
		}
	}
}

// isResponseData reports whether an event's data is a JSON-RPC response
// (no method member): the last event of a request's stream. Requests and
// notifications of the stream all have a method.
func isResponseData(data []byte) bool {
	sc, ok := objectMembers(data)
	if !ok {
		return false
	}
	for sc.next() {
		if string(sc.key) == "method" {
			return false
		}
	}
	return true
}

// ownerStopped reports whether a request's stream has lost its writer: not
// done, and its lease passed without a log of it here.
func (s *Era) ownerStopped(rec *SessionRecord, stream string, meta StreamMeta) bool {
	if meta.Done || len(meta.RequestID) == 0 || !s.now().After(meta.LeaseUntil) {
		return false
	}
	return s.logs.get(rec.Key, stream) == nil
}

// answerForStoppedOwner is §4.8 case 3: the request's answer is a -32603
// error, recorded in the log (so that a later resume gets it too) and sent.
func (h *HTTP) answerForStoppedOwner(sse *httpwire.Stream, rec *SessionRecord, stream string, meta StreamMeta) {
	s := h.s
	var id protocol.RequestId
	if err := protocol.Unmarshal(meta.RequestID, &id); err != nil {
		s.log.Error("event store: a stream's request id", "err", err)
		return
	}
	rev, ok := legacy.ParseRev(rec.ProtocolVersion)
	if !ok {
		return
	}
	body := jsonline.Compact(s.legacyErrorOutcome(rev, &id, server.InternalError(msgOwnerStopped), http.StatusOK).Body)
	ctx, cancel := storeCtx()
	defer cancel()
	st := s.cfg.legacy.EventStore
	seq := meta.Last + 1
	if err := st.Append(ctx, rec.Principal, rec.Key, stream, StoredEvent{Seq: seq, Data: body}); err != nil {
		s.log.Error("event store", "op", "append", "err", err)
	}
	if err := st.Finish(ctx, rec.Principal, rec.Key, stream, s.now().Add(s.cfg.legacy.ReplayRetention)); err != nil {
		s.log.Error("event store", "op", "finish", "err", err)
	}
	sse.Mu.Lock()
	_ = sse.EventWithID(eventID(stream, seq), body)
	sse.Mu.Unlock()
}
