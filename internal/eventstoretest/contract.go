// Package eventstoretest checks an implementation of legacy.EventStore
// against the contract of docs/dual-era.md §7.2 and the EventStore
// documentation: principal and session binding, strictly increasing
// seqs, reads after an event, the per-stream bounds with truncation, the
// streams-per-session bound, leases, retention and Finish, and
// DeleteSession. The memory store and the Redis store run the same
// checks.
package eventstoretest

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"testing"
	"time"

	"github.com/mcpwire/mcpwire/server/legacy"
)

// Clock is the store's time, as the checks see it: Now is what the store
// compares retention with, Advance moves it forward (a fake clock moves at
// once; a real one sleeps).
type Clock interface {
	Now() time.Time
	Advance(d time.Duration)
}

// NewStore returns an empty store and its clock.
type NewStore func(t *testing.T) (legacy.EventStore, Clock)

// Run runs every check, each on a fresh store.
func Run(t *testing.T, newStore NewStore) {
	for _, c := range []struct {
		name string
		f    func(t *testing.T, st legacy.EventStore, clk Clock)
	}{
		{"open append read", openAppendRead},
		{"binding", binding},
		{"seq order", seqOrder},
		{"max events", maxEvents},
		{"max bytes", maxBytes},
		{"max streams", maxStreams},
		{"reopen", reopen},
		{"lease and finish", leaseFinish},
		{"retention", retention},
		{"delete session", deleteSession},
	} {
		t.Run(c.name, func(t *testing.T) {
			st, clk := newStore(t)
			c.f(t, st, clk)
		})
	}
}

var ctx = context.Background()

// lim is a generous limit with a one-minute retention.
var lim = legacy.ReplayLimits{MaxEvents: 100, MaxBytes: 1 << 20, MaxStreams: 4, Retention: time.Minute}

func open(t *testing.T, st legacy.EventStore, clk Clock, principal, session, stream string, l legacy.ReplayLimits) {
	t.Helper()
	m := legacy.StreamMeta{RequestID: json.RawMessage(`7`), Owner: "inst-a", LeaseUntil: clk.Now().Add(45 * time.Second), Scopes: []string{"files:read", "admin"}}
	if err := st.Open(ctx, principal, session, stream, m, l); err != nil {
		t.Fatalf("Open %s: %v", stream, err)
	}
}

func appendN(t *testing.T, st legacy.EventStore, principal, session, stream string, from, to int64, size int) {
	t.Helper()
	for seq := from; seq <= to; seq++ {
		data := []byte(fmt.Sprintf(`{"n":%d}`, seq))
		for len(data) < size {
			data = append(data[:len(data)-1], ` }`...)
		}
		if err := st.Append(ctx, principal, session, stream, legacy.StoredEvent{Seq: seq, Data: data}); err != nil {
			t.Fatalf("Append %s %d: %v", stream, seq, err)
		}
	}
}

func seqs(evs []legacy.StoredEvent) []int64 {
	out := make([]int64, len(evs))
	for i, e := range evs {
		out[i] = e.Seq
	}
	return out
}

func wantSeqs(t *testing.T, what string, evs []legacy.StoredEvent, want ...int64) {
	t.Helper()
	got := seqs(evs)
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("%s: seqs %v, want %v", what, got, want)
	}
}

func openAppendRead(t *testing.T, st legacy.EventStore, clk Clock) {
	open(t, st, clk, "alice", "s1", "streamAAAAAA", lim)
	evs, m, err := st.Read(ctx, "alice", "s1", "streamAAAAAA", 0, 0)
	if err != nil || len(evs) != 0 {
		t.Fatalf("Read of a new stream: %v %v", evs, err)
	}
	if m.Oldest != 1 || m.Last != 0 || m.Done || m.Owner != "inst-a" || string(m.RequestID) != "7" || !slices.Equal(m.Scopes, []string{"files:read", "admin"}) {
		t.Errorf("meta of a new stream: %+v", m)
	}
	appendN(t, st, "alice", "s1", "streamAAAAAA", 1, 5, 0)
	evs, m, err = st.Read(ctx, "alice", "s1", "streamAAAAAA", 2, 0)
	if err != nil {
		t.Fatal(err)
	}
	wantSeqs(t, "after 2", evs, 3, 4, 5)
	if string(evs[0].Data) != `{"n":3}` {
		t.Errorf("data %q", evs[0].Data)
	}
	if m.Oldest != 1 || m.Last != 5 {
		t.Errorf("meta: %+v", m)
	}
	evs, _, _ = st.Read(ctx, "alice", "s1", "streamAAAAAA", 0, 2)
	wantSeqs(t, "max 2", evs, 1, 2)
	evs, _, err = st.Read(ctx, "alice", "s1", "streamAAAAAA", 5, 0)
	if err != nil || len(evs) != 0 {
		t.Errorf("after the last: %v %v", evs, err)
	}
	// A returned event is a copy.
	evs, _, _ = st.Read(ctx, "alice", "s1", "streamAAAAAA", 0, 1)
	evs[0].Data[0] = 'X'
	evs, _, _ = st.Read(ctx, "alice", "s1", "streamAAAAAA", 0, 1)
	if evs[0].Data[0] != '{' {
		t.Error("Read returned the stored bytes, not a copy")
	}
}

