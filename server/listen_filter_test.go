package server

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mcpwire/mcpwire/protocol"
)

// Tests of what a subscriptions/listen filter may name: task ids only of
// the principal's own tasks, and bounded lists.

// asUser sets the X-User header that userAuth turns into the principal.
func asUser(user string) func(*http.Request) {
	return func(r *http.Request) { r.Header.Set("X-User", user) }
}

// userAuth authenticates every request as its X-User header.
var userAuth = HTTPOptions{Authenticate: func(r *http.Request) (string, error) { return r.Header.Get("X-User"), nil }}

// ackTaskIDs returns the taskIds of an acknowledgement, failing unless w
// is one.
func ackTaskIDs(t *testing.T, w *wire) []any {
	t.Helper()
	if w.method() != protocol.MethodNotificationsSubscriptionsAcknowledged {
		t.Fatalf("first frame %s, want the acknowledgement (R-SUB-02): %s", w.method(), w.raw)
	}
	n, _ := w.params()["notifications"].(M)
	ids, _ := n["taskIds"].([]any)
	return ids
}

// R-TASK-18 (every task-related request is authorised), R-TASK-13 (the
// acknowledgement lists the agreed taskIds): a listen filter honours a
// task id only for the principal that created the task. Another principal
// naming it is acknowledged without it, exactly as for an id that does not
// exist, and gets none of the task's notifications (status, result); the
// owner gets them.
func TestListenTaskIDsOwnerOnly(t *testing.T) {
	f := newTaskFixture(t, TaskConfig{})
	release := make(chan struct{})
	f.tool(t, "secret", TaskOptions{Support: TaskOptional}, func(ctx context.Context, _ *Request, _ json.RawMessage) (*protocol.CallToolResult, error) {
		select {
		case <-release:
			return TextResult("alice's secret"), nil
		case <-ctx.Done():
			return nil, ctx.Err()
		}
	})
	h := f.s.Handler(userAuth)
	srv := httptest.NewServer(h)
	t.Cleanup(srv.Close) // after the streams' own cleanups close their bodies

	w := tcall(t, h, "tools/call", tparams(tasksCaps, M{"name": "secret", "arguments": M{}}), asUser("alice"))
	id, _ := w.Result["taskId"].(string)
	if id == "" {
		t.Fatalf("tools/call: %s", w.raw)
	}
	listen := func(user string) (*sseStream, []any) {
		p := tparams(tasksCaps, M{"notifications": M{"toolsListChanged": true, "taskIds": []string{id, "no-such-task", id}}})
		st := openListenWith(t, srv, user+"-sub", p, asUser(user))
		return st, ackTaskIDs(t, st.message(2*time.Second))
	}
	bob, bobIDs := listen("bob")
	if len(bobIDs) != 0 {
		t.Errorf("R-TASK-18: another principal's acknowledgement lists %v; alice's task %s must be left out", bobIDs, id)
	}
	alice, aliceIDs := listen("alice")
	if len(aliceIDs) != 1 || aliceIDs[0] != id {
		t.Errorf("R-TASK-13: the owner's acknowledgement lists %v, want only [%s] (unknown ids left out, duplicates once)", aliceIDs, id)
	}

	close(release)
	for {
		m := alice.message(2 * time.Second)
		if m.method() != "notifications/tasks" || m.params()["taskId"] != id || subID(t, m) != `"alice-sub"` {
			t.Fatalf("the owner's stream got %s", m.raw)
		}
		if m.params()["status"] == "completed" {
			break
		}
	}
	// A list change published after every event of the task: the next thing
	// on bob's stream, so none of the task's events reached it.
	if err := f.s.NotifyToolsChanged(); err != nil {
		t.Fatal(err)
	}
	if m := bob.message(2 * time.Second); m.method() != protocol.MethodNotificationsToolsListChanged {
		t.Fatalf("R-TASK-18: another principal's stream got %s", m.raw)
	}
}

