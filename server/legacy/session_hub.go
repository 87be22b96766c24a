package legacy

import (
	"context"
	"sync"

	"github.com/mcpwire/mcpwire/protocol"
	"github.com/mcpwire/mcpwire/server"
)

// sessionHub routes broker events to this instance's legacy session
// streams (docs/dual-era.md §7.3): one broker subscription for all of
// them, instead of one per stream, taken when the first stream opens and
// dropped when the last one closes (so an idle Server holds no goroutine).
// List changes and resource updates go to every stream, which keeps what
// its session declared and subscribed to; EventSession ops go to the
// stream of the session they name: closed and takeover end it, subs makes
// it reload its subscriptions; closed and cancel also reach the session's
// running requests on this instance, and answer wakes the input bridge's
// wait for that request.
//
// Running requests of a session are users of the subscription too, while
// they run (acquire, release), so that cancel, closed and answer reach an
// instance that holds no stream of the session.
type sessionHub struct {
	s *Era

	mu      sync.Mutex
	streams map[string]*legacyStream            // the standalone stream of each session held here, by key
	waiters map[string]map[string]chan struct{} // the bridge's waits, by session key and request id
	users   int                                 // streams and requests attached and not yet detached
	sub     *hubSubscription
}

type hubSubscription struct {
	stop func()
	done chan struct{} // closed when the routing goroutine returns
}

func newSessionHub(s *Era) *sessionHub {
	return &sessionHub{s: s, streams: map[string]*legacyStream{}, waiters: map[string]map[string]chan struct{}{}}
}

// attach registers st as its session's stream on this instance, taking
// the broker subscription if it is the first user. It returns the stream
// st replaces here, which the caller ends (take-over).
func (h *sessionHub) attach(st *legacyStream) (*legacyStream, error) {
	h.mu.Lock()
	defer h.mu.Unlock()
	if err := h.acquireLocked(); err != nil {
		return nil, err
	}
	old := h.streams[st.key]
	h.streams[st.key] = st
	return old, nil
}

// acquire makes a running request of a session a user of the
// subscription; release ends that.
func (h *sessionHub) acquire() error {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.acquireLocked()
}

func (h *sessionHub) release() {
	h.mu.Lock()
	sub := h.releaseLocked()
	h.mu.Unlock()
	sub.end()
}

// releaseLocked counts one user less; with none left it detaches the
// broker subscription and returns it, for the caller to end once h.mu is
// released (nil when users remain). The caller holds h.mu.
func (h *sessionHub) releaseLocked() *hubSubscription {
	h.users--
	var sub *hubSubscription
	if h.users == 0 {
		sub, h.sub = h.sub, nil
	}
	return sub
}

// end stops the subscription and waits for its routing goroutine to
// return; nil does nothing.
func (sub *hubSubscription) end() {
	if sub != nil {
		sub.stop()
		<-sub.done
	}
}

// wait registers wake for the answers to ids of session key; the returned
// function unregisters it.
func (h *sessionHub) wait(key string, ids []string, wake chan struct{}) func() {
	h.mu.Lock()
	m := h.waiters[key]
	if m == nil {
		m = map[string]chan struct{}{}
		h.waiters[key] = m
	}
	for _, id := range ids {
		m[id] = wake
	}
	h.mu.Unlock()
	return func() {
		h.mu.Lock()
		defer h.mu.Unlock()
		m := h.waiters[key]
		for _, id := range ids {
			delete(m, id)
		}
		if len(m) == 0 {
			delete(h.waiters, key)
		}
	}
}

// wake wakes the wait for the answer to id of session key, if it is here.
func (h *sessionHub) wake(key, id string) {
	h.mu.Lock()
	ch := h.waiters[key][id]
	h.mu.Unlock()
	if ch != nil {
		select {
		case ch <- struct{}{}:
		default:
		}
	}
}

// acquireLocked counts one user more, taking the broker subscription if
// there is none (releaseLocked undoes it). The caller holds h.mu.
func (h *sessionHub) acquireLocked() error {
	if h.sub == nil {
		ctx, cancel := context.WithCancel(context.Background())
		events, stop, err := h.s.cfg.broker.Subscribe(ctx)
		if err != nil {
			cancel()
			return err
		}
		sub := &hubSubscription{stop: func() { stop(); cancel() }, done: make(chan struct{})}
		h.sub = sub
		go h.run(events, sub.done)
	}
	h.users++
	return nil
}

// detach unregisters st (if it is still its session's stream here) and
// drops the broker subscription when no stream is left, waiting for the
// routing goroutine to return.
func (h *sessionHub) detach(st *legacyStream) {
	h.mu.Lock()
	if h.streams[st.key] == st {
		delete(h.streams, st.key)
	}
	sub := h.releaseLocked()
	h.mu.Unlock()
	sub.end()
}

// stream returns the stream of session key held here, or nil.
func (h *sessionHub) stream(key string) *legacyStream {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.streams[key]
}

// run routes events until the subscription ends.
func (h *sessionHub) run(events <-chan server.Event, done chan struct{}) {
	defer close(done)
	for ev := range events {
		h.route(ev)
	}
}

// route hands one event to the streams and requests it concerns.
func (h *sessionHub) route(ev server.Event) {
	switch ev.Kind {
	case server.EventToolsChanged, server.EventPromptsChanged, server.EventResourcesChanged, server.EventResourceUpdated:
		h.mu.Lock()
		for _, st := range h.streams {
			st.offer(ev)
		}
		h.mu.Unlock()
	case server.EventResync: // events may have been lost: every stream re-reads its record
		h.mu.Lock()
		for _, st := range h.streams {
			st.offer(ev)
		}
		h.mu.Unlock()
	case EventSession:
		switch ev.Op {
		case SessionClosed:
			if st := h.stream(ev.Key); st != nil {
				st.stop(false)
			}
			h.s.sessions.forget(ev.Key)
		case SessionTakeover:
			// Ref names the new stream with its instance: a resumed stream
			// keeps its id, and takes over from its previous holder too.
			if st := h.stream(ev.Key); st != nil && h.s.instance+"/"+st.id != ev.Ref {
				st.stop(true)
			}
		case SessionSubs:
			if st := h.stream(ev.Key); st != nil {
				st.offer(ev)
			}
		case SessionAnswer:
			h.wake(ev.Key, ev.Ref)
		case SessionCancel:
			var id protocol.RequestId
			if protocol.Unmarshal([]byte(ev.Ref), &id) == nil {
				h.s.sessions.cancel(ev.Key, id)
			}
		}
	}
}
