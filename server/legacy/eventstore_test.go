package legacy_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/mcpwire/mcpwire/server/legacy"

	"github.com/mcpwire/mcpwire/internal/eventstoretest"
)

// TestMemoryEventStore runs the EventStore contract (docs/dual-era.md
// §7.2) on the memory store, with a fake clock.
func TestMemoryEventStore(t *testing.T) {
	eventstoretest.Run(t, func(t *testing.T) (legacy.EventStore, eventstoretest.Clock) {
		st := legacy.NewMemoryEventStore(0)
		clk := legacy.NewTestClock()
		legacy.SetMemoryEventStoreClock(st, clk.Now)
		return st, clk
	})
}

// TestMemoryEventStoreTotal: past NewMemoryEventStore's byte bound whole
// streams go, least recently written first, and the store never holds
// more (docs/dual-era.md §4.8, the memory bound).
func TestMemoryEventStoreTotal(t *testing.T) {
	ctx := context.Background()
	st := legacy.NewMemoryEventStore(1000)
	lim := legacy.ReplayLimits{Retention: time.Minute}
	data := []byte(`{"x":"` + strings.Repeat("a", 292) + `"}`) // 300 bytes
	for _, id := range []string{"streamAAAAAA", "streamBBBBBB", "streamCCCCCC"} {
		if err := st.Open(ctx, "", "s", id, legacy.StreamMeta{}, lim); err != nil {
			t.Fatal(err)
		}
		if err := st.Append(ctx, "", "s", id, legacy.StoredEvent{Seq: 1, Data: data}); err != nil {
			t.Fatal(err)
		}
	}
	if err := st.Append(ctx, "", "s", "streamAAAAAA", legacy.StoredEvent{Seq: 2, Data: data}); err != nil {
		t.Fatal(err)
	}
	// 1200 bytes > 1000: B, the least recently written, went.
	if _, _, err := st.Read(ctx, "", "s", "streamBBBBBB", 0, 0); err != legacy.ErrStreamNotFound {
		t.Errorf("B: %v, want ErrStreamNotFound", err)
	}
	if b := st.Bytes(); b > 1000 || b != 900 {
		t.Errorf("Bytes %d, want 900", b)
	}
	if n := st.Streams(); n != 2 {
		t.Errorf("Streams %d, want 2", n)
	}
	if err := st.DeleteSession(ctx, "", "s"); err != nil {
		t.Fatal(err)
	}
	if st.Bytes() != 0 || st.Streams() != 0 {
		t.Errorf("after DeleteSession: %d bytes, %d streams", st.Bytes(), st.Streams())
	}
}

// TestMemoryEventStoreShares: when the store is over its bytes, the
// streams of the principal holding the most go first (then of its session
// holding the most), so that one principal's writes do not evict another
// principal's logs (docs/dual-era.md §9 "a leaking client hurts only
// itself"). (Regression of the attack3 review, defect 10.)
func TestMemoryEventStoreShares(t *testing.T) {
	ctx := context.Background()
	st := legacy.NewMemoryEventStore(1000)
	lim := legacy.ReplayLimits{Retention: time.Minute}
	data := []byte(`{"x":"` + strings.Repeat("a", 292) + `"}`) // 300 bytes
	open := func(principal, session, id string) {
		t.Helper()
		if err := st.Open(ctx, principal, session, id, legacy.StreamMeta{}, lim); err != nil {
			t.Fatal(err)
		}
		if err := st.Append(ctx, principal, session, id, legacy.StoredEvent{Seq: 1, Data: data}); err != nil {
			t.Fatal(err)
		}
	}
	open("victim", "v", "streamVVVVVV") // the least recently written
	open("quiet", "q1", "streamQQQQQ1")
	for _, id := range []string{"streamAAAAA1", "streamAAAAA2", "streamAAAAA3", "streamAAAAA4", "streamAAAAA5"} {
		open("attacker", "a1", id)
	}
	for _, p := range [][2]string{{"victim", "v"}, {"quiet", "q1"}} {
		if _, _, err := st.Read(ctx, p[0], p[1], map[string]string{"v": "streamVVVVVV", "q1": "streamQQQQQ1"}[p[1]], 0, 0); err != nil {
			t.Errorf("%s's stream after another principal's writes: %v, want it kept", p[0], err)
		}
	}
	if _, _, err := st.Read(ctx, "attacker", "a1", "streamAAAAA5", 0, 0); err != nil {
		t.Errorf("the attacker's newest stream: %v, want it kept", err)
	}
	if _, _, err := st.Read(ctx, "attacker", "a1", "streamAAAAA1", 0, 0); err != legacy.ErrStreamNotFound {
		t.Errorf("the attacker's oldest stream: %v, want ErrStreamNotFound", err)
	}
	if b := st.Bytes(); b > 1000 {
		t.Errorf("Bytes %d over the bound 1000", b)
	}
	// Within one principal, its session holding the most goes first.
	st2 := legacy.NewMemoryEventStore(1000)
	st = st2
	open("p", "small", "streamSSSSSS")
	open("p", "big", "streamBBBBB1")
	open("p", "big", "streamBBBBB2")
	open("p", "big", "streamBBBBB3")
	if _, _, err := st.Read(ctx, "p", "small", "streamSSSSSS", 0, 0); err != nil {
		t.Errorf("the small session's stream: %v, want it kept", err)
	}
	if _, _, err := st.Read(ctx, "p", "big", "streamBBBBB1", 0, 0); err != legacy.ErrStreamNotFound {
		t.Errorf("the big session's oldest stream: %v, want ErrStreamNotFound", err)
	}
}
