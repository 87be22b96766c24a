//go:build unix

package redisstore

import (
	"context"
	"encoding/json"
	"log/slog"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/mcpwire/mcpwire/ext/tasks"
	"github.com/mcpwire/mcpwire/internal/testutil"
	"github.com/mcpwire/mcpwire/protocol"
	"github.com/mcpwire/mcpwire/server"
	"github.com/mcpwire/mcpwire/server/streamhttp"
)

// A short Redis outage (redis-server stopped with SIGSTOP, resumed with
// SIGCONT) while a task waits for input, or while its runner records its
// end, delays the task; it does not leave it working forever, and the log
// names each failure (R-TASK-09, R-TASK-11).

// signal sends sig to the redis-server of the test.
func (r *redisServer) signal(sig syscall.Signal) {
	r.t.Helper()
	r.mu.Lock()
	cmd := r.cmd
	r.mu.Unlock()
	if cmd == nil {
		r.t.Fatal("redis-server is not running")
	}
	if err := syscall.Kill(cmd.Process.Pid, sig); err != nil {
		r.t.Fatalf("signalling redis-server: %v", err)
	}
}

// outageStore is the Redis TaskStore of a test that stops redis-server at
// the Update it is armed for, and resumes it a while later.
type outageStore struct {
	*TaskStore
	redis       *redisServer
	pause       time.Duration
	onUpdate    atomic.Bool // stop Redis at the next Update
	afterUpdate atomic.Bool // stop Redis once the next Update is stored
	once        sync.Once
	resumed     chan struct{}
}

func (s *outageStore) outage() {
	s.once.Do(func() {
		s.redis.signal(syscall.SIGSTOP)
		time.AfterFunc(s.pause, func() {
			s.redis.signal(syscall.SIGCONT)
			close(s.resumed)
		})
	})
}

func (s *outageStore) Update(ctx context.Context, principal, id string, fn func(*tasks.TaskRecord) error) (*tasks.TaskRecord, error) {
	if s.onUpdate.CompareAndSwap(true, false) {
		s.outage()
	}
	after := s.afterUpdate.CompareAndSwap(true, false)
	rec, err := s.TaskStore.Update(ctx, principal, id, fn)
	if after {
		s.outage()
	}
	return rec, err
}

// startPausableRedis starts a local redis-server (always: the test stops
// it, with SIGSTOP or by killing it) that is resumed with SIGCONT before
// it is killed at the test's end, never left stopped.
func startPausableRedis(t *testing.T) *redisServer {
	t.Helper()
	r := startRedis(t)
	t.Cleanup(func() { // before r.kill: never leave it stopped
		r.mu.Lock()
		defer r.mu.Unlock()
		if r.cmd != nil {
			_ = syscall.Kill(r.cmd.Process.Pid, syscall.SIGCONT)
		}
	})
	return r
}

// outageInstance is a server whose tasks live in a Redis (with a 200 ms
// timeout) that the test can stop; events stay in process. Runners
// re-read their record only every hour. Tool "ask" asks for a name and
// greets it; tool "slow" finishes once release is closed.
func outageInstance(t *testing.T, release <-chan struct{}) (*instance, *outageStore, *testutil.SyncBuffer) {
	t.Helper()
	r := startPausableRedis(t)
	rdb := newClient(t, &redis.Options{Addr: r.addr()})
	store := &outageStore{TaskStore: newStore(t, rdb, WithPrefix(uniquePrefix(t)), WithTimeout(200*time.Millisecond)),
		redis: r, pause: 1200 * time.Millisecond, resumed: make(chan struct{})}
	logs := &testutil.SyncBuffer{}
	s, err := server.New(protocol.Implementation{Name: "redisstore-test", Version: "1.0.0"},
		server.WithLogger(slog.New(slog.NewTextHandler(logs, nil))),
		server.WithBroker(server.NewLocalBroker()),
		tasks.WithTasks(tasks.TaskConfig{Store: store, PollInterval: time.Hour}),
	)
	if err != nil {
		t.Fatal(err)
	}
	schema := objectSchema(t)
	task := tasks.AsTask(tasks.TaskOptions{Support: tasks.TaskRequired})
	err = s.AddTool(protocol.Tool{Name: "ask", InputSchema: schema}, func(_ context.Context, r *server.Request, _ json.RawMessage) (*protocol.CallToolResult, error) {
		if resp, ok := r.InputResponse("name"); ok {
			return server.TextResult("hello " + resp.Value.(*protocol.ElicitResult).Content["name"].Str()), nil
		}
		return nil, r.AskInput(map[string]protocol.InputRequest{
			"name": server.ElicitForm("Name?", map[string]protocol.PrimitiveSchemaDefinition{"name": server.StringField("")}, "name"),
		}, []byte("s"))
	}, task)
	if err != nil {
		t.Fatal(err)
	}
	err = s.AddTool(protocol.Tool{Name: "slow", InputSchema: schema}, func(context.Context, *server.Request, json.RawMessage) (*protocol.CallToolResult, error) {
		<-release
		return server.TextResult("done"), nil
	}, task)
	if err != nil {
		t.Fatal(err)
	}
	in := &instance{name: "A", s: s, srv: httptest.NewServer(streamhttp.Handler(s, streamhttp.Options{}))}
	t.Cleanup(in.srv.Close)
	return in, store, logs
}

