package server

import (
	"context"
	"time"
)

// Bounds of the legacy requests running detached from their connection
// (docs/dual-era.md §4.8 "Running detached", §8, §9): how many a session
// and this instance hold (LegacyConfig.MaxDetachedPerSession,
// MaxDetached), and their end at the session's end.

// detachedContext is the context of a resumable request: detached from
// the connection, and ending at the session's MaxLifetime (its ExpiresAt),
// so that no request outlives its session. The idle end is checked at
// each lease renewal (streamLog.checkSession).
func (s *Server) detachedContext(parent context.Context, rec *SessionRecord) (context.Context, context.CancelFunc) {
	base := context.WithoutCancel(parent)
	if rec.ExpiresAt.IsZero() {
		return context.WithCancel(base)
	}
	// The session clock may be the server's own (tests): the deadline is
	// the time left on it.
	return context.WithDeadline(base, time.Now().Add(rec.ExpiresAt.Sub(s.now())))
}

// detachLocked takes a slot of the detached bounds for the request of l
// before its connection is let go; false: the bounds are full, and the
// request stays attached.
func (l *streamLog) detachLocked() bool {
	if l.detached {
		return true
	}
	if !l.s.logs.detach(l.session, l.s.cfg.legacy.MaxDetachedPerSession, l.s.cfg.legacy.MaxDetached) {
		return false
	}
	l.detached = true
	return true
}

// undetachLocked gives the slot back (the request ended).
func (l *streamLog) undetachLocked() {
	if l.detached {
		l.detached = false
		l.s.logs.undetach(l.session)
	}
}

// detachedCounts counts the detached requests of this instance, by
// session and in all.
type detachedCounts struct {
	bySession map[string]int
	all       int
}

// detach takes a slot for a request of session unless the session holds
// perSession or the instance total (limits <= 0: none).
func (r *streamLogs) detach(session string, perSession, total int) bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	d := &r.detached
	if perSession > 0 && d.bySession[session] >= perSession || total > 0 && d.all >= total {
		return false
	}
	if d.bySession == nil {
		d.bySession = map[string]int{}
	}
	d.bySession[session]++
	d.all++
	return true
}

func (r *streamLogs) undetach(session string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	d := &r.detached
	if d.bySession[session]--; d.bySession[session] <= 0 {
		delete(d.bySession, session)
	}
	d.all--
}

// detachedLen is how many requests run detached here (tests).
func (r *streamLogs) detachedLen() int {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.detached.all
}
