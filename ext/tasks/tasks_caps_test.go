package tasks

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"runtime"
	"strings"
	"sync/atomic"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/mcpwire/mcpwire/protocol"
	"github.com/mcpwire/mcpwire/server"
	"github.com/mcpwire/mcpwire/server/streamhttp"
)

// D9: what a task keeps of the request that creates it is bounded
// (TaskConfig.MaxArgumentBytes): arguments, _meta and inputResponses. A
// call over it is refused with -32602 and no task is created; the same
// call without the tasks extension runs synchronously.
func TestTaskArgumentCap(t *testing.T) {
	store := NewMemoryTaskStore()
	f := newTaskFixture(t, TaskConfig{Store: store, MaxArgumentBytes: 2000})
	f.tool(t, "echo", TaskOptions{Support: TaskOptional}, func(_ context.Context, _ *server.Request, args json.RawMessage) (*protocol.CallToolResult, error) {
		return server.TextResult(string(args)), nil
	})
	call := func(caps M, extra M, args M) *wire {
		p := tparams(caps, M{"name": "echo", "arguments": args})
		for k, v := range extra {
			p["_meta"].(M)[k] = v
		}
		return tcall(t, f.h, "tools/call", p, nil)
	}
	big := M{"label": strings.Repeat("x", 2000)}
	if w := call(tasksCaps, nil, big); w.code() != protocol.CodeInvalidParamsError ||
		!strings.HasPrefix(w.Error.Message, "Invalid params: arguments too large to run as a task (") || !strings.HasSuffix(w.Error.Message, "bytes of arguments, _meta and inputResponses, at most 2000)") {
		t.Errorf("a task with 2 KB of arguments: %s", w.raw)
	}
	if w := call(tasksCaps, M{"junk": strings.Repeat("y", 2000)}, M{}); w.code() != protocol.CodeInvalidParamsError {
		t.Errorf("a task with 2 KB of _meta: %s", w.raw)
	}
	if n := store.Len(); n != 0 {
		t.Errorf("%d tasks created over the cap", n)
	}
	if w := call(M{}, nil, big); w.Error != nil || w.isError() || !strings.Contains(w.text(t, 0), "xxxx") {
		t.Errorf("the same call, synchronously: %s", w.raw)
	}
	id := f.create(t, "echo", tasksCaps)["taskId"].(string)
	if got := waitStatus(t, f.h, id, "completed", "failed"); got["status"] != "completed" {
		t.Errorf("a small task: %v", got)
	}
}

// D9: TaskConfig.MaxRunning caps the tasks running on this instance,
// whoever creates them; over it, the rate-limited answer.
func TestTaskRunningCap(t *testing.T) {
	f := newTaskFixture(t, TaskConfig{MaxRunning: 2})
	f.tool(t, "wait", TaskOptions{Support: TaskOptional}, waitForCancel)
	var ids []string
	for _, addr := range []string{"198.51.100.1:1", "198.51.100.2:1"} {
		w := tcall(t, f.h, "tools/call", tparams(tasksCaps, M{"name": "wait", "arguments": M{}}), from(addr, ""))
		if w.Result["resultType"] != "task" {
			t.Fatalf("task from %s: %s", addr, w.raw)
		}
		ids = append(ids, w.Result["taskId"].(string))
	}
	rec := post(f.h, 9, "tools/call", tparams(tasksCaps, M{"name": "wait", "arguments": M{}}), from("198.51.100.3:1", ""))
	w := single(t, rec)
	if rec.Code != http.StatusTooManyRequests || rec.Header().Get("Retry-After") != "5" || w.code() != server.CodeRateLimited ||
		w.Error.Message != "Too many running tasks (at most 2 on this server); retry later" {
		t.Errorf("a third running task: %d, Retry-After %q: %s", rec.Code, rec.Header().Get("Retry-After"), w.raw)
	}
	// A task that ends frees its place.
	tcall(t, f.h, "tasks/cancel", tparams(tasksCaps, M{"taskId": ids[0]}), nil)
	waitFor(t, func() bool { return f.m.runningNow() == 1 })
	w = tcall(t, f.h, "tools/call", tparams(tasksCaps, M{"name": "wait", "arguments": M{}}), from("198.51.100.3:1", ""))
	if w.Result["resultType"] != "task" {
		t.Fatalf("a task once another ended: %s", w.raw)
	}
	ids = append(ids, w.Result["taskId"].(string))
	for _, id := range ids[1:] {
		tcall(t, f.h, "tasks/cancel", tparams(tasksCaps, M{"taskId": id}), nil)
	}
}

