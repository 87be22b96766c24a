package tasks

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mcpwire/mcpwire/protocol"
	"github.com/mcpwire/mcpwire/server"
)

// Tests of the task runner against a task store that fails for a while
// (item 6 of the review): a short outage delays a task, it never orphans
// it; no task stays non-terminal past its TTL (R-TASK-09, R-TASK-17).

// errOutage is what flakyStore fails with.
var errOutage = errors.New("injected store outage")

// flakyStore is a TaskStore whose next calls fail, as a store that is
// briefly unreachable does; then it works again.
type flakyStore struct {
	TaskStore
	mu          sync.Mutex
	failGets    int  // the next failGets calls of Get fail
	failUpdates int  // the next failUpdates calls of Update fail
	down        bool // every call fails
	failures    int  // calls failed so far
}

func (f *flakyStore) fails(n *int) bool {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.down || *n > 0 {
		if !f.down {
			*n--
		}
		f.failures++
		return true
	}
	return false
}

func (f *flakyStore) set(fn func(*flakyStore)) {
	f.mu.Lock()
	defer f.mu.Unlock()
	fn(f)
}

func (f *flakyStore) failed() int {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.failures
}

func (f *flakyStore) Create(ctx context.Context, rec *TaskRecord, max int) error {
	var none int
	if f.fails(&none) {
		return fmt.Errorf("flaky store: creating: %w", errOutage)
	}
	return f.TaskStore.Create(ctx, rec, max)
}

func (f *flakyStore) Get(ctx context.Context, principal, id string) (*TaskRecord, error) {
	if f.fails(&f.failGets) {
		return nil, fmt.Errorf("flaky store: reading %s: %w", id, errOutage)
	}
	return f.TaskStore.Get(ctx, principal, id)
}

func (f *flakyStore) Update(ctx context.Context, principal, id string, fn func(*TaskRecord) error) (*TaskRecord, error) {
	if f.fails(&f.failUpdates) {
		return nil, fmt.Errorf("flaky store: updating %s: %w", id, errOutage)
	}
	return f.TaskStore.Update(ctx, principal, id, fn)
}

// logBuffer collects a server's log for the test to read.
type logBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *logBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *logBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

// outageFixture is a task server over a flakyStore whose log is kept.
// Runners re-read their record only every hour, so every store call they
// make after the test arms a failure follows a change the test made.
func outageFixture(t *testing.T, cfg TaskConfig) (*taskFixture, *flakyStore, *MemoryTaskStore, *logBuffer) {
	t.Helper()
	inner := NewMemoryTaskStore()
	fs := &flakyStore{TaskStore: inner}
	cfg.Store, cfg.PollInterval = fs, time.Hour
	logs := &logBuffer{}
	f := newTaskFixture(t, cfg, server.WithLogger(slog.New(slog.NewTextHandler(logs, &slog.HandlerOptions{Level: slog.LevelDebug}))))
	return f, fs, inner, logs
}

