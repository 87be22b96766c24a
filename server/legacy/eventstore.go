package legacy

import (
	clist "container/list"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"sync"
	"time"
)

// The event logs of legacy SSE streams (docs/dual-era.md §4.8, §7.2): what
// a client that lost its connection receives again when it reconnects with
// Last-Event-ID.
//
// The interface is the one of docs/dual-era.md §7.2, with these
// precisions (none changes a signature):
//
//   - Open makes the stream when it is new; on an existing stream (the
//     take-over of a standalone stream, which continues from Last+1) it
//     replaces RequestID, Owner and LeaseUntil, clears Done and keeps the
//     events. Oldest and Last of m are ignored: a new stream starts with
//     Oldest 1 and Last 0 (the priming event, never stored, is seq 0).
//     When the session holds lim.MaxStreams other streams, the one whose
//     last event is the oldest is deleted first.
//   - Append refuses a Seq that is not greater than Last; past
//     lim.MaxEvents or lim.MaxBytes it drops the oldest events (Oldest
//     moves up). Each Open, Append and Renew keeps the stream for at least
//     lim.Retention more (and Renew until at least leaseUntil); Finish sets
//     Done and keeps it until keepUntil; then everything of it is deleted.
//   - Read returns the events with Seq > after, at most max (max <= 0: all
//     retained), in order, and the stream's meta. ErrStreamNotFound: no
//     such stream of this session and principal (another session's or
//     another principal's is indistinguishable); ErrEventsTruncated: an
//     event after `after` was dropped (after+1 < Oldest), with the meta.
//   - Every method is safe for concurrent use; one writer per stream.

// Errors of an EventStore.
var (
	// ErrStreamNotFound: the session has no such stream (never opened,
	// expired, deleted, or another session's).
	ErrStreamNotFound = errors.New("legacy: event stream not found")
	// ErrEventsTruncated: events after the one asked for are no longer
	// kept.
	ErrEventsTruncated = errors.New("legacy: events no longer kept")
	// ErrSeqOrder: Append was given a Seq not above the stream's Last.
	ErrSeqOrder = errors.New("legacy: event seq out of order")
)

// StoredEvent is one event of a stream's log.
type StoredEvent struct {
	// Seq is the event's number within its stream (the <seq> of its id).
	Seq int64 `json:"seq"`
	// Data is the SSE data line: one JSON-RPC message.
	Data []byte `json:"data"`
}

// StreamMeta is what is kept about one stream besides its events.
type StreamMeta struct {
	// RequestID is the JSON-RPC id of the request whose POST stream this
	// is, as JSON; empty for the standalone GET stream.
	RequestID json.RawMessage `json:"requestId,omitempty"`
	// Owner names the instance writing the stream (the one running the
	// request, or holding the standalone stream).
	Owner string `json:"owner"`
	// LeaseUntil is when the owner's lease ends unless renewed: a POST
	// stream not Done whose lease has passed belongs to an instance that
	// stopped.
	LeaseUntil time.Time `json:"leaseUntil"`
	// Done: the response was written (POST stream) or the stream ended.
	Done bool `json:"done"`
	// Oldest is the Seq of the oldest retained event (Last+1 when none is
	// retained); Last the Seq of the newest event written (0: none).
	Oldest int64 `json:"oldest"`
	Last   int64 `json:"last"`
	// Scopes are those the request's operation needs (RequireScopes and
	// the like): a GET resuming the stream must carry a token with them
	// (R-AUTH-08). Empty for the standalone stream.
	Scopes []string `json:"scopes,omitempty"`
}

// ReplayLimits bound what an EventStore keeps for a session's streams.
// Zero or less is no limit.
type ReplayLimits struct {
	// MaxEvents and MaxBytes bound one stream's retained events (the
	// bytes of their Data); past them the oldest are dropped.
	MaxEvents int
	MaxBytes  int64
	// MaxStreams bounds the streams kept per session: opening one more
	// deletes the one with the oldest last event.
	MaxStreams int
	// Retention is how long a stream is kept after its last write.
	Retention time.Duration
}

// EventStore keeps the event logs of legacy SSE streams, so that a client
// reconnecting with Last-Event-ID, on any instance sharing the store, gets
// what it missed. Every method is keyed by principal and session key: a
// stream of another session or principal is ErrStreamNotFound.
type EventStore interface {
	// Open makes the stream (or re-opens it for a new owner).
	Open(ctx context.Context, principal, session, stream string, m StreamMeta, lim ReplayLimits) error
	// Append adds ev (Seq strictly increasing) and drops the oldest events
	// past the limits.
	Append(ctx context.Context, principal, session, stream string, ev StoredEvent) error
	// Read returns the events after `after` (at most max) and the meta;
	// ErrStreamNotFound, ErrEventsTruncated.
	Read(ctx context.Context, principal, session, stream string, after int64, max int) ([]StoredEvent, StreamMeta, error)
	// Renew moves the owner's lease to leaseUntil.
	Renew(ctx context.Context, principal, session, stream string, leaseUntil time.Time) error
	// Finish marks the stream done and keeps it until keepUntil.
	Finish(ctx context.Context, principal, session, stream string, keepUntil time.Time) error
	// DeleteSession deletes every stream of the session.
	DeleteSession(ctx context.Context, principal, session string) error
}

