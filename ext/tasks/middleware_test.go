package tasks_test

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/mcpwire/mcpwire/ext/tasks"
	"github.com/mcpwire/mcpwire/protocol"
	"github.com/mcpwire/mcpwire/server"
	"github.com/mcpwire/mcpwire/servertest"
)

type tenantKey struct{}

// TestMiddlewareContextReachesTask checks that what a middleware puts in
// the context reaches a tool run as a task (AsTask), as it reaches a
// synchronous one, without the request's cancellation: the task outlives
// the request (hostile review LIB-2).
func TestMiddlewareContextReachesTask(t *testing.T) {
	tenant := func(next server.Handler) server.Handler {
		return func(ctx context.Context, r *server.Request) (server.Result, error) {
			return next(context.WithValue(ctx, tenantKey{}, "tenant-42"), r)
		}
	}
	s := newTaskServer(t, tasks.WithTasks(tasks.TaskConfig{}), server.WithMiddleware(tenant))
	got := make(chan any, 1)
	addTaskTool(t, s, "task", tasks.TaskRequired, func(ctx context.Context, _ *server.Request, _ json.RawMessage) (*protocol.CallToolResult, error) {
		got <- ctx.Value(tenantKey{})
		return server.TextResult("ok"), nil
	})
	c := servertest.New(s)
	id := startTask(t, c, "task")
	if v := <-got; v != "tenant-42" {
		t.Errorf("the task's handler saw tenant %v, want the middleware's value", v)
	}
	waitTaskStatus(t, c, id, "completed")
}