// storeStatus polls the record itself (not through the flaky store) until
// it has one of the statuses, for at most 5 s.
func storeStatus(t *testing.T, s TaskStore, id string, statuses ...TaskStatus) *TaskRecord {
	t.Helper()
	deadline := time.Now().Add(5 * time.Second)
	for {
		rec, err := s.Get(context.Background(), "", id)
		if err != nil {
			t.Fatalf("reading task %s: %v", id, err)
		}
		for _, st := range statuses {
			if rec.Status == st {
				return rec
			}
		}
		if time.Now().After(deadline) {
			t.Fatalf("task %s still %s after 5s, want one of %v", id, rec.Status, statuses)
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// askName asks for a name, then greets it.
func askName(_ context.Context, r *server.Request, _ json.RawMessage) (*protocol.CallToolResult, error) {
	if resp, ok := r.InputResponse("name"); ok {
		return server.TextResult("hi " + resp.Value.(*protocol.ElicitResult).Content["name"].Str()), nil
	}
	return nil, r.AskInput(map[string]protocol.InputRequest{"name": nameForm()}, []byte("asked"))
}

var elicitTasksCaps = M{"elicitation": M{}, "extensions": M{ExtensionID: M{}}}

// R-TASK-11, R-TASK-09: the store fails the runner's reads just after a
// tasks/update was acknowledged. The runner (and the cancel watcher) try
// again with back-off, log each failure, and the task completes.
func TestTaskStoreOutageDuringInputWait(t *testing.T) {
	f, fs, inner, logs := outageFixture(t, TaskConfig{})
	f.tool(t, "ask", TaskOptions{Support: TaskOptional}, askName)
	id := f.create(t, "ask", elicitTasksCaps)["taskId"].(string)
	storeStatus(t, inner, id, TaskInputRequired)
	// The runner waits for the answer. Its next reads fail: more of them
	// than the runner and the cancel watcher make at once.
	fs.set(func(f *flakyStore) { f.failGets = 4 })
	if w := tcall(t, f.h, "tasks/update", tparams(elicitTasksCaps, M{"taskId": id, "inputResponses": M{"name": accept(M{"name": "Ada"})}}), nil); w.Error != nil {
		t.Fatalf("R-TASK-11: tasks/update: %s", w.raw)
	}
	rec := storeStatus(t, inner, id, TaskCompleted, TaskFailed)
	if rec.Status != TaskCompleted || !strings.Contains(string(rec.Result), "hi Ada") {
		t.Fatalf("after the outage: %s %s %s", rec.Status, rec.Result, rec.Error)
	}
	waitIdle(t, f.m) // the runner is done logging
	if n := fs.failed(); n != 4 {
		t.Errorf("%d store calls failed, want 4", n)
	}
	log := logs.String()
	if !strings.Contains(log, "task store failed; trying again") || !strings.Contains(log, "injected store outage") ||
		!strings.Contains(log, "task="+id) {
		t.Errorf("the failures are not logged:\n%s", log)
	}
	if got := f.get(t, id).Result; got["status"] != "completed" {
		t.Errorf("R-TASK-09: tasks/get after the outage: %v", got)
	}
}

// R-TASK-09, R-TASK-17: the final update of a finished task fails a few
// times; the runner tries again and the task completes.
func TestTaskStoreOutageAtFinish(t *testing.T) {
	f, fs, inner, logs := outageFixture(t, TaskConfig{})
	release := make(chan struct{})
	f.tool(t, "slow", TaskOptions{Support: TaskOptional}, func(context.Context, *server.Request, json.RawMessage) (*protocol.CallToolResult, error) {
		<-release
		return server.TextResult("done"), nil
	})
	id := f.create(t, "slow", tasksCaps)["taskId"].(string)
	fs.set(func(f *flakyStore) { f.failUpdates = 3 })
	close(release)
	rec := storeStatus(t, inner, id, TaskCompleted, TaskFailed)
	if rec.Status != TaskCompleted {
		t.Fatalf("after the outage: %s %s", rec.Status, rec.Error)
	}
	waitIdle(t, f.m)
	log := logs.String()
	if !strings.Contains(log, "op=\"recording the end of the task\"") || !strings.Contains(log, "injected store outage") ||
		!strings.Contains(log, "task store answered again") {
		t.Errorf("the failures are not logged:\n%s", log)
	}
}

// No task stays non-terminal past its TTL: the store is down from before
// the TTL elapses until after it. The runner fails the task at its TTL
// and records that once the store is back (the record lives on for the
// retention).
func TestTaskStoreDownPastTTL(t *testing.T) {
	f, fs, inner, logs := outageFixture(t, TaskConfig{Retention: time.Minute})
	f.tool(t, "ask", TaskOptions{Support: TaskOptional, TTL: 300 * time.Millisecond}, askName)
	created := f.create(t, "ask", elicitTasksCaps)
	id := created["taskId"].(string)
	storeStatus(t, inner, id, TaskInputRequired)
	fs.set(func(f *flakyStore) { f.down = true })
	time.Sleep(time.Until(isoMillis(t, created["createdAt"]).Add(700 * time.Millisecond)))
	fs.set(func(f *flakyStore) { f.down = false })
	rec := storeStatus(t, inner, id, TaskFailed, TaskCompleted)
	if rec.Status != TaskFailed || !strings.Contains(string(rec.Error), "ttlMs") {
		t.Fatalf("R-TASK-17: %s %s", rec.Status, rec.Error)
	}
	waitIdle(t, f.m)
	if fs.failed() == 0 {
		t.Error("the runner made no store call while the store was down")
	}
	if log := logs.String(); !strings.Contains(log, "recording the end of the task") || !strings.Contains(log, "injected store outage") {
		t.Errorf("the failures are not logged:\n%s", log)
	}
	got := f.get(t, id).Result
	if e, _ := got["error"].(M); got["status"] != "failed" || e["code"] != float64(protocol.CodeInternalError) {
		t.Errorf("R-TASK-09: tasks/get: %v", got)
	}
}

// A task whose runner could not record its end (its instance died, or the
// store was unreachable for it until now) is reported failed by tasks/get
// once it is well past its TTL, and tasks/cancel and tasks/update leave it
// alone; within the grace it is still reported as it is.
func TestTaskOverdueReportedFailed(t *testing.T) {
	store := NewMemoryTaskStore()
	f := newTaskFixture(t, TaskConfig{Store: store})
	now := taskNow()
	orphan := func(id string, age time.Duration) *TaskRecord {
		rec := &TaskRecord{
			ID: id, Method: "tools/call", Target: "gone", Status: TaskInputRequired,
			CreatedAt: now.Add(-age), UpdatedAt: now.Add(-age), TTLMs: 1000, PollIntervalMs: 1000,
			ExpiresAt:     now.Add(time.Minute),
			InputRequests: map[string]json.RawMessage{"k": json.RawMessage(`{"method":"roots/list"}`)},
		}
		if err := store.Create(context.Background(), rec, 0); err != nil {
			t.Fatal(err)
		}
		return rec
	}
	orphan("orphan", 10*time.Second)
	orphan("recent", 1500*time.Millisecond) // 0.5 s past its TTL: within the grace

	got := f.get(t, "orphan").Result
	e, _ := got["error"].(M)
	if got["status"] != "failed" || e["code"] != float64(protocol.CodeInternalError) || !strings.Contains(fmt.Sprint(e["message"]), "ttlMs") ||
		got["inputRequests"] != nil || got["statusMessage"] == nil {
		t.Fatalf("R-TASK-09, R-TASK-17: an orphaned task past its TTL: %v", got)
	}
	if end := isoMillis(t, got["lastUpdatedAt"]); !end.Equal(now.Add(-9 * time.Second)) {
		t.Errorf("lastUpdatedAt %v, want the end of its TTL %v", end, now.Add(-9*time.Second))
	}
	for _, c := range []struct {
		method string
		p      M
	}{
		{"tasks/cancel", M{"taskId": "orphan"}},
		{"tasks/update", M{"taskId": "orphan", "inputResponses": M{"k": M{"roots": []any{}}}}},
	} {
		if w := tcall(t, f.h, c.method, tparams(elicitTasksCaps, c.p), nil); w.Error != nil || w.Result["resultType"] != "complete" {
			t.Errorf("R-TASK-11, R-TASK-12: %s: %s", c.method, w.raw)
		}
	}
	if got := f.get(t, "orphan").Result; got["status"] != "failed" {
		t.Errorf("after tasks/cancel and tasks/update: %v", got)
	}
	if rec, _ := store.Get(context.Background(), "", "orphan"); rec.Version != 0 {
		t.Errorf("an overdue task was changed: %+v", rec)
	}
	if got := f.get(t, "recent").Result; got["status"] != "input_required" {
		t.Errorf("a task within the grace after its TTL: %v", got)
	}
}

// A handler that ignores its context and returns long after the TTL does
// not turn a task that tasks/get already reports failed into a completed
// one: terminal statuses never change.
func TestTaskLateResultIsTTLFailure(t *testing.T) {
	f := newTaskFixture(t, TaskConfig{})
	f.tool(t, "late", TaskOptions{Support: TaskOptional, TTL: 50 * time.Millisecond}, func(context.Context, *server.Request, json.RawMessage) (*protocol.CallToolResult, error) {
		time.Sleep(1200 * time.Millisecond) // more than the TTL and its 1 s grace
		return server.TextResult("too late"), nil
	})
	id := f.create(t, "late", tasksCaps)["taskId"].(string)
	got := waitStatus(t, f.h, id, "failed", "completed")
	if e, _ := got["error"].(M); got["status"] != "failed" || !strings.Contains(fmt.Sprint(e["message"]), "ttlMs") {
		t.Errorf("R-TASK-17: a result returned after the TTL: %v", got)
	}
}