// R-TASK-18, in depth: deliver sends a task event only for a task the
// filter honoured, and only when the payload is that task. An event
// naming an honoured id but carrying another task's data (a bug, or a
// stranger publishing on a shared broker channel) is dropped, and so is
// one for a task the stream never asked for.
func TestListenDeliversOnlyHonouredTasks(t *testing.T) {
	f := newTaskFixture(t, TaskConfig{})
	release := make(chan struct{})
	f.tool(t, "wait", TaskOptions{Support: TaskOptional}, func(ctx context.Context, _ *Request, _ json.RawMessage) (*protocol.CallToolResult, error) {
		select {
		case <-release:
			return TextResult("done"), nil
		case <-ctx.Done():
			return nil, ctx.Err()
		}
	})
	defer close(release)
	srv := httptest.NewServer(f.s.Handler(HTTPOptions{}))
	t.Cleanup(srv.Close)
	id, _ := f.create(t, "wait", tasksCaps)["taskId"].(string)
	st := openListenWith(t, srv, "s", tparams(tasksCaps, M{"notifications": M{"toolsListChanged": true, "taskIds": []string{id}}}), nil)
	if ids := ackTaskIDs(t, st.message(2*time.Second)); len(ids) != 1 || ids[0] != id {
		t.Fatalf("acknowledged taskIds %v, want [%s]", ids, id)
	}
	ctx := context.Background()
	forged := []Event{
		{Kind: EventTask, TaskID: id, Data: []byte(`{"taskId":"someone-else","status":"completed","result":{"secret":1}}`)},
		{Kind: EventTask, TaskID: id, Data: []byte(`{"status":"completed"}`)},
		{Kind: EventTask, TaskID: id, Data: []byte(`not JSON`)},
		{Kind: EventTask, TaskID: "someone-else", Data: []byte(`{"taskId":"someone-else","status":"completed"}`)},
	}
	for _, ev := range forged {
		if err := f.s.cfg.broker.Publish(ctx, ev); err != nil {
			t.Fatal(err)
		}
	}
	if err := f.s.NotifyToolsChanged(); err != nil {
		t.Fatal(err)
	}
	if m := st.message(2 * time.Second); m.method() != protocol.MethodNotificationsToolsListChanged {
		t.Fatalf("a task event not for an honoured task reached the stream: %s", m.raw)
	}
}

// R-SUB-03, R-TASK-13: a server that does not offer the tasks extension
// honours no taskIds, even for a client that declares it.
func TestListenTaskIDsWithoutTasksExtension(t *testing.T) {
	s := fixture(t)
	srv := httptest.NewServer(s.Handler(HTTPOptions{}))
	t.Cleanup(srv.Close)
	st := openListenWith(t, srv, 1, tparams(tasksCaps, M{"notifications": M{"toolsListChanged": true, "taskIds": []string{"t1"}}}), nil)
	if ids := ackTaskIDs(t, st.message(2*time.Second)); len(ids) != 0 {
		t.Errorf("a server without the tasks extension acknowledged taskIds %v", ids)
	}
}

// failingStore is a TaskStore whose Get fails as an unreachable store would.
type failingStore struct{ TaskStore }

func (failingStore) Get(context.Context, string, string) (*TaskRecord, error) {
	return nil, errors.New("connection refused")
}

// A task store that cannot answer fails the listen request with -32603
// rather than acknowledging a filter that leaves the tasks out as unknown.
func TestListenTaskStoreDown(t *testing.T) {
	// The stream lifetime only bounds a run against code that opens it.
	f := newTaskFixture(t, TaskConfig{Store: failingStore{NewMemoryTaskStore()}}, WithMaxStreamLifetime(time.Second))
	rec := post(t, f.h, rpc(1, "subscriptions/listen", tparams(tasksCaps, M{"notifications": M{"taskIds": []string{"t1"}}})), nil)
	if w := single(t, rec); w.code() != protocol.CodeInternalError {
		t.Fatalf("listen with the task store down: %s", w.raw)
	}
}

// uris returns n distinct URIs matching the fixture's template
// users://{id}/profile.
func uris(n int) []string {
	out := make([]string, n)
	for i := range out {
		out[i] = fmt.Sprintf("users://%d/profile", i)
	}
	return out
}

// taskIDList returns n distinct ids that name no task.
func taskIDList(n int) []string {
	out := make([]string, n)
	for i := range out {
		out[i] = fmt.Sprintf("no-such-task-%d", i)
	}
	return out
}

