package tasks

import (
	"fmt"
	"net/http"
	"testing"

	"github.com/mcpwire/mcpwire/server"
)

// The running caps per IPv6 network (issue 26 B4): anonymous clients
// rotating through the /64s of one /56, each /64 within
// MaxRunningPerPrincipal, cannot take every MaxRunning slot; nor can the
// /56s of one /48. Another client still gets a task. On the defaults.
func TestTaskRunningCapPerIPv6Network(t *testing.T) {
	f := newTaskFixture(t, TaskConfig{})
	f.tool(t, "wait", TaskOptions{Support: TaskOptional}, waitForCancel)
	var ids []string
	defer func() {
		for _, id := range ids {
			tcall(t, f.h, "tasks/cancel", tparams(tasksCaps, M{"taskId": id}), nil)
		}
	}()
	start := func(addr string) (int, *wire) {
		t.Helper()
		rec := post(f.h, 7, "tools/call", tparams(tasksCaps, M{"name": "wait", "arguments": M{}}), from(addr, ""))
		w := single(t, rec)
		if w.Result["resultType"] == "task" {
			ids = append(ids, w.Result["taskId"].(string))
		}
		return rec.Code, w
	}
	// fill starts DefaultMaxRunningTasksPerPrincipal tasks from each of n
	// /64s of the /56 number net of 2001:db8:1::/48, and returns how many
	// ran and the last refusal.
	fill := func(net, n int) (ran int, refusal *wire) {
		for i := range n {
			for j := range DefaultMaxRunningTasksPerPrincipal {
				code, w := start(fmt.Sprintf("[2001:db8:1:%02x%02x::%x]:1", net, i, j+1))
				switch {
				case w.Result["resultType"] == "task":
					ran++
				case code == http.StatusTooManyRequests && w.code() == server.CodeRateLimited:
					refusal = w
				default:
					t.Fatalf("tools/call: %d %s", code, w.raw)
				}
			}
		}
		return ran, refusal
	}
	other := func(when string) {
		t.Helper()
		if _, w := start("[2001:db8:ffff::1]:1"); w.Result["resultType"] != "task" {
			t.Errorf("%s: another client's task: %s", when, w.raw)
		}
	}
	// One /56: 4 /64s × 64 would be every one of the 256 slots.
	ran, refusal := fill(1, DefaultMaxRunningTasks/DefaultMaxRunningTasksPerPrincipal)
	if ran != DefaultMaxRunningTasksPer56 || refusal == nil ||
		refusal.Error.Message != fmt.Sprintf("Too many running tasks (at most %d per IPv6 /56); retry later", DefaultMaxRunningTasksPer56) {
		t.Errorf("one /56 ran %d tasks (want %d), refusal %s", ran, DefaultMaxRunningTasksPer56, rawOf(refusal))
	}
	other("after one /56")
	// Another /56 of the same /48: the /48 stops at 192.
	ran2, refusal := fill(2, 2)
	if ran+ran2 != DefaultMaxRunningTasksPer48 || refusal == nil ||
		refusal.Error.Message != fmt.Sprintf("Too many running tasks (at most %d per IPv6 /48); retry later", DefaultMaxRunningTasksPer48) {
		t.Errorf("one /48 ran %d tasks (want %d), refusal %s", ran+ran2, DefaultMaxRunningTasksPer48, rawOf(refusal))
	}
	other("after one /48")
	// The caps count running tasks: an ended one frees its networks' place.
	tcall(t, f.h, "tasks/cancel", tparams(tasksCaps, M{"taskId": ids[0]}), nil)
	waitFor(t, func() bool { return f.m.runningNow() == len(ids)-1 })
	if _, w := start("[2001:db8:1:10a::1]:1"); w.Result["resultType"] != "task" {
		t.Errorf("a task of the /56 once one of its ended: %s", w.raw)
	}
}

// rawOf is the text of w, or "none".
func rawOf(w *wire) string {
	if w == nil {
		return "none"
	}
	return string(w.raw)
}
