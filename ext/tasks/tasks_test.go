package tasks

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/mcpwire/mcpwire/protocol"
	"github.com/mcpwire/mcpwire/server"
	"github.com/mcpwire/mcpwire/server/streamhttp"
)

// Tests of the tasks extension (io.modelcontextprotocol/tasks): R-TASK-*.

func TestTasksCapability(t *testing.T) {
	f := newTaskFixture(t, TaskConfig{})
	w := tcall(t, f.h, "server/discover", params(nil), nil)
	caps, _ := w.Result["capabilities"].(M)
	ext, _ := caps["extensions"].(M)
	if v, ok := ext[ExtensionID].(M); !ok || len(v) != 0 {
		t.Errorf("R-TASK-01: capabilities.extensions[%q] = %v, want {}", ExtensionID, ext[ExtensionID])
	}
	if _, ok := caps["tasks"]; ok {
		t.Error("R-TASK-19: a legacy capabilities.tasks is advertised")
	}

	// Registering a tool with AsTask enables the extension by itself.
	s := newServer(t)
	if err := s.AddTool(toolDef(t, `{"name":"t","inputSchema":{"type":"object"}}`), textTool("ok"), AsTask(TaskOptions{Support: TaskOptional})); err != nil {
		t.Fatal(err)
	}
	disc := tcall(t, streamhttp.Handler(s, streamhttp.Options{}), "server/discover", params(nil), nil)
	if _, ok := disc.Result["capabilities"].(M)["extensions"].(M)[ExtensionID]; !ok {
		t.Error("R-TASK-01: AsTask did not enable the extension")
	}
	if err := s.AddTool(toolDef(t, `{"name":"u","inputSchema":{"type":"object"}}`), textTool("ok"), AsTask(TaskOptions{})); err == nil {
		t.Error("AsTask without a Support level was accepted")
	}
}

func TestTasksNegotiation(t *testing.T) {
	f := newTaskFixture(t, TaskConfig{})
	var ran atomic.Int32
	f.tool(t, "opt", TaskOptions{Support: TaskOptional}, textTool("done"))
	f.tool(t, "req", TaskOptions{Support: TaskRequired}, func(context.Context, *server.Request, json.RawMessage) (*protocol.CallToolResult, error) {
		ran.Add(1)
		return server.TextResult("done"), nil
	})
	addTool(t, f.s, `{"name":"sync","inputSchema":{"type":"object"}}`, textTool("sync"))

	// A client that declared the extension earlier gets nothing from it
	// on a request that does not declare it (R-TASK-02, R-VER-04).
	f.create(t, "opt", tasksCaps)
	w := tcall(t, f.h, "tools/call", params(M{"name": "opt", "arguments": M{}}), nil)
	if w.Error != nil || w.Result["resultType"] != "complete" || w.Result["taskId"] != nil || w.text(t, 0) != "done" {
		t.Errorf("R-TASK-02: TaskOptional tool without the extension: %s", w.raw)
	}

	w = tcall(t, f.h, "tools/call", params(M{"name": "req", "arguments": M{}}), nil)
	if w.code() != protocol.CodeMissingRequiredClientCapabilityError {
		t.Fatalf("R-TASK-03: TaskRequired tool without the extension: %s", w.raw)
	}
	d := w.data(t)
	if !jsonEq(t, jsonText(d["requiredCapabilities"]), []byte(`{"extensions":{"io.modelcontextprotocol/tasks":{}}}`)) {
		t.Errorf("R-TASK-03: data %v", d)
	}
	time.Sleep(20 * time.Millisecond)
	if ran.Load() != 0 {
		t.Error("R-TASK-03: the handler of a TaskRequired tool ran for a client without the extension")
	}

	// A tool without AsTask never becomes a task, and the legacy task
	// param changes nothing (R-TASK-19).
	w = tcall(t, f.h, "tools/call", tparams(tasksCaps, M{"name": "sync", "arguments": M{}, "task": M{"ttl": 60000, "pollInterval": 100}}), nil)
	if w.Error != nil || w.Result["resultType"] != "complete" || w.text(t, 0) != "sync" {
		t.Errorf("R-TASK-19: legacy task param on a sync tool: %s", w.raw)
	}
}

