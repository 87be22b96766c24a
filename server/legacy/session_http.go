package legacy

import (
	clist "container/list"
	"context"
	"errors"
	"fmt"
	"net/http"
	"slices"
	"sync"
	"time"

	"github.com/mcpwire/mcpwire/internal/netquota"
	"github.com/mcpwire/mcpwire/protocol"
	"github.com/mcpwire/mcpwire/protocol/mcp20251125"
	"github.com/mcpwire/mcpwire/server"
	"github.com/mcpwire/mcpwire/server/internal/httpwire"
	"github.com/mcpwire/mcpwire/server/internal/legacy"
)

// Rows A1, S1–S11, G* and D* of docs/dual-era.md §1.4 and §1.7: the
// legacy session of Streamable HTTP (§4), kept in the SessionStore.

// Messages of the session rows.
const (
	msgTooManySessions = "too many sessions; try again later"
	msgIDInUse         = "Invalid Request: request id already in use in this session"
)

// sessionState is what one instance keeps about the legacy HTTP sessions
// it serves: the conversion state of each (rebuilt from the record once,
// then shared by the session's requests) and the requests running here,
// for the duplicate-id check (L2), notifications/cancelled and DELETE.
// Nothing in it is needed to serve a session: another instance rebuilds
// it from the store.
type sessionState struct {
	max     int // conversion states kept at most (Config.MaxSessions)
	mu      sync.Mutex
	convs   map[string]*sessionConv
	lru     *clist.List // keys of convs, least recently used first
	running map[string]*runningSet
	// spare is the last set of running that emptied and went, reused by
	// the next start: a session with one request at a time allocates none.
	spare *runningSet
}

// runningSet is the requests of one session running here. The first is
// held in one (a session's requests mostly come one at a time), the
// others in more. A set stays in sessionState.running, empty, while the
// session's conversion state is cached (cached), so that a session's
// request costs one look-up of the session to start and one to end, not
// an insertion and a deletion of the session too; it goes when it is
// empty and the state is not cached (their number is bounded by the
// cache's, MaxSessions).
type runningSet struct {
	one    context.CancelFunc // nil: no request in the slot
	oneID  protocol.RequestId
	more   map[protocol.RequestId]context.CancelFunc // nil when empty
	cached bool                                      // the session's conversion state is in sessionState.convs
}

func (rs *runningSet) empty() bool { return rs.one == nil && len(rs.more) == 0 }

// get returns the cancel function of request id, or nil.
func (rs *runningSet) get(id protocol.RequestId) context.CancelFunc {
	if rs.one != nil && rs.oneID == id {
		return rs.one
	}
	return rs.more[id]
}

// each calls f with the cancel function of each request.
func (rs *runningSet) each(f func(context.CancelFunc)) {
	if rs.one != nil {
		f(rs.one)
	}
	for _, c := range rs.more {
		f(c)
	}
}

// sessionConv is a session's conversion state without its log level
// (which each request reads from the record) and what its initialize
// declared.
type sessionConv struct {
	conv *legacy.Session
	caps declaredCaps
	elem *clist.Element // in sessionState.lru
	// running is the session's set in sessionState.running while this
	// state is cached (nil when it has none, or once the state is
	// dropped), so that a request of the session that holds the state
	// finds its set without a look-up.
	running *runningSet
}

func newSessionState(max int) *sessionState {
	return &sessionState{max: max, convs: map[string]*sessionConv{}, lru: clist.New(), running: map[string]*runningSet{}}
}

// start registers a running request of session key; false when a request
// with id is running there already (L2). sc is the session's conversion
// state as sessionConv returned it, or nil.
func (st *sessionState) start(key string, sc *sessionConv, id protocol.RequestId, cancel context.CancelFunc) bool {
	st.mu.Lock()
	defer st.mu.Unlock()
	rs := st.set(key, sc)
	if rs == nil {
		rs, st.spare = st.spare, nil
		if rs == nil {
			rs = &runningSet{}
		}
		if c := st.convs[key]; c != nil {
			rs.cached, c.running = true, rs
		}
		st.running[key] = rs
	} else if rs.get(id) != nil {
		return false
	}
	if rs.one == nil {
		rs.one, rs.oneID = cancel, id
		return true
	}
	if rs.more == nil {
		rs.more = map[protocol.RequestId]context.CancelFunc{}
	}
	rs.more[id] = cancel
	return true
}

