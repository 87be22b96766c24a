package legacy_test

import (
	"context"
	"testing"
	"time"

	"github.com/mcpwire/mcpwire/server/legacy"
)

// The records MemorySessionStore holds are never changed in place, so
// that the server reads them without a copy (findSession): Touch and
// Update store changed copies, and a record handed out before keeps its
// values.
func TestMemorySessionStoreRecordsNotChangedInPlace(t *testing.T) {
	ctx := context.Background()
	m := legacy.NewMemorySessionStore()
	now := time.Now()
	rec := &legacy.SessionRecord{Key: "k", Principal: "p", CreatedAt: now, IdleUntil: now.Add(time.Minute), ExpiresAt: now.Add(time.Hour), Subscriptions: []string{"a"}}
	if _, err := m.Create(ctx, rec, legacy.SessionLimits{}); err != nil {
		t.Fatal(err)
	}
	held, err := m.Shared("p", "k")
	if err != nil {
		t.Fatal(err)
	}
	idle := held.IdleUntil
	if err := m.Touch(ctx, "p", "k", now.Add(30*time.Minute)); err != nil {
		t.Fatal(err)
	}
	if _, err := m.Update(ctx, "p", "k", func(r *legacy.SessionRecord) error {
		r.Initialized = true
		r.Subscriptions = append(r.Subscriptions[:0], "b")
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	if !held.IdleUntil.Equal(idle) || held.Initialized || held.Subscriptions[0] != "a" {
		t.Fatalf("a record handed out changed: %+v", held)
	}
	now2, err := m.Shared("p", "k")
	if err != nil || !now2.Initialized || now2.Subscriptions[0] != "b" || !now2.IdleUntil.After(idle) {
		t.Fatalf("the stored record: %+v %v", now2, err)
	}
}
