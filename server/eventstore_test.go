package server_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/mcpwire/mcpwire/server"
	"github.com/mcpwire/mcpwire/server/internal/eventstoretest"
)

// TestMemoryEventStore runs the EventStore contract (docs/dual-era.md
// §7.2) on the memory store, with a fake clock.
func TestMemoryEventStore(t *testing.T) {
	eventstoretest.Run(t, func(t *testing.T) (server.EventStore, eventstoretest.Clock) {
		st := server.NewMemoryEventStore(0)
		clk := &fakeClock{t: time.Date(2026, 7, 28, 12, 0, 0, 0, time.UTC)}
		server.SetMemoryEventStoreClock(st, clk.Now)
		return st, clk
	})
}

// TestMemoryEventStoreTotal: past NewMemoryEventStore's byte bound whole
// streams go, least recently written first, and the store never holds
// more (docs/dual-era.md §4.8, the memory bound).
func TestMemoryEventStoreTotal(t *testing.T) {
	ctx := context.Background()
	st := server.NewMemoryEventStore(1000)
	lim := server.ReplayLimits{Retention: time.Minute}
	data := []byte(`{"x":"` + strings.Repeat("a", 292) + `"}`) // 300 bytes
	for _, id := range []string{"streamAAAAAA", "streamBBBBBB", "streamCCCCCC"} {
		if err := st.Open(ctx, "", "s", id, server.StreamMeta{}, lim); err != nil {
			t.Fatal(err)
		}
		if err := st.Append(ctx, "", "s", id, server.StoredEvent{Seq: 1, Data: data}); err != nil {
			t.Fatal(err)
		}
	}
	if err := st.Append(ctx, "", "s", "streamAAAAAA", server.StoredEvent{Seq: 2, Data: data}); err != nil {
		t.Fatal(err)
	}
	// 1200 bytes > 1000: B, the least recently written, went.
	if _, _, err := st.Read(ctx, "", "s", "streamBBBBBB", 0, 0); err != server.ErrStreamNotFound {
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
