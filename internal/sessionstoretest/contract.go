// Package sessionstoretest checks an implementation of legacy.SessionStore
// against the contract of docs/dual-era.md §7.1 and the SessionStore
// documentation: principal binding, copies, atomic versioned updates,
// lifetimes, the per-principal and total limits with eviction, and the
// answers of the input bridge. The memory store and the Redis store run
// the same checks.
package sessionstoretest

import (
	"context"
	"encoding/json"
	"errors"
	"sync"
	"testing"
	"time"

	"github.com/mcpwire/mcpwire/server/legacy"
)

// Clock is the store's time, as the checks see it: Now is what the store
// compares lifetimes with, Advance moves it forward (a fake clock moves at
// once; a real one sleeps).
type Clock interface {
	Now() time.Time
	Advance(d time.Duration)
}

// NewStore returns an empty store and its clock.
type NewStore func(t *testing.T) (legacy.SessionStore, Clock)

// Run runs every check, each on a fresh store.
func Run(t *testing.T, newStore NewStore) {
	for _, c := range []struct {
		name string
		f    func(t *testing.T, st legacy.SessionStore, clk Clock)
	}{
		{"create and get", createGet},
		{"principal binding", principalBinding},
		{"update", update},
		{"concurrent updates", concurrentUpdates},
		{"touch", touch},
		{"delete", deleteSession},
		{"per-principal limit", perPrincipal},
		{"per-network limits", perNet},
		{"total limit", total},
		{"lifetimes", lifetimes},
		{"answers", answers},
	} {
		t.Run(c.name, func(t *testing.T) {
			st, clk := newStore(t)
			c.f(t, st, clk)
		})
	}
}

var ctx = context.Background()

// record is a live session record of principal made at the clock's now.
func record(clk Clock, key, principal string) *legacy.SessionRecord {
	now := clk.Now().UTC().Truncate(time.Millisecond)
	return &legacy.SessionRecord{
		Key: key, Principal: principal, ProtocolVersion: "2025-11-25",
		ClientCapabilities: json.RawMessage(`{"roots":{}}`), ClientInfo: json.RawMessage(`{"name":"c","version":"1"}`),
		ServerCapabilities: json.RawMessage(`{"tools":{"listChanged":true}}`),
		CreatedAt:          now, IdleUntil: now.Add(time.Hour), ExpiresAt: now.Add(24 * time.Hour),
	}
}

func mustCreate(t *testing.T, st legacy.SessionStore, rec *legacy.SessionRecord, lim legacy.SessionLimits) []string {
	t.Helper()
	ev, err := st.Create(ctx, rec, lim)
	if err != nil {
		t.Fatalf("Create %s: %v", rec.Key, err)
	}
	return ev
}

func notFound(t *testing.T, what string, err error) {
	t.Helper()
	if !errors.Is(err, legacy.ErrSessionNotFound) {
		t.Errorf("%s: %v, want ErrSessionNotFound", what, err)
	}
}

func createGet(t *testing.T, st legacy.SessionStore, clk Clock) {
	rec := record(clk, "k1", "alice")
	rec.Subscriptions = []string{"a://1"}
	rec.Pending = map[string]legacy.PendingRequest{"mcpwire-1": {Method: "roots/list", Key: "r", Instance: "i", Deadline: rec.CreatedAt.Add(time.Minute), State: "pending"}}
	rec.LogLevel, rec.Stream, rec.BadResponses, rec.QuotaKey = "info", "i/s", 2, "q"
	mustCreate(t, st, rec, legacy.SessionLimits{})
	if _, err := st.Create(ctx, record(clk, "k1", "alice"), legacy.SessionLimits{}); err == nil {
		t.Error("a duplicate key was stored")
	}
	got, err := st.Get(ctx, "alice", "k1")
	if err != nil {
		t.Fatal(err)
	}
	if !sameRecord(got, rec) {
		t.Errorf("Get returned\n%+v\nwant\n%+v", got, rec)
	}
	// Get returns a copy.
	got.Subscriptions[0], got.LogLevel = "changed", "debug"
	got.Pending["mcpwire-1"] = legacy.PendingRequest{State: "answered"}
	again, _ := st.Get(ctx, "alice", "k1")
	if !sameRecord(again, rec) {
		t.Error("Get returned the stored record itself")
	}
	// So does Create: changing rec afterwards changes nothing stored.
	rec.Subscriptions[0] = "mutated"
	if again, _ := st.Get(ctx, "alice", "k1"); again.Subscriptions[0] != "a://1" {
		t.Error("Create kept the caller's record")
	}
	notFound(t, "Get of an unknown key", errOf(st.Get(ctx, "alice", "nope")))
	// The record round-trips through JSON, as a shared store keeps it.
	b, err := json.Marshal(again)
	if err != nil {
		t.Fatal(err)
	}
	var back legacy.SessionRecord
	if err := json.Unmarshal(b, &back); err != nil || !sameRecord(&back, again) {
		t.Errorf("JSON round trip: %v\n%s", err, b)
	}
}

