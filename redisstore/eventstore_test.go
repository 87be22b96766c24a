package redisstore

import (
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/mcpwire/mcpwire/internal/eventstoretest"
	"github.com/mcpwire/mcpwire/internal/testutil"
	"github.com/mcpwire/mcpwire/server/legacy"
)

// newEventStore returns an event store on rdb; when the test ends, as with
// newSessionStore, its keys are checked for an expiry and deleted.
func newEventStore(t testing.TB, rdb *redis.Client, opts ...Option) *EventStore {
	t.Helper()
	return newStoreOn(t, rdb, NewEventStore, func(s *EventStore) config { return s.cfg }, true, opts...)
}

// TestEventStoreContract runs the EventStore contract
// (server/internal/eventstoretest) against a real Redis, with a fake clock
// for the store's judgement of expiry.
func TestEventStoreContract(t *testing.T) {
	opt := testRedis(t)
	eventstoretest.Run(t, func(t *testing.T) (legacy.EventStore, eventstoretest.Clock) {
		s := newEventStore(t, newClient(t, opt), WithPrefix(uniquePrefix(t)))
		clk := testutil.NewClock(time.Now().Truncate(time.Millisecond)) // the store judges expiry by it; Redis's own expiries stay later
		s.now = clk.Now
		return s, clk
	})
}

// TestEventStoreKeys: the layout of §7.4 as implemented, every key
// expiring, and DeleteSession removing every key of the session.
func TestEventStoreKeys(t *testing.T) {
	rdb := newClient(t, testRedis(t))
	p := uniquePrefix(t)
	s := newEventStore(t, rdb, WithPrefix(p))
	ctx := ctx5(t)
	lim := legacy.ReplayLimits{MaxEvents: 10, Retention: time.Minute}
	if err := s.Open(ctx, "alice", "sessKey", "streamAAAAAA", legacy.StreamMeta{Owner: "a"}, lim); err != nil {
		t.Fatal(err)
	}
	if err := s.Append(ctx, "alice", "sessKey", "streamAAAAAA", legacy.StoredEvent{Seq: 1, Data: []byte(`{"a":"b:c"}`)}); err != nil {
		t.Fatal(err)
	}
	evs, _, err := s.Read(ctx, "alice", "sessKey", "streamAAAAAA", 0, 0)
	if err != nil || len(evs) != 1 || string(evs[0].Data) != `{"a":"b:c"}` {
		t.Fatalf("Read: %v %v", evs, err)
	}
	base := p + "sess:" + principalTag("alice") + ":sessKey"
	for _, k := range []string{base + ":st:streamAAAAAA", base + ":ev:streamAAAAAA", base + ":streams"} {
		ttl, err := rdb.PTTL(ctx, k).Result()
		if err != nil || ttl <= 0 {
			t.Errorf("key %s: ttl %v %v", k, ttl, err)
		}
	}
	if err := s.DeleteSession(ctx, "alice", "sessKey"); err != nil {
		t.Fatal(err)
	}
	if keys, _ := rdb.Keys(ctx, p+"*").Result(); len(keys) != 0 {
		t.Errorf("keys left after DeleteSession: %v", keys)
	}
	// A key of another shape is refused or not found, never a key name.
	if err := s.Open(ctx, "", "a:b", "streamAAAAAA", legacy.StreamMeta{}, lim); err == nil {
		t.Error("Open with a session key holding ':' accepted")
	}
	if _, _, err := s.Read(ctx, "", "sessKey", "a*", 0, 0); err != legacy.ErrStreamNotFound {
		t.Errorf("Read of a bad stream id: %v", err)
	}
}