func TestTasksMethodsGated(t *testing.T) {
	f := newTaskFixture(t, TaskConfig{})
	for _, m := range []struct {
		method string
		p      M
	}{
		{"tasks/get", M{"taskId": "x"}},
		{"tasks/update", M{"taskId": "x", "inputResponses": M{}}},
		{"tasks/cancel", M{"taskId": "x"}},
	} {
		w := tcall(t, f.h, m.method, params(m.p), nil)
		if w.code() != protocol.CodeMissingRequiredClientCapabilityError {
			t.Errorf("R-TASK-15: %s without the extension: %s", m.method, w.raw)
			continue
		}
		if !jsonEq(t, w.Error.Data, []byte(`{"requiredCapabilities":{"extensions":{"io.modelcontextprotocol/tasks":{}}}}`)) {
			t.Errorf("R-TASK-15: %s data %s", m.method, w.Error.Data)
		}
	}
	// Removed or never defined methods (R-TASK-19).
	for _, m := range []string{"tasks/result", "tasks/list"} {
		rec := post(f.h, 1, m, tparams(tasksCaps, M{"taskId": "x"}), nil)
		w := decode(t, rec.Body.Bytes())
		if w.code() != protocol.CodeMethodNotFoundError || rec.Code != http.StatusNotFound {
			t.Errorf("R-TASK-19: %s: HTTP %d %s", m, rec.Code, w.raw)
		}
	}
	// Malformed params.
	for _, p := range []M{{}, {"taskId": 7}} {
		if w := tcall(t, f.h, "tasks/get", tparams(tasksCaps, p), func(r *http.Request) { r.Header.Set(server.HeaderName, "") }); w.code() != protocol.CodeInvalidParamsError || !strings.HasPrefix(w.Error.Message, "Invalid params: ") {
			t.Errorf("tasks/get %v: %s", p, w.raw)
		}
	}
	for _, ir := range []any{nil, "x", []any{}} {
		p := M{"taskId": "x"}
		if ir != nil {
			p["inputResponses"] = ir
		}
		if w := tcall(t, f.h, "tasks/update", tparams(tasksCaps, p), nil); w.code() != protocol.CodeInvalidParamsError || !strings.HasPrefix(w.Error.Message, "Invalid params: ") {
			t.Errorf("tasks/update inputResponses %v: %s", ir, w.raw)
		}
	}
}

func TestTaskLifecycle(t *testing.T) {
	f := newTaskFixture(t, TaskConfig{TTL: time.Minute, PollInterval: 250 * time.Millisecond})
	release := make(chan struct{})
	f.tool(t, "job", TaskOptions{Support: TaskOptional}, func(ctx context.Context, r *server.Request, _ json.RawMessage) (*protocol.CallToolResult, error) {
		<-release
		return server.TextResult("finished"), nil
	})
	created := f.create(t, "job", tasksCaps)
	// R-TASK-05/06: flat Result & Task.
	id, _ := created["taskId"].(string)
	if id == "" || created["status"] != "working" {
		t.Fatalf("R-TASK-06: %v", created)
	}
	for _, k := range []string{"result", "error", "inputRequests", "requestState", "task", "ttl", "pollInterval"} {
		if _, ok := created[k]; ok {
			t.Errorf("R-TASK-06: CreateTaskResult carries %q", k)
		}
	}
	if created["ttlMs"] != float64(60000) || created["pollIntervalMs"] != float64(250) {
		t.Errorf("R-TASK-06: ttlMs %v pollIntervalMs %v", created["ttlMs"], created["pollIntervalMs"])
	}
	isoMillis(t, created["createdAt"])
	isoMillis(t, created["lastUpdatedAt"])
	if m, _ := created["_meta"].(M); m[keyInfo] == nil {
		t.Error("R-META-04: CreateTaskResult without serverInfo")
	}

	// R-TASK-07: tasks/get resolves at once.
	w := f.get(t, id)
	if w.Error != nil || w.Result["resultType"] != "complete" || w.Result["taskId"] != id || w.Result["status"] != "working" {
		t.Fatalf("R-TASK-07/09: tasks/get right after creation: %s", w.raw)
	}
	for _, k := range []string{"result", "error", "inputRequests"} {
		if _, ok := w.Result[k]; ok {
			t.Errorf("R-TASK-09: working task carries %q", k)
		}
	}
	close(release)
	done := waitStatus(t, f.h, id, "completed")
	res, _ := done["result"].(M)
	if res["resultType"] != "complete" || res["content"] == nil {
		t.Errorf("R-TASK-09: completed task result %v", res)
	}
	if m, _ := res["_meta"].(M); m["io.modelcontextprotocol/related-task"] != nil {
		t.Error("related-task _meta on the inlined result")
	}
	if !isoMillis(t, done["lastUpdatedAt"]).After(isoMillis(t, done["createdAt"]).Add(-time.Millisecond)) {
		t.Error("lastUpdatedAt before createdAt")
	}
	// The notification data is the DetailedTask as tasks/get returns it
	// (R-TASK-13).
	evs := f.broker.tasks(id)
	last := evs[len(evs)-1]
	delete(done, "resultType")
	delete(done, "_meta")
	if !jsonEq(t, jsonText(last), jsonText(done)) {
		t.Errorf("R-TASK-13: event %v\ntasks/get %v", last, done)
	}
}