func principalBinding(t *testing.T, st legacy.SessionStore, clk Clock) {
	mustCreate(t, st, record(clk, "k1", "alice"), legacy.SessionLimits{})
	notFound(t, "Get by another principal", errOf(st.Get(ctx, "bob", "k1")))
	notFound(t, "Get without a principal", errOf(st.Get(ctx, "", "k1")))
	notFound(t, "Touch by another principal", st.Touch(ctx, "bob", "k1", clk.Now().Add(2*time.Hour)))
	_, err := st.Update(ctx, "bob", "k1", func(r *legacy.SessionRecord) error { r.Initialized = true; return nil })
	notFound(t, "Update by another principal", err)
	notFound(t, "Delete by another principal", st.Delete(ctx, "bob", "k1"))
	notFound(t, "PutAnswer by another principal", st.PutAnswer(ctx, "bob", "k1", "r", []byte(`{}`), time.Minute))
	got, err := st.Get(ctx, "alice", "k1")
	if err != nil || got.Initialized || got.Version != 0 {
		t.Errorf("another principal changed the session: %+v %v", got, err)
	}
}

func update(t *testing.T, st legacy.SessionStore, clk Clock) {
	rec := record(clk, "k1", "alice")
	rec.QuotaKey = "q"
	mustCreate(t, st, rec, legacy.SessionLimits{})
	upd, err := st.Update(ctx, "alice", "k1", func(r *legacy.SessionRecord) error {
		r.Initialized, r.LogLevel = true, "debug"
		r.Subscriptions = append(r.Subscriptions, "a://1")
		r.Key, r.Principal, r.QuotaKey = "other", "mallory", "z"
		r.CreatedAt, r.ExpiresAt = time.Time{}, r.ExpiresAt.Add(1000*time.Hour)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if upd.Version != 1 || !upd.Initialized || upd.LogLevel != "debug" || len(upd.Subscriptions) != 1 {
		t.Errorf("Update returned %+v", upd)
	}
	if upd.Key != "k1" || upd.Principal != "alice" || upd.QuotaKey != "q" || !upd.CreatedAt.Equal(rec.CreatedAt) || !upd.ExpiresAt.Equal(rec.ExpiresAt) {
		t.Errorf("Update changed what it must keep: %+v", upd)
	}
	got, _ := st.Get(ctx, "alice", "k1")
	if !sameRecord(got, upd) {
		t.Errorf("stored %+v, Update returned %+v", got, upd)
	}
	// fn's error stores nothing.
	boom := errors.New("boom")
	if _, err := st.Update(ctx, "alice", "k1", func(r *legacy.SessionRecord) error { r.LogLevel = "error"; return boom }); !errors.Is(err, boom) {
		t.Errorf("Update returned %v, want fn's error", err)
	}
	if got, _ := st.Get(ctx, "alice", "k1"); got.LogLevel != "debug" || got.Version != 1 {
		t.Errorf("a failed Update stored %+v", got)
	}
	_, err = st.Update(ctx, "alice", "nope", func(*legacy.SessionRecord) error { return nil })
	notFound(t, "Update of an unknown key", err)
}

func concurrentUpdates(t *testing.T, st legacy.SessionStore, clk Clock) {
	mustCreate(t, st, record(clk, "k1", "alice"), legacy.SessionLimits{})
	const n = 20
	var wg sync.WaitGroup
	for i := 0; i < n; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if _, err := st.Update(ctx, "alice", "k1", func(r *legacy.SessionRecord) error { r.BadResponses++; return nil }); err != nil {
				t.Error(err)
			}
		}()
	}
	wg.Wait()
	got, err := st.Get(ctx, "alice", "k1")
	if err != nil || got.BadResponses != n || got.Version != n {
		t.Errorf("after %d concurrent updates: %+v %v (an update was lost)", n, got, err)
	}
}

