package tasks_test

import (
	"context"
	"encoding/json"
	"fmt"
	"time"

	"github.com/mcpwire/mcpwire/ext/tasks"
	"github.com/mcpwire/mcpwire/protocol"
	"github.com/mcpwire/mcpwire/server"
	"github.com/mcpwire/mcpwire/server/typed"
	"github.com/mcpwire/mcpwire/servertest"
)

// WithTasks serves the tasks extension: a client that declares it gets a
// task for a tool registered with AsTask, and polls it with tasks/get
// until it ends; the task's time to live comes from the TaskConfig.
func ExampleWithTasks() {
	s, _ := server.New(protocol.Implementation{Name: "reports", Version: "1.0.0"},
		tasks.WithTasks(tasks.TaskConfig{TTL: 10 * time.Minute, PollInterval: 50 * time.Millisecond}))
	_ = typed.AddTool(s, protocol.Tool{Name: "report"}, func(_ context.Context, _ *server.Request, _ struct{}) (*protocol.CallToolResult, error) {
		return server.TextResult("12 pages"), nil
	}, tasks.AsTask(tasks.TaskOptions{Support: tasks.TaskOptional}))
	c := servertest.New(s, servertest.WithCapabilities(protocol.ClientCapabilities{
		Extensions: map[string]protocol.JSONObject{tasks.ExtensionID: protocol.JSONObject(`{}`)},
	}))
	ctx := context.Background()

	var task struct {
		ResultType, TaskID, Status string
		TTLMs                      int64 `json:"ttlMs"`
		Result                     *protocol.CallToolResult
	}
	raw, _ := c.Do(ctx, "tools/call", "report", map[string]any{"name": "report", "arguments": map[string]any{}})
	_ = json.Unmarshal(raw, &task)
	fmt.Println(task.ResultType, task.TTLMs)
	for i := 0; task.Status != "completed" && i < 100; i++ {
		time.Sleep(50 * time.Millisecond) // the poll interval the server suggested
		raw, _ = c.Do(ctx, "tasks/get", task.TaskID, map[string]any{"taskId": task.TaskID})
		_ = json.Unmarshal(raw, &task)
	}
	fmt.Println(task.Status, task.Result.Content[0].Value.(*protocol.TextContent).Text)
	// Output:
	// task 600000
	// completed 12 pages
}
