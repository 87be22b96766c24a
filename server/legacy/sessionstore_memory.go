package legacy

import (
	"context"
	"errors"
	"slices"
	"sync"
	"time"
)

// MemorySessionStore is the default SessionStore: sessions in memory,
// forgotten once expired. It serves one instance only: behind a load
// balancer without a shared store, a session made on one instance is 404
// on another and the client starts over with initialize.
type MemorySessionStore struct {
	now func() time.Time

	mu sync.Mutex
	// sessions holds records that are never changed once stored: Update
	// and Touch store a changed copy, so that shared can hand one out.
	sessions  map[string]*SessionRecord
	byScope   map[quotaScope]map[string]struct{} // the keys PerPrincipal counts together
	answers   map[string]map[string]memoryAnswer // by session key, then request id
	lastSweep time.Time
	initBytes int64 // the initialize data of sessions (SessionLimits.TotalInitBytes)
}

type memoryAnswer struct {
	principal string
	payload   []byte
	until     time.Time
}

// NewMemorySessionStore returns an empty in-memory session store.
func NewMemorySessionStore() *MemorySessionStore {
	return &MemorySessionStore{
		now:      time.Now,
		sessions: map[string]*SessionRecord{},
		byScope:  map[quotaScope]map[string]struct{}{},
		answers:  map[string]map[string]memoryAnswer{},
	}
}

// Len returns how many records the store holds, expired ones not yet
// forgotten included.
func (m *MemorySessionStore) Len() int {
	m.mu.Lock()
	defer m.mu.Unlock()
	return len(m.sessions)
}

// memorySweepEvery is how often Create sweeps expired records out.
const memorySweepEvery = 30 * time.Second

// quotaScope is what the session limit counts by: principal and quota
// key.
type quotaScope struct{ principal, key string }

func sessionScope(r *SessionRecord) quotaScope { return quotaScope{r.Principal, r.QuotaKey} }

// netScope is the scope of SessionLimits.PerNet for the network net: a
// key no QuotaKey can be (a client key holds no NUL).
func netScope(principal, net string) quotaScope { return quotaScope{principal, "\x00net:" + net} }

// scopes are every scope r counts in: its quota key's and its networks'.
func scopes(r *SessionRecord) []quotaScope {
	s := []quotaScope{sessionScope(r)}
	for _, n := range r.QuotaNets {
		s = append(s, netScope(r.Principal, n))
	}
	return s
}

// Create implements SessionStore.
func (m *MemorySessionStore) Create(_ context.Context, rec *SessionRecord, lim SessionLimits) ([]string, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	now := m.now()
	if now.Sub(m.lastSweep) >= memorySweepEvery || lim.Total > 0 && len(m.sessions) >= lim.Total {
		m.sweep(now)
		m.lastSweep = now
	}
	if _, dup := m.sessions[rec.Key]; dup {
		return nil, errors.New("legacy: duplicate session key")
	}
	all := scopes(rec)
	limits := []int{lim.PerPrincipal}
	for i := range rec.QuotaNets {
		n := 0
		if i < len(lim.PerNet) {
			n = lim.PerNet[i]
		}
		limits = append(limits, n)
	}
	var evict []*SessionRecord
	for i, scope := range all {
		if e := m.evictIn(scope, limits[i], evict, now); e != nil {
			evict = append(evict, e)
		}
	}
	if lim.Total > 0 && len(m.sessions)-len(evict) >= lim.Total {
		return nil, ErrSessionLimit
	}
	if lim.TotalInitBytes > 0 {
		held := func() int64 {
			n := m.initBytes
			for _, e := range evict {
				n -= int64(initBytes(e))
			}
			return n
		}
		if held()+int64(initBytes(rec)) > lim.TotalInitBytes {
			m.sweep(now) // never removes what evict holds: those are live
			if held()+int64(initBytes(rec)) > lim.TotalInitBytes {
				return nil, ErrSessionLimit
			}
		}
	}
	var evicted []string
	for _, e := range evict {
		m.remove(e)
		evicted = append(evicted, e.Key)
	}
	for _, scope := range all {
		ids := m.byScope[scope]
		if ids == nil {
			ids = map[string]struct{}{}
			m.byScope[scope] = ids
		}
		ids[rec.Key] = struct{}{}
	}
	m.sessions[rec.Key] = rec.Clone()
	m.initBytes += int64(initBytes(rec))
	return evicted, nil
}

// evictIn returns the live session of scope with the earliest IdleUntil,
// not one of chosen, when the scope holds limit live sessions besides
// chosen (nil under it, or when limit is zero or less). Ended sessions it
// meets are forgotten.
func (m *MemorySessionStore) evictIn(scope quotaScope, limit int, chosen []*SessionRecord, now time.Time) *SessionRecord {
	if limit <= 0 {
		return nil
	}
	var evict *SessionRecord
	n := 0
	for k := range m.byScope[scope] {
		r := m.sessions[k]
		if !r.live(now) {
			m.remove(r)
			continue
		}
		if slices.Contains(chosen, r) {
			continue
		}
		n++
		if evict == nil || r.IdleUntil.Before(evict.IdleUntil) {
			evict = r
		}
	}
	if n < limit {
		return nil
	}
	return evict
}