// A listen filter is bounded (R-SUB-03 leaves the server free to honour
// less; these bounds refuse outright what no client needs): more than
// DefaultMaxListenResources resourceSubscriptions, URIs totalling more
// than DefaultMaxListenResourceBytes, or more than DefaultMaxListenTasks
// taskIds is -32602 naming the bound, over HTTP and stdio; at the bounds
// the stream opens. WithListenLimits moves the bounds.
func TestListenFilterLimits(t *testing.T) {
	// The stream lifetime only bounds a run against code that opens a
	// stream where it must refuse.
	s := fixture(t, WithTasks(TaskConfig{}), WithMaxStreamLifetime(time.Second))
	custom := fixture(t, WithTasks(TaskConfig{}), WithMaxStreamLifetime(time.Second),
		WithListenLimits(ListenLimits{MaxResources: 2, MaxResourceBytes: 40, MaxTasks: 1}))
	// Nine URIs just under the URI limit (WithMaxURIBytes) pass the bytes
	// bound only together.
	var long []string
	total := 0
	for i := range 9 {
		u := fmt.Sprintf("users://%d%s/profile", i, strings.Repeat("x", 7500))
		long, total = append(long, u), total+len(u)
	}
	tooLong := "users://" + strings.Repeat("x", DefaultMaxURIBytes) + "/profile"
	over := []struct {
		name   string
		s      *Server
		filter M
		want   string
	}{
		{"resourceSubscriptions", s, M{"resourceSubscriptions": uris(1001)}, "notifications.resourceSubscriptions has 1001 entries, more than the limit of 1000"},
		{"resource bytes", s, M{"resourceSubscriptions": long}, fmt.Sprintf("the URIs of notifications.resourceSubscriptions total %d bytes, more than the limit of 65536", total)},
		{"one URI's bytes", s, M{"resourceSubscriptions": []string{"users://a/profile", tooLong}}, fmt.Sprintf("notifications.resourceSubscriptions[1] has %d bytes, more than the limit of %d", len(tooLong), DefaultMaxURIBytes)},
		{"taskIds", s, M{"taskIds": taskIDList(1001)}, "notifications.taskIds has 1001 entries, more than the limit of 1000"},
		{"custom resourceSubscriptions", custom, M{"resourceSubscriptions": uris(3)}, "notifications.resourceSubscriptions has 3 entries, more than the limit of 2"},
		{"custom resource bytes", custom, M{"resourceSubscriptions": []string{"users://0123456789012345678901234/profile"}}, "total 41 bytes, more than the limit of 40"},
		{"custom taskIds", custom, M{"taskIds": []string{"a", "a"}}, "notifications.taskIds has 2 entries, more than the limit of 1"},
	}
	for _, c := range over {
		h := c.s.Handler(HTTPOptions{})
		p := tparams(tasksCaps, M{"notifications": c.filter})
		rec := post(t, h, rpc(1, "subscriptions/listen", p), nil)
		if ct := rec.Header().Get("Content-Type"); ct != "application/json" {
			t.Errorf("HTTP: %s over the bound: %s response, want a -32602 error %q", c.name, ct, c.want)
		} else if w := single(t, rec); rec.Code != http.StatusBadRequest || w.code() != protocol.CodeInvalidParamsError || !strings.Contains(w.Error.Message, c.want) {
			t.Errorf("HTTP: %s over the bound: %d %s, want 400 and -32602 %q", c.name, rec.Code, w.raw, c.want)
		}
		ss := startStdio(t, c.s)
		ss.send(string(rpc(2, "subscriptions/listen", p)))
		if w := ss.recv(); w.code() != protocol.CodeInvalidParamsError || !strings.Contains(w.Error.Message, c.want) {
			t.Errorf("stdio: %s over the bound: %s, want -32602 %q", c.name, w.raw, c.want)
		}
	}

	// At the bound: acknowledged, every URI once.
	srv := httptest.NewServer(s.Handler(HTTPOptions{}))
	t.Cleanup(srv.Close)
	st := openListenWith(t, srv, 3, tparams(tasksCaps, M{"notifications": M{"resourceSubscriptions": uris(1000), "taskIds": taskIDList(1000)}}), nil)
	ack := st.message(2 * time.Second)
	n, _ := ack.params()["notifications"].(M)
	if subs, _ := n["resourceSubscriptions"].([]any); ack.method() != protocol.MethodNotificationsSubscriptionsAcknowledged || len(subs) != 1000 {
		t.Errorf("at the bound: %s with %d URIs", ack.method(), len(subs))
	}
}