// TaskConfig.MaxRunningPerPrincipal caps the running tasks of one client
// address (of one principal with one), so that one client cannot take
// every MaxRunning slot for its tasks' TTL (a hostile review, F2: 256 tasks
// of one anonymous client locked every other out); others still get
// theirs, and an ended task frees its client's place.
func TestTaskRunningCapPerClient(t *testing.T) {
	f := newTaskFixture(t, TaskConfig{MaxRunning: 10, MaxRunningPerPrincipal: 2})
	f.tool(t, "wait", TaskOptions{Support: TaskOptional}, waitForCancel)
	call := func(addr string) (*httptest.ResponseRecorder, *wire) {
		rec := post(f.h, 7, "tools/call", tparams(tasksCaps, M{"name": "wait", "arguments": M{}}), from(addr, ""))
		return rec, single(t, rec)
	}
	var ids []string
	defer func() {
		for _, id := range ids {
			tcall(t, f.h, "tasks/cancel", tparams(tasksCaps, M{"taskId": id}), nil)
		}
	}()
	for range 2 {
		_, w := call("198.51.100.1:1")
		if w.Result["resultType"] != "task" {
			t.Fatalf("task of the first client: %s", w.raw)
		}
		ids = append(ids, w.Result["taskId"].(string))
	}
	rec, w := call("198.51.100.1:2") // the same address, another port
	if rec.Code != http.StatusTooManyRequests || rec.Header().Get("Retry-After") != "5" || w.code() != server.CodeRateLimited ||
		w.Error.Message != "Too many running tasks (at most 2 per client address); retry later" {
		t.Errorf("a third running task of one client: %d, Retry-After %q: %s", rec.Code, rec.Header().Get("Retry-After"), w.raw)
	}
	if _, w := call("198.51.100.2:1"); w.Result["resultType"] != "task" {
		t.Errorf("another client's task: %s", w.raw)
	} else {
		ids = append(ids, w.Result["taskId"].(string))
	}
	tcall(t, f.h, "tasks/cancel", tparams(tasksCaps, M{"taskId": ids[0]}), nil)
	waitFor(t, func() bool { return f.m.runningNow() == 2 })
	if _, w := call("198.51.100.1:1"); w.Result["resultType"] != "task" {
		t.Errorf("the first client's task once one of its ended: %s", w.raw)
	} else {
		ids = append(ids, w.Result["taskId"].(string))
	}
}

// Server.Shutdown ends the tasks running on the instance: each is failed
// at once (not at its TTL, a hostile review, F7), a client polling another
// instance sees it, and Shutdown returns once they ended; no task starts
// after.
func TestTaskShutdown(t *testing.T) {
	f := newTaskFixture(t, TaskConfig{TTL: time.Hour})
	f.tool(t, "wait", TaskOptions{Support: TaskOptional}, waitForCancel)
	id, _ := f.create(t, "wait", tasksCaps)["taskId"].(string)
	waitFor(t, func() bool { return f.m.runningNow() == 1 })
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if err := f.s.Shutdown(ctx); err != nil {
		t.Fatalf("Shutdown: %v", err)
	}
	if n := f.m.runningNow(); n != 0 {
		t.Errorf("%d tasks still running after Shutdown", n)
	}
	got := f.get(t, id).Result
	e, _ := got["error"].(M)
	if got["status"] != "failed" || e["code"] != float64(protocol.CodeInternalError) || e["message"] != "Internal error: the server shut down before the task finished" {
		t.Errorf("a task after Shutdown: %v", got)
	}
	if w := tcall(t, f.h, "tools/call", tparams(tasksCaps, M{"name": "wait", "arguments": M{}}), nil); w.code() != protocol.CodeInternalError {
		t.Errorf("a task created after Shutdown: %s", w.raw)
	}
}

