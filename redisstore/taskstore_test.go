package redisstore

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/mcpwire/mcpwire/ext/tasks"
	"github.com/redis/go-redis/v9"
)

// uniquePrefix keeps the keys of tests sharing one Redis apart.
func uniquePrefix(t *testing.T) string { return uniqueChannel(t) + ":" }

// newStore returns a store on rdb; the keys under its prefix are deleted
// when the test ends (they matter on a shared MCP_REDIS_URL).
func newStore(t testing.TB, rdb *redis.Client, opts ...Option) *TaskStore {
	t.Helper()
	return newStoreOn(t, rdb, NewTaskStore, func(s *TaskStore) config { return s.cfg }, false, opts...)
}

func record(id, principal string, ttl time.Duration) *tasks.TaskRecord {
	now := time.Now().UTC().Truncate(time.Millisecond)
	return &tasks.TaskRecord{
		ID: id, Principal: principal, Method: "tools/call", Target: "slow",
		Status: tasks.TaskWorking, CreatedAt: now, UpdatedAt: now,
		TTLMs: ttl.Milliseconds(), PollIntervalMs: 1000, ExpiresAt: now.Add(ttl),
	}
}

func ctx5(t *testing.T) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	t.Cleanup(cancel)
	return ctx
}

func sameRecord(t *testing.T, got, want *tasks.TaskRecord) {
	t.Helper()
	g, _ := json.Marshal(got)
	w, _ := json.Marshal(want)
	if string(g) != string(w) {
		t.Errorf("record\n got %s\nwant %s", g, w)
	}
}