// set returns the running set of session key, or nil: sc's while it is
// cached, else the map's; st.mu is held.
func (st *sessionState) set(key string, sc *sessionConv) *runningSet {
	if sc != nil && sc.running != nil {
		return sc.running // sc is cached: its set is the map's
	}
	return st.running[key]
}

// done unregisters a request that start registered (sc as given to it).
func (st *sessionState) done(key string, sc *sessionConv, id protocol.RequestId) {
	st.mu.Lock()
	defer st.mu.Unlock()
	rs := st.set(key, sc)
	if rs == nil {
		return
	}
	if rs.one != nil && rs.oneID == id {
		rs.one, rs.oneID = nil, protocol.RequestId{}
	} else if delete(rs.more, id); len(rs.more) == 0 {
		rs.more = nil
	}
	if rs.empty() && !rs.cached {
		st.removeLocked(key, rs)
	}
}

// removeLocked removes the empty set rs of session key; st.mu is held.
func (st *sessionState) removeLocked(key string, rs *runningSet) {
	delete(st.running, key)
	*rs = runningSet{}
	st.spare = rs
}

// cancel cancels the running request id of session key; false when it
// does not run here.
func (st *sessionState) cancel(key string, id protocol.RequestId) bool {
	st.mu.Lock()
	defer st.mu.Unlock()
	if rs := st.running[key]; rs != nil {
		if c := rs.get(id); c != nil {
			c()
			return true
		}
	}
	return false
}

// forget cancels every request of session key running here and drops its
// conversion state: the session ended (DELETE, eviction).
func (st *sessionState) forget(key string) {
	st.mu.Lock()
	defer st.mu.Unlock()
	if rs := st.running[key]; rs != nil {
		rs.each(func(c context.CancelFunc) { c() })
	}
	st.dropLocked(key)
}

// keep puts the conversion state of session key in the cache, which holds
// at most max entries (§8, "sessions in all"): a full cache drops its
// least recently used entry first (most likely a session that ended; it
// is rebuilt from the record if needed).
func (st *sessionState) keep(key string, sc *sessionConv) {
	st.mu.Lock()
	defer st.mu.Unlock()
	st.dropLocked(key)
	for len(st.convs) >= max(st.max, 1) {
		st.dropLocked(st.lru.Front().Value.(string))
	}
	sc.elem = st.lru.PushBack(key)
	st.convs[key] = sc
	if rs := st.running[key]; rs != nil {
		rs.cached, sc.running = true, rs
	}
}

// cached returns the conversion state of session key, or nil, marking it
// used.
func (st *sessionState) cached(key string) *sessionConv {
	st.mu.Lock()
	defer st.mu.Unlock()
	sc := st.convs[key]
	if sc != nil {
		st.lru.MoveToBack(sc.elem)
	}
	return sc
}

// dropLocked removes the entry of key, if any; st.mu is held.
func (st *sessionState) dropLocked(key string) {
	if sc, ok := st.convs[key]; ok {
		st.lru.Remove(sc.elem)
		delete(st.convs, key)
		sc.running = nil
		if rs := st.running[key]; rs != nil {
			rs.cached = false
			if rs.empty() {
				st.removeLocked(key, rs)
			}
		}
	}
}

// drop removes the conversion state of session key, which a lookup found
// gone (idled out, expired, deleted elsewhere): a session that ends
// without a DELETE leaves nothing here once its client comes back.
func (st *sessionState) drop(key string) {
	st.mu.Lock()
	defer st.mu.Unlock()
	st.dropLocked(key)
}

