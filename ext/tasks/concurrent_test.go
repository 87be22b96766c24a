package tasks_test

import (
	"strconv"
	"sync"
	"testing"

	"github.com/mcpwire/mcpwire/ext/tasks"
	"github.com/mcpwire/mcpwire/protocol"
	"github.com/mcpwire/mcpwire/server"
	"github.com/mcpwire/mcpwire/servertest"
)

// Task tools registered from many goroutines, on several servers at once,
// enable the extension once per server (AsTask's IfAbsent; run with
// -race), and each server then runs them as tasks (R-TASK-01).
func TestTasksEnabledOnceConcurrently(t *testing.T) {
	var wg sync.WaitGroup
	servers := make([]*server.Server, 4)
	for i := range servers {
		servers[i] = newTaskServer(t)
	}
	for _, s := range servers {
		for j := range 8 {
			wg.Go(func() {
				tool := protocol.Tool{Name: "t" + strconv.Itoa(j)}
				if err := s.AddTool(tool, untilCancelled, tasks.AsTask(tasks.TaskOptions{Support: tasks.TaskOptional})); err != nil {
					t.Error(err) // not Fatal: off the test's goroutine
				}
			})
		}
	}
	wg.Wait()
	for _, s := range servers {
		if !s.HasExtension(tasks.ExtensionID) {
			t.Fatal("the tasks extension is not enabled")
		}
		c := servertest.New(s)
		cancelTask(t, c, startTask(t, c, "t3"))
	}
}
