package legacy_test

import (
	"context"
	"strings"
	"testing"

	. "github.com/mcpwire/mcpwire/server/internal/testkit"
	"github.com/mcpwire/mcpwire/server/legacy"
	"github.com/mcpwire/mcpwire/server/streamhttp"

	"github.com/mcpwire/mcpwire/protocol"
)

// The legacy session layer's per-request allocations (docs/performance.md,
// issue 10 benchmark gate).

// TestSessionStateReusesInnerMap: a session running one request at a
// time allocates nothing to register and unregister it (the emptied inner
// map is kept for the next start), and a duplicate id is still refused
// (L2).
func TestSessionStateReusesInnerMap(t *testing.T) {
	id := protocol.RequestId{}
	if err := id.UnmarshalJSON([]byte(`1`)); err != nil {
		t.Fatal(err)
	}
	dup, n := legacy.SessionStateAllocs(id)
	if !dup {
		t.Fatal("the second start of a running id must be refused (L2)")
	}
	if n != 0 {
		t.Fatalf("%v allocations per start/done, want 0", n)
	}
}

// TestFindSessionFoundAllocs: a found session costs its key and the
// store's record copy, no refusal built in advance (S2's 404 only when
// missing); a missing one still gets its 404 with the request's id.
func TestFindSessionFoundAllocs(t *testing.T) {
	f := newLegacyFixture(t, legacy.ErasBoth)
	c := NewLegacyHTTP(t, Handler(f.Server, streamhttp.Options{}), "2025-11-25")
	c.Open("")
	ctx := context.Background()
	id := protocol.RequestId{}
	if err := id.UnmarshalJSON([]byte(`7`)); err != nil {
		t.Fatal(err)
	}
	idf := func() *protocol.RequestId { return &id }
	sids := []string{c.Sid}
	if rec, refused := f.era().FindSession(ctx, sids, "", idf); rec == nil || refused != nil {
		t.Fatalf("session not found: %v", refused)
	}
	if n := testing.AllocsPerRun(100, func() { _, _ = f.era().FindSession(ctx, sids, "", idf) }); n > 2 {
		t.Fatalf("%v allocations per found lookup, want at most 2 (key, record copy)", n)
	}
	_, refused := f.era().FindSession(ctx, []string{"nope"}, "", idf)
	if refused == nil || refused.Status != 404 || !strings.Contains(string(refused.Body), `"id":7`) {
		t.Fatalf("missing session: %+v", refused)
	}
}