func TestTaskErrors(t *testing.T) {
	f := newTaskFixture(t, TaskConfig{})
	f.tool(t, "toolerr", TaskOptions{Support: TaskRequired}, func(context.Context, *server.Request, json.RawMessage) (*protocol.CallToolResult, error) {
		return nil, errors.New("bad input")
	})
	f.tool(t, "protoerr", TaskOptions{Support: TaskRequired}, func(context.Context, *server.Request, json.RawMessage) (*protocol.CallToolResult, error) {
		return nil, server.InvalidParams("no such city", map[string]any{"city": "Atlantis"})
	})
	f.tool(t, "panics", TaskOptions{Support: TaskRequired}, func(context.Context, *server.Request, json.RawMessage) (*protocol.CallToolResult, error) {
		panic("boom")
	})
	f.tool(t, "badcode", TaskOptions{Support: TaskRequired}, func(context.Context, *server.Request, json.RawMessage) (*protocol.CallToolResult, error) {
		return nil, &server.Error{Code: -32002, Message: "legacy"}
	})

	// R-TASK-17: a tool execution error is a completed task with isError.
	id := f.create(t, "toolerr", tasksCaps)["taskId"].(string)
	got := waitStatus(t, f.h, id, "completed", "failed")
	res, _ := got["result"].(M)
	if got["status"] != "completed" || res["isError"] != true || got["error"] != nil {
		t.Errorf("R-TASK-17: tool error: %v", got)
	}

	// A JSON-RPC error fails the task with error and statusMessage.
	for _, c := range []struct {
		tool string
		code float64
	}{{"protoerr", -32602}, {"panics", -32603}, {"badcode", -32603}} {
		id := f.create(t, c.tool, tasksCaps)["taskId"].(string)
		got := waitStatus(t, f.h, id, "completed", "failed")
		e, _ := got["error"].(M)
		if got["status"] != "failed" || e["code"] != c.code || e["message"] == nil || got["result"] != nil || got["statusMessage"] == nil {
			t.Errorf("R-TASK-17: %s: %v", c.tool, got)
		}
		checkCode(t, int64(c.code))
	}
}

func TestTaskCancel(t *testing.T) {
	f := newTaskFixture(t, TaskConfig{})
	stopped := make(chan error, 1)
	f.tool(t, "long", TaskOptions{Support: TaskOptional}, func(ctx context.Context, _ *server.Request, _ json.RawMessage) (*protocol.CallToolResult, error) {
		<-ctx.Done()
		stopped <- ctx.Err()
		return server.TextResult("too late"), nil
	})
	id := f.create(t, "long", tasksCaps)["taskId"].(string)
	w := tcall(t, f.h, "tasks/cancel", tparams(tasksCaps, M{"taskId": id}), nil)
	if w.Error != nil || w.Result["resultType"] != "complete" {
		t.Fatalf("R-TASK-12: cancel ack %s", w.raw)
	}
	for _, k := range []string{"taskId", "status", "result", "error", "inputRequests"} {
		if _, ok := w.Result[k]; ok {
			t.Errorf("R-TASK-12: cancel ack carries %q", k)
		}
	}
	select {
	case <-stopped:
	case <-time.After(5 * time.Second):
		t.Fatal("R-TASK-12: the handler's context did not end on tasks/cancel")
	}
	time.Sleep(20 * time.Millisecond) // the handler's late result must not replace cancelled
	if got := f.get(t, id).Result; got["status"] != "cancelled" || got["result"] != nil {
		t.Errorf("R-TASK-12: after cancel: %v", got)
	}
	// Cancelling a terminal task is acknowledged alike; an unknown id is -32602.
	if w := tcall(t, f.h, "tasks/cancel", tparams(tasksCaps, M{"taskId": id}), nil); w.Error != nil || w.Result["resultType"] != "complete" {
		t.Errorf("R-TASK-12: second cancel %s", w.raw)
	}
	if w := tcall(t, f.h, "tasks/cancel", tparams(tasksCaps, M{"taskId": "nope"}), nil); w.code() != protocol.CodeInvalidParamsError {
		t.Errorf("R-TASK-12: cancel of an unknown task %s", w.raw)
	}
	if w := tcall(t, f.h, "tasks/update", tparams(tasksCaps, M{"taskId": "nope", "inputResponses": M{}}), nil); w.code() != protocol.CodeInvalidParamsError {
		t.Errorf("R-TASK-11: update of an unknown task %s", w.raw)
	}
	if w := f.get(t, "nope"); w.code() != protocol.CodeInvalidParamsError || !strings.Contains(w.Error.Message, "not found") {
		t.Errorf("R-TASK-15: get of an unknown task %s", w.raw)
	}
}

