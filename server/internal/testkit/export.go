package testkit

import (
	"time"

	"github.com/mcpwire/mcpwire/internal/testutil"
)

// TestClock is the tests' clock that moves only when told, for the
// store contract tests (package server_test) too.
type TestClock = testutil.Clock

// NewTestClock returns a TestClock at 2026-07-28 12:00 UTC.
func NewTestClock() *TestClock {
	return testutil.NewClock(time.Date(2026, 7, 28, 12, 0, 0, 0, time.UTC))
}