// D9: a statusMessage is capped (TaskConfig.MaxStatusMessageBytes), at a
// UTF-8 boundary and with a marker, whether the handler sets it or fails
// with a long message; error data over MaxResultBytes is left out.
func TestTaskStatusMessageCap(t *testing.T) {
	f := newTaskFixture(t, TaskConfig{MaxStatusMessageBytes: 100, MaxResultBytes: 1000})
	set := make(chan struct{})
	f.tool(t, "status", TaskOptions{Support: TaskOptional}, func(ctx context.Context, _ *server.Request, _ json.RawMessage) (*protocol.CallToolResult, error) {
		tk, _ := TaskFrom(ctx)
		if err := tk.SetStatusMessage(ctx, strings.Repeat("é", 1000)); err != nil {
			return nil, err
		}
		close(set)
		<-ctx.Done()
		return nil, ctx.Err()
	})
	f.tool(t, "fail", TaskOptions{Support: TaskOptional}, func(context.Context, *server.Request, json.RawMessage) (*protocol.CallToolResult, error) {
		return nil, &server.Error{Code: protocol.CodeInvalidParamsError, Message: strings.Repeat("m", 1000), Data: json.RawMessage(`"` + strings.Repeat("d", 2000) + `"`)}
	})
	id := f.create(t, "status", tasksCaps)["taskId"].(string)
	<-set
	msg, _ := f.get(t, id).Result["statusMessage"].(string)
	if len(msg) > 100 || !strings.HasSuffix(msg, truncatedMark) || !utf8.ValidString(msg) || !strings.HasPrefix(msg, "éé") {
		t.Errorf("a 2000-byte status message, capped at 100: %d bytes %q", len(msg), msg)
	}
	tcall(t, f.h, "tasks/cancel", tparams(tasksCaps, M{"taskId": id}), nil)

	id = f.create(t, "fail", tasksCaps)["taskId"].(string)
	got := waitStatus(t, f.h, id, "failed")
	msg, _ = got["statusMessage"].(string)
	e, _ := got["error"].(M)
	if len(msg) > 100 || !strings.HasSuffix(msg, truncatedMark) || e["message"] != msg || e["data"] != nil || e["code"] != float64(protocol.CodeInvalidParamsError) {
		t.Errorf("a failure with a 1000-byte message and 2000 bytes of data: %v", got)
	}
	for _, c := range []struct {
		in   string
		max  int
		want string
	}{
		{"short", 100, "short"},
		{"abcdefghij", 0, "abcdefghij"},
		{"abcdefghij", 5, "abcde"},
		{"ééé", 5, "éé"},
		{strings.Repeat("a", 40), 30, strings.Repeat("a", 30-len(truncatedMark)) + truncatedMark},
	} {
		if got := truncateStatus(c.in, c.max); got != c.want {
			t.Errorf("truncateStatus(%q, %d) = %q, want %q", c.in, c.max, got, c.want)
		}
	}
}

// D9: a result over TaskConfig.MaxResultBytes fails the task with -32603.
func TestTaskResultCap(t *testing.T) {
	f := newTaskFixture(t, TaskConfig{MaxResultBytes: 1000})
	f.tool(t, "big", TaskOptions{Support: TaskOptional}, func(context.Context, *server.Request, json.RawMessage) (*protocol.CallToolResult, error) {
		return server.TextResult(strings.Repeat("r", 2000)), nil
	})
	f.tool(t, "small", TaskOptions{Support: TaskOptional}, func(context.Context, *server.Request, json.RawMessage) (*protocol.CallToolResult, error) {
		return server.TextResult(strings.Repeat("r", 500)), nil
	})
	id := f.create(t, "big", tasksCaps)["taskId"].(string)
	got := waitStatus(t, f.h, id, "completed", "failed")
	e, _ := got["error"].(M)
	if got["status"] != "failed" || e["code"] != float64(protocol.CodeInternalError) || !strings.HasPrefix(e["message"].(string), "Internal error: result too large (") || got["result"] != nil {
		t.Errorf("a 2 KB result, capped at 1000 bytes: %v", got)
	}
	id = f.create(t, "small", tasksCaps)["taskId"].(string)
	if got := waitStatus(t, f.h, id, "completed", "failed"); got["status"] != "completed" {
		t.Errorf("a result under the cap: %v", got)
	}
}

// D9: the input responses a task holds are capped
// (TaskConfig.MaxInputResponseBytes): a tasks/update over it is refused
// and stores nothing.
func TestTaskInputResponseCap(t *testing.T) {
	f := newTaskFixture(t, TaskConfig{MaxInputResponseBytes: 1000})
	caps := M{"elicitation": M{}, "extensions": M{ExtensionID: M{}}}
	f.tool(t, "ask", TaskOptions{Support: TaskOptional}, func(_ context.Context, r *server.Request, _ json.RawMessage) (*protocol.CallToolResult, error) {
		if a, ok := r.InputResponse("name"); ok {
			return server.TextResult(a.Value.(*protocol.ElicitResult).Content["name"].Str()), nil
		}
		return nil, r.AskInput(map[string]protocol.InputRequest{"name": nameForm()}, nil)
	})
	id := f.create(t, "ask", caps)["taskId"].(string)
	waitStatus(t, f.h, id, "input_required")
	upd := func(name string) *wire {
		return tcall(t, f.h, "tasks/update", tparams(caps, M{"taskId": id, "inputResponses": M{"name": accept(M{"name": name})}}), nil)
	}
	if w := upd(strings.Repeat("n", 2000)); w.code() != protocol.CodeInvalidParamsError || !strings.Contains(w.Error.Message, "more than the limit of 1000") {
		t.Errorf("a 2 KB input response, capped at 1000 bytes: %s", w.raw)
	}
	if got := f.get(t, id).Result; got["status"] != "input_required" {
		t.Errorf("after a refused update: %v", got)
	}
	if w := upd("Ada"); w.Error != nil {
		t.Fatal(w.raw)
	}
	got := waitStatus(t, f.h, id, "completed", "failed")
	if res, _ := got["result"].(M); res == nil || res["content"].([]any)[0].(M)["text"] != "Ada" {
		t.Errorf("after a small response: %v", got)
	}
}

