package tasks_test

import (
	"context"
	"errors"
	"net/http"
	"strings"
	"testing"

	"github.com/mcpwire/mcpwire/ext/tasks"
	"github.com/mcpwire/mcpwire/server"
	"github.com/mcpwire/mcpwire/server/streamhttp"
	"github.com/mcpwire/mcpwire/servertest"
)

// D14, R-TASK-18: the task quota of requests without a principal
// (TaskConfig.MaxTasksPerPrincipal) counts by the client key that the
// per-client limits use: an IPv6 address by its /64
// (streamhttp.Options.IPv6PrefixLen), through
// streamhttp.Options.ClientKey when it is set (here the last
// X-Forwarded-For entry, as behind a proxy), and by the connection's
// address when that gives none.
func TestTaskQuotaByClientKey(t *testing.T) {
	s := newTaskServer(t, tasks.WithTasks(tasks.TaskConfig{MaxTasksPerPrincipal: 1}))
	addTaskTool(t, s, "task", tasks.TaskRequired, untilCancelled)
	xff := func(r *http.Request) string {
		v := r.Header.Get("X-Forwarded-For")
		return strings.TrimSpace(v[strings.LastIndex(v, ",")+1:])
	}
	c := servertest.New(s, servertest.WithHTTPOptions(streamhttp.Options{ClientKey: xff}))
	via := func(addr string) servertest.Option {
		return servertest.WithHeader("X-Forwarded-For", "203.0.113.50, "+addr)
	}

	first := startTask(t, c, "task", via("2001:db8:4::1"))
	defer cancelTask(t, c, first)
	_, err := c.Do(context.Background(), "tools/call", "task", map[string]any{"name": "task", "arguments": map[string]any{}}, declared, via("2001:db8:4::2"))
	var e *servertest.Error
	if !errors.As(err, &e) || e.Code != server.CodeRateLimited || e.Status != http.StatusTooManyRequests || e.Message != "Too many tasks (at most 1 per client address); retry later" {
		t.Errorf("a second task from the same /64: %v", err)
	}
	other := startTask(t, c, "task", via("2001:db8:5::1"))
	defer cancelTask(t, c, other)
	// Without the header the key is the connection's address (servertest's
	// requests all come from one), a client of its own.
	direct := startTask(t, c, "task")
	defer cancelTask(t, c, direct)
	_, err = c.Do(context.Background(), "tools/call", "task", map[string]any{"name": "task", "arguments": map[string]any{}}, declared)
	if !errors.As(err, &e) || e.Code != server.CodeRateLimited {
		t.Errorf("a second task from the connection's address: %v", err)
	}
}