// R-SUB-01, R-SUB-03, R-SUB-10: resourceSubscriptions are honoured once
// each, in the order asked, unknown URIs left out; an update reaches the
// stream once, only for a URI it subscribed to.
func TestListenResourceSubscriptionsOnce(t *testing.T) {
	s := fixture(t)
	srv := httptest.NewServer(s.Handler(HTTPOptions{}))
	t.Cleanup(srv.Close)
	st := openListen(t, srv, 1, M{"toolsListChanged": true, "resourceSubscriptions": []string{
		"users://7/profile", "file:///a.txt", "users://7/profile", "test://nope", "file:///a.txt"}})
	ack := st.message(2 * time.Second)
	n, _ := ack.params()["notifications"].(M)
	if subs, _ := n["resourceSubscriptions"].([]any); len(subs) != 2 || subs[0] != "users://7/profile" || subs[1] != "file:///a.txt" {
		t.Fatalf("acknowledged resourceSubscriptions %v", n["resourceSubscriptions"])
	}
	for _, uri := range []string{"test://nope", "users://8/profile", "file:///a.txt"} {
		if err := s.NotifyResourceUpdated(uri); err != nil {
			t.Fatal(err)
		}
	}
	if err := s.NotifyToolsChanged(); err != nil {
		t.Fatal(err)
	}
	if w := st.message(2 * time.Second); w.method() != protocol.MethodNotificationsResourcesUpdated || w.params()["uri"] != "file:///a.txt" {
		t.Fatalf("got %s, want the update of file:///a.txt alone", w.raw)
	}
	if w := st.message(2 * time.Second); w.method() != protocol.MethodNotificationsToolsListChanged {
		t.Fatalf("got %s, want the list change (one update per event)", w.raw)
	}
}

// R-SUB-03, R-SUB-10 with WithSubscriptionAuthorizer: a URI the
// authorizer refuses to a principal is left out of its acknowledgement
// exactly as an unknown one, and its updates never reach the principal's
// stream; another principal allowed to watch it gets them. The
// authorizer sees the listen request (RequestFrom) and is asked once per
// known URI, never for unknown or repeated ones.
func TestListenSubscriptionAuthorizer(t *testing.T) {
	var mu sync.Mutex
	var asked []string
	s := fixture(t, WithSubscriptionAuthorizer(func(ctx context.Context, principal, uri string) bool {
		r, ok := RequestFrom(ctx)
		mu.Lock()
		defer mu.Unlock()
		asked = append(asked, principal+" "+uri)
		if !ok || r.Principal != principal || r.Method != protocol.MethodSubscriptionsListen {
			t.Errorf("the authorizer's context carries %v", r)
		}
		// Profiles are private; other resources are public.
		return !strings.HasPrefix(uri, "users://") || uri == "users://"+principal+"/profile"
	}))
	srv := httptest.NewServer(s.Handler(userAuth))
	t.Cleanup(srv.Close)
	want := []string{"users://alice/profile", "file:///a.txt", "users://bob/profile", "test://nope", "users://alice/profile"}
	listen := func(user string) (*sseStream, []any) {
		st := openListenWith(t, srv, user, params(M{"notifications": M{"toolsListChanged": true, "resourceSubscriptions": want}}), asUser(user))
		ack := st.message(2 * time.Second)
		n, _ := ack.params()["notifications"].(M)
		subs, _ := n["resourceSubscriptions"].([]any)
		return st, subs
	}
	bob, bobSubs := listen("bob")
	if len(bobSubs) != 2 || bobSubs[0] != "file:///a.txt" || bobSubs[1] != "users://bob/profile" {
		t.Errorf("bob's acknowledged resourceSubscriptions %v, want [file:///a.txt users://bob/profile]", bobSubs)
	}
	alice, aliceSubs := listen("alice")
	if len(aliceSubs) != 2 || aliceSubs[0] != "users://alice/profile" || aliceSubs[1] != "file:///a.txt" {
		t.Errorf("alice's acknowledged resourceSubscriptions %v, want [users://alice/profile file:///a.txt]", aliceSubs)
	}
	mu.Lock()
	if got := strings.Join(asked, ", "); got != "bob users://alice/profile, bob file:///a.txt, bob users://bob/profile, alice users://alice/profile, alice file:///a.txt, alice users://bob/profile" {
		t.Errorf("the authorizer was asked: %s", got)
	}
	mu.Unlock()

	if err := s.NotifyResourceUpdated("users://alice/profile"); err != nil {
		t.Fatal(err)
	}
	if w := alice.message(2 * time.Second); w.method() != protocol.MethodNotificationsResourcesUpdated || w.params()["uri"] != "users://alice/profile" {
		t.Fatalf("alice got %s, want the update of her profile", w.raw)
	}
	if err := s.NotifyToolsChanged(); err != nil {
		t.Fatal(err)
	}
	if w := bob.message(2 * time.Second); w.method() != protocol.MethodNotificationsToolsListChanged {
		t.Fatalf("bob got %s: an update of a resource he may not watch", w.raw)
	}
}
