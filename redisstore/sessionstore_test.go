package redisstore

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/mcpwire/mcpwire/internal/sessionstoretest"
	"github.com/mcpwire/mcpwire/server/legacy"
)

// The Redis SessionStore (docs/dual-era.md §7.1, §7.4): the contract
// shared with the memory store, then what only a shared store has to
// show: expiry by Redis, limits and eviction across instances, updates
// from several instances, outages, and the key layout. Every test's
// store checks, when the test ends, that each of its keys has an expiry.

// scanPattern is the SCAN pattern matching the keys under prefix.
func scanPattern(prefix string) string {
	return strings.NewReplacer(`\`, `\\`, "*", `\*`, "?", `\?`, "[", `\[`, "]", `\]`).Replace(prefix) + "*"
}

// keysUnder returns the keys under prefix.
func keysUnder(t testing.TB, rdb *redis.Client, prefix string) []string {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	keys, err := bounded(ctx, func(ctx context.Context) ([]string, error) {
		var keys []string
		iter := rdb.Scan(ctx, 0, scanPattern(prefix), 100).Iterator()
		for iter.Next(ctx) {
			keys = append(keys, iter.Val())
		}
		return keys, iter.Err()
	})
	if err != nil {
		t.Fatalf("scanning %s*: %v", prefix, err)
	}
	return keys
}

// noKeyWithoutTTL fails the test for each key under prefix that has no
// expiry.
func noKeyWithoutTTL(t testing.TB, rdb *redis.Client, prefix string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	for _, k := range keysUnder(t, rdb, prefix) {
		ttl, err := rdb.PTTL(ctx, k).Result()
		switch {
		case err != nil:
			t.Errorf("PTTL %s: %v", k, err)
		case ttl == -1: // -2 (gone meanwhile) is fine
			t.Errorf("key %s has no expiry", k)
		}
	}
}

// newSessionStore returns a session store on rdb. When the test ends it
// checks that every key under the store's prefix has an expiry, then
// deletes them (they matter on a shared MCP_REDIS_URL).
func newSessionStore(t testing.TB, rdb *redis.Client, opts ...Option) *SessionStore {
	t.Helper()
	return newStoreOn(t, rdb, NewSessionStore, func(s *SessionStore) config { return s.cfg }, true, opts...)
}

// newStoreOn builds a store with mk on rdb and opts, failing the test if
// it cannot, and drops the keys under its prefix (which cfg reads) when
// the test ends, checking their expiry with checkTTL (dropKeysAtEnd).
func newStoreOn[S any](t testing.TB, rdb *redis.Client, mk func(*redis.Client, ...Option) (S, error), cfg func(S) config, checkTTL bool, opts ...Option) S {
	t.Helper()
	s, err := mk(rdb, opts...)
	if err != nil {
		t.Fatal(err)
	}
	dropKeysAtEnd(t, rdb, cfg(s).prefix, checkTTL)
	return s
}

// dropKeysAtEnd deletes the keys under prefix when the test ends, before
// rdb closes (they matter on a shared MCP_REDIS_URL); with checkTTL it
// first fails the test for each of them without an expiry. It does
// nothing when the test stopped its Redis.
func dropKeysAtEnd(t testing.TB, rdb *redis.Client, prefix string, checkTTL bool) {
	t.Cleanup(func() {
		if ping := rdb.Ping(context.Background()); ping.Err() != nil {
			return
		}
		if checkTTL {
			noKeyWithoutTTL(t, rdb, prefix)
		}
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		for _, k := range keysUnder(t, rdb, prefix) {
			rdb.Del(ctx, k)
		}
	})
}

// realClock is Redis's time: Advance sleeps.
type realClock struct{}

func (realClock) Now() time.Time          { return time.Now() }
func (realClock) Advance(d time.Duration) { time.Sleep(d) }

// TestSessionStoreContract runs the SessionStore contract
// (server/internal/sessionstoretest) against a real Redis: each check on
// its own prefix and client, one Redis for all.
func TestSessionStoreContract(t *testing.T) {
	opt := testRedis(t)
	sessionstoretest.Run(t, func(t *testing.T) (legacy.SessionStore, sessionstoretest.Clock) {
		return newSessionStore(t, newClient(t, opt), WithPrefix(uniquePrefix(t))), realClock{}
	})
}

// sessRecord is a live session record of principal with the given idle
// and absolute lifetimes.
func sessRecord(key, principal string, idle, life time.Duration) *legacy.SessionRecord {
	now := time.Now().UTC()
	return &legacy.SessionRecord{
		Key: key, Principal: principal, ProtocolVersion: "2025-11-25",
		ClientCapabilities: json.RawMessage(`{}`), ClientInfo: json.RawMessage(`{"name":"c","version":"1"}`),
		CreatedAt: now, IdleUntil: now.Add(idle), ExpiresAt: now.Add(life),
	}
}

func create(t *testing.T, s *SessionStore, rec *legacy.SessionRecord, lim legacy.SessionLimits) []string {
	t.Helper()
	ev, err := s.Create(ctx5(t), rec, lim)
	if err != nil {
		t.Fatalf("Create %s: %v", rec.Key, err)
	}
	return ev
}

// expiresIn checks that key's time to live is about want: at most want
// (and a second of rounding), at least a minute less.
func expiresIn(t *testing.T, rdb *redis.Client, key, what string, want time.Duration) {
	t.Helper()
	d, err := rdb.PTTL(ctx5(t), key).Result()
	if err != nil || d <= want-time.Minute || d > want+time.Second {
		t.Errorf("%s: TTL %v (%v), want about %v", what, d, err, want)
	}
}

// Every key of a session expires in Redis: the record at min(IdleUntil,
// ExpiresAt), moved by Touch (never past ExpiresAt) and by an Update of
// IdleUntil; the indexes with their latest member; answers after their
// ttl. Once the times have passed, Redis holds none of them.
func TestSessionStoreExpiryInRedis(t *testing.T) {
	rdb := newClient(t, testRedis(t))
	p := uniquePrefix(t)
	s := newSessionStore(t, rdb, WithPrefix(p))
	ctx := ctx5(t)

	long := sessRecord("long", "alice", time.Hour, 2*time.Hour)
	create(t, s, long, legacy.SessionLimits{})
	expiresIn(t, rdb, s.recordKey("alice", "long"), "the record (IdleUntil)", time.Hour)
	if err := s.Touch(ctx, "alice", "long", time.Now().Add(90*time.Minute)); err != nil {
		t.Fatal(err)
	}
	expiresIn(t, rdb, s.recordKey("alice", "long"), "the record after Touch", 90*time.Minute)
	expiresIn(t, rdb, s.sessIndexKey("alice", ""), "the index after Touch (its latest member)", 90*time.Minute)
	if err := s.Touch(ctx, "alice", "long", time.Now().Add(5*time.Hour)); err != nil {
		t.Fatal(err)
	}
	expiresIn(t, rdb, s.recordKey("alice", "long"), "the record after a Touch past ExpiresAt", 2*time.Hour)
	if got, err := s.Get(ctx, "alice", "long"); err != nil || !got.IdleUntil.Equal(long.ExpiresAt) {
		t.Errorf("Touch past ExpiresAt: %+v %v", got, err)
	}
	expiresIn(t, rdb, s.allKey(), "sessall (its latest member)", 2*time.Hour)
	// A record whose ExpiresAt comes first expires then.
	create(t, s, sessRecord("early", "alice", time.Hour, 10*time.Minute), legacy.SessionLimits{})
	expiresIn(t, rdb, s.recordKey("alice", "early"), "a record ending at ExpiresAt", 10*time.Minute)
	// An Update that moves IdleUntil moves the expiry.
	if _, err := s.Update(ctx, "alice", "early", func(r *legacy.SessionRecord) error {
		r.IdleUntil = time.Now().Add(5 * time.Minute)
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	expiresIn(t, rdb, s.recordKey("alice", "early"), "the record after an Update of IdleUntil", 5*time.Minute)

	// Short lifetimes: everything is gone once they have passed.
	q := uniquePrefix(t) + "short:"
	sh := newSessionStore(t, rdb, WithPrefix(q))
	idle := sessRecord("idle", "bob", 300*time.Millisecond, time.Hour)
	idle.QuotaKey = "198.51.100.7"
	create(t, sh, idle, legacy.SessionLimits{PerPrincipal: 5, Total: 100})
	life := sessRecord("life", "bob", time.Hour, 300*time.Millisecond)
	create(t, sh, life, legacy.SessionLimits{PerPrincipal: 5, Total: 100})
	if err := sh.PutAnswer(ctx, "bob", "life", "r1", []byte(`{"ok":true}`), 200*time.Millisecond); err != nil {
		t.Fatal(err)
	}
	before := keysUnder(t, rdb, q)
	if len(before) != 7 { // 2 records, 2 indexes, sessall, an answer and its index
		t.Errorf("keys after the set-up: %q", before)
	}
	for _, k := range before {
		if d, err := rdb.PTTL(ctx, k).Result(); err != nil || d <= 0 || d > time.Hour+time.Second {
			t.Errorf("key %s: TTL %v (%v)", k, d, err)
		}
	}
	time.Sleep(400 * time.Millisecond)
	for _, k := range []string{"idle", "life"} {
		if _, err := sh.Get(ctx, "bob", k); !errors.Is(err, legacy.ErrSessionNotFound) {
			t.Errorf("Get %s after its end: %v", k, err)
		}
	}
	// The records, the answer and the sets that expire with them: gone
	// from Redis itself (EXISTS expires a key that is due).
	for _, k := range before {
		if k == sh.sessIndexKey("bob", "") {
			continue // it lives until life's IdleUntil: see below
		}
		if n, err := rdb.Exists(ctx, k).Result(); err != nil || n != 0 {
			t.Errorf("Redis still holds %s (%d, %v)", k, n, err)
		}
	}
	// bob's plain index lives until life's IdleUntil (an hour); the next
	// Create finds life ended (ExpiresAt) and drops its entry.
	create(t, sh, sessRecord("next", "bob", time.Hour, time.Hour), legacy.SessionLimits{PerPrincipal: 1, Total: 1})
	if members, _ := rdb.ZRange(ctx, sh.sessIndexKey("bob", ""), 0, -1).Result(); len(members) != 1 || members[0] != "next" {
		t.Errorf("bob's index after the next Create: %q", members)
	}
	if members, _ := rdb.ZRange(ctx, sh.allKey(), 0, -1).Result(); len(members) != 1 || members[0] != member("bob", "next") {
		t.Errorf("sessall after the next Create: %q", members)
	}
}

// The total limit holds across two instances creating at once: exactly
// Total sessions are made, every other Create is ErrSessionLimit, and a
// Delete through either instance makes room.
func TestSessionStoreTotalAcrossInstances(t *testing.T) {
	a, b := twoInstances(t, newSessionStore, WithPrefix(uniquePrefix(t)))
	ctx := ctx5(t)
	const total, tries = 5, 30
	lim := legacy.SessionLimits{PerPrincipal: 2, Total: total}
	var made, refused atomic.Int64
	var mu sync.Mutex
	var keys [][2]string
	var wg sync.WaitGroup
	for i := range tries {
		s := a
		if i%2 == 1 {
			s = b
		}
		wg.Go(func() {
			principal, key := fmt.Sprintf("user%d", i%7), fmt.Sprintf("s%d", i)
			switch ev, err := s.Create(ctx, sessRecord(key, principal, time.Hour, time.Hour), lim); {
			case err == nil:
				made.Add(1)
				mu.Lock()
				keys = append(keys, [2]string{principal, key})
				mu.Unlock()
				if len(ev) != 0 {
					made.Add(-1) // an eviction replaced a session
				}
			case errors.Is(err, legacy.ErrSessionLimit):
				refused.Add(1)
			default:
				t.Error(err)
			}
		})
	}
	wg.Wait()
	live := 0
	for _, k := range keys {
		if _, err := a.Get(ctx, k[0], k[1]); err == nil {
			live++
		}
	}
	if made.Load() != total || live != total {
		t.Errorf("%d sessions made (net of evictions), %d live, %d refused; want %d", made.Load(), live, refused.Load(), total)
	}
	if n, _ := a.rdb.ZCard(ctx, a.allKey()).Result(); n != total {
		t.Errorf("sessall holds %d sessions, want %d", n, total)
	}
	if _, err := b.Create(ctx, sessRecord("late", "newcomer", time.Hour, time.Hour), lim); !errors.Is(err, legacy.ErrSessionLimit) {
		t.Fatalf("Create in a full store: %v", err)
	}
	for _, k := range keys {
		if err := a.Delete(ctx, k[0], k[1]); err == nil {
			break
		}
	}
	if _, err := b.Create(ctx, sessRecord("late", "newcomer", time.Hour, time.Hour), lim); err != nil {
		t.Errorf("Create after a Delete through the other instance: %v", err)
	}
}

// The principal's least recently used session is evicted (the earliest
// IdleUntil, as Touch moves it), whichever instance created or touched
// it; with it go its answers and its index entries.
func TestSessionStoreEvictionOrder(t *testing.T) {
	a, b := twoInstances(t, newSessionStore, WithPrefix(uniquePrefix(t)))
	ctx := ctx5(t)
	lim := legacy.SessionLimits{PerPrincipal: 3}
	// Created out of order: c's IdleUntil is the earliest, then a, then b.
	create(t, a, sessRecord("b", "alice", 30*time.Minute, time.Hour), lim)
	create(t, b, sessRecord("c", "alice", 10*time.Minute, time.Hour), lim)
	create(t, a, sessRecord("a", "alice", 20*time.Minute, time.Hour), lim)
	// Touching c through B makes it the most recently used.
	if err := b.Touch(ctx, "alice", "c", time.Now().Add(40*time.Minute)); err != nil {
		t.Fatal(err)
	}
	if err := a.PutAnswer(ctx, "alice", "a", "r1", []byte(`{}`), time.Minute); err != nil {
		t.Fatal(err)
	}
	for i, c := range []struct{ key, evicts string }{{"d", "a"}, {"e", "b"}, {"f", "c"}, {"g", "d"}} {
		s := []*SessionStore{a, b}[i%2]
		ev := create(t, s, sessRecord(c.key, "alice", time.Duration(50+i)*time.Minute, time.Hour), lim)
		want := c.evicts
		if len(ev) != 1 || ev[0] != want {
			t.Fatalf("Create %s evicted %v, want [%s]", c.key, ev, want)
		}
		if _, err := a.Get(ctx, "alice", want); !errors.Is(err, legacy.ErrSessionNotFound) {
			t.Errorf("Get of the evicted %s: %v", want, err)
		}
		if n, _ := a.rdb.ZCard(ctx, a.sessIndexKey("alice", "")).Result(); n != 3 {
			t.Errorf("the index holds %d sessions after evicting %s, want 3", n, want)
		}
	}
	if n, _ := a.rdb.Exists(ctx, a.answerKey("alice", "a", "r1"), a.answersKey("alice", "a")).Result(); n != 0 {
		t.Error("the evicted session's answer is still kept")
	}
	if n, _ := a.rdb.ZCard(ctx, a.allKey()).Result(); n != 3 {
		t.Errorf("sessall holds %d sessions, want 3", n)
	}
}

// Updates and touches from two instances at once all land: none is lost,
// Version counts the updates, and IdleUntil ends at the latest touch.
func TestSessionStoreConcurrentUpdatesAcrossInstances(t *testing.T) {
	a, b := twoInstances(t, newSessionStore, WithPrefix(uniquePrefix(t)))
	stores := []*SessionStore{a, b}
	ctx := ctx5(t)
	rec := sessRecord("k", "alice", time.Hour, 24*time.Hour)
	create(t, stores[0], rec, legacy.SessionLimits{})
	const perStore = 25
	var wg sync.WaitGroup
	var runs atomic.Int64
	errs := make(chan error, 4*perStore)
	latest := rec.IdleUntil.Add(perStore * time.Minute)
	for si, s := range stores {
		for i := range perStore {
			wg.Go(func() {
				_, err := s.Update(ctx, "alice", "k", func(r *legacy.SessionRecord) error {
					runs.Add(1)
					r.BadResponses++
					r.Subscriptions = append(r.Subscriptions, fmt.Sprintf("s%d-%d", si, i))
					return nil
				})
				if err != nil {
					errs <- err
				}
			})
			wg.Go(func() {
				if err := s.Touch(ctx, "alice", "k", rec.IdleUntil.Add(time.Duration(i+1)*time.Minute)); err != nil {
					errs <- err
				}
			})
		}
	}
	waitAndReport(t, &wg, errs)
	got, err := stores[1].Get(ctx, "alice", "k")
	if err != nil {
		t.Fatal(err)
	}
	if got.BadResponses != 2*perStore || got.Version != 2*perStore || len(got.Subscriptions) != 2*perStore {
		t.Errorf("after %d concurrent updates: %d bad responses, version %d, %d subscriptions (an update was lost)",
			2*perStore, got.BadResponses, got.Version, len(got.Subscriptions))
	}
	if !got.IdleUntil.Equal(latest) {
		t.Errorf("IdleUntil %v after the touches, want the latest %v (a touch was lost or undone)", got.IdleUntil, latest)
	}
	if score, _ := stores[0].rdb.ZScore(ctx, stores[0].sessIndexKey("alice", ""), "k").Result(); int64(score) != latest.UnixMicro() {
		t.Errorf("index score %v, want %d", score, latest.UnixMicro())
	}
	t.Logf("%d updates and %d touches from 2 instances; fn ran %d times", 2*perStore, 2*perStore, runs.Load())
}

// A record that Redis still holds but whose end has passed by this
// process's clock is not found by any method; Delete removes its keys.
func TestSessionStoreClock(t *testing.T) {
	rdb := newClient(t, testRedis(t))
	s := newSessionStore(t, rdb, WithPrefix(uniquePrefix(t)))
	ctx := ctx5(t)
	rec := sessRecord("k", "alice", time.Hour, 2*time.Hour)
	create(t, s, rec, legacy.SessionLimits{})
	if err := s.PutAnswer(ctx, "alice", "k", "r", []byte(`{}`), time.Hour); err != nil {
		t.Fatal(err)
	}
	s.now = func() time.Time { return rec.IdleUntil }
	nf := func(what string, err error) {
		t.Helper()
		if !errors.Is(err, legacy.ErrSessionNotFound) {
			t.Errorf("%s at IdleUntil: %v", what, err)
		}
	}
	_, err := s.Get(ctx, "alice", "k")
	nf("Get", err)
	nf("Touch", s.Touch(ctx, "alice", "k", rec.ExpiresAt))
	_, err = s.Update(ctx, "alice", "k", func(*legacy.SessionRecord) error { return nil })
	nf("Update", err)
	nf("PutAnswer", s.PutAnswer(ctx, "alice", "k", "r2", []byte(`{}`), time.Hour))
	if _, err := s.TakeAnswer(ctx, "alice", "k", "r"); !errors.Is(err, legacy.ErrNoAnswer) {
		t.Errorf("TakeAnswer of an ended session: %v", err)
	}
	nf("Delete", s.Delete(ctx, "alice", "k"))
	if keys := keysUnder(t, rdb, s.cfg.prefix); len(keys) != 0 {
		t.Errorf("Delete of an ended session left %q", keys)
	}
}

// Principals and quota keys are hashed into the key names, so any string
// will do; session keys are base64url, and a key that is not cannot name
// a key of the layout. Records need their lifetimes.
func TestSessionStoreKeysAndRecords(t *testing.T) {
	s := newSessionStore(t, newClient(t, testRedis(t)), WithPrefix(uniquePrefix(t)))
	ctx := ctx5(t)
	odd := "user:{x}\x00\n" + strings.Repeat("é", 300)
	rec := sessRecord("k", odd, time.Hour, time.Hour)
	rec.QuotaKey = "}{:*?[]"
	create(t, s, rec, legacy.SessionLimits{PerPrincipal: 1, Total: 10})
	if got, err := s.Get(ctx, odd, "k"); err != nil || got.Principal != odd || got.QuotaKey != rec.QuotaKey {
		t.Errorf("odd principal: %+v %v", got, err)
	}
	if err := s.PutAnswer(ctx, odd, "k", "id:with:colons:ans:x", []byte("payload"), time.Minute); err != nil {
		t.Fatal(err)
	}
	if b, err := s.TakeAnswer(ctx, odd, "k", "id:with:colons:ans:x"); err != nil || string(b) != "payload" {
		t.Errorf("TakeAnswer: %q %v", b, err)
	}
	create(t, s, sessRecord("k", "bob", time.Hour, time.Hour), legacy.SessionLimits{}) // the same key, another principal
	for _, key := range []string{"", "a:b", "k:ans:r", "k:answers", "a*", strings.Repeat("a", 129), "é"} {
		if _, err := s.Create(ctx, sessRecord(key, "alice", time.Hour, time.Hour), legacy.SessionLimits{}); err == nil {
			t.Errorf("Create with key %q succeeded", key)
		}
		if _, err := s.Get(ctx, "alice", key); !errors.Is(err, legacy.ErrSessionNotFound) {
			t.Errorf("Get %q: %v", key, err)
		}
		if err := s.Delete(ctx, "alice", key); !errors.Is(err, legacy.ErrSessionNotFound) {
			t.Errorf("Delete %q: %v", key, err)
		}
		if err := s.Touch(ctx, "alice", key, time.Now().Add(time.Hour)); !errors.Is(err, legacy.ErrSessionNotFound) {
			t.Errorf("Touch %q: %v", key, err)
		}
		if err := s.PutAnswer(ctx, "alice", key, "r", nil, time.Hour); !errors.Is(err, legacy.ErrSessionNotFound) {
			t.Errorf("PutAnswer %q: %v", key, err)
		}
		if _, err := s.TakeAnswer(ctx, "alice", key, "r"); !errors.Is(err, legacy.ErrNoAnswer) {
			t.Errorf("TakeAnswer %q: %v", key, err)
		}
	}
	if _, err := s.Create(ctx, nil, legacy.SessionLimits{}); err == nil {
		t.Error("a nil record was stored")
	}
	if _, err := s.Create(ctx, &legacy.SessionRecord{Key: "z", Principal: "alice", IdleUntil: time.Now().Add(time.Hour)}, legacy.SessionLimits{}); err == nil {
		t.Error("a record without ExpiresAt was stored")
	}
	// A ttl of zero keeps nothing; an empty payload is an answer.
	if err := s.PutAnswer(ctx, odd, "k", "zero", []byte(`{}`), 0); err != nil {
		t.Fatal(err)
	}
	if _, err := s.TakeAnswer(ctx, odd, "k", "zero"); !errors.Is(err, legacy.ErrNoAnswer) {
		t.Errorf("an answer kept for 0: %v", err)
	}
	if err := s.PutAnswer(ctx, odd, "k", "empty", nil, time.Minute); err != nil {
		t.Fatal(err)
	}
	if b, err := s.TakeAnswer(ctx, odd, "k", "empty"); err != nil || len(b) != 0 {
		t.Errorf("an empty answer: %q %v", b, err)
	}
	if _, err := NewSessionStore(nil); err == nil {
		t.Error("NewSessionStore(nil) succeeded")
	}
	if _, err := NewSessionStore(s.rdb, WithTimeout(0)); err == nil {
		t.Error("a zero timeout was accepted")
	}
}

// The key layout of docs/dual-era.md §7.4, under the default prefix and
// under WithPrefix: nothing is written outside the prefix, each key is
// one of the documented names, a principal's keys share its hash tag, and
// every key has an expiry.
func TestSessionStoreKeyLayout(t *testing.T) {
	r := startRedis(t) // a Redis of its own: the test scans all its keys
	rdb := newClient(t, &redis.Options{Addr: r.addr()})
	ctx := ctx5(t)
	for _, prefix := range []string{DefaultPrefix, "custom{:}*"} {
		var opts []Option
		if prefix != DefaultPrefix {
			opts = append(opts, WithPrefix(prefix))
		}
		s := newSessionStore(t, rdb, opts...)
		if s.cfg.prefix != prefix {
			t.Fatalf("prefix %q, want %q", s.cfg.prefix, prefix)
		}
		lim := legacy.SessionLimits{PerPrincipal: 5, Total: 50}
		create(t, s, sessRecord("A1", "alice", time.Hour, time.Hour), lim)
		withQuota := sessRecord("A2", "", time.Hour, time.Hour)
		withQuota.QuotaKey = "203.0.113.9"
		create(t, s, withQuota, lim)
		if err := s.PutAnswer(ctx, "alice", "A1", "mcpwire-1", []byte(`{"action":"accept"}`), time.Minute); err != nil {
			t.Fatal(err)
		}
		if _, err := s.Update(ctx, "alice", "A1", func(r *legacy.SessionRecord) error { r.Initialized = true; return nil }); err != nil {
			t.Fatal(err)
		}
		if err := s.Touch(ctx, "", "A2", time.Now().Add(2*time.Hour)); err != nil {
			t.Fatal(err)
		}
		tag := regexp.MustCompile(`^\{[0-9a-f]{32}\}$`) // 128 bits of SHA-256
		if !tag.MatchString(principalTag("alice")) || !tag.MatchString(principalTag("")) {
			t.Errorf("principal tags %q %q", principalTag("alice"), principalTag(""))
		}
		q := regexp.QuoteMeta(prefix)
		ta, te := regexp.QuoteMeta(principalTag("alice")), regexp.QuoteMeta(principalTag(""))
		want := map[string]*regexp.Regexp{
			"alice's record":        regexp.MustCompile(`^` + q + `sess:` + ta + `:A1$`),
			"alice's answer":        regexp.MustCompile(`^` + q + `sess:` + ta + `:A1:ans:mcpwire-1$`),
			"alice's answer index":  regexp.MustCompile(`^` + q + `sess:` + ta + `:A1:answers$`),
			"alice's index":         regexp.MustCompile(`^` + q + `sessidx:` + ta + `$`),
			"the anonymous record":  regexp.MustCompile(`^` + q + `sess:` + te + `:A2$`),
			"the quota key's index": regexp.MustCompile(`^` + q + `sessidx:` + te + `:q:` + shortHash("203.0.113.9") + `$`),
			"the set of all":        regexp.MustCompile(`^` + q + `sessall$`),
		}
		keys := keysUnder(t, rdb, prefix)
		matched := map[string]int{}
	next:
		for _, k := range keys {
			for name, re := range want {
				if re.MatchString(k) {
					matched[name]++
					continue next
				}
			}
			t.Errorf("key %q is not in the layout", k)
		}
		for name := range want {
			if matched[name] != 1 {
				t.Errorf("%d keys for %s under %q: %q", matched[name], name, prefix, keys)
			}
		}
		fields, err := rdb.HGetAll(ctx, s.recordKey("alice", "A1")).Result()
		if err != nil {
			t.Fatal(err)
		}
		var stored legacy.SessionRecord
		if err := json.Unmarshal([]byte(fields["record"]), &stored); err != nil || !stored.Initialized || stored.Version != 1 {
			t.Errorf("record field: %q %v", fields["record"], err)
		}
		if fields["version"] != "1" || fields["rev"] != "1" || fields["principal"] != "alice" || fields["idx"] != s.sessIndexKey("alice", "") {
			t.Errorf("record hash %q", fields)
		}
		if u, _ := strconv.ParseInt(fields["until"], 10, 64); u != ceilMs(stored.IdleUntil) {
			t.Errorf("until %s, IdleUntil %v", fields["until"], stored.IdleUntil)
		}
	}
	// Nothing outside the two prefixes.
	all := keysUnder(t, rdb, "")
	for _, k := range all {
		if !strings.HasPrefix(k, DefaultPrefix) && !strings.HasPrefix(k, "custom{:}*") {
			t.Errorf("key %q outside the prefixes", k)
		}
	}
	noKeyWithoutTTL(t, rdb, "")
}

// Delete removes every key of the session: its record, its answers, its
// index entries, and the event logs that docs/dual-era.md §7.4 keys under
// it (found through :streams), whatever their type.
func TestSessionStoreDeleteRemovesAll(t *testing.T) {
	rdb := newClient(t, testRedis(t))
	s := newSessionStore(t, rdb, WithPrefix(uniquePrefix(t)))
	ctx := ctx5(t)
	create(t, s, sessRecord("k", "alice", time.Hour, time.Hour), legacy.SessionLimits{PerPrincipal: 2})
	create(t, s, sessRecord("other", "alice", time.Hour, time.Hour), legacy.SessionLimits{PerPrincipal: 2})
	for _, r := range []string{"r1", "r2"} {
		if err := s.PutAnswer(ctx, "alice", "k", r, []byte(`{}`), time.Minute); err != nil {
			t.Fatal(err)
		}
	}
	rk := s.recordKey("alice", "k")
	pipe := rdb.TxPipeline()
	pipe.ZAdd(ctx, rk+":streams", redis.Z{Score: 1, Member: "s1"})
	pipe.Set(ctx, rk+":ev:s1", "events", time.Minute)
	pipe.HSet(ctx, rk+":st:s1", "done", "0")
	pipe.PExpire(ctx, rk+":st:s1", time.Minute)
	pipe.PExpire(ctx, rk+":streams", time.Minute)
	if _, err := pipe.Exec(ctx); err != nil {
		t.Fatal(err)
	}
	if err := s.Delete(ctx, "bob", "k"); !errors.Is(err, legacy.ErrSessionNotFound) {
		t.Errorf("Delete by another principal: %v", err)
	}
	if err := s.Delete(ctx, "alice", "k"); err != nil {
		t.Fatal(err)
	}
	for _, k := range keysUnder(t, rdb, s.cfg.prefix) {
		if strings.HasPrefix(k, rk) {
			t.Errorf("Delete left %s", k)
		}
	}
	if members, _ := rdb.ZRange(ctx, s.sessIndexKey("alice", ""), 0, -1).Result(); len(members) != 1 || members[0] != "other" {
		t.Errorf("index after Delete: %q", members)
	}
	if members, _ := rdb.ZRange(ctx, s.allKey(), 0, -1).Result(); len(members) != 1 || members[0] != member("alice", "other") {
		t.Errorf("sessall after Delete: %q", members)
	}
}

// Answers: of two instances taking one answer at once, exactly one gets
// it; of two putting, exactly one wins.
func TestSessionStoreAnswersAcrossInstances(t *testing.T) {
	a, b := twoInstances(t, newSessionStore, WithPrefix(uniquePrefix(t)))
	stores := []*SessionStore{a, b}
	ctx := ctx5(t)
	create(t, stores[0], sessRecord("k", "alice", time.Hour, time.Hour), legacy.SessionLimits{})
	for round := range 10 {
		reqID := fmt.Sprintf("mcpwire-%d", round)
		var put, exists, took, none atomic.Int64
		var wg sync.WaitGroup
		for i := range 4 {
			wg.Go(func() {
				switch err := stores[i%2].PutAnswer(ctx, "alice", "k", reqID, []byte(strconv.Itoa(i)), time.Minute); {
				case err == nil:
					put.Add(1)
				case errors.Is(err, legacy.ErrAnswerExists):
					exists.Add(1)
				default:
					t.Error(err)
				}
			})
		}
		wg.Wait()
		for i := range 4 {
			wg.Go(func() {
				switch _, err := stores[i%2].TakeAnswer(ctx, "alice", "k", reqID); {
				case err == nil:
					took.Add(1)
				case errors.Is(err, legacy.ErrNoAnswer):
					none.Add(1)
				default:
					t.Error(err)
				}
			})
		}
		wg.Wait()
		if put.Load() != 1 || exists.Load() != 3 || took.Load() != 1 || none.Load() != 3 {
			t.Fatalf("round %d: %d put, %d refused, %d taken, %d found nothing; want 1, 3, 1, 3", round, put.Load(), exists.Load(), took.Load(), none.Load())
		}
	}
}

// A store whose Redis hangs fails each call by its timeout, with an error
// that is not ErrSessionNotFound (the runtime answers 503, not 404).
func TestSessionStoreUnresponsiveRedis(t *testing.T) {
	rdb := blackholeClient(t)
	s, err := NewSessionStore(rdb, WithTimeout(200*time.Millisecond))
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range sessionCalls(s) {
		start := time.Now()
		err := c.call(context.Background())
		took := time.Since(start)
		if err == nil || !strings.HasPrefix(err.Error(), "redisstore: ") || !errors.Is(err, context.DeadlineExceeded) || isSentinel(err) {
			t.Errorf("%s: %v", c.name, err)
		}
		if took > 2*time.Second { // a bound against a hang, not a measure
			t.Errorf("%s took %v with a 200ms timeout", c.name, took)
		}
		t.Logf("%s: %v (%v)", c.name, err, took)
	}
}

// isSentinel reports whether err is one of the store's "not found"
// answers, which an outage must never produce.
func isSentinel(err error) bool {
	return errors.Is(err, legacy.ErrSessionNotFound) || errors.Is(err, legacy.ErrNoAnswer) ||
		errors.Is(err, legacy.ErrAnswerExists) || errors.Is(err, legacy.ErrSessionLimit)
}

// sessionCall is one call of a method, on session "k" of "alice".
type sessionCall struct {
	name string
	call func(context.Context) error
}

// sessionCalls calls each method once, in an order that succeeds on a
// store holding session "k" of "alice".
func sessionCalls(s *SessionStore) []sessionCall {
	return []sessionCall{
		{"Create", func(ctx context.Context) error {
			_, err := s.Create(ctx, sessRecord("new", "alice", time.Hour, time.Hour), legacy.SessionLimits{PerPrincipal: 2, Total: 10})
			return err
		}},
		{"Get", func(ctx context.Context) error { _, err := s.Get(ctx, "alice", "k"); return err }},
		{"Touch", func(ctx context.Context) error { return s.Touch(ctx, "alice", "k", time.Now().Add(2*time.Hour)) }},
		{"Update", func(ctx context.Context) error {
			_, err := s.Update(ctx, "alice", "k", func(r *legacy.SessionRecord) error { r.BadResponses++; return nil })
			return err
		}},
		{"PutAnswer", func(ctx context.Context) error { return s.PutAnswer(ctx, "alice", "k", "r", []byte(`{}`), time.Minute) }},
		{"TakeAnswer", func(ctx context.Context) error { _, err := s.TakeAnswer(ctx, "alice", "k", "r"); return err }},
		{"Delete", func(ctx context.Context) error { return s.Delete(ctx, "alice", "k") }},
	}
}

// Redis killed: every call fails within its timeout, with a wrapped
// error, never "not found"; none hangs. Redis started again on the same
// port: the store works again at once (the sessions of the lost Redis are
// gone, as its data was: they are not found, and clients start over).
func TestSessionStoreRedisRestart(t *testing.T) {
	r := startRedis(t) // always a local redis-server: this test kills it
	rdb := newClient(t, &redis.Options{Addr: r.addr()})
	const timeout = 300 * time.Millisecond
	s := newSessionStore(t, rdb, WithPrefix(uniquePrefix(t)), WithTimeout(timeout))
	ctx := ctx5(t)
	create(t, s, sessRecord("k", "alice", time.Hour, time.Hour), legacy.SessionLimits{})

	r.kill()
	for _, c := range sessionCalls(s) {
		start := time.Now()
		err := c.call(context.Background())
		took := time.Since(start)
		t.Logf("%s with Redis down: %v (%v)", c.name, err, took)
		if err == nil || !strings.HasPrefix(err.Error(), "redisstore: ") || isSentinel(err) {
			t.Errorf("%s with Redis down: %v, want a Redis error", c.name, err)
		}
		if took > timeout+2*time.Second { // a bound against a hang, not a measure
			t.Errorf("%s took %v with a %v timeout", c.name, took, timeout)
		}
	}

	r.start()
	// The pool's connections died with Redis; the first call may still
	// meet one. Within a few tries the store answers again.
	deadline := time.Now().Add(5 * time.Second)
	for {
		_, err := s.Get(ctx, "alice", "k")
		if errors.Is(err, legacy.ErrSessionNotFound) {
			break // Redis answers; it lost everything
		}
		if time.Now().After(deadline) {
			t.Fatalf("Get after the restart: %v", err)
		}
		time.Sleep(20 * time.Millisecond)
	}
	create(t, s, sessRecord("k", "alice", time.Hour, time.Hour), legacy.SessionLimits{PerPrincipal: 2, Total: 10})
	for _, c := range sessionCalls(s) {
		if err := c.call(ctx); err != nil {
			t.Errorf("%s after the restart: %v", c.name, err)
		}
	}
}
