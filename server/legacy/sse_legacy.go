package legacy

import (
	"context"
	"crypto/rand"
	"encoding/base64"
	"errors"
	"net/http"
	"sync"
	"time"

	"github.com/mcpwire/mcpwire/protocol/mcp20251125"
	"github.com/mcpwire/mcpwire/server"
	"github.com/mcpwire/mcpwire/server/internal/httpwire"
	"github.com/mcpwire/mcpwire/server/internal/legacy"
)

// The standalone GET stream of a legacy session (docs/dual-era.md §4.4):
// one at a time per session, carrying only what is tied to no request
// (list changes, resource updates), kept alive by comments, bounded in
// life, and taken over by the session's next GET.
// Its events have ids and are logged (sse_resume.go): a GET with the
// Last-Event-ID of this stream takes it over and replays what followed.

// legacyStream is one open standalone stream, as the hub sees it.
type legacyStream struct {
	id   string // 12 base64url characters naming the stream within its session
	key  string // the session's store key
	rev  legacy.Rev
	caps declaredCaps

	events chan server.Event // from the hub; an event is dropped when it is full
	ended  chan struct{}
	once   sync.Mutex
	retry  bool // set with ended: send retry before closing
	closed bool
}

// offer hands an event to the stream without waiting: a stream too slow to
// keep up loses events rather than block the hub (a spurious or lost
// list_changed is harmless; subscriptions are also re-read every minute).
func (st *legacyStream) offer(ev server.Event) {
	select {
	case st.events <- ev:
	default:
	}
}

// stop ends the stream, once; with retry, the client is told to reconnect
// (take-over), without, the session is over.
func (st *legacyStream) stop(retry bool) {
	st.once.Lock()
	defer st.once.Unlock()
	if st.closed {
		return
	}
	st.closed, st.retry = true, retry
	close(st.ended)
}

// shouldRetry reports how a stopped stream ends.
func (st *legacyStream) shouldRetry() bool {
	st.once.Lock()
	defer st.once.Unlock()
	return st.retry
}

// newStreamID is 9 random bytes in base64url: 12 characters.
func newStreamID() (string, error) {
	b := make([]byte, 9)
	if _, err := rand.Read(b); err != nil {
		return "", err
	}
	return base64.RawURLEncoding.EncodeToString(b), nil
}

// refreshEvery is how many keep-alives pass between re-reads of the
// session record (about a minute with the default 15 s).
const refreshEvery = 4

