package server

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"time"
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
	s              *Server
	principal, key string
	sse            *sseWriter
}

// storeErr marks a failure of the session store (503 for the call).
func storeErr(err error) error {
	return fmt.Errorf("server: session store: %w", err)
}

// prunePending drops the tombstones past their time and counts the
// requests still pending.
func prunePending(r *SessionRecord, now time.Time) int {
	n := 0
	for id, p := range r.Pending {
		switch {
		case p.State == pendingState:
			n++
		case now.After(p.Deadline.Add(tombstoneTTL)):
			delete(r.Pending, id)
		}
	}
	return n
}

func (b *httpBridge) register(ctx context.Context, reqs []bridgeRequest) error {
	s := b.s
	max := s.cfg.legacy.MaxOutstandingRequests
	_, err := s.cfg.legacy.Store.Update(ctx, b.principal, b.key, func(r *SessionRecord) error {
		if prunePending(r, time.Now())+len(reqs) > max {
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

func (b *httpBridge) send(msg []byte) bool { return b.sse.notify(msg) }

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
			b.sse.keepAlive() // a broken connection does not end the wait (§6.5)
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
	return out, nil
}

func (b *httpBridge) abandon(ctx context.Context, ids []string) []string {
	var left []string
	_, err := b.s.cfg.legacy.Store.Update(ctx, b.principal, b.key, func(r *SessionRecord) error {
		left = left[:0]
		for _, id := range ids {
			if p, ok := r.Pending[id]; ok && p.State == pendingState {
				p.State = abandonedState
				r.Pending[id] = p
				left = append(left, id)
			}
		}
		return nil
	})
	if err != nil {
		return nil // the session ended (nothing more is sent), or the store failed
	}
	return left
}

// sessionResponse serves a response POSTed in a session (S9, §6.4): 202
// for a pending id (its answer kept, the request flipped to answered, the
// waiter told), a repeated or a late one; 400 -32600 for an unknown id or
// a response that is not valid, which count towards MaxBadResponses.
func (s *Server) sessionResponse(ctx context.Context, rec *SessionRecord, m *rpcMessage) outcome {
	accepted := outcome{notification: true, status: http.StatusAccepted}
	bad := func(msg string) outcome {
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
			q.State = answeredState
			r.Pending[id] = q
			return nil
		}
		return errNoChange
	})
	switch {
	case err == nil:
	case errors.Is(err, errNoChange):
		return accepted // abandoned meanwhile: late
	case errors.Is(err, ErrSessionNotFound):
		return withStatus(s.errorOutcome(nil, invalidRequest(msgSessionNotFound)), http.StatusNotFound)
	default:
		return s.storeUnavailable(nil, "update", err)
	}
	s.hub.wake(rec.Key, id) // a waiter on this instance, at once
	_ = s.publish(Event{Kind: EventSession, Session: rec.Key, Op: SessionAnswer, Ref: id})
	return accepted
}

// msgUnknownResponse is S9's refusal of a response to no outstanding
// request.
const msgUnknownResponse = "Invalid Request: no outstanding request has this id"

// badResponse counts a bad response of the session and answers it 400
// -32600; past MaxBadResponses the session ends, as by a DELETE (§6.4).
func (s *Server) badResponse(ctx context.Context, rec *SessionRecord, msg string) outcome {
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
