package legacy

// Followers of a request's POST stream (docs/dual-era.md §4.8 cases 1–3):
// a GET with Last-Event-ID naming a running request's stream follows it
// until its response. A stream has at most one follower on an instance: a
// new resume takes it over, and the previous one ends with the retry
// field, as the standalone stream's take-over does. Followers on other
// instances are not seen here (each instance holds at most one per
// stream).

// follower is one GET following a stream; taken is closed when another
// resume takes the stream over.
type follower struct{ taken chan struct{} }

// follow makes the caller the follower of the stream of session, ending
// the previous one; release forgets it (when it ends).
func (r *streamLogs) follow(session, stream string) (taken <-chan struct{}, release func()) {
	k := session + "/" + stream
	f := &follower{taken: make(chan struct{})}
	r.mu.Lock()
	if r.followers == nil {
		r.followers = map[string]*follower{}
	}
	if old := r.followers[k]; old != nil {
		close(old.taken)
	}
	r.followers[k] = f
	r.mu.Unlock()
	return f.taken, func() {
		r.mu.Lock()
		if r.followers[k] == f {
			delete(r.followers, k)
		}
		r.mu.Unlock()
	}
}

// followersLen is how many followers are registered here (tests).
func (r *streamLogs) followersLen() int {
	r.mu.Lock()
	defer r.mu.Unlock()
	return len(r.followers)
}