// D9, the review's reproduction: 50 tasks of a tool that puts its 1 MiB
// argument in its status message and its result held 3 MiB each for their
// whole TTL. Such a task is refused now (arguments over 256 KiB by
// default), and the heap stays flat; with 200 KB arguments, under the
// cap, a running task holds its arguments once and a status message of
// at most 4 KiB: under 300 KB (some 400 KB before, the message being as
// large as the arguments).
func TestTaskMemory(t *testing.T) {
	store := NewMemoryTaskStore()
	ext, m := withManager(TaskConfig{Store: store})
	s := newServer(t, ext) // no capturing broker: it would keep every event
	t.Cleanup(func() { waitIdle(t, m) })
	h := streamhttp.Handler(s, streamhttp.Options{})
	release := make(chan struct{})
	defer close(release)
	var set atomic.Int64
	err := s.AddTool(toolDef(t, `{"name":"slow","inputSchema":{"type":"object"}}`), func(ctx context.Context, _ *server.Request, args json.RawMessage) (*protocol.CallToolResult, error) {
		var in struct{ Label string }
		_ = json.Unmarshal(args, &in)
		if tk, ok := TaskFrom(ctx); ok {
			_ = tk.SetStatusMessage(ctx, "Computing "+in.Label)
			set.Add(1)
		}
		in.Label = ""
		select {
		case <-release:
		case <-ctx.Done():
		}
		return server.TextResult("done"), nil // the label is not kept: what the runtime keeps is measured
	}, AsTask(TaskOptions{Support: TaskOptional}))
	if err != nil {
		t.Fatal(err)
	}
	heap := func() uint64 {
		runtime.GC()
		var ms runtime.MemStats
		runtime.ReadMemStats(&ms)
		return ms.HeapInuse
	}
	const n = 20
	run := func(labelBytes int, padBytes ...int) (created int, perTask float64) {
		before := heap()
		label := strings.Repeat("x", labelBytes)
		for range n {
			p := M{"name": "slow", "arguments": M{"label": label}}
			if len(padBytes) > 0 {
				p["pad"] = strings.Repeat("p", padBytes[0]) // a params member the schema does not declare
			}
			w := tcall(t, h, "tools/call", tparams(tasksCaps, p), nil)
			if w.Result["resultType"] == "task" {
				created++
			} else if w.code() != protocol.CodeInvalidParamsError {
				t.Fatalf("tools/call: %s", w.raw)
			}
		}
		waitFor(t, func() bool { return set.Load() == int64(store.Len()) }) // every status message is set
		grown := int64(heap()) - int64(before)
		return created, float64(grown) / n
	}
	created, per := run(1<<20 - 64)
	t.Logf("%d tasks of a 1 MiB argument: %d created, %.0f KB a task", n, created, per/1000)
	if created != 0 || store.Len() != 0 || per > 100_000 {
		t.Errorf("%d of %d tasks of a 1 MiB argument created, %.0f KB a task", created, n, per/1000)
	}
	created, per = run(200_000)
	t.Logf("%d tasks of a 200 KB argument: %d created, %.0f KB a task", n, created, per/1000)
	if created != n || per > 300_000 {
		t.Errorf("%d of %d tasks of a 200 KB argument created, %.0f KB a task", created, n, per/1000)
	}
	// What the creating request held beside the arguments (here a 1 MiB
	// member of params that no schema declares) is not kept once it is
	// answered (a hostile review, F1: the task's context kept the whole
	// finished Request reachable, 3 MB a task).
	created, per = run(10, 1<<20)
	t.Logf("%d tasks with a 1 MiB unknown params member: %d created, %.0f KB a task", n, created, per/1000)
	if created != n || per > 100_000 {
		t.Errorf("%d of %d tasks with a 1 MiB unknown params member created, %.0f KB a task", created, n, per/1000)
	}
}
