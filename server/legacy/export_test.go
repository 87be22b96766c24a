package legacy

import (
	"context"
	"net/http"
	"testing"
	"time"

	"github.com/mcpwire/mcpwire/internal/testutil"
	"github.com/mcpwire/mcpwire/protocol"
	"github.com/mcpwire/mcpwire/protocol/mcp20251125"
	"github.com/mcpwire/mcpwire/server"
)

// SetMemorySessionStoreClock replaces the clock of a memory session store,
// for the store's contract tests (package server_test).
func SetMemorySessionStoreClock(m *MemorySessionStore, now func() time.Time) { m.now = now }

// SetMemoryEventStoreClock replaces the clock of a memory event store, for
// the store's contract tests (package server_test).
func SetMemoryEventStoreClock(m *MemoryEventStore, now func() time.Time) { m.now = now }

// TestClock is the tests' clock that moves only when told, for the
// store contract tests (package server_test) too.
type TestClock = testutil.Clock

// NewTestClock returns a TestClock at 2026-07-28 12:00 UTC.
func NewTestClock() *TestClock {
	return testutil.NewClock(time.Date(2026, 7, 28, 12, 0, 0, 0, time.UTC))
}

// What the package's external tests (package legacy_test) reach of its
// internals.

var (
	SessionKey         = sessionKey
	NewSessionID       = newSessionID
	EventID            = eventID
	NewSessionStreamID = newSessionStreamID
	CheckStreamID      = checkStreamID
	ParseLastEventID   = parseLastEventID
	IsResponseData     = isResponseData
	ProbeMeta          = probeMeta
	JSONKey            = jsonKey
	PrunePending       = prunePending
)

const (
	MaxSessionIDBytes    = maxSessionIDBytes
	KeySessionID         = keySessionID
	MsgStoreUnavailable  = msgStoreUnavailable
	MsgOwnerStopped      = msgOwnerStopped
	MsgSessionNotModern  = msgSessionNotModern
	MsgSessionRepeated   = msgSessionRepeated
	MsgSessionNotFound   = msgSessionNotFound
	MsgInitializeWithSID = msgInitializeWithSID
	PendingState         = pendingState
	AnsweredState        = answeredState
	StreamLease          = streamLease
	TombstoneTTL         = tombstoneTTL
)

// SetNow replaces the Era's clock.
func (s *Era) SetNow(now func() time.Time) { s.now = now }

// Cfg is the Era's configuration in force, for the tests to read and
// change.
func (s *Era) Cfg() *Config { return &s.cfg.legacy }

// SessionConvs is the number of conversion states the Era keeps.
func (s *Era) SessionConvs() int {
	s.sessions.mu.Lock()
	defer s.sessions.mu.Unlock()
	return len(s.sessions.convs)
}

// LogsLen, DetachedLen and FollowersLen count the Era's stream logs, its
// detached requests and the followers of its logs.
func (s *Era) LogsLen() int      { return s.logs.len() }
func (s *Era) DetachedLen() int  { return s.logs.detachedLen() }
func (s *Era) FollowersLen() int { return s.logs.followersLen() }

// Workers is the number of session workers started; SetWorkerIdle sets
// how long one waits for its next request.
func (s *Era) Workers() int64                { return s.workers.Load() }
func (s *Era) SetWorkerIdle(d time.Duration) { s.workerIdle = d }

// Instance names the Era among the instances sharing its stores.
func (s *Era) Instance() string { return s.instance }

// Publish publishes on the Era's broker.
func (s *Era) Publish(ev server.Event) error { return s.publish(ev) }

// ReplayLimits are the Era's event log limits.
func (s *Era) ReplayLimits() ReplayLimits { return s.replayLimits() }

// VersionHeaderModern reports whether the MCP-Protocol-Version header
// alone makes a message modern.
func (s *Era) VersionHeaderModern(h http.Header) bool { k, _ := s.versionHeader(h); return k.modern() }

// LegacyDecode is the Era's decoder of 2025-11-25 messages.
func (s *Era) LegacyDecode() mcp20251125.UnmarshalOptions { return s.legacyDecode() }

// Shared is MemorySessionStore.shared.
func (m *MemorySessionStore) Shared(principal, key string) (*SessionRecord, error) {
	return m.shared(principal, []byte(key))
}

// SessionStateAllocs starts and ends a request of a fresh session state
// (capacity 10) in a loop, for TestSessionStateReusesInnerMap: whether a
// duplicate start is refused, and the allocations per start/done.
func SessionStateAllocs(id protocol.RequestId) (dupRefused bool, allocs float64) {
	st := newSessionState(10)
	nop := func() {}
	dupRefused = st.start("k", nil, id, nop) && !st.start("k", nil, id, nop)
	st.done("k", nil, id)
	allocs = testing.AllocsPerRun(100, func() {
		if !st.start("k", nil, id, nop) {
			panic("start after done refused")
		}
		st.done("k", nil, id)
	})
	return dupRefused, allocs
}

// FindSession is findSession.
func (s *Era) FindSession(ctx context.Context, sids []string, principal string, id func() *protocol.RequestId) (*SessionRecord, *server.Outcome) {
	return s.findSession(ctx, sids, principal, id)
}
