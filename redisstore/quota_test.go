package redisstore

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/mcpwire/mcpwire/ext/tasks"
	"github.com/mcpwire/mcpwire/protocol"
	"github.com/mcpwire/mcpwire/server"
	"github.com/mcpwire/mcpwire/server/streamhttp"
)

// The task limit counts per Principal and QuotaKey: the runtime's
// per-address limit of anonymous clients (item 8 of the review).

// Over HTTP, with tasks in Redis: an anonymous client filling its quota
// does not lock out one at another address, and the error names what the
// limit counts; with an Authenticate hook it counts per principal.
func TestTaskQuotaPerClientAddressRedis(t *testing.T) {
	store := newStore(t, newClient(t, testRedis(t)), WithPrefix(uniquePrefix(t)))
	s := newTestServer(t,
		tasks.WithTasks(tasks.TaskConfig{Store: store, MaxTasksPerPrincipal: 1}),
	)
	schema := objectSchema(t)
	release := make(chan struct{})
	err := s.AddTool(protocol.Tool{Name: "wait", InputSchema: schema}, func(context.Context, *server.Request, json.RawMessage) (*protocol.CallToolResult, error) {
		<-release
		return server.TextResult("done"), nil
	}, tasks.AsTask(tasks.TaskOptions{Support: tasks.TaskRequired}))
	if err != nil {
		t.Fatal(err)
	}
	in := &instance{name: "A", s: s, srv: httptest.NewServer(streamhttp.Handler(s, streamhttp.Options{}))}
	t.Cleanup(in.srv.Close)
	anon := streamhttp.Handler(s, streamhttp.Options{})
	authed := streamhttp.Handler(s, streamhttp.Options{Authenticate: func(r *http.Request) (string, error) { return r.Header.Get("X-User"), nil }})
	caps := M{"extensions": M{tasks.ExtensionID: M{}}}
	// call serves one request from addr through h.
	call := func(h http.Handler, addr, user, method string, params M) *response {
		t.Helper()
		req := in.request(t, 1, method, params)
		req.RemoteAddr = addr
		if user != "" {
			req.Header.Set("X-User", user)
		}
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, req)
		r := &response{raw: rec.Body.Bytes()}
		if err := json.Unmarshal(r.raw, r); err != nil {
			t.Fatalf("%s from %s: %d %s", method, addr, rec.Code, r.raw)
		}
		return r
	}
	type started struct {
		h          http.Handler
		addr, user string
		id         string
	}
	var running []started
	defer func() { // let the tasks end, and see them recorded, before Redis closes
		close(release)
		for _, r := range running {
			deadline := time.Now().Add(5 * time.Second)
			for call(r.h, r.addr, r.user, "tasks/get", M{"_meta": meta(caps), "taskId": r.id}).Result["status"] != "completed" {
				if time.Now().After(deadline) {
					t.Fatalf("task %s not completed within 5s", r.id)
				}
				time.Sleep(10 * time.Millisecond)
			}
		}
	}()
	create := func(h http.Handler, addr, user string) *response {
		t.Helper()
		r := call(h, addr, user, "tools/call", M{"_meta": meta(caps), "name": "wait", "arguments": M{}})
		if id, ok := r.Result["taskId"].(string); ok {
			running = append(running, started{h, addr, user, id})
		}
		return r
	}
	if r := create(anon, "198.51.100.1:1000", ""); r.Result["resultType"] != "task" {
		t.Fatalf("first anonymous task: %s", r.raw)
	}
	if r := create(anon, "198.51.100.1:2000", ""); r.Error == nil || int64(r.Error.Code) != server.CodeRateLimited ||
		r.Error.Message != "Too many tasks (at most 1 per client address); retry later" {
		t.Errorf("a second task from the same address: %s", r.raw)
	}
	if r := create(anon, "198.51.100.2:1000", ""); r.Result["resultType"] != "task" {
		t.Errorf("a client at another address is locked out: %s", r.raw)
	}
	if r := create(authed, "203.0.113.1:1", "alice"); r.Result["resultType"] != "task" {
		t.Fatalf("alice's first task: %s", r.raw)
	}
	if r := create(authed, "203.0.113.2:1", "alice"); r.Error == nil || int64(r.Error.Code) != server.CodeRateLimited ||
		r.Error.Message != "Too many tasks (at most 1 per principal); retry later" {
		t.Errorf("alice's second task, from another address: %s", r.raw)
	}
}