func binding(t *testing.T, st legacy.EventStore, clk Clock) {
	open(t, st, clk, "alice", "s1", "streamAAAAAA", lim)
	appendN(t, st, "alice", "s1", "streamAAAAAA", 1, 2, 0)
	for _, c := range []struct{ p, s, id string }{
		{"bob", "s1", "streamAAAAAA"},   // another principal
		{"alice", "s2", "streamAAAAAA"}, // another session
		{"alice", "s1", "streamBBBBBB"}, // never opened
		{"", "s1", "streamAAAAAA"},
	} {
		if _, _, err := st.Read(ctx, c.p, c.s, c.id, 0, 0); !errors.Is(err, legacy.ErrStreamNotFound) {
			t.Errorf("Read %v: %v, want ErrStreamNotFound", c, err)
		}
		if err := st.Append(ctx, c.p, c.s, c.id, legacy.StoredEvent{Seq: 9, Data: []byte("{}")}); !errors.Is(err, legacy.ErrStreamNotFound) {
			t.Errorf("Append %v: %v, want ErrStreamNotFound", c, err)
		}
		if err := st.Renew(ctx, c.p, c.s, c.id, clk.Now().Add(time.Minute)); !errors.Is(err, legacy.ErrStreamNotFound) {
			t.Errorf("Renew %v: %v, want ErrStreamNotFound", c, err)
		}
		if err := st.Finish(ctx, c.p, c.s, c.id, clk.Now().Add(time.Minute)); !errors.Is(err, legacy.ErrStreamNotFound) {
			t.Errorf("Finish %v: %v, want ErrStreamNotFound", c, err)
		}
	}
	if err := st.DeleteSession(ctx, "bob", "s1"); err != nil {
		t.Fatal(err)
	}
	if evs, _, err := st.Read(ctx, "alice", "s1", "streamAAAAAA", 0, 0); err != nil || len(evs) != 2 {
		t.Errorf("another principal's DeleteSession touched the stream: %v %v", evs, err)
	}
}

func seqOrder(t *testing.T, st legacy.EventStore, clk Clock) {
	open(t, st, clk, "", "s1", "streamAAAAAA", lim)
	appendN(t, st, "", "s1", "streamAAAAAA", 1, 3, 0)
	for _, seq := range []int64{3, 2, 0, -1} {
		if err := st.Append(ctx, "", "s1", "streamAAAAAA", legacy.StoredEvent{Seq: seq, Data: []byte("{}")}); err == nil {
			t.Errorf("Append seq %d after 3 accepted", seq)
		}
	}
	// A gap is allowed (seqs need only increase).
	if err := st.Append(ctx, "", "s1", "streamAAAAAA", legacy.StoredEvent{Seq: 10, Data: []byte("{}")}); err != nil {
		t.Fatal(err)
	}
	evs, m, _ := st.Read(ctx, "", "s1", "streamAAAAAA", 3, 0)
	wantSeqs(t, "after the gap", evs, 10)
	if m.Last != 10 {
		t.Errorf("Last %d, want 10", m.Last)
	}
}

