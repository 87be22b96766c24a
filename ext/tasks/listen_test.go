package tasks_test

import (
	"context"
	"encoding/json"
	"errors"
	"testing"
	"time"

	"github.com/mcpwire/mcpwire/ext/tasks"
	"github.com/mcpwire/mcpwire/protocol"
	"github.com/mcpwire/mcpwire/server"
	"github.com/mcpwire/mcpwire/servertest"
)

// R-TASK-18 (every task-related request is authorised), R-TASK-13 (the
// acknowledgement lists the agreed taskIds): a listen filter honours a
// task id only for the principal that created the task. Another principal
// naming it is acknowledged without it, exactly as for an id that does not
// exist, and gets none of the task's notifications (status, result); the
// owner gets them.
func TestListenTaskIDsOwnerOnly(t *testing.T) {
	s := newTaskServer(t, tasks.WithTasks(tasks.TaskConfig{}))
	release := make(chan struct{})
	addTaskTool(t, s, "secret", tasks.TaskOptional, func(ctx context.Context, _ *server.Request, _ json.RawMessage) (*protocol.CallToolResult, error) {
		select {
		case <-release:
			return server.TextResult("alice's secret"), nil
		case <-ctx.Done():
			return nil, ctx.Err()
		}
	})
	c := servertest.New(s)
	alice, bob := servertest.WithPrincipal("alice"), servertest.WithPrincipal("bob")
	id := startTask(t, c, "secret", alice)
	asked := []string{id, "no-such-task", id}
	bobStream := listenTasks(t, c, asked, bob)
	if ids := ackTaskIDs(t, bobStream); len(ids) != 0 {
		t.Errorf("R-TASK-18: another principal's acknowledgement lists %v; alice's task %s must be left out", ids, id)
	}
	aliceStream := listenTasks(t, c, asked, alice)
	if ids := ackTaskIDs(t, aliceStream); len(ids) != 1 || ids[0] != id {
		t.Errorf("R-TASK-13: the owner's acknowledgement lists %v, want only [%s] (unknown ids left out, duplicates once)", ids, id)
	}

	close(release)
	for {
		n := nextNote(t, aliceStream)
		var p struct {
			TaskID string `json:"taskId"`
			Status string `json:"status"`
		}
		if n.Method != "notifications/tasks" || json.Unmarshal(n.Params, &p) != nil || p.TaskID != id {
			t.Fatalf("the owner's stream got %s %s", n.Method, n.Params)
		}
		if p.Status == "completed" {
			break
		}
	}
	// A list change published after every event of the task: the next thing
	// on bob's stream, so none of the task's events reached it.
	if err := s.NotifyToolsChanged(); err != nil {
		t.Fatal(err)
	}
	if n := nextNote(t, bobStream); n.Method != protocol.MethodNotificationsToolsListChanged {
		t.Fatalf("R-TASK-18: another principal's stream got %s %s", n.Method, n.Params)
	}
}

// failingStore is a TaskStore whose Get fails as an unreachable store would.
type failingStore struct{ tasks.TaskStore }

func (failingStore) Get(context.Context, string, string) (*tasks.TaskRecord, error) {
	return nil, errors.New("connection refused")
}

// A task store that cannot answer fails the listen request with -32603
// rather than acknowledging a filter that leaves the tasks out as unknown.
func TestListenTaskStoreDown(t *testing.T) {
	// The stream lifetime only bounds a run against code that opens it.
	s := newTaskServer(t, tasks.WithTasks(tasks.TaskConfig{Store: failingStore{tasks.NewMemoryTaskStore()}}), server.WithMaxStreamLifetime(time.Second))
	c := servertest.New(s)
	_, err := c.Listen(context.Background(), taskFilter("t1"), declared)
	if !errors.Is(err, &server.Error{Code: protocol.CodeInternalError}) {
		t.Fatalf("listen with the task store down: %v, want -32603", err)
	}
}