// DefaultMemoryEventStoreBytes bounds the logs of a MemoryEventStore made
// with NewMemoryEventStore(0): 64 MiB.
const DefaultMemoryEventStoreBytes = 64 << 20

// MemoryEventStore is the default EventStore: logs in memory, bounded in
// all, serving one instance.
type MemoryEventStore struct {
	now      func() time.Time
	maxBytes int64

	mu       sync.Mutex
	bytes    int64
	sessions map[string]map[string]*memStream // by principal+session, then stream
	written  *clist.List                      // *memStream, least recently written first
	shares   map[string]*memShare             // bytes held, by principal (evict)
}

// memShare is what one principal holds in a MemoryEventStore: its bytes,
// and its sessions' bytes.
type memShare struct {
	bytes    int64
	sessions map[string]int64 // by principal+session
}

type memStream struct {
	principal string
	scope, id string
	meta      StreamMeta
	lim       ReplayLimits
	events    []StoredEvent
	bytes     int64
	lastWrite time.Time
	until     time.Time // deleted after
	elem      *clist.Element
}

// NewMemoryEventStore returns an empty in-memory event store holding at
// most maxBytes of event data in all (DefaultMemoryEventStoreBytes when
// maxBytes <= 0); past that, whole streams are dropped: of the principal
// holding the most bytes, then of its session holding the most, the least
// recently written first — so that one principal's (or session's) writes
// evict its own logs before anyone else's (docs/dual-era.md §9).
func NewMemoryEventStore(maxBytes int64) *MemoryEventStore {
	if maxBytes <= 0 {
		maxBytes = DefaultMemoryEventStoreBytes
	}
	return &MemoryEventStore{now: time.Now, maxBytes: maxBytes, sessions: map[string]map[string]*memStream{}, written: clist.New(), shares: map[string]*memShare{}}
}

func eventScope(principal, session string) string { return principal + "\x00" + session }

// Streams returns how many streams the store holds, expired ones not yet
// forgotten included; Bytes the event data they hold.
func (m *MemoryEventStore) Streams() int {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.written.Len()
}

// Bytes returns the event data the store holds.
func (m *MemoryEventStore) Bytes() int64 {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.bytes
}

// find returns a live stream, forgetting it when it expired.
func (m *MemoryEventStore) find(principal, session, stream string, now time.Time) *memStream {
	st := m.sessions[eventScope(principal, session)][stream]
	if st != nil && now.After(st.until) {
		m.drop(st)
		return nil
	}
	return st
}

func (m *MemoryEventStore) drop(st *memStream) {
	streams := m.sessions[st.scope]
	if streams[st.id] != st {
		return
	}
	delete(streams, st.id)
	if len(streams) == 0 {
		delete(m.sessions, st.scope)
	}
	m.written.Remove(st.elem)
	m.account(st, -st.bytes)
}

// sweep forgets a few expired streams, least recently written first.
func (m *MemoryEventStore) sweep(now time.Time) {
	for e, n := m.written.Front(), 0; e != nil && n < 16; n++ {
		next := e.Next()
		if st := e.Value.(*memStream); now.After(st.until) {
			m.drop(st)
		}
		e = next
	}
}

func (m *MemoryEventStore) keep(st *memStream, until time.Time) {
	if until.After(st.until) {
		st.until = until
	}
}

// Open implements EventStore.
func (m *MemoryEventStore) Open(_ context.Context, principal, session, stream string, meta StreamMeta, lim ReplayLimits) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	now := m.now()
	m.sweep(now)
	if st := m.find(principal, session, stream, now); st != nil {
		st.meta.RequestID, st.meta.Owner, st.meta.LeaseUntil, st.meta.Done = meta.RequestID, meta.Owner, meta.LeaseUntil, false
		st.meta.Scopes = slices.Clone(meta.Scopes)
		st.lim = lim
		m.keep(st, now.Add(lim.Retention))
		return nil
	}
	scope := eventScope(principal, session)
	streams := m.sessions[scope]
	if streams == nil {
		streams = map[string]*memStream{}
		m.sessions[scope] = streams
	}
	for lim.MaxStreams > 0 && len(streams) >= lim.MaxStreams {
		var oldest *memStream
		for _, st := range streams {
			if oldest == nil || st.lastWrite.Before(oldest.lastWrite) {
				oldest = st
			}
		}
		m.drop(oldest)
		if m.sessions[scope] == nil {
			m.sessions[scope] = streams
		}
	}
	st := &memStream{principal: principal, scope: scope, id: stream, lim: lim, lastWrite: now, until: now.Add(lim.Retention)}
	st.meta = StreamMeta{RequestID: meta.RequestID, Owner: meta.Owner, LeaseUntil: meta.LeaseUntil, Oldest: 1, Scopes: slices.Clone(meta.Scopes)}
	if lim.Retention <= 0 {
		st.until = now.Add(100 * 365 * 24 * time.Hour)
	}
	streams[stream] = st
	st.elem = m.written.PushBack(st)
	return nil
}