func touch(t *testing.T, st legacy.SessionStore, clk Clock) {
	rec := record(clk, "k1", "alice")
	mustCreate(t, st, rec, legacy.SessionLimits{})
	later := rec.IdleUntil.Add(time.Hour)
	if err := st.Touch(ctx, "alice", "k1", later); err != nil {
		t.Fatal(err)
	}
	got, _ := st.Get(ctx, "alice", "k1")
	if !got.IdleUntil.Equal(later) || got.Version != 0 {
		t.Errorf("Touch: IdleUntil %v version %d, want %v and no new version", got.IdleUntil, got.Version, later)
	}
	if err := st.Touch(ctx, "alice", "k1", rec.IdleUntil); err != nil {
		t.Fatal(err)
	}
	if got, _ := st.Get(ctx, "alice", "k1"); !got.IdleUntil.Equal(later) {
		t.Errorf("Touch moved IdleUntil back to %v", got.IdleUntil)
	}
	if err := st.Touch(ctx, "alice", "k1", rec.ExpiresAt.Add(time.Hour)); err != nil {
		t.Fatal(err)
	}
	if got, _ := st.Get(ctx, "alice", "k1"); got.IdleUntil.After(rec.ExpiresAt) {
		t.Errorf("Touch moved IdleUntil past ExpiresAt: %v > %v", got.IdleUntil, rec.ExpiresAt)
	}
	notFound(t, "Touch of an unknown key", st.Touch(ctx, "alice", "nope", later))
}

func deleteSession(t *testing.T, st legacy.SessionStore, clk Clock) {
	mustCreate(t, st, record(clk, "k1", "alice"), legacy.SessionLimits{PerPrincipal: 1})
	if err := st.PutAnswer(ctx, "alice", "k1", "r1", []byte(`{"x":1}`), time.Hour); err != nil {
		t.Fatal(err)
	}
	if err := st.Delete(ctx, "alice", "k1"); err != nil {
		t.Fatal(err)
	}
	notFound(t, "Get after Delete", errOf(st.Get(ctx, "alice", "k1")))
	notFound(t, "Delete twice", st.Delete(ctx, "alice", "k1"))
	if _, err := st.TakeAnswer(ctx, "alice", "k1", "r1"); !errors.Is(err, legacy.ErrNoAnswer) {
		t.Errorf("an answer outlived its session: %v", err)
	}
	// The index entry went too: the principal's limit of 1 evicts nothing.
	if ev := mustCreate(t, st, record(clk, "k2", "alice"), legacy.SessionLimits{PerPrincipal: 1}); len(ev) != 0 {
		t.Errorf("Create evicted %v: Delete left an index entry", ev)
	}
}

func perPrincipal(t *testing.T, st legacy.SessionStore, clk Clock) {
	lim := legacy.SessionLimits{PerPrincipal: 2}
	a := record(clk, "a", "alice")
	b := record(clk, "b", "alice")
	b.IdleUntil = a.IdleUntil.Add(-time.Minute) // b is the least recently used
	mustCreate(t, st, a, lim)
	mustCreate(t, st, b, lim)
	// Another principal, and the same principal under another quota key,
	// are counted apart.
	mustCreate(t, st, record(clk, "x", "bob"), lim)
	q := record(clk, "q", "alice")
	q.QuotaKey = "10.0.0.1"
	mustCreate(t, st, q, lim)
	ev := mustCreate(t, st, record(clk, "c", "alice"), lim)
	if len(ev) != 1 || ev[0] != "b" {
		t.Fatalf("evicted %v, want [b] (the earliest IdleUntil)", ev)
	}
	notFound(t, "Get of the evicted session", errOf(st.Get(ctx, "alice", "b")))
	for _, k := range []string{"a", "c"} {
		if _, err := st.Get(ctx, "alice", k); err != nil {
			t.Errorf("session %s: %v", k, err)
		}
	}
	if _, err := st.Get(ctx, "bob", "x"); err != nil {
		t.Errorf("bob's session was evicted: %v", err)
	}
	if _, err := st.Get(ctx, "alice", "q"); err != nil {
		t.Errorf("the session under another quota key was evicted: %v", err)
	}
}

