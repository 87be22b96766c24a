package legacy

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"slices"
	"strings"
	"time"

	"github.com/mcpwire/mcpwire/server"
	"github.com/mcpwire/mcpwire/server/internal/httpwire"
)

// The input bridge on Streamable HTTP (docs/dual-era.md §6.4, §6.5): the
// server-to-client requests of a POST go out as SSE events of its response
// (which switches to SSE), with keep-alives while it waits; they are
// registered in the session's record (Pending), so that the client's
// answer, a POST of its own, may reach any instance. That instance keeps
// the answer with SessionStore.PutAnswer, flips the request to answered,
// and publishes EventSession{Op: answer}; the waiting instance is woken
// by its session hub, and also polls the store every PollInterval in case
// the event was lost.

// httpBridge is the inputChannel of one request of a stored session.
type httpBridge struct {
	s              *Era
	principal, key string
	sse            *httpwire.Stream
}

// storeErr marks a failure of the session store (503 for the call).
func storeErr(err error) error {
	return fmt.Errorf("legacy: session store: %w", err)
}

// prunePending drops the tombstones past their time and, past keep, the
// oldest others (earliest deadline first), and counts the requests still
// outstanding: pending, or answered with the answer not yet taken by its
// waiting round. Tombstones only let a repeated or late answer go
// uncounted; without the cap a client answering promptly would grow the
// record by a round's ids each round, for InputTimeout + tombstoneTTL
// (§9: pending entries are bounded). A dropped tombstone's late answer is
// then a bad response.
func prunePending(r *SessionRecord, now time.Time, keep int) int {
	n := 0
	var tombs []string
	for id, p := range r.Pending {
		switch {
		case p.State == pendingState:
			n++
		case now.After(p.Deadline.Add(tombstoneTTL)):
			delete(r.Pending, id) // its answer, if any, expired with it
		case p.AnswerBytes > 0:
			n++
		default:
			tombs = append(tombs, id)
		}
	}
	if len(tombs) > keep {
		slices.SortFunc(tombs, func(a, b string) int {
			if c := r.Pending[a].Deadline.Compare(r.Pending[b].Deadline); c != 0 {
				return c
			}
			return strings.Compare(a, b)
		})
		for _, id := range tombs[:len(tombs)-keep] {
			delete(r.Pending, id)
		}
	}
	return n
}

// answerBytes is the sum of the answers a session's store holds.
func answerBytes(r *SessionRecord) int64 {
	var n int64
	for _, p := range r.Pending {
		n += p.AnswerBytes
	}
	return n
}

func (b *httpBridge) register(ctx context.Context, reqs []bridgeRequest) error {
	s := b.s
	max := s.cfg.legacy.MaxOutstandingRequests
	_, err := s.cfg.legacy.Store.Update(ctx, b.principal, b.key, func(r *SessionRecord) error {
		if prunePending(r, time.Now(), max)+len(reqs) > max {
			return errTooManyOutstanding
		}
		for _, q := range reqs {
			if _, dup := r.Pending[q.id]; dup {
				return errDuplicateInputID
			}
		}
		if r.Pending == nil {
			r.Pending = map[string]PendingRequest{}
		}
		for _, q := range reqs {
			r.Pending[q.id] = PendingRequest{Method: q.method, Key: q.key, Instance: s.instance, Deadline: q.deadline, State: pendingState}
		}
		return nil
	})
	switch {
	case err == nil, errors.Is(err, errTooManyOutstanding), errors.Is(err, errDuplicateInputID):
		return err
	case errors.Is(err, ErrSessionNotFound):
		return errSessionEnded
	}
	return storeErr(err)
}

func (b *httpBridge) send(msg []byte) bool { return b.sse.Notify(msg) }

func (b *httpBridge) wait(ctx context.Context, ids []string, deadline time.Time) (map[string][]byte, error) {
	s := b.s
	wake := make(chan struct{}, 1)
	defer s.hub.wait(b.key, ids, wake)()
	timer := time.NewTimer(time.Until(deadline))
	defer timer.Stop()
	poll := time.NewTicker(s.cfg.legacy.PollInterval)
	defer poll.Stop()
	var keepAlive <-chan time.Time
	if s.cfg.keepAlive > 0 {
		t := time.NewTicker(s.cfg.keepAlive)
		defer t.Stop()
		keepAlive = t.C
	}
	for {
		answers, err := b.collect(ctx, ids)
		if answers != nil || err != nil {
			return answers, err
		}
		select {
		case <-wake:
		case <-poll.C:
		case <-keepAlive:
			b.sse.KeepAlive() // a broken connection does not end the wait (§6.5)
		case <-ctx.Done():
			return nil, ctx.Err()
		case <-timer.C:
			return nil, errInputTimeout
		case <-s.closing:
			return nil, errShuttingDown
		}
	}
}

