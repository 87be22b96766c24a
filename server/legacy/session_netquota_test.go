package legacy_test

import (
	"fmt"
	"net/http"
	"testing"

	"github.com/mcpwire/mcpwire/server/legacy"
)

// TestSessionQuotaIPv6Networks is B4 of issue 26, over real HTTP with the
// default per-network limits: anonymous clients rotating through the /64s
// of one /56, then through the /56s of one /48, open more sessions than
// MaxSessions (1,100 here), each /64 within its own
// DefaultMaxSessionsPerPrincipal. The /56 keeps at most
// DefaultMaxSessionsPer56 live sessions, the /48 at most
// DefaultMaxSessionsPer48, and every other client's initialize still
// succeeds, IPv6 and IPv4 alike.
func TestSessionQuotaIPv6Networks(t *testing.T) {
	const maxSessions = 1100
	ls := newLiveServer(t, legacy.Config{MaxSessions: maxSessions})
	store := ls.era.Cfg().Store.(*legacy.MemorySessionStore)
	others := func(when string) {
		t.Helper()
		for _, addr := range []string{"2001:db8:ffff::1", "203.0.113.9"} {
			if sid, code, body := ls.open(addr, ""); sid == "" {
				t.Fatalf("%s: the initialize of %s: %d %s", when, addr, code, body)
			}
		}
	}
	open := func(net56, per64s int) (refused int) {
		for i := range per64s {
			for j := range legacy.DefaultMaxSessionsPerPrincipal {
				addr := fmt.Sprintf("2001:db8:1:%02x%02x::%x", net56, i, j+1)
				if sid, code, _ := ls.open(addr, ""); sid == "" {
					if code != http.StatusServiceUnavailable {
						t.Fatalf("initialize from %s: %d", addr, code)
					}
					refused++
				}
			}
		}
		return refused
	}
	// One /56: 11 /64s × 100 sessions is MaxSessions.
	if refused := open(1, maxSessions/legacy.DefaultMaxSessionsPerPrincipal); refused != 0 {
		t.Errorf("%d of the /56's initializes refused with 503", refused)
	}
	if n := store.Len(); n != legacy.DefaultMaxSessionsPer56 {
		t.Errorf("one /56 holds %d sessions, want DefaultMaxSessionsPer56 (%d)", n, legacy.DefaultMaxSessionsPer56)
	}
	others("after one /56's sessions")
	// Four more /56s of the same /48, 3 /64s × 100 sessions each.
	for n := 2; n <= 5; n++ {
		open(n, 3)
	}
	if n := store.Len() - 2; n != legacy.DefaultMaxSessionsPer48 {
		t.Errorf("one /48 holds %d sessions, want DefaultMaxSessionsPer48 (%d)", n, legacy.DefaultMaxSessionsPer48)
	}
	others("after the /48's sessions")
}

// TestMeasureIPv6Fill prints how many sessions one IPv6 /56 keeps on the
// defaults when 101 of its /64s open 100 sessions each, and whether
// another client is still admitted (MCP_MEASURE=1 go test -run
// TestMeasureIPv6Fill -v ./server/legacy).
func TestMeasureIPv6Fill(t *testing.T) {
	measuring(t)
	ls := newLiveServer(t, legacy.Config{})
	refused := 0
	for i := range 101 {
		for j := range legacy.DefaultMaxSessionsPerPrincipal {
			if sid, _, _ := ls.open(fmt.Sprintf("2001:db8:1:1%02x::%x", i, j+1), ""); sid == "" {
				refused++
			}
		}
	}
	_, code, _ := ls.open("2001:db8:ffff::1", "")
	t.Logf("101 /64s of one /56 × 100 sessions: %d refused, the store holds %d; another client's initialize: %d",
		refused, ls.era.Cfg().Store.(*legacy.MemorySessionStore).Len(), code)
}