// resumed waits until the outage is over.
func (s *outageStore) waitResumed(t *testing.T) {
	t.Helper()
	select {
	case <-s.resumed:
	case <-time.After(5 * time.Second):
		t.Fatal("Redis was never stopped: the runner made no store call")
	}
}

// pollAfterOutage calls tasks/get until the task has status want, for at
// most 5 s. Just after Redis resumes, a tasks/get may still fail (-32603):
// it is one store call, which the client repeats, as this does.
func pollAfterOutage(t *testing.T, in *instance, caps M, id, want string) M {
	t.Helper()
	deadline := time.Now().Add(5 * time.Second)
	for {
		r := in.call(t, "get", "tasks/get", M{"_meta": meta(caps), "taskId": id})
		if r.Error == nil && r.Result["status"] == want {
			return r.Result
		}
		if r.Error != nil && int64(r.Error.Code) != protocol.CodeInternalError {
			t.Fatalf("tasks/get: %s", r.raw)
		}
		if time.Now().After(deadline) {
			t.Fatalf("task not %s after 5s: %s", want, r.raw)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// checkOutageLog checks that the log names the failures and the recovery,
// which the runner logs just after the task's record changed.
func checkOutageLog(t *testing.T, logs *testutil.SyncBuffer, id, op, storeErr string) {
	t.Helper()
	wants := []string{"task store failed; trying again", "op=\"" + op + "\"", "task=" + id, storeErr, "no reply from Redis within 200ms", "task store answered again"}
	deadline := time.Now().Add(2 * time.Second)
	for {
		log, missing := logs.String(), ""
		for _, want := range wants {
			if !strings.Contains(log, want) {
				missing = want
				break
			}
		}
		if missing == "" {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("the log does not say %q:\n%s", missing, log)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// Redis stops just after tasks/update was acknowledged, as the runner
// reads the answer: the runner tries again until Redis is back, and the
// task completes.
func TestTaskRedisPausedDuringInputWait(t *testing.T) {
	in, store, logs := outageInstance(t, nil)
	caps := M{"elicitation": M{}, "extensions": M{tasks.ExtensionID: M{}}}
	created := in.call(t, 1, "tools/call", M{"_meta": meta(caps), "name": "ask", "arguments": M{}})
	id, _ := created.Result["taskId"].(string)
	if id == "" {
		t.Fatalf("tools/call: %s", created.raw)
	}
	in.poll(t, caps, id, "input_required")
	store.afterUpdate.Store(true) // the one tasks/update makes
	upd := in.call(t, 2, "tasks/update", M{"_meta": meta(caps), "taskId": id,
		"inputResponses": M{"name": M{"action": "accept", "content": M{"name": "Ann"}}}})
	if upd.Error != nil {
		t.Fatalf("R-TASK-11: tasks/update: %s", upd.raw)
	}
	start := time.Now()
	store.waitResumed(t)
	done := pollAfterOutage(t, in, caps, id, "completed")
	t.Logf("completed %v after the outage began", time.Since(start))
	res, _ := done["result"].(M)
	if content, _ := res["content"].([]any); len(content) != 1 || content[0].(M)["text"] != "hello Ann" {
		t.Errorf("R-TASK-09: %v", done)
	}
	checkOutageLog(t, logs, id, "reading the task while it waits for input", "redisstore: reading task "+id)
}

// Redis stops as the runner records the end of a finished task: it tries
// again until Redis is back, and the task completes.
func TestTaskRedisPausedDuringFinalUpdate(t *testing.T) {
	release := make(chan struct{})
	in, store, logs := outageInstance(t, release)
	caps := M{"extensions": M{tasks.ExtensionID: M{}}}
	created := in.call(t, 1, "tools/call", M{"_meta": meta(caps), "name": "slow", "arguments": M{}})
	id, _ := created.Result["taskId"].(string)
	if id == "" {
		t.Fatalf("tools/call: %s", created.raw)
	}
	store.onUpdate.Store(true)
	close(release)
	start := time.Now()
	store.waitResumed(t)
	done := pollAfterOutage(t, in, caps, id, "completed")
	t.Logf("completed %v after the outage began", time.Since(start))
	res, _ := done["result"].(M)
	if content, _ := res["content"].([]any); len(content) != 1 || content[0].(M)["text"] != "done" {
		t.Errorf("R-TASK-09: %v", done)
	}
	checkOutageLog(t, logs, id, "recording the end of the task", "redisstore: updating task "+id)
}
