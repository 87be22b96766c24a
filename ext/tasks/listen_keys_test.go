package tasks

import (
	"testing"

	"github.com/mcpwire/mcpwire/protocol"
)

// notifications.taskIds is an array of strings: anything else, a null
// entry included (a hostile review, F5: it was read as ""), is -32602
// before any task is looked up; so is a list over MaxListenTasks.
func TestListenTaskIDsShape(t *testing.T) {
	f := newTaskFixture(t, TaskConfig{MaxListenTasks: 2})
	for _, ids := range []any{[]any{nil, "t1"}, []any{1}, "t1", M{"t1": true}, nil, []string{"a", "b", "c"}} {
		w := tcall(t, f.h, "subscriptions/listen", tparams(tasksCaps, M{"notifications": M{"taskIds": ids}}), nil)
		if w.code() != protocol.CodeInvalidParamsError {
			t.Errorf("taskIds %v: %s", ids, w.raw)
		}
	}
}
