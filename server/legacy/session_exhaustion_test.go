package legacy_test

import (
	"net/http"
	"testing"
	"time"

	. "github.com/mcpwire/mcpwire/server/internal/testkit"
	"github.com/mcpwire/mcpwire/server/legacy"
	"github.com/mcpwire/mcpwire/server/streamhttp"

	"github.com/mcpwire/mcpwire/protocol"
)

// TestSessionExhaustionDefaults is the exhaustion script of
// docs/dual-era.md §10.4 on the default limits (§8): a principal's
// DefaultMaxSessionsPerPrincipal sessions are all kept, the next
// initialize evicts exactly the least recently used one (404 afterwards,
// every other session still served, another principal untouched), and
// the store holds no more than the limit for her.
// TestSessionLimits covers the global limit (503, Retry-After: 30) on
// small limits; TestSessionLifetimes the expiry and TestSessionStoreOutage
// the store outage.
func TestSessionExhaustionDefaults(t *testing.T) {
	clk := NewTestClock()
	f := newLegacyFixture(t, legacy.ErasBoth)
	f.era().SetNow(clk.Now)
	legacy.SetMemorySessionStoreClock(f.era().Cfg().Store.(*legacy.MemorySessionStore), clk.Now)
	if f.era().Cfg().MaxSessionsPerPrincipal != legacy.DefaultMaxSessionsPerPrincipal {
		t.Fatalf("MaxSessionsPerPrincipal %d, want the default", f.era().Cfg().MaxSessionsPerPrincipal)
	}
	h := Handler(f.Server, streamhttp.Options{Authenticate: XUser})
	bob := NewLegacyHTTP(t, h, "2025-11-25", "X-User", "bob")
	bob.Open("")
	var alice []*LegacyHTTP
	for range legacy.DefaultMaxSessionsPerPrincipal {
		clk.Advance(time.Second)
		c := NewLegacyHTTP(t, h, "2025-11-25", "X-User", "alice")
		c.Open("")
		alice = append(alice, c)
	}
	// Every one is kept (these uses touch nothing: more than ¾ of the idle
	// timeout is left).
	for i, c := range alice {
		if _, _, rec := c.Call(2, "ping", ""); rec.Code != http.StatusOK {
			t.Fatalf("session %d of %d before the limit: %d", i+1, legacy.DefaultMaxSessionsPerPrincipal, rec.Code)
		}
	}
	// Ten minutes on (under ¾ left), alice uses her first session: the
	// second is now her least recently used.
	clk.Advance(10 * time.Minute)
	if w, _, rec := alice[0].Call(1, "ping", ""); rec.Code != http.StatusOK || w.Error != nil {
		t.Fatalf("the first session: %d %s", rec.Code, w.Raw)
	}
	extra := NewLegacyHTTP(t, h, "2025-11-25", "X-User", "alice")
	extra.Open("")
	w, _, rec := alice[1].Call(3, "tools/list", "")
	want(t, "the least recently used session after the 101st initialize", rec, w, http.StatusNotFound, protocol.CodeInvalidRequestError)
	if w.Id() != "3" || w.Error == nil || w.Error.Message != legacy.MsgSessionNotFound {
		t.Errorf("the evicted session's answer: %s", w.Raw)
	}
	for i, c := range append(append([]*LegacyHTTP{extra, bob}, alice[0]), alice[2:]...) {
		if w, _, rec := c.Call(4, "tools/list", ""); rec.Code != http.StatusOK || w.Error != nil {
			t.Errorf("session %d kept: %d %s", i, rec.Code, w.Raw)
		}
	}
	if n := f.era().Cfg().Store.(*legacy.MemorySessionStore).Len(); n != legacy.DefaultMaxSessionsPerPrincipal+1 {
		t.Errorf("the store holds %d sessions, want %d (alice's limit and bob's)", n, legacy.DefaultMaxSessionsPerPrincipal+1)
	}
}