func TestTaskInput(t *testing.T) {
	f := newTaskFixture(t, TaskConfig{})
	caps := M{"elicitation": M{}, "extensions": M{ExtensionID: M{}}}
	f.tool(t, "ask", TaskOptions{Support: TaskOptional}, func(_ context.Context, r *server.Request, _ json.RawMessage) (*protocol.CallToolResult, error) {
		switch string(r.State()) {
		case "":
			return nil, r.AskInput(map[string]protocol.InputRequest{"name": nameForm(), "city": nameForm()}, []byte("round2"))
		case "round2":
			a, ok1 := r.InputResponse("name")
			_, ok2 := r.InputResponse("city")
			if !ok1 || !ok2 {
				return nil, fmt.Errorf("round 2 without both responses")
			}
			// The same key again: it must reach the client under a new one.
			name := a.Value.(*protocol.ElicitResult).Content["name"].Str()
			return nil, r.AskInput(map[string]protocol.InputRequest{"name": nameForm()}, []byte("round3:"+name))
		}
		b, ok := r.InputResponse("name")
		if !ok {
			return nil, fmt.Errorf("round 3 without a response")
		}
		return server.TextResult(strings.TrimPrefix(string(r.State()), "round3:") + "+" + b.Value.(*protocol.ElicitResult).Content["name"].Str()), nil
	})
	id := f.create(t, "ask", caps)["taskId"].(string)
	got := waitStatus(t, f.h, id, "input_required")
	reqs, _ := got["inputRequests"].(M)
	if len(reqs) != 2 || reqs["name"] == nil || reqs["city"] == nil {
		t.Fatalf("R-TASK-09: inputRequests %v", reqs)
	}
	if r, _ := reqs["name"].(M); r["method"] != "elicitation/create" {
		t.Errorf("R-TASK-09: input request %v", r)
	}

	// A partial answer, plus keys that are not outstanding: the task stays
	// input_required with the rest (R-TASK-11).
	upd := func(responses M) *wire {
		return tcall(t, f.h, "tasks/update", tparams(caps, M{"taskId": id, "inputResponses": responses}), nil)
	}
	// A response to a key that is not outstanding is ignored whatever it
	// holds (R-TASK-11; the conformance suite sends one that is no
	// InputResponse at all), as is a well-formed one.
	if w := upd(M{"unknown": M{"ignored": true}, "other": accept(M{"ignored": true})}); w.Error != nil || w.Result["resultType"] != "complete" {
		t.Fatalf("R-TASK-11: update with keys not outstanding %s", w.raw)
	}
	if got := f.get(t, id).Result; len(got["inputRequests"].(M)) != 2 {
		t.Fatalf("responses to keys not outstanding changed the task: %v", got)
	}
	if w := upd(M{"name": accept(M{"name": "Ada"}), "unknown": M{"ignored": true}}); w.Error != nil || w.Result["resultType"] != "complete" || w.Result["taskId"] != nil {
		t.Fatalf("R-TASK-11: update ack %s", w.raw)
	}
	got = f.get(t, id).Result
	if reqs, _ := got["inputRequests"].(M); got["status"] != "input_required" || len(reqs) != 1 || reqs["city"] == nil {
		t.Fatalf("R-TASK-11: after a partial update: %v", got)
	}
	// A response that does not answer its request is refused.
	if w := upd(M{"city": M{"roots": []any{}}}); w.code() != protocol.CodeInvalidParamsError {
		t.Errorf("tasks/update with a roots result for an elicitation: %s", w.raw)
	}
	// The error names what the request's own result lacks (a hostile
	// review, F9: it named the roots a ListRootsResult would have).
	if w := upd(M{"city": M{"action": "bogus"}}); w.code() != protocol.CodeInvalidParamsError ||
		!strings.HasPrefix(w.Error.Message, "Invalid params: inputResponses.city does not answer its elicitation/create request: action") {
		t.Errorf("tasks/update with a bad action: %s", w.raw)
	}
	if w := upd(M{"city": "Paris"}); w.code() != protocol.CodeInvalidParamsError {
		t.Errorf("tasks/update with a malformed response: %s", w.raw)
	}
	// An answered key is ignored from now on.
	if w := upd(M{"name": accept(M{"name": "Bob"})}); w.Error != nil {
		t.Errorf("R-TASK-11: update of an answered key: %s", w.raw)
	}
	if w := upd(M{"city": accept(M{"name": "Paris"})}); w.Error != nil {
		t.Fatal(w.raw)
	}

	// Round 3 asks "name" again: the wire key is new (R-TASK-10).
	got = waitStatus(t, f.h, id, "input_required", "completed", "failed")
	reqs, _ = got["inputRequests"].(M)
	if got["status"] != "input_required" || len(reqs) != 1 || reqs["name"] != nil {
		t.Fatalf("R-TASK-10: round 3: %v", got)
	}
	var key string
	for k := range reqs {
		key = k
	}
	if w := upd(M{key: accept(M{"name": "Eve"})}); w.Error != nil {
		t.Fatal(w.raw)
	}
	got = waitStatus(t, f.h, id, "completed", "failed")
	res, _ := got["result"].(M)
	content, _ := res["content"].([]any)
	if len(content) == 0 || content[0].(M)["text"] != "Ada+Eve" {
		t.Errorf("the handler did not resume with the responses: %v", got)
	}
	var statuses []string
	for _, ev := range f.broker.tasks(id) {
		statuses = append(statuses, ev["status"].(string))
	}
	if strings.Join(statuses, ",") != "input_required,input_required,working,input_required,working,completed" {
		t.Errorf("task events %v", statuses)
	}
}

