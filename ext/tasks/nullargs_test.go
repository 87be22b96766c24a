package tasks

import (
	"context"
	"encoding/json"
	"testing"
	"time"

	"github.com/mcpwire/mcpwire/protocol"
	"github.com/mcpwire/mcpwire/server"
)

// A task-augmented tools/call with "arguments": null is served as one
// without arguments (gen/overrides.go nullAsAbsent; the mcp-go and Go SDK
// clients send it for a nil arguments map), on Streamable HTTP and stdio:
// the task is created (R-TASK-07), its handler gets {} and the task
// completes with that; a tool whose inputSchema requires a property
// refuses null and absent arguments alike with a tool execution error,
// before any task is created.
func TestTaskNullArgumentsServedAsAbsent(t *testing.T) {
	f := newTaskFixture(t, TaskConfig{TTL: time.Minute, PollInterval: 10 * time.Millisecond})
	f.tool(t, "args", TaskOptions{Support: TaskOptional}, func(_ context.Context, _ *server.Request, args json.RawMessage) (*protocol.CallToolResult, error) {
		return server.TextResult(string(args)), nil
	})
	if err := f.s.AddTool(toolDef(t, `{"name":"strict","inputSchema":{"type":"object","properties":{"n":{"type":"integer"}},"required":["n"]}}`), textTool("ran"), AsTask(TaskOptions{Support: TaskRequired})); err != nil {
		t.Fatal(err)
	}
	ss := startStdio(t, f.s)
	seq := 100
	// call sends a task-augmented tools/call over transport.
	call := func(transport string, p M) *wire {
		if transport == "http" {
			return tcall(t, f.h, "tools/call", tparams(tasksCaps, p), nil)
		}
		seq++
		ss.send(seq, "tools/call", tparams(tasksCaps, p))
		return ss.recv()
	}
	get := func(transport, id string) *wire {
		if transport == "http" {
			return f.get(t, id)
		}
		seq++
		ss.send(seq, "tasks/get", tparams(tasksCaps, M{"taskId": id}))
		return ss.recv()
	}
	for _, transport := range []string{"http", "stdio"} {
		for _, form := range []M{{"name": "args", "arguments": nil}, {"name": "args"}} {
			_, null := form["arguments"]
			created := call(transport, form)
			id, _ := created.Result["taskId"].(string)
			if created.Error != nil || created.Result["resultType"] != "task" || id == "" {
				t.Fatalf("%s, null %v: want a CreateTaskResult, got %s", transport, null, created.raw)
			}
			deadline := time.Now().Add(10 * time.Second)
			for {
				w := get(transport, id)
				if w.Error != nil {
					t.Fatalf("%s: tasks/get: %s", transport, w.raw)
				}
				if w.Result["status"] == "completed" {
					res, _ := w.Result["result"].(M)
					content, _ := res["content"].([]any)
					if len(content) != 1 || content[0].(M)["text"] != "{}" {
						t.Errorf("%s, null %v: the handler did not get {}: %s", transport, null, w.raw)
					}
					break
				}
				if time.Now().After(deadline) {
					t.Fatalf("%s: task %s: %s", transport, id, w.raw)
				}
				time.Sleep(5 * time.Millisecond)
			}
		}
		null := call(transport, M{"name": "strict", "arguments": nil})
		absent := call(transport, M{"name": "strict"})
		if !null.isError() || !jsonEq(t, jsonText(null.Result), jsonText(absent.Result)) {
			t.Errorf("%s: strict, null: %s\nabsent: %s", transport, null.raw, absent.raw)
		}
	}
}