// perNet checks SessionLimits.PerNet: the sessions sharing a network of
// QuotaNets are counted together whatever their QuotaKey, each network by
// its own limit, and past it the earliest IdleUntil among them goes.
func perNet(t *testing.T, st legacy.SessionStore, clk Clock) {
	lim := legacy.SessionLimits{PerPrincipal: 10, PerNet: []int{2, 3}}
	base := clk.Now().UTC().Truncate(time.Millisecond).Add(time.Hour)
	rec := func(key, quota string, ago time.Duration, nets ...string) *legacy.SessionRecord {
		r := record(clk, key, "")
		r.QuotaKey, r.QuotaNets, r.IdleUntil = quota, nets, base.Add(-ago)
		return r
	}
	step := func(r *legacy.SessionRecord, want ...string) {
		t.Helper()
		ev := mustCreate(t, st, r, lim)
		if len(ev) != len(want) || len(want) == 1 && ev[0] != want[0] {
			t.Fatalf("Create %s evicted %v, want %v", r.Key, ev, want)
		}
	}
	step(rec("a", "q1", 3*time.Minute, "n1", "w"))
	step(rec("b", "q2", 2*time.Minute, "n1", "w"))
	step(rec("c", "q3", 0, "n1", "w"), "a") // n1 holds 2
	step(rec("d", "q4", time.Minute, "n2", "w"))
	step(rec("e", "q5", 0, "n2", "w"), "b") // w holds 3: b is its earliest
	step(rec("f", "q6", 4*time.Minute))     // no network: not counted
	notFound(t, "Get of a session evicted by its network", errOf(st.Get(ctx, "", "a")))
	notFound(t, "Get of a session evicted by its wider network", errOf(st.Get(ctx, "", "b")))
	for _, k := range []string{"c", "d", "e", "f"} {
		if _, err := st.Get(ctx, "", k); err != nil {
			t.Errorf("session %s: %v", k, err)
		}
	}
	if got, err := st.Get(ctx, "", "c"); err != nil || len(got.QuotaNets) != 2 || got.QuotaNets[0] != "n1" {
		t.Errorf("QuotaNets of c: %v %v", got, err)
	}
	// A deleted session leaves its networks' counts: n2 holds d and e,
	// w holds c, d and e; deleting c lets g in without an eviction.
	if err := st.Delete(ctx, "", "c"); err != nil {
		t.Fatal(err)
	}
	step(rec("g", "q7", 0, "n3", "w"))
	// An update keeps the networks whatever fn does.
	if _, err := st.Update(ctx, "", "g", func(r *legacy.SessionRecord) error { r.QuotaNets = nil; return nil }); err != nil {
		t.Fatal(err)
	}
	if got, err := st.Get(ctx, "", "g"); err != nil || len(got.QuotaNets) != 2 {
		t.Errorf("QuotaNets of g after an Update clearing them: %v %v", got, err)
	}
}

func total(t *testing.T, st legacy.SessionStore, clk Clock) {
	lim := legacy.SessionLimits{PerPrincipal: 1, Total: 2}
	mustCreate(t, st, record(clk, "a", "alice"), lim)
	mustCreate(t, st, record(clk, "b", "bob"), lim)
	if ev, err := st.Create(ctx, record(clk, "c", "carol"), lim); !errors.Is(err, legacy.ErrSessionLimit) || len(ev) != 0 {
		t.Fatalf("Create over the total: %v %v, want ErrSessionLimit", ev, err)
	}
	notFound(t, "Get of a session refused by the total", errOf(st.Get(ctx, "carol", "c")))
	// Eviction comes first: a principal at its own limit replaces its
	// session even when the store is full.
	ev, err := st.Create(ctx, record(clk, "a2", "alice"), lim)
	if err != nil || len(ev) != 1 || ev[0] != "a" {
		t.Errorf("a principal at its limit in a full store: evicted %v, %v; want [a]", ev, err)
	}
	for _, k := range [][2]string{{"alice", "a2"}, {"bob", "b"}} {
		if _, err := st.Get(ctx, k[0], k[1]); err != nil {
			t.Errorf("session %s: %v", k[1], err)
		}
	}
}

