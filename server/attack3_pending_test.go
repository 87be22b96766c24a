package server

import (
	"context"
	"os"
	"sync"
	"testing"
)

// attack3Gate skips the hostile reproductions of the dual-era review
// unless MCPWIRE_ATTACK=1: each fails today and documents one defect.
func attack3Gate(t *testing.T) {
	t.Helper()
	if os.Getenv("MCPWIRE_ATTACK") != "1" {
		t.Skip("attack reproduction: set MCPWIRE_ATTACK=1")
	}
}

// pendingProbe is a SessionStore that remembers the largest Pending map
// it was asked to store or returned.
type pendingProbe struct {
	SessionStore
	mu  sync.Mutex
	max int
}

func (p *pendingProbe) see(rec *SessionRecord) {
	if rec == nil {
		return
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	p.max = max(p.max, len(rec.Pending))
}

func (p *pendingProbe) Get(ctx context.Context, principal, key string) (*SessionRecord, error) {
	rec, err := p.SessionStore.Get(ctx, principal, key)
	p.see(rec)
	return rec, err
}

func (p *pendingProbe) Update(ctx context.Context, principal, key string, fn func(*SessionRecord) error) (*SessionRecord, error) {
	rec, err := p.SessionStore.Update(ctx, principal, key, fn)
	p.see(rec)
	return rec, err
}

// TestAttack3PendingTombstonesUnbounded: the answered ids of the input
// bridge stay in the session's record as tombstones until Deadline + 1 min
// (InputTimeout 5 min + 1 min by default), and only `pending` entries
// count towards MaxOutstandingRequests (docs/dual-era.md §6.6). A client
// that answers promptly can therefore grow its record without bound in
// those six minutes: every round adds its ids. Every request of the
// session then reads (memory store: clones; Redis: GETs and decodes) and
// every Update rewrites the whole map, so the cost of each request of the
// session grows with the number of rounds served in the last 6 min.
// §9 (session exhaustion) promises "memory bounded for answers, pending
// entries"; §8 bounds outstanding requests at 32.
//
// Here MaxOutstandingRequests is 2 and 12 calls of "forever" (8 rounds of
// one roots/list each, then -32603 "too many input rounds") are answered:
// the record ends with 96 entries, 48 times the limit.
func TestAttack3PendingTombstonesUnbounded(t *testing.T) {
	attack3Gate(t)
	probe := &pendingProbe{SessionStore: NewMemorySessionStore()}
	const outstanding = 2
	f := newLegacyFixture(t, ErasBoth, WithLegacy(LegacyConfig{Store: probe, MaxOutstandingRequests: outstanding}))
	addBridgeTools(t, f.Server)
	c := newBridgeHTTP(t, f.Server, "2025-11-25")
	const calls = 12
	for i := range calls {
		w, asked := c.callAnswering(100+i, "tools/call", `{"name":"forever"}`, scriptedAnswer)
		if w.Error == nil || len(asked) == 0 {
			t.Fatalf("call %d: %s after %d input requests", i, w.raw, len(asked))
		}
	}
	probe.mu.Lock()
	got := probe.max
	probe.mu.Unlock()
	t.Logf("largest Pending map of the session: %d entries (MaxOutstandingRequests %d)", got, outstanding)
	// Any bound proportional to the per-session limits would do; the
	// round limit (8) times the outstanding limit is generous.
	if bound := 8 * outstanding; got > bound {
		t.Errorf("the session record holds %d Pending entries after %d answered calls; want at most %d (tombstones are not bounded)", got, calls, bound)
	}
}
