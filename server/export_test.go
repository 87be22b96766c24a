package server

import (
	"time"

	"github.com/mcpwire/mcpwire/internal/testutil"
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
