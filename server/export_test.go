package server

import "time"

// SetMemorySessionStoreClock replaces the clock of a memory session store,
// for the store's contract tests (package server_test).
func SetMemorySessionStoreClock(m *MemorySessionStore, now func() time.Time) { m.now = now }

// SetMemoryEventStoreClock replaces the clock of a memory event store, for
// the store's contract tests (package server_test).
func SetMemoryEventStoreClock(m *MemoryEventStore, now func() time.Time) { m.now = now }