// sessionConv returns the conversion state of a stored session and what
// its initialize declared, rebuilt from the record once and then shared;
// a log level set by logging/setLevel is applied on a copy.
//
// sc is the state itself, for the session's running set (sessionState.start).
func (s *Era) sessionConv(rec *SessionRecord) (conv *legacy.Session, caps declaredCaps, sc *sessionConv, err error) {
	st := s.sessions
	sc = st.cached(rec.Key)
	if sc == nil {
		rev, ok := legacy.ParseRev(rec.ProtocolVersion)
		if !ok {
			return nil, declaredCaps{}, nil, errors.New("legacy: stored session of an unknown version " + rec.ProtocolVersion)
		}
		exts, _ := servedExtensions(s.core).snapshot()
		restored, err := legacy.RestoreSession(rev, rec.ClientCapabilities, rec.ClientInfo, "", exts)
		if err != nil {
			return nil, declaredCaps{}, nil, err
		}
		var declared mcp20251125.ServerCapabilities
		if len(rec.ServerCapabilities) > 0 {
			if err := mcp20251125.Unmarshal(rec.ServerCapabilities, &declared); err != nil {
				return nil, declaredCaps{}, nil, err
			}
		}
		sc = &sessionConv{conv: restored, caps: declaredCaps{
			tools: declared.Tools != nil, prompts: declared.Prompts != nil, resources: declared.Resources != nil,
			logging: declared.Logging != nil, completions: declared.Completions != nil,
		}}
		if cacheable(rec) {
			st.keep(rec.Key, sc)
		}
	}
	conv = sc.conv
	if rec.LogLevel != "" {
		l := protocol.LoggingLevel(rec.LogLevel)
		c := *conv
		c.LogLevel = &l
		conv = &c
	}
	return conv, sc.caps, sc, nil
}

// maxCachedInitBytes bounds the initialize data (capabilities and
// clientInfo, as stored) of a session whose conversion state is cached:
// a larger one would be a second copy of up to MaxSessionRecordBytes
// beside the record, so it is rebuilt from the record for each request
// instead, at the cost of decoding what the request's own body costs.
const maxCachedInitBytes = 1 << 10

// initBytes is what a record keeps of its client's initialize.
func initBytes(r *SessionRecord) int { return len(r.ClientCapabilities) + len(r.ClientInfo) }

// cacheable reports whether the conversion state of rec is cached.
func cacheable(r *SessionRecord) bool { return initBytes(r) <= maxCachedInitBytes }

// httpSession is a stored session as one request sees it (legacySession):
// the record read when the request arrived; changes go to the store.
type httpSession struct {
	s    *Era
	rec  *SessionRecord
	cv   *legacy.Session
	caps declaredCaps
}

func (hs *httpSession) conv() *legacy.Session  { return hs.cv }
func (hs *httpSession) ready() bool            { return hs.rec.Initialized }
func (hs *httpSession) declared() declaredCaps { return hs.caps }

// update applies fn to the stored record; a store failure is errStore.
func (hs *httpSession) update(ctx context.Context, fn func(*SessionRecord) error) error {
	_, err := hs.updated(ctx, fn)
	return err
}

// updated is update returning the stored record.
func (hs *httpSession) updated(ctx context.Context, fn func(*SessionRecord) error) (*SessionRecord, error) {
	rec, err := hs.s.cfg.legacy.Store.Update(ctx, hs.rec.Principal, hs.rec.Key, fn)
	var be *SubscriptionBudgetError
	if err != nil && !errors.Is(err, ErrSessionNotFound) && !errors.Is(err, errTooManySubscriptions) && !errors.As(err, &be) {
		return nil, &errStore{err}
	}
	return rec, err
}

func (hs *httpSession) setLogLevel(ctx context.Context, level protocol.LoggingLevel) error {
	return hs.update(ctx, func(r *SessionRecord) error { r.LogLevel = string(level); return nil })
}

