package legacy

import (
	"context"
	"time"
)

// Bounds of the legacy requests running detached from their connection
// (docs/dual-era.md §4.8 "Running detached", §8, §9): how many a session
// and this instance hold (Config.MaxDetachedPerSession,
// MaxDetached), and their end at the session's end.

// detachedContext is the context of a resumable request: detached from
// the connection, so that the request can go on once the connection is
// let go. While the request is attached its connection bounds it; once
// it detaches, detachLocked arms a timer that cancels it at the
// session's MaxLifetime (its ExpiresAt), so that no request outlives its
// session, and the idle end is checked at each lease renewal
// (streamLog.checkSession). The timer is armed only on detaching: an
// attached request, the common case, pays for no timer.
func (s *Era) detachedContext(parent context.Context) (context.Context, context.CancelFunc) {
	return context.WithCancel(context.WithoutCancel(parent))
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
	if l.cancel != nil && !l.expiresAt.IsZero() {
		// The session clock may be the server's own (tests): the timer
		// runs for the time left on it.
		l.expiry = time.AfterFunc(l.expiresAt.Sub(l.s.now()), l.cancel)
	}
	return true
}

// undetachLocked gives the slot back (the request ended).
func (l *streamLog) undetachLocked() {
	if l.detached {
		l.detached = false
		l.s.logs.undetach(l.session)
		if l.expiry != nil {
			l.expiry.Stop()
			l.expiry = nil
		}
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