// Defect 1: the TTL covers the task's whole life. An input round waits only
// for the time left, not a fresh TTL.
func TestTaskTTLCoversInputRounds(t *testing.T) {
	f := newTaskFixture(t, TaskConfig{})
	const ttl = time.Second
	caps := M{"elicitation": M{}, "extensions": M{ExtensionID: M{}}}
	f.tool(t, "rounds", TaskOptions{Support: TaskOptional, TTL: ttl}, func(_ context.Context, r *server.Request, _ json.RawMessage) (*protocol.CallToolResult, error) {
		if r.State() == nil {
			return nil, r.AskInput(map[string]protocol.InputRequest{"a": nameForm()}, []byte("1"))
		}
		return nil, r.AskInput(map[string]protocol.InputRequest{"b": nameForm()}, []byte("2"))
	})
	created := f.create(t, "rounds", caps)
	id := created["taskId"].(string)
	if created["ttlMs"] != float64(ttl.Milliseconds()) {
		t.Errorf("per-tool TTL: ttlMs %v", created["ttlMs"])
	}
	start := isoMillis(t, created["createdAt"])
	waitStatus(t, f.h, id, "input_required")
	time.Sleep(time.Until(start.Add(600 * time.Millisecond)))
	if w := tcall(t, f.h, "tasks/update", tparams(caps, M{"taskId": id, "inputResponses": M{"a": accept(M{"name": "x"})}}), nil); w.Error != nil {
		t.Fatal(w.raw)
	}
	got := waitStatus(t, f.h, id, "failed", "completed")
	e, _ := got["error"].(M)
	if got["status"] != "failed" || !strings.Contains(fmt.Sprint(e["message"]), "ttlMs") {
		t.Fatalf("the task did not fail at its TTL: %v", got)
	}
	lived := isoMillis(t, got["lastUpdatedAt"]).Sub(start)
	if lived < ttl || lived > ttl+400*time.Millisecond {
		t.Errorf("the task failed %v after creation; its TTL is %v (a fresh TTL per round would give ~1.6s)", lived, ttl)
	}
}

// Defect 1, continued: a task whose TTL is spent when it asks for input
// fails at once and is never parked.
func TestTaskTTLSpentFailsAtOnce(t *testing.T) {
	f := newTaskFixture(t, TaskConfig{})
	caps := M{"elicitation": M{}, "extensions": M{ExtensionID: M{}}}
	f.tool(t, "late", TaskOptions{Support: TaskOptional, TTL: 150 * time.Millisecond}, func(_ context.Context, r *server.Request, _ json.RawMessage) (*protocol.CallToolResult, error) {
		time.Sleep(250 * time.Millisecond) // ignores its context
		return nil, r.AskInput(map[string]protocol.InputRequest{"a": nameForm()}, nil)
	})
	created := f.create(t, "late", caps)
	id := created["taskId"].(string)
	got := waitStatus(t, f.h, id, "failed", "completed")
	if got["status"] != "failed" {
		t.Fatalf("%v", got)
	}
	lived := isoMillis(t, got["lastUpdatedAt"]).Sub(isoMillis(t, created["createdAt"]))
	if lived > 250*time.Millisecond+300*time.Millisecond {
		t.Errorf("failed %v after creation: it waited for input it had no time for", lived)
	}
	if f.broker.sawStatus(id, "input_required") {
		t.Error("a task without time left was parked in input_required")
	}
	// After the TTL and the retention the task is gone.
	g := newTaskFixture(t, TaskConfig{TTL: 50 * time.Millisecond, Retention: -1})
	g.tool(t, "quick", TaskOptions{Support: TaskOptional}, textTool("ok"))
	id = g.create(t, "quick", tasksCaps)["taskId"].(string)
	time.Sleep(80 * time.Millisecond)
	if w := g.get(t, id); w.code() != protocol.CodeInvalidParamsError {
		t.Errorf("R-TASK-15: expired task: %s", w.raw)
	}
}

