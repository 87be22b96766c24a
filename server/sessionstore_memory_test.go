package server_test

import (
	"sync"
	"testing"
	"time"

	"github.com/mcpwire/mcpwire/internal/sessionstoretest"
	"github.com/mcpwire/mcpwire/server"
)

// fakeClock is a clock that moves only when told.
type fakeClock struct {
	mu sync.Mutex
	t  time.Time
}

func (c *fakeClock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.t
}

func (c *fakeClock) Advance(d time.Duration) {
	c.mu.Lock()
	c.t = c.t.Add(d)
	c.mu.Unlock()
}

// TestMemorySessionStore runs the SessionStore contract (docs/dual-era.md
// §7.1) on the memory store, with a fake clock.
func TestMemorySessionStore(t *testing.T) {
	sessionstoretest.Run(t, func(t *testing.T) (server.SessionStore, sessionstoretest.Clock) {
		st := server.NewMemorySessionStore()
		clk := &fakeClock{t: time.Date(2026, 7, 28, 12, 0, 0, 0, time.UTC)}
		server.SetMemorySessionStoreClock(st, clk.Now)
		return st, clk
	})
}
