package redisstore

import (
	"context"
	"encoding/json"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/mcpwire/mcpwire/ext/tasks"
	"github.com/mcpwire/mcpwire/protocol"
	"github.com/mcpwire/mcpwire/server"
	"github.com/mcpwire/mcpwire/server/streamhttp"
)

// newTaskInstance is an instance whose tool "slow" runs as a task (tasks
// extension) that asks for a name; tasks live in a Redis TaskStore and
// task events travel on the Redis broker. Runners poll their record only
// every 30 s, so a task that moves faster was woken through the broker.
// Its HTTP handler takes the options httpOpts (at most one), if given.
func newTaskInstance(t *testing.T, name string, opt *redis.Options, prefix string, httpOpts ...streamhttp.Options) *instance {
	t.Helper()
	in := &instance{name: name}
	rdb := newClient(t, opt)
	in.b = newBroker(t, rdb, WithChannel(prefix+"events"))
	store := newStore(t, rdb, WithPrefix(prefix))
	s := newTestServer(t,
		server.WithBroker(in.b),
		server.WithStateKeys(testKey(7)),
		tasks.WithTasks(tasks.TaskConfig{Store: store, PollInterval: 30 * time.Second}),
	)
	in.s = s
	schema := objectSchema(t)
	err := s.AddTool(protocol.Tool{Name: "slow", InputSchema: schema}, func(ctx context.Context, r *server.Request, _ json.RawMessage) (*protocol.CallToolResult, error) {
		in.calls.Add(1)
		if _, ok := tasks.TaskFrom(ctx); !ok {
			return nil, server.InternalError("not in a task")
		}
		if resp, ok := r.InputResponse("name"); ok {
			if er, ok := resp.Value.(*protocol.ElicitResult); ok && er.Action == protocol.ElicitResultActionAccept {
				return server.TextResult("hello " + er.Content["name"].Str() + ", from a task run on " + name), nil
			}
		}
		return nil, r.AskInput(map[string]protocol.InputRequest{
			"name": server.ElicitForm("Name?", map[string]protocol.PrimitiveSchemaDefinition{"name": server.StringField("")}, "name"),
		}, []byte("s"))
	}, tasks.AsTask(tasks.TaskOptions{Support: tasks.TaskRequired}))
	if err != nil {
		t.Fatal(err)
	}
	var ho streamhttp.Options
	if len(httpOpts) > 0 {
		ho = httpOpts[0]
	}
	in.srv = httptest.NewServer(streamhttp.Handler(s, ho))
	t.Cleanup(in.srv.Close)
	return in
}

// poll calls tasks/get on in until the task has status want.
func (in *instance) poll(t *testing.T, caps M, id, want string) M {
	t.Helper()
	deadline := time.Now().Add(5 * time.Second)
	for {
		r := in.call(t, "get", "tasks/get", M{"_meta": meta(caps), "taskId": id})
		if r.Error != nil {
			t.Fatalf("tasks/get on %s: %s", in.name, r.raw)
		}
		if r.Result["status"] == want {
			return r.Result
		}
		if time.Now().After(deadline) {
			t.Fatalf("task still %v on %s after 5s, want %s: %s", r.Result["status"], in.name, want, r.raw)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// A task created by a tools/call on A is polled, answered and seen
// completed through B: the record is in Redis, and B's tasks/update wakes
// A's runner through the broker (its own polling is 30 s away). A listen
// stream on B gets the task's notifications, tagged with its id.
func TestTaskAcrossInstances(t *testing.T) {
	opt := testRedis(t)
	prefix := uniquePrefix(t)
	a := newTaskInstance(t, "A", opt, prefix)
	b := newTaskInstance(t, "B", opt, prefix)
	caps := M{"elicitation": M{}, "extensions": M{tasks.ExtensionID: M{}}}

	created := a.call(t, 1, "tools/call", M{"_meta": meta(caps), "name": "slow", "arguments": M{}})
	id, _ := created.Result["taskId"].(string)
	if created.Error != nil || created.Result["resultType"] != "task" || id == "" {
		t.Fatalf("tools/call on A: %s", created.raw)
	}
	ls := b.listenWith(t, "tasks-on-B", caps, M{"taskIds": []string{id}})
	ls.expect("notifications/subscriptions/acknowledged", `"tasks-on-B"`)

	parked := b.poll(t, caps, id, "input_required")
	reqs, _ := parked["inputRequests"].(M)
	if in, _ := reqs["name"].(M); in["method"] != "elicitation/create" {
		t.Fatalf("B shows input requests %v", reqs)
	}
	start := time.Now()
	upd := b.call(t, 2, "tasks/update", M{"_meta": meta(caps), "taskId": id,
		"inputResponses": M{"name": M{"action": "accept", "content": M{"name": "Ann"}}}})
	if upd.Error != nil {
		t.Fatalf("tasks/update on B: %s", upd.raw)
	}
	done := b.poll(t, caps, id, "completed")
	t.Logf("task answered on B completed by A's runner in %v", time.Since(start))
	res, _ := done["result"].(M)
	content, _ := res["content"].([]any)
	if len(content) != 1 || content[0].(M)["text"] != "hello Ann, from a task run on A" {
		t.Fatalf("completed task: %v", done)
	}
	if a.calls.Load() != 2 || b.calls.Load() != 0 {
		t.Errorf("handler calls: A %d, B %d; want 2 and 0", a.calls.Load(), b.calls.Load())
	}
	if got := a.poll(t, caps, id, "completed"); got["taskId"] != id {
		t.Errorf("A reads %v", got)
	}
	// B's listen stream saw the task reach completed, tagged with its id.
	for {
		p := ls.expect("notifications/tasks", `"tasks-on-B"`)
		if p["taskId"] != id {
			t.Fatalf("notification for task %v", p["taskId"])
		}
		if p["status"] == "completed" {
			break
		}
	}
}