// Defect 2: an input request needing a capability the client did not
// declare fails the task at once with -32021; it is never parked.
func TestTaskInputMissingCapability(t *testing.T) {
	f := newTaskFixture(t, TaskConfig{TTL: time.Hour})
	f.tool(t, "viaAskInput", TaskOptions{Support: TaskOptional}, func(_ context.Context, r *server.Request, _ json.RawMessage) (*protocol.CallToolResult, error) {
		return nil, r.AskInput(map[string]protocol.InputRequest{"a": nameForm()}, nil)
	})
	f.tool(t, "byHand", TaskOptions{Support: TaskOptional}, func(context.Context, *server.Request, json.RawMessage) (*protocol.CallToolResult, error) {
		return nil, &server.InputRequired{Requests: map[string]protocol.InputRequest{"s": server.SampleText("hi", 10)}}
	})
	for _, c := range []struct{ tool, want string }{
		{"viaAskInput", `{"elicitation":{}}`},
		{"byHand", `{"sampling":{}}`},
	} {
		start := time.Now()
		id := f.create(t, c.tool, tasksCaps)["taskId"].(string)
		got := waitStatus(t, f.h, id, "failed", "completed", "input_required")
		if time.Since(start) > 3*time.Second {
			t.Errorf("%s: took %v", c.tool, time.Since(start))
		}
		e, _ := got["error"].(M)
		if got["status"] != "failed" || e["code"] != float64(protocol.CodeMissingRequiredClientCapabilityError) {
			t.Errorf("R-MRTR-05: %s: %v", c.tool, got)
			continue
		}
		d, _ := e["data"].(M)
		if !jsonEq(t, jsonText(d["requiredCapabilities"]), []byte(c.want)) {
			t.Errorf("R-META-03: %s: data %v", c.tool, d)
		}
		if f.broker.sawStatus(id, "input_required") {
			t.Errorf("%s: parked in input_required", c.tool)
		}
	}
}

func TestTaskPrincipal(t *testing.T) {
	f := newTaskFixture(t, TaskConfig{MaxTasksPerPrincipal: 2})
	f.tool(t, "t", TaskOptions{Support: TaskOptional}, func(ctx context.Context, _ *server.Request, _ json.RawMessage) (*protocol.CallToolResult, error) {
		<-ctx.Done()
		return nil, ctx.Err()
	})
	h := streamhttp.Handler(f.s, streamhttp.Options{Authenticate: func(r *http.Request) (string, error) { return r.Header.Get("X-User"), nil }})
	as := func(user string) func(*http.Request) { return func(r *http.Request) { r.Header.Set("X-User", user) } }
	create := func(user string) *wire {
		return tcall(t, h, "tools/call", tparams(tasksCaps, M{"name": "t", "arguments": M{}}), as(user))
	}
	w := create("alice")
	id, _ := w.Result["taskId"].(string)
	if id == "" {
		t.Fatal(w.raw)
	}
	// R-TASK-18: another principal cannot tell the task exists.
	unknown := tcall(t, h, "tasks/get", tparams(tasksCaps, M{"taskId": "no-such-task"}), as("bob"))
	for _, m := range []struct {
		method string
		p      M
	}{
		{"tasks/get", M{"taskId": id}},
		{"tasks/update", M{"taskId": id, "inputResponses": M{}}},
		{"tasks/cancel", M{"taskId": id}},
	} {
		w := tcall(t, h, m.method, tparams(tasksCaps, m.p), as("bob"))
		if w.code() != protocol.CodeInvalidParamsError {
			t.Errorf("R-TASK-18: %s by another principal: %s", m.method, w.raw)
		}
		if m.method == "tasks/get" && w.Error.Message != unknown.Error.Message {
			t.Errorf("R-TASK-18: %q differs from the unknown-task error %q", w.Error.Message, unknown.Error.Message)
		}
	}
	if w := tcall(t, h, "tasks/get", tparams(tasksCaps, M{"taskId": id}), as("alice")); w.Result["status"] != "working" {
		t.Errorf("the owner cannot read its task: %s", w.raw)
	}
	// The cap counts per principal.
	second := create("alice")
	if w := create("alice"); w.code() != server.CodeRateLimited {
		t.Errorf("the third task of a principal capped at 2: %s", w.raw)
	}
	w = create("bob")
	if w.Result["resultType"] != "task" {
		t.Errorf("another principal is not capped: %s", w.raw)
	}
	// Cancel what still runs.
	bobs, _ := w.Result["taskId"].(string)
	tcall(t, h, "tasks/cancel", tparams(tasksCaps, M{"taskId": bobs}), as("bob"))
	tcall(t, h, "tasks/cancel", tparams(tasksCaps, M{"taskId": id}), as("alice"))
	tcall(t, h, "tasks/cancel", tparams(tasksCaps, M{"taskId": second.Result["taskId"]}), as("alice"))
}

func TestTaskIDs(t *testing.T) {
	seen := map[string]bool{}
	for range 1000 {
		id, err := newTaskID()
		if err != nil {
			t.Fatal(err)
		}
		if len(id) < 22 || seen[id] { // 22 base64 characters hold 128 bits
			t.Fatalf("R-TASK-18: id %q", id)
		}
		seen[id] = true
	}
}