// A task created through A is read through B, answered through A and
// completed through B; each sees the other's writes at once.
func TestTaskStoreAcrossInstances(t *testing.T) {
	a, b := twoInstances(t, newStore, WithPrefix(uniquePrefix(t)))
	ctx := ctx5(t)

	rec := record("task-1", "alice", time.Hour)
	if err := a.Create(ctx, rec, 10); err != nil {
		t.Fatal(err)
	}
	got, err := b.Get(ctx, "alice", "task-1")
	if err != nil {
		t.Fatalf("Get on B: %v", err)
	}
	sameRecord(t, got, rec)

	elicit := json.RawMessage(`{"method":"elicitation/create","params":{"message":"Name?"}}`)
	got, err = b.Update(ctx, "alice", "task-1", func(r *tasks.TaskRecord) error {
		r.Status = tasks.TaskInputRequired
		r.InputRequests = map[string]json.RawMessage{"name": elicit}
		return nil
	})
	if err != nil || got.Version != 1 || got.Status != tasks.TaskInputRequired {
		t.Fatalf("Update on B: %+v, %v", got, err)
	}
	got, err = a.Update(ctx, "alice", "task-1", func(r *tasks.TaskRecord) error {
		if string(r.InputRequests["name"]) != string(elicit) {
			return fmt.Errorf("A does not see B's input request: %s", r.InputRequests["name"])
		}
		r.InputResponses = map[string]json.RawMessage{"name": json.RawMessage(`{"action":"accept"}`)}
		r.InputRequests, r.Status = nil, tasks.TaskWorking
		return nil
	})
	if err != nil || got.Version != 2 {
		t.Fatalf("Update on A: %+v, %v", got, err)
	}
	result := json.RawMessage(`{"content":[{"type":"text","text":"done"}]}`)
	if _, err := b.Update(ctx, "alice", "task-1", func(r *tasks.TaskRecord) error {
		r.Status, r.Result, r.InputResponses = tasks.TaskCompleted, result, nil
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	got, err = a.Get(ctx, "alice", "task-1")
	if err != nil {
		t.Fatal(err)
	}
	if got.Status != tasks.TaskCompleted || string(got.Result) != string(result) || got.Version != 3 || got.InputResponses != nil {
		t.Errorf("A reads %+v", got)
	}
}

// Another principal's task is not found, indistinguishably from an
// unknown id; fn is not called for it.
func TestTaskStorePrincipals(t *testing.T) {
	s := newStore(t, newClient(t, testRedis(t)), WithPrefix(uniquePrefix(t)))
	ctx := ctx5(t)
	if err := s.Create(ctx, record("t", "alice", time.Hour), 0); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct{ principal, id string }{{"bob", "t"}, {"", "t"}, {"alice", "nope"}} {
		if _, err := s.Get(ctx, c.principal, c.id); !errors.Is(err, tasks.ErrTaskNotFound) {
			t.Errorf("Get(%q, %q): %v", c.principal, c.id, err)
		}
		called := false
		if _, err := s.Update(ctx, c.principal, c.id, func(*tasks.TaskRecord) error { called = true; return nil }); !errors.Is(err, tasks.ErrTaskNotFound) || called {
			t.Errorf("Update(%q, %q): %v, fn called %v", c.principal, c.id, err, called)
		}
	}
	// Principals are hashed into the keys: any string will do.
	odd := "user:{x}\x00\n" + strings.Repeat("é", 300)
	if err := s.Create(ctx, record("t", odd, time.Hour), 0); err != nil {
		t.Fatal(err)
	}
	if got, err := s.Get(ctx, odd, "t"); err != nil || got.Principal != odd {
		t.Errorf("odd principal: %v", err)
	}
}

// Update keeps ID, Principal and ExpiresAt whatever fn does, stores
// nothing when fn fails, and returns fn's error as it is.
func TestTaskStoreUpdateRules(t *testing.T) {
	s := newStore(t, newClient(t, testRedis(t)), WithPrefix(uniquePrefix(t)))
	ctx := ctx5(t)
	rec := record("t", "alice", time.Hour)
	if err := s.Create(ctx, rec, 0); err != nil {
		t.Fatal(err)
	}
	got, err := s.Update(ctx, "alice", "t", func(r *tasks.TaskRecord) error {
		r.ID, r.Principal, r.ExpiresAt, r.Version = "other", "mallory", time.Now().Add(100*time.Hour), 42
		r.StatusMessage = "half way"
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if got.ID != "t" || got.Principal != "alice" || !got.ExpiresAt.Equal(rec.ExpiresAt) || got.Version != 1 || got.StatusMessage != "half way" {
		t.Errorf("Update returned %+v", got)
	}
	boom := errors.New("boom")
	if _, err := s.Update(ctx, "alice", "t", func(r *tasks.TaskRecord) error {
		r.StatusMessage = "lost"
		return boom
	}); err != boom {
		t.Errorf("fn's error came back as %v", err)
	}
	if got, _ := s.Get(ctx, "alice", "t"); got.StatusMessage != "half way" || got.Version != 1 {
		t.Errorf("a failed fn stored %+v", got)
	}
	if err := s.Create(ctx, record("t", "alice", time.Hour), 0); err == nil || !strings.Contains(err.Error(), "duplicate") {
		t.Errorf("duplicate id: %v", err)
	}
	if err := s.Create(ctx, &tasks.TaskRecord{ID: "z", Principal: "alice"}, 0); err == nil {
		t.Error("a record without ExpiresAt was stored")
	}
}

// Updates from two instances at once are all applied, none lost.
func TestTaskStoreConcurrentUpdates(t *testing.T) {
	a, b := twoInstances(t, newStore, WithPrefix(uniquePrefix(t)))
	stores := []*TaskStore{a, b}
	ctx := ctx5(t)
	if err := stores[0].Create(ctx, record("counter", "alice", time.Hour), 0); err != nil {
		t.Fatal(err)
	}
	const perStore = 25
	var wg sync.WaitGroup
	var runs atomic.Int64
	errs := make(chan error, 2*perStore)
	start := time.Now()
	for _, s := range stores {
		for range perStore {
			wg.Go(func() {
				_, err := s.Update(ctx, "alice", "counter", func(r *tasks.TaskRecord) error {
					runs.Add(1)
					n, _ := strconv.Atoi(r.StatusMessage)
					r.StatusMessage = strconv.Itoa(n + 1)
					return nil
				})
				if err != nil {
					errs <- err
				}
			})
		}
	}
	waitAndReport(t, &wg, errs)
	got, err := stores[1].Get(ctx, "alice", "counter")
	if err != nil {
		t.Fatal(err)
	}
	if got.StatusMessage != strconv.Itoa(2*perStore) || got.Version != 2*perStore {
		t.Errorf("after %d concurrent increments: %q, version %d", 2*perStore, got.StatusMessage, got.Version)
	}
	t.Logf("%d updates from 2 instances in %v; fn ran %d times (conflicts retried)", 2*perStore, time.Since(start), runs.Load())
}

// The per-principal limit holds across instances creating at once, and
// counts unexpired tasks only.
func TestTaskStoreLimit(t *testing.T) {
	opt := testRedis(t)
	p := uniquePrefix(t)
	a := newStore(t, newClient(t, opt), WithPrefix(p))
	b := newStore(t, newClient(t, opt), WithPrefix(p))
	ctx := ctx5(t)
	const limit = 5
	var ok, limited atomic.Int64
	var wg sync.WaitGroup
	for i := range 20 {
		s := a
		if i%2 == 1 {
			s = b
		}
		wg.Go(func() {
			switch err := s.Create(ctx, record(fmt.Sprintf("t%d", i), "alice", time.Hour), limit); {
			case err == nil:
				ok.Add(1)
			case errors.Is(err, tasks.ErrTaskLimit):
				limited.Add(1)
			default:
				t.Error(err)
			}
		})
	}
	wg.Wait()
	if ok.Load() != limit || limited.Load() != 20-limit {
		t.Errorf("%d created, %d refused; want %d and %d", ok.Load(), limited.Load(), limit, 20-limit)
	}
	// Other principals have their own count; no limit means none.
	if err := a.Create(ctx, record("x", "bob", time.Hour), limit); err != nil {
		t.Errorf("bob: %v", err)
	}
	if err := a.Create(ctx, record("y", "alice", time.Hour), 0); err != nil {
		t.Errorf("alice without a limit: %v", err)
	}

	// Expired tasks leave the count.
	c := newStore(t, newClient(t, opt), WithPrefix(p+"exp:"))
	for i := range 2 {
		if err := c.Create(ctx, record(fmt.Sprintf("short%d", i), "carol", 300*time.Millisecond), 2); err != nil {
			t.Fatal(err)
		}
	}
	if err := c.Create(ctx, record("long", "carol", time.Hour), 2); !errors.Is(err, tasks.ErrTaskLimit) {
		t.Fatalf("third task: %v", err)
	}
	time.Sleep(400 * time.Millisecond)
	if err := c.Create(ctx, record("long", "carol", time.Hour), 2); err != nil {
		t.Errorf("after the others expired: %v", err)
	}
}

// A record is not returned after ExpiresAt: the store reports it expired
// by its clock, and Redis forgets the key.
func TestTaskStoreExpiry(t *testing.T) {
	opt := testRedis(t)
	p := uniquePrefix(t)
	rdb := newClient(t, opt)
	s := newStore(t, rdb, WithPrefix(p))
	ctx := ctx5(t)
	rec := record("t", "alice", time.Hour)
	if err := s.Create(ctx, rec, 0); err != nil {
		t.Fatal(err)
	}
	ttl, err := rdb.PTTL(ctx, s.taskKey("alice", "t")).Result()
	if err != nil || ttl <= 59*time.Minute || ttl > time.Hour {
		t.Errorf("key TTL %v, %v; want about an hour", ttl, err)
	}
	if _, err := s.Update(ctx, "alice", "t", func(r *tasks.TaskRecord) error { r.StatusMessage = "x"; return nil }); err != nil {
		t.Fatal(err)
	}
	if ttl2, _ := rdb.PTTL(ctx, s.taskKey("alice", "t")).Result(); ttl2 <= 59*time.Minute {
		t.Errorf("Update changed the key TTL to %v", ttl2)
	}
	s.now = func() time.Time { return rec.ExpiresAt }
	if _, err := s.Get(ctx, "alice", "t"); !errors.Is(err, tasks.ErrTaskExpired) {
		t.Errorf("Get at ExpiresAt: %v", err)
	}
	if _, err := s.Update(ctx, "alice", "t", func(*tasks.TaskRecord) error { return nil }); !errors.Is(err, tasks.ErrTaskExpired) {
		t.Errorf("Update at ExpiresAt: %v", err)
	}
	s.now = time.Now

	short := record("short", "alice", 200*time.Millisecond)
	if err := s.Create(ctx, short, 0); err != nil {
		t.Fatal(err)
	}
	time.Sleep(300 * time.Millisecond)
	if _, err := s.Get(ctx, "alice", "short"); !errors.Is(err, tasks.ErrTaskNotFound) && !errors.Is(err, tasks.ErrTaskExpired) {
		t.Errorf("Get after expiry: %v", err)
	}
	if n, _ := rdb.Exists(ctx, s.taskKey("alice", "short")).Result(); n != 0 {
		t.Error("Redis still holds the expired record")
	}
}

// A store whose Redis hangs fails each call by its timeout.
func TestTaskStoreUnresponsiveRedis(t *testing.T) {
	rdb := blackholeClient(t)
	s, err := NewTaskStore(rdb, WithTimeout(200*time.Millisecond))
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	calls := map[string]func() error{
		"Create": func() error { return s.Create(ctx, record("t", "alice", time.Hour), 0) },
		"Get":    func() error { _, err := s.Get(ctx, "alice", "t"); return err },
		"Update": func() error {
			_, err := s.Update(ctx, "alice", "t", func(*tasks.TaskRecord) error { return nil })
			return err
		},
	}
	for name, call := range calls {
		start := time.Now()
		err := call()
		took := time.Since(start)
		if err == nil || !strings.HasPrefix(err.Error(), "redisstore: ") || !errors.Is(err, context.DeadlineExceeded) {
			t.Errorf("%s: %v", name, err)
		}
		if took > time.Second {
			t.Errorf("%s took %v with a 200ms timeout", name, took)
		}
		t.Logf("%s: %v (%v)", name, err, took)
	}
}