// subsChanged tells the instance holding the session's stream to reload
// its subscriptions (§2.4).
func (hs *httpSession) subsChanged() {
	_ = hs.s.publish(server.Event{Kind: EventSession, Key: hs.rec.Key, Op: SessionSubs})
}

// subscribe adds uri to the record's subscriptions: the count and the
// session's byte budget are checked in the store's Update, atomically with
// the change; the principal's and the instance's are reserved in the
// ledger before it and settled after.
func (hs *httpSession) subscribe(ctx context.Context, uri string, lim subLimits) error {
	s, rec := hs.s, hs.rec
	cost := subscriptionCost(uri)
	reserved := int64(0)
	if !slices.Contains(rec.Subscriptions, uri) { // subscribed already: nothing more to hold
		if err := s.subs.reserve(sessionScope(rec), rec.Key, sessionEnd(rec), s.now(), cost); err != nil {
			return err
		}
		reserved = cost
	}
	stored, err := hs.updated(ctx, func(r *SessionRecord) error {
		if slices.Contains(r.Subscriptions, uri) {
			return nil
		}
		if len(r.Subscriptions) >= lim.count {
			return errTooManySubscriptions
		}
		if need := subscriptionBytes(r.Subscriptions) + cost; need > lim.sessionBytes {
			return &SubscriptionBudgetError{Limit: "MaxSubscriptionBytes", Max: lim.sessionBytes, Need: need}
		}
		r.Subscriptions = append(r.Subscriptions, uri)
		return nil
	})
	held := int64(-1)
	if err == nil {
		held = subscriptionBytes(stored.Subscriptions)
	}
	s.subs.settle(rec.Key, reserved, held)
	if err == nil {
		hs.subsChanged()
	}
	return err
}

func (hs *httpSession) unsubscribe(ctx context.Context, uri string) error {
	stored, err := hs.updated(ctx, func(r *SessionRecord) error {
		if i := slices.Index(r.Subscriptions, uri); i >= 0 {
			r.Subscriptions = slices.Delete(r.Subscriptions, i, i+1)
		}
		return nil
	})
	if err == nil {
		hs.s.subs.settle(hs.rec.Key, 0, subscriptionBytes(stored.Subscriptions))
		hs.subsChanged()
	}
	return err
}

// sessionEnd is when a record's session ends unless touched:
// min(IdleUntil, ExpiresAt).
func sessionEnd(r *SessionRecord) time.Time {
	if r.ExpiresAt.Before(r.IdleUntil) {
		return r.ExpiresAt
	}
	return r.IdleUntil
}

// storeUnavailable is the answer when the session store cannot be reached:
// 503 with Retry-After, never 404 (a client would drop its session on a
// blip).
func (s *Era) storeUnavailable(id *protocol.RequestId, op string, err error) server.Outcome {
	s.log.Error("session store", "op", op, "err", err)
	out := withStatus(s.errorOutcome(id, server.InternalError(msgStoreUnavailable)), http.StatusServiceUnavailable)
	out.RetryAfter = 1
	return out
}