func TestTaskDeferred(t *testing.T) {
	f := newTaskFixture(t, TaskConfig{})
	var canStart atomic.Bool
	f.tool(t, "later", TaskOptions{Support: TaskOptional, Deferred: true}, func(ctx context.Context, r *server.Request, _ json.RawMessage) (*protocol.CallToolResult, error) {
		if task, ok := TaskFrom(ctx); ok {
			if task.ID() == "" || CanRunAsTask(ctx) {
				return nil, errors.New("bad task context")
			}
			if err := RunAsTask(ctx, nil); err == nil {
				return nil, errors.New("RunAsTask inside a task succeeded")
			}
			return server.TextResult("hello " + string(r.State())), nil
		}
		resp, ok := r.InputResponse("name")
		if !ok {
			return nil, r.AskInput(map[string]protocol.InputRequest{"name": nameForm()}, []byte("asked"))
		}
		canStart.Store(CanRunAsTask(ctx))
		return nil, RunAsTask(ctx, []byte(resp.Value.(*protocol.ElicitResult).Content["name"].Str()))
	})
	caps := M{"elicitation": M{}, "extensions": M{ExtensionID: M{}}}
	// R-TASK-08: multi round-trip first, synchronously, then the task.
	w := tcall(t, f.h, "tools/call", tparams(caps, M{"name": "later", "arguments": M{}}), nil)
	if w.Result["resultType"] != "input_required" || w.Result["taskId"] != nil || w.Result["requestState"] == nil {
		t.Fatalf("R-TASK-08: round 1 %s", w.raw)
	}
	w = tcall(t, f.h, "tools/call", tparams(caps, M{"name": "later", "arguments": M{},
		"inputResponses": M{"name": accept(M{"name": "Alice"})}, "requestState": w.Result["requestState"]}), nil)
	if w.Result["resultType"] != "task" || w.Result["requestState"] != nil || w.Result["inputRequests"] != nil {
		t.Fatalf("R-TASK-08: round 2 %s", w.raw)
	}
	if !canStart.Load() {
		t.Error("CanRunAsTask false for a declaring client")
	}
	got := waitStatus(t, f.h, w.Result["taskId"].(string), "completed", "failed")
	if res, _ := got["result"].(M); res == nil || res["content"].([]any)[0].(M)["text"] != "hello Alice" {
		t.Errorf("R-TASK-08: %v", got)
	}

	// Without the extension, RunAsTask is the -32021 error.
	noExt := M{"elicitation": M{}}
	w = tcall(t, f.h, "tools/call", tparams(noExt, M{"name": "later", "arguments": M{}}), nil)
	w = tcall(t, f.h, "tools/call", tparams(noExt, M{"name": "later", "arguments": M{},
		"inputResponses": M{"name": accept(M{"name": "Alice"})}, "requestState": w.Result["requestState"]}), nil)
	if w.code() != protocol.CodeMissingRequiredClientCapabilityError {
		t.Errorf("R-TASK-03: RunAsTask without the extension: %s", w.raw)
	}
	if canStart.Load() {
		t.Error("CanRunAsTask true for a client without the extension")
	}
	// A tool without AsTask cannot run as a task.
	addTool(t, f.s, `{"name":"plain","inputSchema":{"type":"object"}}`, func(ctx context.Context, _ *server.Request, _ json.RawMessage) (*protocol.CallToolResult, error) {
		return nil, RunAsTask(ctx, nil)
	})
	if w := tcall(t, f.h, "tools/call", tparams(tasksCaps, M{"name": "plain", "arguments": M{}}), nil); w.code() != protocol.CodeInternalError {
		t.Errorf("RunAsTask in a plain tool: %s", w.raw)
	}
}

func TestTaskStatusMessageAndNoNotifications(t *testing.T) {
	f := newTaskFixture(t, TaskConfig{})
	release := make(chan struct{})
	sent := make(chan bool, 1)
	f.tool(t, "chatty", TaskOptions{Support: TaskOptional}, func(ctx context.Context, r *server.Request, _ json.RawMessage) (*protocol.CallToolResult, error) {
		task, _ := TaskFrom(ctx)
		if err := task.SetStatusMessage(ctx, "step 1 of 2"); err != nil {
			return nil, err
		}
		// R-TASK-14: no progress or log notifications for a task.
		sent <- r.Progress(ctx, 1, 2, "half") || r.Log(ctx, protocol.LoggingLevelError, "", json.RawMessage(`"x"`))
		<-release
		return server.TextResult("ok"), nil
	})
	caps := M{"extensions": M{ExtensionID: M{}}}
	w := tcall(t, f.h, "tools/call", withMeta(meta(keyCaps, caps, keyLogLevel, "debug", "progressToken", "p1"), M{"name": "chatty", "arguments": M{}}), nil)
	id := w.Result["taskId"].(string)
	if <-sent {
		t.Error("R-TASK-14: a task sent progress or log notifications")
	}
	if got := f.get(t, id).Result; got["statusMessage"] != "step 1 of 2" {
		t.Errorf("statusMessage %v", got["statusMessage"])
	}
	close(release)
	waitStatus(t, f.h, id, "completed")
}

