package redisstore

import (
	"net/http"
	"testing"
	"time"

	"github.com/mcpwire/mcpwire/ext/tasks"
	"github.com/mcpwire/mcpwire/server/streamhttp"
)

// userAuth authenticates every request as its X-User header.
var userAuth = streamhttp.Options{Authenticate: func(r *http.Request) (string, error) { return r.Header.Get("X-User"), nil }}

// callAs is call for the principal user.
func (in *instance) callAs(t *testing.T, user string, id any, method string, params M) *response {
	t.Helper()
	req := in.request(t, id, method, params)
	req.Header.Set("X-User", user)
	return in.do(t, req)
}

// listenAs opens a listen stream for the principal user and returns it
// with the taskIds its acknowledgement lists.
func (in *instance) listenAs(t *testing.T, user string, id any, caps M, filter M) (*listenStream, []any) {
	t.Helper()
	req := in.request(t, id, "subscriptions/listen", M{"_meta": meta(caps), "notifications": filter})
	req.Header.Set("X-User", user)
	ls := in.stream(t, req)
	p := ls.expect("notifications/subscriptions/acknowledged", jsonID(id))
	n, _ := p["notifications"].(M)
	ids, _ := n["taskIds"].([]any)
	return ls, ids
}

func jsonID(id any) string {
	if s, ok := id.(string); ok {
		return `"` + s + `"`
	}
	panic("jsonID: string ids only")
}

// R-TASK-18, R-TASK-13 across instances sharing a Redis task store and
// broker: alice's task, created on A, is honoured in a listen filter only
// for alice. Bob, listening on A and on B with its id, is acknowledged
// without it and gets none of its notifications; alice, on B, gets them
// all, result included.
func TestListenTaskIDsOwnerOnlyAcrossInstances(t *testing.T) {
	opt := testRedis(t)
	prefix := uniquePrefix(t)
	a := newTaskInstance(t, "A", opt, prefix, userAuth)
	b := newTaskInstance(t, "B", opt, prefix, userAuth)
	caps := M{"elicitation": M{}, "extensions": M{tasks.ExtensionID: M{}}}

	created := a.callAs(t, "alice", 1, "tools/call", M{"_meta": meta(caps), "name": "slow", "arguments": M{}})
	id, _ := created.Result["taskId"].(string)
	if created.Error != nil || id == "" {
		t.Fatalf("tools/call on A: %s", created.raw)
	}
	filter := M{"toolsListChanged": true, "taskIds": []string{id}}
	var bobs []*listenStream
	for _, in := range []*instance{a, b} {
		ls, ids := in.listenAs(t, "bob", "bob-on-"+in.name, caps, filter)
		if len(ids) != 0 {
			t.Errorf("R-TASK-18: bob's acknowledgement on %s lists %v; alice's task %s must be left out", in.name, ids, id)
		}
		bobs = append(bobs, ls)
	}
	alice, ids := b.listenAs(t, "alice", "alice-on-B", caps, filter)
	if len(ids) != 1 || ids[0] != id {
		t.Errorf("R-TASK-13: alice's acknowledgement on B lists %v, want [%s]", ids, id)
	}

	// Alice answers the task's input request on B once it asks; A's
	// runner completes it.
	deadline := time.Now().Add(5 * time.Second)
	for {
		r := b.callAs(t, "alice", "get", "tasks/get", M{"_meta": meta(caps), "taskId": id})
		if r.Error != nil {
			t.Fatalf("tasks/get by alice on B: %s", r.raw)
		}
		if r.Result["status"] == "input_required" {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("task still %v", r.Result["status"])
		}
		time.Sleep(10 * time.Millisecond)
	}
	upd := b.callAs(t, "alice", 2, "tasks/update", M{"_meta": meta(caps), "taskId": id,
		"inputResponses": M{"name": M{"action": "accept", "content": M{"name": "Ann"}}}})
	if upd.Error != nil {
		t.Fatalf("tasks/update by alice on B: %s", upd.raw)
	}
	for {
		p := alice.expect("notifications/tasks", `"alice-on-B"`)
		if p["taskId"] != id {
			t.Fatalf("alice got a notification for task %v", p["taskId"])
		}
		if p["status"] == "completed" {
			break
		}
	}
	// A list change published after every event of the task is the next
	// thing on bob's streams: none of the task's events reached them.
	if err := a.s.NotifyToolsChanged(); err != nil {
		t.Fatal(err)
	}
	for i, ls := range bobs {
		if m := ls.next(5 * time.Second); m["method"] != "notifications/tools/list_changed" {
			t.Errorf("R-TASK-18: bob's stream on %s got %v", []string{"A", "B"}[i], m)
		}
	}
}