// Append implements EventStore.
func (m *MemoryEventStore) Append(_ context.Context, principal, session, stream string, ev StoredEvent) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	now := m.now()
	st := m.find(principal, session, stream, now)
	if st == nil {
		return ErrStreamNotFound
	}
	if ev.Seq <= st.meta.Last {
		return fmt.Errorf("%w: %d after %d", ErrSeqOrder, ev.Seq, st.meta.Last)
	}
	ev.Data = append([]byte(nil), ev.Data...)
	st.events = append(st.events, ev)
	m.account(st, int64(len(ev.Data)))
	st.meta.Last = ev.Seq
	for len(st.events) > 0 && (st.lim.MaxEvents > 0 && len(st.events) > st.lim.MaxEvents || st.lim.MaxBytes > 0 && st.bytes > st.lim.MaxBytes) {
		m.account(st, -int64(len(st.events[0].Data)))
		st.events[0] = StoredEvent{}
		st.events = st.events[1:]
	}
	if len(st.events) > 0 {
		st.meta.Oldest = st.events[0].Seq
	} else {
		st.meta.Oldest = st.meta.Last + 1
	}
	st.lastWrite = now
	if st.lim.Retention > 0 {
		m.keep(st, now.Add(st.lim.Retention))
	}
	m.written.MoveToBack(st.elem)
	for m.bytes > m.maxBytes {
		victim := m.evictee()
		if victim == nil {
			break
		}
		m.drop(victim)
		if victim == st {
			break
		}
	}
	return nil
}

// account adds n bytes (negative: removes) to st and to its principal's
// and session's shares.
func (m *MemoryEventStore) account(st *memStream, n int64) {
	st.bytes += n
	m.bytes += n
	sh := m.shares[st.principal]
	if sh == nil {
		sh = &memShare{sessions: map[string]int64{}}
		m.shares[st.principal] = sh
	}
	sh.bytes += n
	sh.sessions[st.scope] += n
	if sh.sessions[st.scope] <= 0 {
		delete(sh.sessions, st.scope)
	}
	if sh.bytes <= 0 {
		delete(m.shares, st.principal)
	}
}

// evictee is the stream dropped first when the store is over its bytes:
// of the principal holding the most, of its session holding the most, the
// least recently written one. It scans the principals and that one's
// sessions: the cost of an eviction, not of every write.
func (m *MemoryEventStore) evictee() *memStream {
	var top *memShare
	for _, sh := range m.shares {
		if top == nil || sh.bytes > top.bytes {
			top = sh
		}
	}
	if top == nil {
		return nil
	}
	var scope string
	var most int64 = -1
	for sc, n := range top.sessions {
		if n > most {
			scope, most = sc, n
		}
	}
	var victim *memStream
	for _, st := range m.sessions[scope] {
		if st.bytes > 0 && (victim == nil || st.lastWrite.Before(victim.lastWrite)) {
			victim = st
		}
	}
	return victim
}

// Read implements EventStore.
func (m *MemoryEventStore) Read(_ context.Context, principal, session, stream string, after int64, max int) ([]StoredEvent, StreamMeta, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	st := m.find(principal, session, stream, m.now())
	if st == nil {
		return nil, StreamMeta{}, ErrStreamNotFound
	}
	meta := st.meta
	meta.RequestID = append(json.RawMessage(nil), meta.RequestID...)
	if after+1 < meta.Oldest {
		return nil, meta, ErrEventsTruncated
	}
	var out []StoredEvent
	for _, ev := range st.events {
		if ev.Seq <= after {
			continue
		}
		if max > 0 && len(out) >= max {
			break
		}
		out = append(out, StoredEvent{Seq: ev.Seq, Data: append([]byte(nil), ev.Data...)})
	}
	return out, meta, nil
}

// Renew implements EventStore.
func (m *MemoryEventStore) Renew(_ context.Context, principal, session, stream string, leaseUntil time.Time) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	now := m.now()
	st := m.find(principal, session, stream, now)
	if st == nil {
		return ErrStreamNotFound
	}
	st.meta.LeaseUntil = leaseUntil
	m.keep(st, leaseUntil)
	if st.lim.Retention > 0 {
		m.keep(st, now.Add(st.lim.Retention))
	}
	return nil
}

// Finish implements EventStore.
func (m *MemoryEventStore) Finish(_ context.Context, principal, session, stream string, keepUntil time.Time) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	st := m.find(principal, session, stream, m.now())
	if st == nil {
		return ErrStreamNotFound
	}
	st.meta.Done = true
	st.until = keepUntil
	return nil
}

// DeleteSession implements EventStore.
func (m *MemoryEventStore) DeleteSession(_ context.Context, principal, session string) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	for _, st := range m.sessions[eventScope(principal, session)] {
		m.drop(st)
	}
	return nil
}
