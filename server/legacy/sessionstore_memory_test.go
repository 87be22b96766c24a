package legacy_test

import (
	"testing"

	"github.com/mcpwire/mcpwire/server/legacy"

	"github.com/mcpwire/mcpwire/internal/sessionstoretest"
)

// TestMemorySessionStore runs the SessionStore contract (docs/dual-era.md
// §7.1) on the memory store, with a fake clock.
func TestMemorySessionStore(t *testing.T) {
	sessionstoretest.Run(t, func(t *testing.T) (legacy.SessionStore, sessionstoretest.Clock) {
		st := legacy.NewMemorySessionStore()
		clk := legacy.NewTestClock()
		legacy.SetMemorySessionStoreClock(st, clk.Now)
		return st, clk
	})
}
