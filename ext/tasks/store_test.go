package tasks_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"sync"
	"testing"
	"time"

	"github.com/mcpwire/mcpwire/ext/tasks"
	"github.com/mcpwire/mcpwire/protocol"
	"github.com/mcpwire/mcpwire/server"
	"github.com/mcpwire/mcpwire/servertest"
)

func record(id, principal string, ttl time.Duration) *tasks.TaskRecord {
	now := time.Now().UTC().Truncate(time.Millisecond)
	return &tasks.TaskRecord{ID: id, Principal: principal, Method: "tools/call", Target: "t",
		Status: tasks.TaskWorking, CreatedAt: now, UpdatedAt: now, TTLMs: ttl.Milliseconds(), ExpiresAt: now.Add(ttl)}
}

func TestMemoryTaskStore(t *testing.T) {
	ctx := context.Background()
	st := tasks.NewMemoryTaskStore()
	if err := st.Create(ctx, record("a", "alice", time.Minute), 2); err != nil {
		t.Fatal(err)
	}
	if err := st.Create(ctx, record("a", "alice", time.Minute), 2); err == nil {
		t.Error("a duplicate id was stored")
	}
	// Principal binding (R-TASK-18): another principal sees nothing.
	if _, err := st.Get(ctx, "bob", "a"); !errors.Is(err, tasks.ErrTaskNotFound) {
		t.Errorf("Get by another principal: %v", err)
	}
	if _, err := st.Update(ctx, "bob", "a", func(*tasks.TaskRecord) error { return nil }); !errors.Is(err, tasks.ErrTaskNotFound) {
		t.Errorf("Update by another principal: %v", err)
	}
	// Get returns a copy.
	got, err := st.Get(ctx, "alice", "a")
	if err != nil {
		t.Fatal(err)
	}
	got.Status = tasks.TaskFailed
	if again, _ := st.Get(ctx, "alice", "a"); again.Status != tasks.TaskWorking {
		t.Error("Get returned the stored record itself")
	}
	// Update is atomic and versioned; fn's error stores nothing; the
	// identity and expiry cannot change.
	upd, err := st.Update(ctx, "alice", "a", func(r *tasks.TaskRecord) error {
		r.Status = tasks.TaskInputRequired
		r.InputRequests = map[string]json.RawMessage{"k": json.RawMessage(`{"method":"roots/list"}`)}
		r.ID, r.Principal, r.ExpiresAt = "other", "mallory", time.Now().Add(time.Hour*1000)
		return nil
	})
	if err != nil || upd.Version != 1 || upd.Status != tasks.TaskInputRequired || upd.ID != "a" || upd.Principal != "alice" {
		t.Fatalf("Update: %+v %v", upd, err)
	}
	boom := errors.New("boom")
	if _, err := st.Update(ctx, "alice", "a", func(r *tasks.TaskRecord) error { r.Status = tasks.TaskFailed; return boom }); !errors.Is(err, boom) {
		t.Errorf("Update with a failing fn: %v", err)
	}
	if g, _ := st.Get(ctx, "alice", "a"); g.Status != tasks.TaskInputRequired || g.Version != 1 {
		t.Errorf("a failed Update changed the record: %+v", g)
	}
	// Concurrent updates do not lose any.
	var wg sync.WaitGroup
	for range 50 {
		wg.Go(func() {
			_, _ = st.Update(ctx, "alice", "a", func(r *tasks.TaskRecord) error { r.PollIntervalMs++; return nil })
		})
	}
	wg.Wait()
	if g, _ := st.Get(ctx, "alice", "a"); g.PollIntervalMs != 50 || g.Version != 51 {
		t.Errorf("concurrent updates: pollIntervalMs %d version %d", g.PollIntervalMs, g.Version)
	}

	// The per-principal cap counts live tasks only.
	if err := st.Create(ctx, record("b", "alice", 30*time.Millisecond), 2); err != nil {
		t.Fatal(err)
	}
	if err := st.Create(ctx, record("c", "alice", time.Minute), 2); !errors.Is(err, tasks.ErrTaskLimit) {
		t.Errorf("third task under a cap of 2: %v", err)
	}
	if err := st.Create(ctx, record("c", "bob", time.Minute), 2); err != nil {
		t.Errorf("another principal: %v", err)
	}
	if err := st.Create(ctx, record("d", "alice", time.Minute), 0); err != nil {
		t.Errorf("no cap: %v", err)
	}
	time.Sleep(40 * time.Millisecond)
	// Eviction at ExpiresAt.
	if _, err := st.Get(ctx, "alice", "b"); !errors.Is(err, tasks.ErrTaskExpired) && !errors.Is(err, tasks.ErrTaskNotFound) {
		t.Errorf("expired record: %v", err)
	}
	if _, err := st.Get(ctx, "alice", "b"); !errors.Is(err, tasks.ErrTaskNotFound) {
		t.Errorf("an expired record is not evicted: %v", err)
	}
	if err := st.Create(ctx, record("e", "bob", time.Minute), 2); err != nil {
		t.Errorf("bob's second task: %v", err)
	}
	if err := st.Create(ctx, record("f", "bob", time.Minute), 2); !errors.Is(err, tasks.ErrTaskLimit) {
		t.Errorf("bob's third task: %v", err)
	}
	if st.Len() != 4 {
		t.Errorf("Len %d, want 4 (a, c, d, e)", st.Len())
	}
}