func maxEvents(t *testing.T, st legacy.EventStore, clk Clock) {
	l := lim
	l.MaxEvents = 3
	open(t, st, clk, "", "s1", "streamAAAAAA", l)
	appendN(t, st, "", "s1", "streamAAAAAA", 1, 5, 0)
	evs, m, err := st.Read(ctx, "", "s1", "streamAAAAAA", 2, 0)
	if err != nil {
		t.Fatal(err)
	}
	wantSeqs(t, "after 2 with 3 kept", evs, 3, 4, 5)
	if m.Oldest != 3 || m.Last != 5 {
		t.Errorf("meta %+v, want Oldest 3 Last 5", m)
	}
	for _, after := range []int64{0, 1} {
		if _, m, err := st.Read(ctx, "", "s1", "streamAAAAAA", after, 0); !errors.Is(err, legacy.ErrEventsTruncated) || m.Last != 5 {
			t.Errorf("Read after %d: %v (meta %+v), want ErrEventsTruncated with the meta", after, err, m)
		}
	}
}

func maxBytes(t *testing.T, st legacy.EventStore, clk Clock) {
	l := lim
	l.MaxBytes = 250 // two events of 100 bytes fit, not three
	open(t, st, clk, "", "s1", "streamAAAAAA", l)
	appendN(t, st, "", "s1", "streamAAAAAA", 1, 4, 100)
	evs, m, err := st.Read(ctx, "", "s1", "streamAAAAAA", 2, 0)
	if err != nil {
		t.Fatal(err)
	}
	wantSeqs(t, "after 2 with 250 bytes kept", evs, 3, 4)
	if m.Oldest != 3 {
		t.Errorf("Oldest %d, want 3", m.Oldest)
	}
	if _, _, err := st.Read(ctx, "", "s1", "streamAAAAAA", 1, 0); !errors.Is(err, legacy.ErrEventsTruncated) {
		t.Errorf("Read after 1: %v, want ErrEventsTruncated", err)
	}
}

func maxStreams(t *testing.T, st legacy.EventStore, clk Clock) {
	l := lim
	l.MaxStreams = 2
	open(t, st, clk, "", "s1", "streamAAAAAA", l)
	appendN(t, st, "", "s1", "streamAAAAAA", 1, 1, 0)
	clk.Advance(10 * time.Millisecond)
	open(t, st, clk, "", "s1", "streamBBBBBB", l)
	appendN(t, st, "", "s1", "streamBBBBBB", 1, 1, 0)
	clk.Advance(10 * time.Millisecond)
	appendN(t, st, "", "s1", "streamAAAAAA", 2, 2, 0) // A is now the most recently written
	clk.Advance(10 * time.Millisecond)
	open(t, st, clk, "", "s1", "streamCCCCCC", l) // a third: B (oldest last event) goes
	if _, _, err := st.Read(ctx, "", "s1", "streamBBBBBB", 0, 0); !errors.Is(err, legacy.ErrStreamNotFound) {
		t.Errorf("the stream with the oldest last event: %v, want ErrStreamNotFound", err)
	}
	for _, id := range []string{"streamAAAAAA", "streamCCCCCC"} {
		if _, _, err := st.Read(ctx, "", "s1", id, 0, 0); err != nil {
			t.Errorf("%s: %v", id, err)
		}
	}
	// Another session's streams are not counted.
	open(t, st, clk, "", "s2", "streamDDDDDD", l)
	if _, _, err := st.Read(ctx, "", "s1", "streamAAAAAA", 0, 0); err != nil {
		t.Errorf("another session's Open deleted a stream: %v", err)
	}
}

func reopen(t *testing.T, st legacy.EventStore, clk Clock) {
	open(t, st, clk, "", "s1", "streamAAAAAA", lim)
	appendN(t, st, "", "s1", "streamAAAAAA", 1, 3, 0)
	if err := st.Finish(ctx, "", "s1", "streamAAAAAA", clk.Now().Add(time.Minute)); err != nil {
		t.Fatal(err)
	}
	m := legacy.StreamMeta{Owner: "inst-b", LeaseUntil: clk.Now().Add(time.Minute), Oldest: 99, Last: 99}
	if err := st.Open(ctx, "", "s1", "streamAAAAAA", m, lim); err != nil {
		t.Fatal(err)
	}
	evs, got, err := st.Read(ctx, "", "s1", "streamAAAAAA", 0, 0)
	if err != nil {
		t.Fatal(err)
	}
	wantSeqs(t, "after a re-open", evs, 1, 2, 3)
	if got.Owner != "inst-b" || got.Done || got.Last != 3 || got.Oldest != 1 || len(got.RequestID) != 0 {
		t.Errorf("meta after a re-open: %+v", got)
	}
	appendN(t, st, "", "s1", "streamAAAAAA", 4, 4, 0) // the new owner continues from Last+1
}