// initialize opens a legacy session (A1, §2.1): the result as
// openLegacy builds it, then admission (the per-principal limit evicts the
// principal's least recently used session; the total limit is 503), then
// the session is stored, durably, before the answer names it in
// Mcp-Session-Id. A refusal makes no session.
func (h *HTTP) initialize(r *http.Request, sse *httpwire.Stream, m *rpcMessage, principal, client string) {
	s := h.s
	o, e := s.openLegacy(m)
	if e != nil {
		writeAnswer(sse, withStatus(s.errorOutcome(m.requestID(), e), http.StatusOK)) // a method error: 200 (§1.6)
		return
	}
	caps, err1 := mcp20251125.Marshal(&o.params.Capabilities)
	info, err2 := mcp20251125.Marshal(&o.params.ClientInfo)
	declared, err3 := mcp20251125.Marshal(&o.result.Capabilities)
	if err := errors.Join(err1, err2, err3); err != nil {
		s.log.Error("encoding a session record", "err", err)
		writeAnswer(sse, s.errorOutcome(m.requestID(), server.InternalError("Internal error")))
		return
	}
	l := &s.cfg.legacy
	if n := len(caps) + len(info); n > l.MaxSessionRecordBytes { // §8: a session's size is bounded too
		e := server.InvalidParams(fmt.Sprintf("Invalid params: capabilities and clientInfo take %d bytes, more than the %d a session may keep", n, l.MaxSessionRecordBytes), nil)
		writeAnswer(sse, withStatus(s.errorOutcome(m.requestID(), e), http.StatusOK)) // a method error: 200, nothing minted
		return
	}
	id, key, err := newSessionID()
	if err != nil {
		s.log.Error("minting a session id", "err", err)
		writeAnswer(sse, s.errorOutcome(m.requestID(), server.InternalError("Internal error")))
		return
	}
	now := s.now()
	rec := &SessionRecord{
		Key: key, Principal: principal, ProtocolVersion: o.rev.String(),
		ClientCapabilities: caps, ClientInfo: info, ServerCapabilities: declared,
		LogLevel:  string(l.DefaultLogLevel),
		CreatedAt: now, IdleUntil: now.Add(l.IdleTimeout), ExpiresAt: now.Add(l.MaxLifetime),
	}
	lim := SessionLimits{PerPrincipal: l.MaxSessionsPerPrincipal, Total: l.MaxSessions, TotalInitBytes: max(l.MaxSessionRecordBytesTotal, 0)}
	if principal == "" {
		rec.QuotaKey = client // per client address, as the task quota keys
		rec.QuotaNets, lim.PerNet = quotaNets(client, l.MaxSessionsPer56, l.MaxSessionsPer48)
	}
	evicted, err := l.Store.Create(r.Context(), rec, lim)
	switch {
	case errors.Is(err, ErrSessionLimit):
		out := withStatus(s.errorOutcome(m.requestID(), server.InternalError(msgTooManySessions)), http.StatusServiceUnavailable)
		out.RetryAfter = 30
		writeAnswer(sse, out)
		return
	case err != nil:
		writeAnswer(sse, s.storeUnavailable(m.requestID(), "create", err))
		return
	}
	for _, k := range evicted {
		if s.replayOn() {
			if err := l.EventStore.DeleteSession(r.Context(), principal, k); err != nil {
				s.log.Warn("event store", "op", "delete", "err", err)
			}
		}
		s.sessionEnded(k)
	}
	if cacheable(rec) {
		s.sessions.keep(key, &sessionConv{conv: o.conv, caps: o.caps})
	}
	out := s.legacyResultOutcome(o.rev, m.id, o.result, nil)
	sse.W.Header().Set(HeaderSessionID, id)
	writeAnswer(sse, out)
	s.core.Release(out)
}

// quotaNets are the wider networks an anonymous client's sessions are
// also counted in, with their limits: the /56 and the /48 of an IPv6
// client key (a prefix, "2001:db8::/64", or an address), each when its
// limit is on and it is wider than the key. None for anything else.
func quotaNets(client string, per56, per48 int) ([]string, []int) {
	var nets []string
	var limits []int
	for i, n := range netquota.Networks(client, 56, 48) {
		if limit := [...]int{per56, per48}[i]; n != "" && limit > 0 {
			nets, limits = append(nets, n), append(limits, limit)
		}
	}
	return nets, limits
}

// sessionEnded releases what this instance holds for a session that ended
// (DELETE, eviction) and tells the other instances (§4.3): its running
// requests are cancelled and its stream closes, with nothing more sent.
func (s *Era) sessionEnded(key string) {
	s.sessions.forget(key)
	s.subs.forget(key)
	if st := s.hub.stream(key); st != nil {
		st.stop(false)
	}
	_ = s.publish(server.Event{Kind: EventSession, Key: key, Op: SessionClosed})
}