// collect reads the record and, once every id is answered, takes the
// answers; nil, nil while some are still pending.
func (b *httpBridge) collect(ctx context.Context, ids []string) (map[string][]byte, error) {
	st := b.s.cfg.legacy.Store
	rec, err := st.Get(ctx, b.principal, b.key)
	switch {
	case errors.Is(err, ErrSessionNotFound):
		return nil, errSessionEnded
	case err != nil:
		b.s.log.Warn("reading a session for the bridge's answers", "err", err)
		return nil, nil // polled again; the round's deadline bounds it
	}
	for _, id := range ids {
		if p, ok := rec.Pending[id]; !ok || p.State != answeredState {
			if !ok {
				return nil, errSessionEnded
			}
			return nil, nil
		}
	}
	out := make(map[string][]byte, len(ids))
	for _, id := range ids {
		payload, err := st.TakeAnswer(ctx, b.principal, b.key, id)
		if err != nil {
			if errors.Is(err, ErrNoAnswer) {
				// Taken by nobody else: the answer expired with its
				// session, or the store lost it.
				return nil, errSessionEnded
			}
			b.s.log.Warn("taking a bridge answer", "err", err)
			return nil, nil
		}
		out[id] = payload
	}
	// The answers are taken: the entries become tombstones, and their bytes
	// no longer count towards MaxAnswerBytes.
	if _, err := st.Update(ctx, b.principal, b.key, func(r *SessionRecord) error {
		for _, id := range ids {
			if p, ok := r.Pending[id]; ok && p.AnswerBytes != 0 {
				p.AnswerBytes = 0
				r.Pending[id] = p
			}
		}
		return nil
	}); err != nil && !errors.Is(err, ErrSessionNotFound) {
		b.s.log.Warn("releasing taken bridge answers", "err", err) // they expire at Deadline + tombstoneTTL
	}
	return out, nil
}

func (b *httpBridge) abandon(ctx context.Context, ids []string) []string {
	var left, held []string
	st := b.s.cfg.legacy.Store
	_, err := st.Update(ctx, b.principal, b.key, func(r *SessionRecord) error {
		left, held = left[:0], held[:0]
		for _, id := range ids {
			p, ok := r.Pending[id]
			switch {
			case !ok:
			case p.State == pendingState:
				p.State = abandonedState
				r.Pending[id] = p
				left = append(left, id)
			case p.AnswerBytes != 0:
				p.AnswerBytes = 0 // the round is over: its answers go
				r.Pending[id] = p
				held = append(held, id)
			}
		}
		return nil
	})
	if err != nil {
		return nil // the session ended (nothing more is sent), or the store failed
	}
	for _, id := range held {
		if _, err := st.TakeAnswer(ctx, b.principal, b.key, id); err != nil && !errors.Is(err, ErrNoAnswer) {
			b.s.log.Warn("dropping an abandoned round's answer", "err", err)
		}
	}
	return left
}