func lifetimes(t *testing.T, st legacy.SessionStore, clk Clock) {
	idle := record(clk, "idle", "alice")
	idle.IdleUntil = clk.Now().Add(2 * time.Second)
	busy := record(clk, "busy", "alice")
	busy.IdleUntil, busy.ExpiresAt = clk.Now().Add(2*time.Second), clk.Now().Add(4*time.Second)
	mustCreate(t, st, idle, legacy.SessionLimits{})
	mustCreate(t, st, busy, legacy.SessionLimits{})
	clk.Advance(time.Second)
	if err := st.Touch(ctx, "alice", "busy", clk.Now().Add(2*time.Second)); err != nil {
		t.Fatal(err)
	}
	clk.Advance(1500 * time.Millisecond)
	notFound(t, "Get past IdleUntil", errOf(st.Get(ctx, "alice", "idle")))
	notFound(t, "Touch past IdleUntil", st.Touch(ctx, "alice", "idle", clk.Now().Add(time.Hour)))
	if _, err := st.Get(ctx, "alice", "busy"); err != nil {
		t.Errorf("a touched session expired: %v", err)
	}
	if err := st.Touch(ctx, "alice", "busy", clk.Now().Add(time.Hour)); err != nil {
		t.Fatal(err)
	}
	clk.Advance(2 * time.Second)
	notFound(t, "Get past ExpiresAt, however touched", errOf(st.Get(ctx, "alice", "busy")))
	// Expired sessions count for no limit.
	mustCreate(t, st, record(clk, "new1", "alice"), legacy.SessionLimits{PerPrincipal: 1, Total: 1})
}

func answers(t *testing.T, st legacy.SessionStore, clk Clock) {
	mustCreate(t, st, record(clk, "k1", "alice"), legacy.SessionLimits{})
	if err := st.PutAnswer(ctx, "alice", "k1", "r1", []byte(`{"first":true}`), time.Hour); err != nil {
		t.Fatal(err)
	}
	if err := st.PutAnswer(ctx, "alice", "k1", "r1", []byte(`{"second":true}`), time.Hour); !errors.Is(err, legacy.ErrAnswerExists) {
		t.Errorf("a second answer: %v, want ErrAnswerExists", err)
	}
	if _, err := st.TakeAnswer(ctx, "bob", "k1", "r1"); err == nil {
		t.Error("another principal took the answer")
	}
	got, err := st.TakeAnswer(ctx, "alice", "k1", "r1")
	if err != nil || string(got) != `{"first":true}` {
		t.Errorf("TakeAnswer: %s %v, want the first answer", got, err)
	}
	if _, err := st.TakeAnswer(ctx, "alice", "k1", "r1"); !errors.Is(err, legacy.ErrNoAnswer) {
		t.Errorf("TakeAnswer twice: %v, want ErrNoAnswer", err)
	}
	if _, err := st.TakeAnswer(ctx, "alice", "k1", "never"); !errors.Is(err, legacy.ErrNoAnswer) {
		t.Errorf("TakeAnswer of nothing: %v", err)
	}
	notFound(t, "PutAnswer to an unknown session", st.PutAnswer(ctx, "alice", "nope", "r", []byte(`{}`), time.Hour))
	if err := st.PutAnswer(ctx, "alice", "k1", "r2", []byte(`{}`), time.Second); err != nil {
		t.Fatal(err)
	}
	clk.Advance(1500 * time.Millisecond)
	if _, err := st.TakeAnswer(ctx, "alice", "k1", "r2"); !errors.Is(err, legacy.ErrNoAnswer) {
		t.Errorf("an answer outlived its ttl: %v", err)
	}
}

// sameRecord compares records, times by instant and empty collections
// as absent.
func sameRecord(a, b *legacy.SessionRecord) bool {
	norm := func(r *legacy.SessionRecord) string {
		c := r.Clone()
		c.CreatedAt, c.IdleUntil, c.ExpiresAt = c.CreatedAt.UTC(), c.IdleUntil.UTC(), c.ExpiresAt.UTC()
		for k, p := range c.Pending {
			p.Deadline = p.Deadline.UTC()
			c.Pending[k] = p
		}
		if len(c.Subscriptions) == 0 {
			c.Subscriptions = nil
		}
		if len(c.Pending) == 0 {
			c.Pending = nil
		}
		b, _ := json.Marshal(c) // encoding/json writes map keys sorted
		return string(b)
	}
	return norm(a) == norm(b)
}

func errOf(_ *legacy.SessionRecord, err error) error { return err }
