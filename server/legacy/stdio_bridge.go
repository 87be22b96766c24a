package legacy

import (
	"context"
	"slices"
	"strings"
	"sync"
	"time"
)

// The input bridge on stdio (docs/dual-era.md §5, §6): the legacy session
// of the process is the inputChannel of its requests. Server-to-client
// requests are stdout lines; their responses are stdin lines (T9), routed
// by the read loop itself (no WithMaxConcurrent slot taken, so a full
// server cannot block the answer a running handler waits for) to the
// pending request with that id. The pending requests live under the
// session's lock, never in a SessionStore.

// stdioBridge is the bridge state of a stdio legacy session.
type stdioBridge struct {
	mu      sync.Mutex
	pending map[string]*stdioPending
	bad     int // responses that answered nothing (MaxBadResponses)

	over     chan struct{} // closed when the legacy session ends
	overOnce sync.Once
}

// stdioPending is one server-to-client request of the session: pending
// until answered, then a tombstone (answered or abandoned) until its
// deadline plus tombstoneTTL, so that a repeat or a late answer is
// dropped quietly.
type stdioPending struct {
	method, key string
	deadline    time.Time
	state       string
	payload     []byte        // the response message, until the waiter takes it
	wake        chan struct{} // the round's waiter (buffered 1)
}

func newStdioBridge() stdioBridge {
	return stdioBridge{pending: map[string]*stdioPending{}, over: make(chan struct{})}
}

// closeBridge ends every wait of the session (end of input, a bad-response
// flood): they end without sending anything more.
func (ss *stdioSession) closeBridge() {
	ss.b.overOnce.Do(func() { close(ss.b.over) })
}

// ended reports whether the legacy session ended (a bad-response flood).
func (ss *stdioSession) ended() bool {
	select {
	case <-ss.b.over:
		return true
	default:
		return false
	}
}

func (ss *stdioSession) register(_ context.Context, reqs []bridgeRequest) error {
	b := &ss.b
	b.mu.Lock()
	defer b.mu.Unlock()
	if ss.ended() {
		return errSessionEnded
	}
	max := ss.c.s.cfg.legacy.MaxOutstandingRequests
	if b.prune(time.Now(), max)+len(reqs) > max {
		return errTooManyOutstanding
	}
	for _, q := range reqs {
		if _, dup := b.pending[q.id]; dup {
			return errDuplicateInputID
		}
	}
	wake := make(chan struct{}, 1)
	for _, q := range reqs {
		b.pending[q.id] = &stdioPending{method: q.method, key: q.key, deadline: q.deadline, state: pendingState, wake: wake}
	}
	return nil
}

// prune drops the tombstones past their time and, past keep, the oldest
// others (earliest deadline first), as prunePending does for HTTP, and
// counts the requests still outstanding (pending, or answered with the
// answer not yet taken). b.mu is held.
func (b *stdioBridge) prune(now time.Time, keep int) int {
	n := 0
	var tombs []string
	for id, p := range b.pending {
		switch {
		case p.state == pendingState:
			n++
		case now.After(p.deadline.Add(tombstoneTTL)):
			delete(b.pending, id)
		case p.payload != nil:
			n++ // answered, its round still waiting
		default:
			tombs = append(tombs, id)
		}
	}
	if len(tombs) > keep {
		slices.SortFunc(tombs, func(x, y string) int {
			if c := b.pending[x].deadline.Compare(b.pending[y].deadline); c != 0 {
				return c
			}
			return strings.Compare(x, y)
		})
		for _, id := range tombs[:len(tombs)-keep] {
			delete(b.pending, id)
		}
	}
	return n
}

func (ss *stdioSession) send(msg []byte) bool { return ss.c.Out.Write(msg) }