// findSession looks the session of the request up (S2, S3, G3, D3): a
// repeated header is 400, an id that is over-long or names no live session
// of this principal is 404, a store failure 503.
//
// id gives the request's id for a refusal: it is called only then.
func (s *Era) findSession(ctx context.Context, sids []string, principal string, id func() *protocol.RequestId) (*SessionRecord, *server.Outcome) {
	if len(sids) > 1 {
		out := s.errorOutcome(id(), invalidRequest(msgSessionRepeated)) // S3
		return nil, &out
	}
	notFound := func() *server.Outcome { // S2, built only when the session is missing
		out := withStatus(s.errorOutcome(id(), invalidRequest(msgSessionNotFound)), http.StatusNotFound)
		return &out
	}
	if len(sids[0]) > maxSessionIDBytes {
		return nil, notFound()
	}
	kb := sessionKeyOf(sids[0])
	var rec *SessionRecord
	var err error
	if ms, ok := s.cfg.legacy.Store.(*MemorySessionStore); ok {
		rec, err = ms.shared(principal, kb[:]) // read only here: no copy, of the record or of the key
	} else {
		rec, err = s.cfg.legacy.Store.Get(ctx, principal, string(kb[:]))
	}
	switch {
	case errors.Is(err, ErrSessionNotFound):
		key := string(kb[:])
		s.sessions.drop(key) // the session ended without a DELETE: its cached state goes
		s.subs.forget(key)
		return nil, notFound()
	case err != nil:
		out := s.storeUnavailable(id(), "get", err)
		return nil, &out
	}
	return rec, nil
}

// noRequestID is findSession's id for a GET or DELETE.
func noRequestID() *protocol.RequestId { return nil }

// versionMatches is row S4 (and G4): a legacy MCP-Protocol-Version in a
// session must name its version (L0618/basic/transports.mdx#protocol-version-header);
// an absent one is accepted (S5).
func versionMatches(rec *SessionRecord, hv hvKind, hvValue string) *server.Error {
	if hv == hvLegacy && hvValue != rec.ProtocolVersion {
		return invalidRequest(server.HeaderProtocolVersion + " " + hvValue + " does not match the version negotiated for this session, " + rec.ProtocolVersion)
	}
	return nil
}

// touch keeps the session alive (§7.1): IdleUntil moves forward only when
// less than ¾ of IdleTimeout is left, so that a busy session costs at most
// one store write per IdleTimeout/4. A failure is logged: the request is
// served (its lookup succeeded).
func (s *Era) touch(ctx context.Context, rec *SessionRecord) {
	idle := s.cfg.legacy.IdleTimeout
	now := s.now()
	if rec.IdleUntil.Sub(now) >= idle/4*3 {
		return
	}
	if err := s.cfg.legacy.Store.Touch(ctx, rec.Principal, rec.Key, now.Add(idle)); err != nil {
		s.log.Warn("touching a session", "err", err)
		return
	}
	end := now.Add(idle)
	if rec.ExpiresAt.Before(end) {
		end = rec.ExpiresAt
	}
	s.subs.touch(rec.Key, end)
}

// inSession serves a legacy message that names a session (rows S1–S11).
func (h *HTTP) inSession(r *http.Request, sse *httpwire.Stream, m *rpcMessage, sids []string, principal, client string, hv hvKind, hvValue string) {
	s := h.s
	if m.kind == msgRequest && m.method == mcp20251125.MethodInitialize {
		writeAnswer(sse, s.errorOutcome(m.requestID(), invalidRequest(msgInitializeWithSID))) // S1: not looked up, nothing minted
		return
	}
	rec, refused := s.findSession(r.Context(), sids, principal, m.requestID) // the id is copied only for a refusal
	if refused != nil {
		writeAnswer(sse, *refused)
		return
	}
	if e := versionMatches(rec, hv, hvValue); e != nil {
		writeAnswer(sse, s.errorOutcome(m.requestID(), e)) // S4
		return
	}
	if m.kind == msgRequest {
		if e := mirroredHeaders(r.Header, m); e != nil {
			writeAnswer(sse, s.errorOutcome(m.requestID(), e)) // S6
			return
		}
	}
	s.touch(r.Context(), rec)
	switch m.kind {
	case msgNotification:
		writeAnswer(sse, s.sessionNotification(r.Context(), rec, m)) // S8
	case msgResponse:
		writeAnswer(sse, s.sessionResponse(r.Context(), rec, m)) // S9: the bridge (§6.4)
	case msgBatch:
		h.sessionBatch(r, sse, rec, m.raw, principal, client) // S10, §2.8
	default:
		h.sessionRequest(r, sse, rec, m, principal, client) // S11
	}
}