func TestTaskHeaders(t *testing.T) {
	f := newTaskFixture(t, TaskConfig{})
	f.tool(t, "t", TaskOptions{Support: TaskOptional}, textTool("ok"))
	id := f.create(t, "t", tasksCaps)["taskId"].(string)
	for _, name := range []string{"other", ""} {
		w := tcall(t, f.h, "tasks/get", tparams(tasksCaps, M{"taskId": id}), func(r *http.Request) {
			if name == "" {
				r.Header.Del(server.HeaderName)
			} else {
				r.Header.Set(server.HeaderName, name)
			}
		})
		if w.code() != protocol.CodeHeaderMismatchError {
			t.Errorf("R-TASK-16: Mcp-Name %q: %s", name, w.raw)
		}
	}
	if w := tcall(t, f.h, "tasks/get", tparams(tasksCaps, M{"taskId": id}), func(r *http.Request) { r.Header.Set(server.HeaderMethod, "tasks/cancel") }); w.code() != protocol.CodeHeaderMismatchError {
		t.Errorf("R-TASK-16: Mcp-Method mismatch: %s", w.raw)
	}
}

// Two instances share a store and a broker: input delivered to B reaches
// the handler running on A, and a cancel served by B ends it. The runners'
// periodic re-check is an hour, so only the broker can wake them.
func TestTaskAcrossInstances(t *testing.T) {
	store := NewMemoryTaskStore()
	broker := server.NewLocalBroker()
	cfg := TaskConfig{Store: store, PollInterval: time.Hour}
	started, stopped := make(chan struct{}, 1), make(chan struct{}, 1)
	handler := func(ctx context.Context, r *server.Request, _ json.RawMessage) (*protocol.CallToolResult, error) {
		if resp, ok := r.InputResponse("name"); ok {
			name := resp.Value.(*protocol.ElicitResult).Content["name"].Str()
			if name == "wait" {
				started <- struct{}{}
				<-ctx.Done()
				stopped <- struct{}{}
				return nil, ctx.Err()
			}
			return server.TextResult("hi " + name), nil
		}
		return nil, r.AskInput(map[string]protocol.InputRequest{"name": nameForm()}, nil)
	}
	var hs [2]http.Handler
	for i := range hs {
		ext, m := withManager(cfg)
		s := newServer(t, server.WithBroker(broker), ext)
		t.Cleanup(func() { waitIdle(t, m) })
		if err := s.AddTool(toolDef(t, `{"name":"t","inputSchema":{"type":"object"}}`), handler, AsTask(TaskOptions{Support: TaskOptional})); err != nil {
			t.Fatal(err)
		}
		hs[i] = streamhttp.Handler(s, streamhttp.Options{})
	}
	a, b := hs[0], hs[1]
	caps := M{"elicitation": M{}, "extensions": M{ExtensionID: M{}}}
	for _, name := range []string{"Ada", "wait"} {
		w := tcall(t, a, "tools/call", tparams(caps, M{"name": "t", "arguments": M{}}), nil)
		id := w.Result["taskId"].(string)
		waitStatus(t, b, id, "input_required") // R-TASK-07 across instances
		if w := tcall(t, b, "tasks/update", tparams(caps, M{"taskId": id, "inputResponses": M{"name": accept(M{"name": name})}}), nil); w.Error != nil {
			t.Fatal(w.raw)
		}
		if name == "Ada" {
			start := time.Now()
			got := waitStatus(t, b, id, "completed", "failed")
			if res, _ := got["result"].(M); res["content"].([]any)[0].(M)["text"] != "hi Ada" || time.Since(start) > 5*time.Second {
				t.Errorf("cross-instance resume: %v", got)
			}
			continue
		}
		select { // resumed on A
		case <-started:
		case <-time.After(5 * time.Second):
			t.Fatal("input delivered to another instance did not resume the handler")
		}
		if w := tcall(t, b, "tasks/cancel", tparams(caps, M{"taskId": id}), nil); w.Error != nil {
			t.Fatal(w.raw)
		}
		select {
		case <-stopped:
		case <-time.After(5 * time.Second):
			t.Error("a cancel served by another instance did not reach the handler")
		}
		if got := tcall(t, a, "tasks/get", tparams(caps, M{"taskId": id}), nil).Result; got["status"] != "cancelled" {
			t.Errorf("after a cross-instance cancel: %v", got)
		}
	}
}

// The runner's broker subscription ends when no task runs any more.
func TestTaskSubscriptionReleased(t *testing.T) {
	f := newTaskFixture(t, TaskConfig{})
	f.tool(t, "t", TaskOptions{Support: TaskOptional}, textTool("ok"))
	id := f.create(t, "t", tasksCaps)["taskId"].(string)
	waitStatus(t, f.h, id, "completed")
	waitIdle(t, f.m)
}
