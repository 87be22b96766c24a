package server_test

import (
	"testing"

	"github.com/mcpwire/mcpwire/internal/sessionstoretest"
	"github.com/mcpwire/mcpwire/server"
)

// TestMemorySessionStore runs the SessionStore contract (docs/dual-era.md
// §7.1) on the memory store, with a fake clock.
func TestMemorySessionStore(t *testing.T) {
	sessionstoretest.Run(t, func(t *testing.T) (server.SessionStore, sessionstoretest.Clock) {
		st := server.NewMemorySessionStore()
		clk := server.NewTestClock()
		server.SetMemorySessionStoreClock(st, clk.Now)
		return st, clk
	})
}