func TestMemoryTaskStoreCapSkipsExpired(t *testing.T) {
	ctx := context.Background()
	st := tasks.NewMemoryTaskStore()
	for i := range 3 {
		if err := st.Create(ctx, record(fmt.Sprint(i), "p", 20*time.Millisecond), 3); err != nil {
			t.Fatal(err)
		}
	}
	time.Sleep(30 * time.Millisecond)
	if err := st.Create(ctx, record("new", "p", time.Minute), 3); err != nil {
		t.Errorf("expired tasks still count against the cap: %v", err)
	}
	if st.Len() != 1 {
		t.Errorf("expired records not evicted: %d left", st.Len())
	}
}

// A TaskRecord is a JSON document: a Redis store can keep it as one.
func TestTaskRecordJSON(t *testing.T) {
	rec := record("id", "p", time.Minute)
	rec.Status = tasks.TaskInputRequired
	rec.StatusMessage = "waiting"
	rec.PollIntervalMs = 500
	rec.Result = json.RawMessage(`{"content":[]}`)
	rec.Error = json.RawMessage(`{"code":-32603,"message":"x"}`)
	rec.InputRequests = map[string]json.RawMessage{"a": json.RawMessage(`{"method":"roots/list"}`)}
	rec.InputResponses = map[string]json.RawMessage{"b": json.RawMessage(`{"roots":[]}`)}
	rec.Version = 7
	b, err := json.Marshal(rec)
	if err != nil {
		t.Fatal(err)
	}
	var back tasks.TaskRecord
	if err := json.Unmarshal(b, &back); err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(rec, &back) {
		t.Errorf("round trip:\n%+v\n%+v", rec, &back)
	}
	c := rec.Clone()
	c.InputRequests["z"] = nil
	if _, ok := rec.InputRequests["z"]; ok {
		t.Error("Clone shares its maps")
	}
	for _, s := range []tasks.TaskStatus{tasks.TaskCompleted, tasks.TaskFailed, tasks.TaskCancelled} {
		if !s.Terminal() {
			t.Errorf("%s not terminal", s)
		}
	}
	if tasks.TaskWorking.Terminal() || tasks.TaskInputRequired.Terminal() {
		t.Error("working or input_required terminal")
	}
}

// post sends one request, as a client declaring caps, and returns the
// result object (or, for an error, {"code", "message"}).
func post(c *servertest.Client, method string, params map[string]any, caps protocol.ClientCapabilities) map[string]any {
	name, _ := params["name"].(string)
	if id, ok := params["taskId"].(string); ok {
		name = id
	}
	raw, err := c.Do(context.Background(), method, name, params, servertest.WithCapabilities(caps))
	var e *servertest.Error
	if errors.As(err, &e) {
		return map[string]any{"code": e.Code, "message": e.Message}
	}
	var m map[string]any
	_ = json.Unmarshal(raw, &m)
	return m
}

// A tool that runs as a task and asks for a confirmation on the way.
func ExampleAsTask() {
	s, _ := server.New(protocol.Implementation{Name: "files", Version: "1.0.0"},
		tasks.WithTasks(tasks.TaskConfig{TTL: 10 * time.Minute}))
	var def protocol.Tool
	_ = protocol.Unmarshal([]byte(`{"name": "purge", "inputSchema": {"type": "object"}}`), &def)
	purge := func(ctx context.Context, r *server.Request, _ json.RawMessage) (*protocol.CallToolResult, error) {
		task, _ := tasks.TaskFrom(ctx) // nil when running synchronously
		if resp, ok := r.InputResponse("confirm"); ok {
			if er, ok := resp.Value.(*protocol.ElicitResult); ok && er.Action == protocol.ElicitResultActionAccept {
				if task != nil {
					_ = task.SetStatusMessage(ctx, "purging")
				}
				return server.TextResult("purged"), nil
			}
			return server.TextResult("kept"), nil
		}
		// In a task this parks it in input_required until tasks/update.
		return nil, r.AskInput(map[string]protocol.InputRequest{
			"confirm": server.ElicitForm("Purge everything?", nil),
		}, nil)
	}
	_ = s.AddTool(def, purge, tasks.AsTask(tasks.TaskOptions{Support: tasks.TaskOptional}))
	h := servertest.New(s)
	caps := protocol.ClientCapabilities{
		Elicitation: &protocol.ClientCapabilitiesElicitation{},
		Extensions:  map[string]protocol.JSONObject{tasks.ExtensionID: protocol.JSONObject(`{}`)},
	}

	created := post(h, "tools/call", map[string]any{"name": "purge", "arguments": map[string]any{}}, caps)
	fmt.Println(created["resultType"], created["status"])
	id := created["taskId"].(string)

	poll := func(want string) map[string]any {
		for {
			if got := post(h, "tasks/get", map[string]any{"taskId": id}, caps); got["status"] == want {
				return got
			}
			time.Sleep(10 * time.Millisecond)
		}
	}
	waiting := poll("input_required")
	fmt.Println(waiting["status"], len(waiting["inputRequests"].(map[string]any)))

	ack := post(h, "tasks/update", map[string]any{"taskId": id, "inputResponses": map[string]any{
		"confirm": map[string]any{"action": "accept", "content": map[string]any{}},
	}}, caps)
	fmt.Println(ack["resultType"])

	done := poll("completed")
	fmt.Println(done["status"], done["result"].(map[string]any)["content"].([]any)[0].(map[string]any)["text"])

	// Without the extension the same tool runs synchronously.
	sync := post(h, "tools/call", map[string]any{"name": "purge", "arguments": map[string]any{}}, protocol.ClientCapabilities{Elicitation: &protocol.ClientCapabilitiesElicitation{}})
	fmt.Println(sync["resultType"])
	// Output:
	// task working
	// input_required 1
	// complete
	// completed purged
	// input_required
}
