package server

import (
	"strconv"
	"testing"
	"time"
)

// TestAttack3ConvCacheOutlivesSessions: initialize puts the session's
// conversion state in this instance's cache (sessionState.convs) without
// the size check that sessionConv applies, and only DELETE and eviction
// (sessionEnded → forget) remove entries. A session that ends by
// IdleTimeout or MaxLifetime — the common end of a legacy session, whose
// clients rarely DELETE — stays in the cache for the life of the
// process, while the store frees its slot. MaxSessions therefore does not
// bound the cache: every IdleTimeout, MaxSessions more sessions can be
// opened, each leaving its entry (with its decoded capabilities and
// clientInfo, up to ~4 MiB each, see TestAttack3SessionRecordSize).
// Expected (§8, "sessions in all"): the cache never holds more than
// MaxSessions entries, and entries of ended sessions go.
//
// Here MaxSessions is 5; 10 generations of 5 sessions each, 31 min apart
// (every generation idles out before the next): the cache ends with 50.
func TestAttack3ConvCacheOutlivesSessions(t *testing.T) {
	attack3Gate(t)
	clk := &testClock{t: time.Date(2026, 7, 28, 12, 0, 0, 0, time.UTC)}
	const limit = 5
	f := newLegacyFixture(t, ErasBoth, WithLegacy(LegacyConfig{MaxSessions: limit}))
	f.now = clk.Now
	f.cfg.legacy.Store.(*MemorySessionStore).now = clk.Now
	h := f.Handler(HTTPOptions{Authenticate: xUser})
	for gen := range 10 {
		for i := range limit {
			c := newLegacyHTTP(t, h, "2025-11-25", "X-User", "u"+strconv.Itoa(gen)+"-"+strconv.Itoa(i))
			c.open("")
		}
		clk.Advance(31 * time.Minute)
	}
	f.sessions.mu.Lock()
	n := len(f.sessions.convs)
	f.sessions.mu.Unlock()
	t.Logf("conversion cache: %d entries with MaxSessions %d", n, limit)
	if n > limit {
		t.Errorf("the conversion cache holds %d entries for sessions that all ended; want at most MaxSessions (%d)", n, limit)
	}
}