// Get implements SessionStore.
func (m *MemorySessionStore) Get(_ context.Context, principal, key string) (*SessionRecord, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	r, err := m.lookup(principal, key)
	if err != nil {
		return nil, err
	}
	return r.Clone(), nil
}

// shared is Get without the copy, for the server's own reads: the record
// is the stored one, which the store never changes, and which the caller
// must not change either.
func (m *MemorySessionStore) shared(principal string, key []byte) (*SessionRecord, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	r, ok := m.sessions[string(key)] // no string made
	return m.checked(r, ok, principal)
}

// Touch implements SessionStore.
func (m *MemorySessionStore) Touch(_ context.Context, principal, key string, idleUntil time.Time) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	r, err := m.lookup(principal, key)
	if err != nil {
		return err
	}
	if idleUntil.After(r.ExpiresAt) {
		idleUntil = r.ExpiresAt
	}
	if idleUntil.After(r.IdleUntil) {
		c := *r // its Subscriptions and Pending are never changed in place either
		c.IdleUntil = idleUntil
		m.sessions[key] = &c
	}
	return nil
}

// Update implements SessionStore.
func (m *MemorySessionStore) Update(_ context.Context, principal, key string, fn func(*SessionRecord) error) (*SessionRecord, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	r, err := m.lookup(principal, key)
	if err != nil {
		return nil, err
	}
	c := r.Clone()
	if err := fn(c); err != nil {
		return nil, err
	}
	c.Key, c.Principal, c.QuotaKey, c.QuotaNets, c.CreatedAt, c.ExpiresAt = r.Key, r.Principal, r.QuotaKey, r.QuotaNets, r.CreatedAt, r.ExpiresAt
	c.Version = r.Version + 1
	m.sessions[key] = c
	m.initBytes += int64(initBytes(c) - initBytes(r))
	return c.Clone(), nil
}

// Delete implements SessionStore.
func (m *MemorySessionStore) Delete(_ context.Context, principal, key string) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	r, err := m.lookup(principal, key)
	if err != nil {
		return err
	}
	m.remove(r)
	return nil
}

// PutAnswer implements SessionStore.
func (m *MemorySessionStore) PutAnswer(_ context.Context, principal, key, reqID string, payload []byte, ttl time.Duration) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	if _, err := m.lookup(principal, key); err != nil {
		return err
	}
	now := m.now()
	as := m.answers[key]
	if a, ok := as[reqID]; ok && now.Before(a.until) {
		return ErrAnswerExists
	}
	if as == nil {
		as = map[string]memoryAnswer{}
		m.answers[key] = as
	}
	as[reqID] = memoryAnswer{principal: principal, payload: slices.Clone(payload), until: now.Add(ttl)}
	return nil
}

// TakeAnswer implements SessionStore.
func (m *MemorySessionStore) TakeAnswer(_ context.Context, principal, key, reqID string) ([]byte, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	as := m.answers[key]
	a, ok := as[reqID]
	if !ok || a.principal != principal {
		return nil, ErrNoAnswer
	}
	delete(as, reqID)
	if len(as) == 0 {
		delete(m.answers, key)
	}
	if !m.now().Before(a.until) {
		return nil, ErrNoAnswer
	}
	return a.payload, nil
}

// lookup returns the live record of principal, forgetting it if it
// expired.
func (m *MemorySessionStore) lookup(principal, key string) (*SessionRecord, error) {
	r, ok := m.sessions[key]
	return m.checked(r, ok, principal)
}

// checked is lookup's verdict on the record r found (ok) under a key.
func (m *MemorySessionStore) checked(r *SessionRecord, ok bool, principal string) (*SessionRecord, error) {
	if !ok || r.Principal != principal {
		return nil, ErrSessionNotFound
	}
	if !r.live(m.now()) {
		m.remove(r)
		return nil, ErrSessionNotFound
	}
	return r, nil
}

// sweep forgets expired sessions and answers.
func (m *MemorySessionStore) sweep(now time.Time) {
	for _, r := range m.sessions {
		if !r.live(now) {
			m.remove(r)
		}
	}
	for key, as := range m.answers {
		for id, a := range as {
			if !now.Before(a.until) {
				delete(as, id)
			}
		}
		if len(as) == 0 {
			delete(m.answers, key)
		}
	}
}

// remove forgets a record, its index entry and its answers.
func (m *MemorySessionStore) remove(r *SessionRecord) {
	if _, ok := m.sessions[r.Key]; ok {
		m.initBytes -= int64(initBytes(m.sessions[r.Key]))
	}
	delete(m.sessions, r.Key)
	for _, scope := range scopes(r) {
		if ids := m.byScope[scope]; ids != nil {
			delete(ids, r.Key)
			if len(ids) == 0 {
				delete(m.byScope, scope)
			}
		}
	}
	delete(m.answers, r.Key)
}
