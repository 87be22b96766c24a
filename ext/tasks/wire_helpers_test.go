package tasks_test

import (
	"context"
	"encoding/json"
	"testing"
	"time"

	"github.com/mcpwire/mcpwire/ext/tasks"
	"github.com/mcpwire/mcpwire/protocol"
	"github.com/mcpwire/mcpwire/server"
	"github.com/mcpwire/mcpwire/servertest"
)

// Helpers of the tests that drive the tasks extension through
// servertest (a 2026-07-28 client over the server's own HTTP handler).

// declared is the client option that declares the tasks extension.
var declared = servertest.WithCapabilities(protocol.ClientCapabilities{
	Extensions: map[string]protocol.JSONObject{tasks.ExtensionID: protocol.JSONObject("{}")},
})

// newTaskServer returns a server with opts (tasks.WithTasks among them).
func newTaskServer(t testing.TB, opts ...server.Option) *server.Server {
	t.Helper()
	s, err := server.New(protocol.Implementation{Name: "tasks-test", Version: "1"}, opts...)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// untilCancelled is a task tool that runs until it is cancelled.
func untilCancelled(ctx context.Context, _ *server.Request, _ json.RawMessage) (*protocol.CallToolResult, error) {
	<-ctx.Done()
	return nil, ctx.Err()
}

// addTaskTool registers a tool run as a task with support.
func addTaskTool(t testing.TB, s *server.Server, name string, support tasks.TaskSupport, h server.ToolHandler) {
	t.Helper()
	tool := protocol.Tool{Name: name}
	if err := s.AddTool(tool, h, tasks.AsTask(tasks.TaskOptions{Support: support})); err != nil {
		t.Fatal(err)
	}
}

// startTask calls tool name with the extension declared and returns the
// task's id, failing unless the answer is a CreateTaskResult.
func startTask(t testing.TB, c *servertest.Client, name string, opts ...servertest.Option) string {
	t.Helper()
	res, err := c.Do(context.Background(), "tools/call", name, map[string]any{"name": name, "arguments": map[string]any{}}, append([]servertest.Option{declared}, opts...)...)
	if err != nil {
		t.Fatalf("tools/call %s: %v", name, err)
	}
	var v struct {
		ResultType string `json:"resultType"`
		TaskID     string `json:"taskId"`
	}
	if json.Unmarshal(res, &v) != nil || v.ResultType != "task" || v.TaskID == "" {
		t.Fatalf("tools/call %s: want a CreateTaskResult, got %s", name, res)
	}
	return v.TaskID
}

// taskStatus returns the status tasks/get reports for id, or the error.
func taskStatus(c *servertest.Client, id string, opts ...servertest.Option) (string, error) {
	res, err := c.Do(context.Background(), "tasks/get", id, map[string]any{"taskId": id}, append([]servertest.Option{declared}, opts...)...)
	if err != nil {
		return "", err
	}
	var v struct {
		Status string `json:"status"`
	}
	if err := json.Unmarshal(res, &v); err != nil {
		return "", err
	}
	return v.Status, nil
}

// waitTaskStatus polls tasks/get until task id has status want.
func waitTaskStatus(t testing.TB, c *servertest.Client, id, want string, opts ...servertest.Option) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for {
		st, err := taskStatus(c, id, opts...)
		if err != nil {
			t.Fatalf("tasks/get %s: %v", id, err)
		}
		if st == want {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("task %s is %s, want %s", id, st, want)
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// cancelTask cancels task id and waits until it is cancelled, so that
// no runner outlives the test.
func cancelTask(t testing.TB, c *servertest.Client, id string, opts ...servertest.Option) {
	t.Helper()
	if _, err := c.Do(context.Background(), "tasks/cancel", id, map[string]any{"taskId": id}, append([]servertest.Option{declared}, opts...)...); err != nil {
		t.Errorf("tasks/cancel %s: %v", id, err)
		return
	}
	waitTaskStatus(t, c, id, "cancelled", opts...)
}

// ackTaskIDs reads a listen stream's first notification, the
// acknowledgement (R-SUB-02), and returns its taskIds.
func ackTaskIDs(t testing.TB, st *servertest.Stream) []string {
	t.Helper()
	n := nextNote(t, st)
	if n.Method != protocol.MethodNotificationsSubscriptionsAcknowledged {
		t.Fatalf("first notification %s, want the acknowledgement (R-SUB-02): %s", n.Method, n.Params)
	}
	var v struct {
		Notifications struct {
			TaskIDs []string `json:"taskIds"`
		} `json:"notifications"`
	}
	if err := json.Unmarshal(n.Params, &v); err != nil {
		t.Fatal(err)
	}
	return v.Notifications.TaskIDs
}

// nextNote returns the stream's next notification, failing after 2 s.
func nextNote(t testing.TB, st *servertest.Stream) *servertest.Notification {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
	defer cancel()
	n, err := st.Next(ctx)
	if err != nil {
		t.Fatalf("listen stream: %v", err)
	}
	return n
}

// taskFilter is a listen filter with toolsListChanged and the taskIds ids.
func taskFilter(ids ...string) protocol.SubscriptionFilter {
	yes := true
	f := protocol.SubscriptionFilter{ToolsListChanged: &yes}
	b, _ := json.Marshal(ids)
	f.Extra.Set("taskIds", b)
	return f
}

// listenTasks opens a listen stream with taskFilter(ids...), closed at
// the end of the test.
func listenTasks(t testing.TB, c *servertest.Client, ids []string, opts ...servertest.Option) *servertest.Stream {
	t.Helper()
	st, err := c.Listen(context.Background(), taskFilter(ids...), append([]servertest.Option{declared}, opts...)...)
	if err != nil {
		t.Fatalf("listen: %v", err)
	}
	t.Cleanup(func() { _ = st.Close() })
	return st
}