func leaseFinish(t *testing.T, st legacy.EventStore, clk Clock) {
	open(t, st, clk, "", "s1", "streamAAAAAA", lim)
	until := clk.Now().Add(3 * time.Minute).UTC().Truncate(time.Millisecond)
	if err := st.Renew(ctx, "", "s1", "streamAAAAAA", until); err != nil {
		t.Fatal(err)
	}
	_, m, _ := st.Read(ctx, "", "s1", "streamAAAAAA", 0, 0)
	if !m.LeaseUntil.Equal(until) || m.Done {
		t.Errorf("after Renew: %+v, want LeaseUntil %v", m, until)
	}
	// A renewed lease keeps the stream past its retention.
	clk.Advance(2 * time.Minute)
	if _, _, err := st.Read(ctx, "", "s1", "streamAAAAAA", 0, 0); err != nil {
		t.Fatalf("a leased stream expired: %v", err)
	}
	appendN(t, st, "", "s1", "streamAAAAAA", 1, 1, 0)
	if err := st.Finish(ctx, "", "s1", "streamAAAAAA", clk.Now().Add(5*time.Minute)); err != nil {
		t.Fatal(err)
	}
	evs, m, _ := st.Read(ctx, "", "s1", "streamAAAAAA", 0, 0)
	if !m.Done || len(evs) != 1 {
		t.Errorf("after Finish: %+v %v", m, evs)
	}
	clk.Advance(4 * time.Minute)
	if _, _, err := st.Read(ctx, "", "s1", "streamAAAAAA", 0, 0); err != nil {
		t.Errorf("Finish's keepUntil not honoured: %v", err)
	}
	clk.Advance(2 * time.Minute)
	if _, _, err := st.Read(ctx, "", "s1", "streamAAAAAA", 0, 0); !errors.Is(err, legacy.ErrStreamNotFound) {
		t.Errorf("past keepUntil: %v, want ErrStreamNotFound", err)
	}
}

func retention(t *testing.T, st legacy.EventStore, clk Clock) {
	l := lim
	l.Retention = 2 * time.Second
	m := legacy.StreamMeta{Owner: "inst-a", LeaseUntil: clk.Now()}
	if err := st.Open(ctx, "", "s1", "streamAAAAAA", m, l); err != nil {
		t.Fatal(err)
	}
	appendN(t, st, "", "s1", "streamAAAAAA", 1, 1, 0)
	clk.Advance(1500 * time.Millisecond)
	appendN(t, st, "", "s1", "streamAAAAAA", 2, 2, 0) // each append keeps it for Retention more
	clk.Advance(1500 * time.Millisecond)
	if _, _, err := st.Read(ctx, "", "s1", "streamAAAAAA", 0, 0); err != nil {
		t.Fatalf("within the retention of the last append: %v", err)
	}
	clk.Advance(1500 * time.Millisecond)
	if _, _, err := st.Read(ctx, "", "s1", "streamAAAAAA", 0, 0); !errors.Is(err, legacy.ErrStreamNotFound) {
		t.Errorf("past the retention: %v, want ErrStreamNotFound", err)
	}
}

func deleteSession(t *testing.T, st legacy.EventStore, clk Clock) {
	open(t, st, clk, "", "s1", "streamAAAAAA", lim)
	open(t, st, clk, "", "s1", "streamBBBBBB", lim)
	open(t, st, clk, "", "s2", "streamAAAAAA", lim)
	appendN(t, st, "", "s1", "streamAAAAAA", 1, 2, 0)
	if err := st.DeleteSession(ctx, "", "s1"); err != nil {
		t.Fatal(err)
	}
	for _, id := range []string{"streamAAAAAA", "streamBBBBBB"} {
		if _, _, err := st.Read(ctx, "", "s1", id, 0, 0); !errors.Is(err, legacy.ErrStreamNotFound) {
			t.Errorf("%s after DeleteSession: %v", id, err)
		}
	}
	if _, _, err := st.Read(ctx, "", "s2", "streamAAAAAA", 0, 0); err != nil {
		t.Errorf("another session's stream: %v", err)
	}
	if err := st.DeleteSession(ctx, "", "nope"); err != nil {
		t.Errorf("DeleteSession of an unknown session: %v", err)
	}
}
