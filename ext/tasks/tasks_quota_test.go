package tasks

import (
	"bufio"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/mcpwire/mcpwire/protocol"
	"github.com/mcpwire/mcpwire/server"
	"github.com/mcpwire/mcpwire/server/stdio"
	"github.com/mcpwire/mcpwire/server/streamhttp"
)

// The task cap (TaskConfig.MaxTasksPerPrincipal) of clients without a
// principal counts per client address, so that one anonymous client cannot
// lock everyone out (item 8 of the review; R-TASK-18: every task request
// is authorised, and a principal's tasks are its own).

// waitForCancel is a task tool that runs until it is cancelled.
func waitForCancel(ctx context.Context, _ *server.Request, _ json.RawMessage) (*protocol.CallToolResult, error) {
	<-ctx.Done()
	return nil, ctx.Err()
}

// from makes a request come from addr, with the X-User header user.
func from(addr, user string) func(*http.Request) {
	return func(r *http.Request) {
		r.RemoteAddr = addr
		if user != "" {
			r.Header.Set("X-User", user)
		}
	}
}

func TestTaskQuotaPerClientAddress(t *testing.T) {
	f := newTaskFixture(t, TaskConfig{MaxTasksPerPrincipal: 2})
	f.tool(t, "t", TaskOptions{Support: TaskOptional}, waitForCancel)
	create := func(h http.Handler, mod func(*http.Request)) *wire {
		return tcall(t, h, "tools/call", tparams(tasksCaps, M{"name": "t", "arguments": M{}}), mod)
	}
	var ids []string
	defer func() { // end what still runs
		for _, id := range ids {
			tcall(t, f.h, "tasks/cancel", tparams(tasksCaps, M{"taskId": id}), nil)
		}
	}()
	// No Authenticate hook: two tasks from one address fill its quota,
	// whatever the port.
	for _, addr := range []string{"198.51.100.1:1000", "198.51.100.1:2000"} {
		w := create(f.h, from(addr, ""))
		if w.Result["resultType"] != "task" {
			t.Fatalf("task from %s: %s", addr, w.raw)
		}
		ids = append(ids, w.Result["taskId"].(string))
	}
	// Over the quota: the rate-limited answer, 429 with Retry-After (I2:
	// not a -32603 with 500, which looks like a server fault).
	rec := post(f.h, 1, "tools/call", tparams(tasksCaps, M{"name": "t", "arguments": M{}}), from("198.51.100.1:3000", ""))
	w := single(t, rec)
	if w.code() != server.CodeRateLimited || w.Error.Message != "Too many tasks (at most 2 per client address); retry later" ||
		rec.Code != http.StatusTooManyRequests || rec.Header().Get("Retry-After") != "60" || string(w.Error.Data) != `{"retryAfterMs":60000}` {
		t.Errorf("a third task from one address: %d, Retry-After %q: %s", rec.Code, rec.Header().Get("Retry-After"), w.raw)
	}
	// Another address is not locked out.
	for _, addr := range []string{"198.51.100.2:1000", "[2001:db8::1]:443"} {
		w := create(f.h, from(addr, ""))
		if w.Result["resultType"] != "task" {
			t.Errorf("a client at another address is locked out: %s", w.raw)
			continue
		}
		ids = append(ids, w.Result["taskId"].(string))
	}
	// Ownership is unchanged: without a principal every client is "".
	if w := tcall(t, f.h, "tasks/get", tparams(tasksCaps, M{"taskId": ids[0]}), from("198.51.100.2:1000", "")); w.Result["status"] != "working" {
		t.Errorf("tasks/get of an anonymous task: %s", w.raw)
	}

	// With an Authenticate hook the cap counts per principal, whatever the
	// address.
	h := streamhttp.Handler(f.s, streamhttp.Options{Authenticate: func(r *http.Request) (string, error) { return r.Header.Get("X-User"), nil }})
	for _, addr := range []string{"203.0.113.1:1", "203.0.113.2:1"} {
		w := create(h, from(addr, "alice"))
		if w.Result["resultType"] != "task" {
			t.Fatalf("alice's task from %s: %s", addr, w.raw)
		}
		id := w.Result["taskId"].(string)
		defer tcall(t, h, "tasks/cancel", tparams(tasksCaps, M{"taskId": id}), from(addr, "alice"))
	}
	w = create(h, from("203.0.113.3:1", "alice"))
	if w.code() != server.CodeRateLimited || w.Error.Message != "Too many tasks (at most 2 per principal); retry later" {
		t.Errorf("alice's third task, from a third address: %s", w.raw)
	}
	if w := create(h, from("203.0.113.1:1", "bob")); w.Result["resultType"] != "task" {
		t.Errorf("bob, at alice's address, is locked out: %s", w.raw)
	} else {
		defer tcall(t, h, "tasks/cancel", tparams(tasksCaps, M{"taskId": w.Result["taskId"]}), from("203.0.113.1:1", "bob"))
	}
}

// On stdio there is one client: the cap is that client's.
func TestTaskQuotaStdio(t *testing.T) {
	ext, m := withManager(TaskConfig{MaxTasksPerPrincipal: 1})
	s := newServer(t, ext)
	t.Cleanup(func() { waitIdle(t, m) })
	if err := s.AddTool(toolDef(t, `{"name":"t","inputSchema":{"type":"object"}}`), waitForCancel, AsTask(TaskOptions{Support: TaskOptional})); err != nil {
		t.Fatal(err)
	}
	ss := startStdio(t, s)
	ss.send(1, "tools/call", tparams(tasksCaps, M{"name": "t", "arguments": M{}}))
	first := ss.recv()
	id, _ := first.Result["taskId"].(string)
	if id == "" {
		t.Fatalf("first task: %s", first.raw)
	}
	ss.send(2, "tools/call", tparams(tasksCaps, M{"name": "t", "arguments": M{}}))
	if w := ss.recv(); w.code() != server.CodeRateLimited || !strings.HasSuffix(w.Error.Message, "(at most 1 per client); retry later") {
		t.Errorf("second task on stdio: %s", w.raw)
	}
	ss.send(3, "tasks/cancel", tparams(tasksCaps, M{"taskId": id}))
	if w := ss.recv(); w.Error != nil {
		t.Errorf("tasks/cancel: %s", w.raw)
	}
}

// stdioConn is a client of stdio.Serve that sends a request and reads the
// next line written.
type stdioConn struct {
	t   testing.TB
	in  *io.PipeWriter
	out *bufio.Reader
}

func startStdio(t testing.TB, s *server.Server) *stdioConn {
	t.Helper()
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() {
		defer close(done)
		_ = stdio.Serve(ctx, s, inR, outW, stdio.Options{})
		outW.Close()
	}()
	t.Cleanup(func() {
		cancel()
		inW.Close()
		outR.Close()
		<-done
	})
	return &stdioConn{t: t, in: inW, out: bufio.NewReader(outR)}
}

func (c *stdioConn) send(id int, method string, p M) {
	c.t.Helper()
	line := append(jsonText(M{"jsonrpc": "2.0", "id": id, "method": method, "params": p}), '\n')
	if _, err := c.in.Write(line); err != nil {
		c.t.Fatalf("stdio write: %v", err)
	}
}

func (c *stdioConn) recv() *wire {
	c.t.Helper()
	line, err := c.out.ReadBytes('\n')
	if err != nil {
		c.t.Fatalf("stdio read: %v", err)
	}
	return decode(c.t, line)
}