// sessionNotification serves a notification of a session (S8, §2.2,
// §2.6): notifications/initialized makes the session ready in the store
// before the 202, so that the client's next request, on any instance,
// finds it so; notifications/cancelled cancels the named request if it
// runs here; the others are accepted and ignored.
func (s *Era) sessionNotification(ctx context.Context, rec *SessionRecord, m *rpcMessage) server.Outcome {
	accepted := server.Outcome{Notification: true, Status: http.StatusAccepted}
	switch m.method {
	case mcp20251125.MethodNotificationsInitialized:
		if !s.initializedParams(m) {
			return s.errorOutcome(nil, invalidRequest("Invalid Request: notifications/initialized params must be an object"))
		}
		if rec.Initialized {
			return accepted // a second one changes nothing
		}
		_, err := s.cfg.legacy.Store.Update(ctx, rec.Principal, rec.Key, func(r *SessionRecord) error { r.Initialized = true; return nil })
		switch {
		case errors.Is(err, ErrSessionNotFound):
			return withStatus(s.errorOutcome(nil, invalidRequest(msgSessionNotFound)), http.StatusNotFound)
		case err != nil:
			return s.storeUnavailable(nil, "update", err)
		}
	case mcp20251125.MethodNotificationsCancelled:
		var p mcp20251125.CancelledNotificationParams
		if m.params != nil && s.legacyDecode().Unmarshal(m.params, &p) == nil && p.RequestID != nil {
			// Unknown or finished ids are ignored (L1125/basic/utilities/cancellation.mdx,
			// rule 5); one that does not run here may run on another
			// instance.
			id := modernID(*p.RequestID)
			if !s.sessions.cancel(rec.Key, id) {
				ref, _ := protocol.Marshal(&id)
				_ = s.publish(server.Event{Kind: EventSession, Key: rec.Key, Op: SessionCancel, Ref: string(ref)})
			}
		}
	}
	return accepted
}

// sessionRequest serves a request of a found session (S11): the legacy
// order of checks, on a context that notifications/cancelled and DELETE
// can end. With resumability on, sessionRequestResumable serves it;
// without, a broken connection cancels the request as it does a modern
// one: nothing could deliver its answer (§2.6, Choice).
func (h *HTTP) sessionRequest(r *http.Request, sse *httpwire.Stream, rec *SessionRecord, m *rpcMessage, principal, client string) {
	s := h.s
	if s.replayOn() {
		conv, caps, sc, refused := s.sessionPrelude(rec, m)
		if refused != nil {
			sse.Finish(*refused)
			s.core.Release(*refused)
			return
		}
		h.sessionRequestResumable(r, sse, rec, m, principal, client, conv, caps, sc)
		return
	}
	out := h.runSessionRequest(r, sse, rec, m, principal, client)
	sse.Finish(out)
	s.core.Release(out)
}

// sessionPrelude restores a found session's conversion and declared
// capabilities, and refuses a request other than ping before
// notifications/initialized (L1).
func (s *Era) sessionPrelude(rec *SessionRecord, m *rpcMessage) (*legacy.Session, declaredCaps, *sessionConv, *server.Outcome) {
	conv, caps, sc, err := s.sessionConv(rec)
	if err != nil {
		s.log.Error("restoring a session", "err", err)
		out := s.errorOutcome(m.requestID(), server.InternalError("Internal error"))
		return nil, caps, nil, &out
	}
	if m.method != mcp20251125.MethodPing && !rec.Initialized {
		out := s.legacyErrorOutcome(conv.Rev, m.requestID(), invalidRequest(msgNotInitialized), http.StatusBadRequest) // L1
		return nil, caps, nil, &out
	}
	return conv, caps, sc, nil
}