// sessionResponse serves a response POSTed in a session (S9, §6.4): 202
// for a pending id (its answer kept, the request flipped to answered, the
// waiter told), a repeated or a late one; 400 -32600 for an unknown id or
// a response that is not valid, which count towards MaxBadResponses.
func (s *Era) sessionResponse(ctx context.Context, rec *SessionRecord, m *rpcMessage) server.Outcome {
	accepted := server.Outcome{Notification: true, Status: http.StatusAccepted}
	bad := func(msg string) server.Outcome {
		return s.badResponse(ctx, rec, msg)
	}
	if !m.hasID || m.badResponse {
		return bad("Invalid Request: not a valid response")
	}
	if !m.id.IsString() {
		return bad(msgUnknownResponse)
	}
	id := m.id.Str()
	p, ok := rec.Pending[id]
	if ok && p.State != pendingState && time.Now().After(p.Deadline.Add(tombstoneTTL)) {
		ok = false
	}
	switch {
	case !ok:
		return bad(msgUnknownResponse)
	case p.State != pendingState:
		return accepted // a repeat or a late answer: dropped, not counted
	}
	size, limit := int64(len(m.raw)), s.cfg.legacy.MaxAnswerBytes
	if answerBytes(rec)+size > limit {
		return s.answerTooLarge(ctx, rec, limit)
	}
	st := s.cfg.legacy.Store
	ttl := time.Until(p.Deadline.Add(tombstoneTTL))
	switch err := st.PutAnswer(ctx, rec.Principal, rec.Key, id, m.raw, ttl); {
	case errors.Is(err, ErrAnswerExists):
		return accepted // the first answer wins
	case errors.Is(err, ErrSessionNotFound):
		return withStatus(s.errorOutcome(nil, invalidRequest(msgSessionNotFound)), http.StatusNotFound)
	case err != nil:
		return s.storeUnavailable(nil, "put answer", err)
	}
	_, err := st.Update(ctx, rec.Principal, rec.Key, func(r *SessionRecord) error {
		if q, ok := r.Pending[id]; ok && q.State == pendingState {
			if answerBytes(r)+size > limit {
				return errAnswerBytes
			}
			q.State, q.AnswerBytes = answeredState, size
			r.Pending[id] = q
			return nil
		}
		return errNotPending
	})
	if err != nil {
		// Not recorded: the answer kept above goes (the request stays
		// pending when over the limit).
		if _, terr := st.TakeAnswer(ctx, rec.Principal, rec.Key, id); terr != nil && !errors.Is(terr, ErrNoAnswer) && !errors.Is(terr, ErrSessionNotFound) {
			s.log.Warn("dropping an answer not recorded", "err", terr)
		}
	}
	switch {
	case err == nil:
	case errors.Is(err, errAnswerBytes):
		return s.answerTooLarge(ctx, rec, limit)
	case errors.Is(err, errNotPending):
		return accepted // abandoned meanwhile: late
	case errors.Is(err, ErrSessionNotFound):
		return withStatus(s.errorOutcome(nil, invalidRequest(msgSessionNotFound)), http.StatusNotFound)
	default:
		return s.storeUnavailable(nil, "update", err)
	}
	s.hub.wake(rec.Key, id) // a waiter on this instance, at once
	_ = s.publish(server.Event{Kind: EventSession, Key: rec.Key, Op: SessionAnswer, Ref: id})
	return accepted
}

// errNotPending: the request an answer is for is no longer pending.
var errNotPending = errors.New("legacy: the request is not pending")

// errAnswerBytes: an answer would take a session's answers past
// MaxAnswerBytes.
var errAnswerBytes = errors.New("legacy: the session's answers exceed MaxAnswerBytes")

// answerTooLarge refuses an answer that would take the session's answers
// held past MaxAnswerBytes: 413 -32600, counted as a bad response; the
// request stays pending (a smaller answer may still come).
func (s *Era) answerTooLarge(ctx context.Context, rec *SessionRecord, limit int64) server.Outcome {
	return withStatus(s.badResponse(ctx, rec, fmt.Sprintf("Invalid Request: the answers held for this session would exceed %d bytes", limit)), http.StatusRequestEntityTooLarge)
}

// msgUnknownResponse is S9's refusal of a response to no outstanding
// request.
const msgUnknownResponse = "Invalid Request: no outstanding request has this id"

// badResponse counts a bad response of the session and answers it 400
// -32600; past MaxBadResponses the session ends, as by a DELETE (§6.4).
func (s *Era) badResponse(ctx context.Context, rec *SessionRecord, msg string) server.Outcome {
	out := s.errorOutcome(nil, invalidRequest(msg))
	st := s.cfg.legacy.Store
	max := s.cfg.legacy.MaxBadResponses
	over := false
	_, err := st.Update(ctx, rec.Principal, rec.Key, func(r *SessionRecord) error {
		r.BadResponses++
		over = r.BadResponses > max
		return nil
	})
	if err != nil {
		s.log.Warn("counting a bad response", "err", err)
		return out
	}
	if over {
		s.log.Warn("ending a legacy session: too many bad responses", "limit", max)
		if err := st.Delete(ctx, rec.Principal, rec.Key); err != nil && !errors.Is(err, ErrSessionNotFound) {
			s.log.Error("ending a legacy session", "err", err)
			return out
		}
		s.sessionEnded(rec.Key)
	}
	return out
}