func (ss *stdioSession) wait(ctx context.Context, ids []string, deadline time.Time) (map[string][]byte, error) {
	b := &ss.b
	b.mu.Lock()
	p := b.pending[ids[0]]
	b.mu.Unlock()
	if p == nil {
		return nil, errSessionEnded
	}
	timer := time.NewTimer(time.Until(deadline))
	defer timer.Stop()
	for {
		if answers := ss.collect(ids); answers != nil {
			return answers, nil
		}
		select {
		case <-p.wake:
		case <-ctx.Done():
			return nil, ctx.Err()
		case <-timer.C:
			return nil, errInputTimeout
		case <-ss.c.s.closing:
			return nil, errShuttingDown
		case <-b.over:
			return nil, errSessionEnded
		}
	}
}

// collect returns the answers to ids once every one has one (nil before),
// and lets go of them: the entries stay as answered tombstones.
func (ss *stdioSession) collect(ids []string) map[string][]byte {
	b := &ss.b
	b.mu.Lock()
	defer b.mu.Unlock()
	for _, id := range ids {
		if p := b.pending[id]; p == nil || p.state != answeredState || p.payload == nil {
			return nil
		}
	}
	out := make(map[string][]byte, len(ids))
	for _, id := range ids {
		p := b.pending[id]
		out[id], p.payload = p.payload, nil
	}
	return out
}

func (ss *stdioSession) abandon(_ context.Context, ids []string) []string {
	b := &ss.b
	b.mu.Lock()
	defer b.mu.Unlock()
	var left []string
	for _, id := range ids {
		if p := b.pending[id]; p != nil {
			if p.state == pendingState {
				p.state = abandonedState
				left = append(left, id)
			}
			p.payload = nil
		}
	}
	return left
}

// answer routes a response line of the session (T9, §6.4), in the read
// loop: to its pending request; a repeat or a late answer is dropped; an
// unknown id or a response without one is dropped and counted, and past
// MaxBadResponses the legacy session ends. A response is never answered.
func (ss *stdioSession) answer(m *rpcMessage) {
	b := &ss.b
	log := ss.c.s.log
	if !m.hasID || m.badResponse {
		ss.badResponse("not a valid response")
		return
	}
	if !m.id.IsString() {
		ss.badResponse("a response to no outstanding request")
		return
	}
	id := m.id.Str()
	b.mu.Lock()
	p := b.pending[id]
	if p != nil && p.state != pendingState && time.Now().After(p.deadline.Add(tombstoneTTL)) {
		delete(b.pending, id)
		p = nil
	}
	switch {
	case p == nil:
		b.mu.Unlock()
		ss.badResponse("a response to no outstanding request")
	case p.state == pendingState && b.held()+int64(len(m.raw)) > ss.c.s.cfg.legacy.MaxAnswerBytes:
		b.mu.Unlock()
		ss.badResponse("an answer past MaxAnswerBytes") // the request stays pending
	case p.state == pendingState:
		p.state, p.payload = answeredState, m.raw // readLine allocates each line
		select {
		case p.wake <- struct{}{}:
		default:
		}
		b.mu.Unlock()
	default:
		state := p.state
		b.mu.Unlock()
		log.Debug("dropping a repeated or late response", "id", id, "state", state)
	}
}

// held is the bytes of the answers kept until their rounds take them.
// b.mu is held.
func (b *stdioBridge) held() int64 {
	var n int64
	for _, p := range b.pending {
		n += int64(len(p.payload))
	}
	return n
}

// badResponse counts a response that answered nothing, and ends the
// legacy session past MaxBadResponses (the stream stays open for modern
// requests).
func (ss *stdioSession) badResponse(why string) {
	b := &ss.b
	s := ss.c.s
	b.mu.Lock()
	b.bad++
	over := b.bad > s.cfg.legacy.MaxBadResponses
	b.mu.Unlock()
	s.log.Debug("dropping a response", "why", why)
	if over && !ss.ended() {
		s.log.Warn("ending the legacy stdio session: too many bad responses", "limit", s.cfg.legacy.MaxBadResponses)
		ss.end()
	}
}