// runSessionRequest serves a request of a found session without
// resumability (and the requests of a batch) and returns its outcome; its
// notifications and bridge requests go to sse.
func (h *HTTP) runSessionRequest(r *http.Request, sse *httpwire.Stream, rec *SessionRecord, m *rpcMessage, principal, client string) server.Outcome {
	s := h.s
	conv, caps, sc, refused := s.sessionPrelude(rec, m)
	if refused != nil {
		return *refused
	}
	rev := conv.Rev
	ctx, cancel := context.WithCancel(r.Context())
	defer cancel()
	if !s.sessions.start(rec.Key, sc, m.id, cancel) {
		return s.legacyErrorOutcome(rev, m.requestID(), invalidRequest(msgIDInUse), http.StatusOK) // L2
	}
	defer s.sessions.done(rec.Key, sc, m.id)
	// While it runs, the request hears the session's cancel, closed and
	// answer events from other instances (§7.3). With the broker New made,
	// there are none: this instance's own are delivered directly.
	if !s.cfg.ownBroker {
		if err := s.hub.acquire(); err != nil {
			s.log.Warn("subscribing to the broker for a session request", "err", err)
		} else {
			defer s.hub.release()
		}
	}
	sess := &httpSession{s: s, rec: rec, cv: conv, caps: caps}
	x := &exchange{Exchange: server.Exchange{HTTP: true, Header: r.Header, RemoteAddr: r.RemoteAddr, Principal: principal, Notifier: sse, ClientKey: client, Versions: s.cfg.advertised},
		bridge: &httpBridge{s: s, principal: rec.Principal, key: rec.Key, sse: sse}}
	return s.serveLegacy(ctx, sess, m, x)
}

// sessionVerb serves a GET or DELETE that names a session (G3–G6, D3–D4).
func (h *HTTP) sessionVerb(r *http.Request, sse *httpwire.Stream, sids []string, principal string, hv hvKind, hvValue string) {
	s := h.s
	rec, refused := s.findSession(r.Context(), sids, principal, noRequestID)
	if refused != nil {
		writeAnswer(sse, *refused) // G3, D3
		return
	}
	if e := versionMatches(rec, hv, hvValue); e != nil {
		writeAnswer(sse, s.errorOutcome(nil, e)) // G4
		return
	}
	if r.Method == http.MethodDelete {
		h.deleteSession(r, sse, rec)
		return
	}
	h.sessionStream(r, sse, rec) // G5, G6
}

// deleteSession ends a session (D4, §4.3): the record goes, this
// instance's running requests of the session are cancelled, and the answer
// is 204. A DELETE is never 405 when sessions are served (a client could
// not end its session otherwise).
func (h *HTTP) deleteSession(r *http.Request, sse *httpwire.Stream, rec *SessionRecord) {
	s := h.s
	err := s.cfg.legacy.Store.Delete(r.Context(), rec.Principal, rec.Key)
	switch {
	case errors.Is(err, ErrSessionNotFound):
		writeAnswer(sse, withStatus(s.errorOutcome(nil, invalidRequest(msgSessionNotFound)), http.StatusNotFound))
		return
	case err != nil:
		writeAnswer(sse, s.storeUnavailable(nil, "delete", err))
		return
	}
	if s.replayOn() {
		if err := s.cfg.legacy.EventStore.DeleteSession(r.Context(), rec.Principal, rec.Key); err != nil {
			s.log.Warn("event store", "op", "delete", "err", err) // the logs expire on their own
		}
	}
	s.sessionEnded(rec.Key)
	sse.Done = true
	sse.W.WriteHeader(http.StatusNoContent)
}