// sessionStream serves the standalone GET stream of a found session (G6):
// it becomes the session's stream in the store (take-over: the previous
// one, on any instance, closes with a retry field), then carries list
// changes its session declared and updates of the resources it subscribed
// to, until the client goes, the session ends, another GET takes over,
// WithMaxStreamLifetime passes or the server shuts down (the last three
// with retry, so that the client reconnects). Every fourth keep-alive
// re-reads the record (deleted, expired, taken over?), reloads the
// subscriptions and touches the session: an open stream keeps it alive.
func (h *HTTP) sessionStream(r *http.Request, sse *httpwire.Stream, rec *SessionRecord) {
	s := h.s
	leStream, leSeq, standalone, ok := h.lastEventID(r, sse, rec)
	if !ok {
		return // refused (400)
	}
	if leStream != "" && !standalone {
		h.resumeRequest(r, sse, rec, leStream, leSeq) // G5: a request's stream
		return
	}
	if server.AuthorizationFrom(r.Context()).TokenExpired() {
		writeAnswer(sse, s.errorOutcome(nil, server.ExpiredToken())) // it would end at once: refresh first
		return
	}
	conv, caps, _, err := s.sessionConv(rec)
	if err != nil {
		s.log.Error("restoring a session", "err", err)
		writeAnswer(sse, s.errorOutcome(nil, server.InternalError("Internal error")))
		return
	}
	ctx := r.Context()
	// G5 for the standalone stream: a take-over that continues it, or a
	// fresh one when its log is gone.
	replay, last, resumed := s.standaloneResume(ctx, rec, leStream, leSeq)
	replay = s.replayable(server.AuthorizationFrom(ctx), replay)
	id := leStream
	if !resumed {
		if id, err = newSessionStreamID(rec.Key, true); err != nil {
			writeAnswer(sse, s.errorOutcome(nil, server.InternalError("Internal error")))
			return
		}
	}
	cur, err := s.cfg.legacy.Store.Update(ctx, rec.Principal, rec.Key, func(r *SessionRecord) error {
		r.Stream = s.instance + "/" + id
		return nil
	})
	switch {
	case errors.Is(err, ErrSessionNotFound):
		writeAnswer(sse, withStatus(s.errorOutcome(nil, invalidRequest(msgSessionNotFound)), http.StatusNotFound))
		return
	case err != nil:
		writeAnswer(sse, s.storeUnavailable(nil, "update", err))
		return
	}
	st := &legacyStream{id: id, key: rec.Key, rev: conv.Rev, caps: caps, events: make(chan server.Event, 64), ended: make(chan struct{})}
	old, err := s.hub.attach(st)
	if err != nil {
		s.log.Error("subscribing to the broker", "err", err)
		writeAnswer(sse, s.errorOutcome(nil, server.InternalError("Internal error: the session's stream is unavailable")))
		return
	}
	defer s.hub.detach(st)
	if old != nil {
		old.stop(true)
	}
	_ = s.publish(server.Event{Kind: EventSession, Key: rec.Key, Op: SessionTakeover, Ref: s.instance + "/" + id})
	s.core.Hold()
	defer s.core.Unhold()

	var log *streamLog
	if s.replayOn() {
		log = s.newStreamLog(sse, rec, id, nil, conv.Rev)
		log.seq = last
		sse.Tee = log
		defer log.close()
		log.begin(replay, resumed)
	} else {
		sse.Mu.Lock()
		sse.Start()
		_ = sse.Write(nil) // the headers go out now (write flushes), within WriteTimeout
		sse.Mu.Unlock()
	}
	sse.Mu.Lock()
	broken := sse.Broken
	sse.Mu.Unlock()
	if broken {
		return
	}
	subs := subscriptionSet(cur.Subscriptions)
	var tick <-chan time.Time
	if s.cfg.keepAlive > 0 {
		t := time.NewTicker(s.cfg.keepAlive)
		defer t.Stop()
		tick = t.C
	}
	tok := server.AuthorizationFrom(ctx) // nil without a Verifier
	var lifetime <-chan time.Time
	if d := s.core.StreamLifetime(tok); d > 0 {
		t := time.NewTimer(d)
		defer t.Stop()
		lifetime = t.C
	}
	retry := func() { sse.RetryField(s.cfg.legacy.RetryInterval) }
	for ticks := 0; ; {
		select {
		case <-ctx.Done():
			return
		case <-s.closing:
			retry()
			return
		case <-lifetime:
			retry()
			return
		case <-st.ended:
			if st.shouldRetry() {
				retry()
			}
			return
		case <-tick:
			if !sse.KeepAlive() {
				return
			}
			if ticks++; ticks%refreshEvery != 0 {
				continue
			}
			if log != nil {
				log.renew() // the log lives while the stream is open
			}
			fresh, gone, retryNow := s.refreshStream(ctx, rec, st)
			switch {
			case gone:
				return
			case retryNow:
				retry()
				return
			case fresh != nil:
				subs = subscriptionSet(fresh.Subscriptions)
			}
		case ev := <-st.events:
			var msg []byte
			switch ev.Kind {
			case server.EventToolsChanged, server.EventPromptsChanged, server.EventResourcesChanged:
				msg = listChanged(st.rev, st.caps, ev.Kind)
			case server.EventResourceUpdated:
				if _, ok := subs[ev.URI]; ok && s.core.MayReceiveUpdate(tok, ev.URI) {
					msg = resourceUpdated(st.rev, ev.URI)
				}
			case EventSession, server.EventResync: // SessionSubs, or events lost
				fresh, gone, _ := s.refreshStream(ctx, rec, st)
				if gone {
					return
				}
				if fresh != nil {
					subs = subscriptionSet(fresh.Subscriptions)
				}
			}
			if msg != nil && !sse.Notify(msg) {
				return
			}
		}
	}
}

// refreshStream re-reads the record of a stream's session: gone when the
// session ended, retry when another stream took over, else the record
// (nil when the store could not be read: the stream goes on). It touches
// the session, so that an open stream keeps it alive.
func (s *Era) refreshStream(ctx context.Context, rec *SessionRecord, st *legacyStream) (fresh *SessionRecord, gone, retry bool) {
	cur, err := s.cfg.legacy.Store.Get(ctx, rec.Principal, rec.Key)
	switch {
	case errors.Is(err, ErrSessionNotFound):
		return nil, true, false
	case err != nil:
		s.log.Warn("re-reading a session for its stream", "err", err)
		return nil, false, false
	case cur.Stream != s.instance+"/"+st.id:
		return nil, false, true
	}
	s.touch(ctx, cur)
	return cur, false, false
}

func subscriptionSet(uris []string) map[string]struct{} {
	m := make(map[string]struct{}, len(uris))
	for _, u := range uris {
		m[u] = struct{}{}
	}
	return m
}

// replayable is the standalone stream's replay for a GET whose token is
// a: without the resources/updated events of resources it may no longer
// receive (the stream's events were checked against the token that was
// then connected; R-AUTH-08).
func (s *Era) replayable(a *server.Authorization, replay []StoredEvent) []StoredEvent {
	if a == nil {
		return replay
	}
	kept := replay[:0:0]
	for _, ev := range replay {
		if uri, ok := updatedURI(ev.Data); ok && !s.core.MayReceiveUpdate(a, uri) {
			continue
		}
		kept = append(kept, ev)
	}
	return kept
}

// updatedURI returns the uri of a notifications/resources/updated
// message as the standalone stream logged it.
func updatedURI(data []byte) (string, bool) {
	var n mcp20251125.JSONRPCNotification
	if mcp20251125.Unmarshal(data, &n) != nil || n.Method != mcp20251125.MethodNotificationsResourcesUpdated || n.Params == nil {
		return "", false
	}
	var p mcp20251125.ResourceUpdatedNotificationParams
	if mcp20251125.Unmarshal(n.Params, &p) != nil {
		return "", false
	}
	return p.URI, true
}
