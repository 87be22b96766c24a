package tasks_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"testing"

	"github.com/mcpwire/mcpwire/auth"
	"github.com/mcpwire/mcpwire/ext/tasks"
	"github.com/mcpwire/mcpwire/protocol"
	"github.com/mcpwire/mcpwire/server"
	"github.com/mcpwire/mcpwire/server/streamhttp"
	"github.com/mcpwire/mcpwire/servertest"
)

// Tasks are the token principal's (R-TASK-18, R-AUTH-*): the principal of
// a request authenticated by a streamhttp.Options.Verifier.

// bearerTokens verifies a token by looking it up.
type bearerTokens map[string]*auth.TokenInfo

func (b bearerTokens) Verify(_ context.Context, tok string) (*auth.TokenInfo, error) {
	if ti, ok := b[tok]; ok {
		return ti, nil
	}
	return nil, fmt.Errorf("%w: unknown", auth.ErrInvalidToken)
}

// tokenClient is a client of s whose handler verifies the tokens of
// alice and bob.
func tokenClient(s *server.Server) *servertest.Client {
	v := bearerTokens{
		"alice": {Issuer: "https://as.example.com", Subject: "alice"},
		"bob":   {Issuer: "https://as.example.com", Subject: "bob"},
	}
	return servertest.New(s, servertest.WithHTTPOptions(streamhttp.Options{Verifier: v}))
}

// bearer sends tok in the Authorization header.
func bearer(tok string) servertest.Option {
	return servertest.WithHeader("Authorization", "Bearer "+tok)
}

// R-TASK-18: a task is the token principal's: another principal's
// tasks/get is -32602, as for a task that does not exist; and the task's
// handler sees the creating request's token.
func TestAuthPrincipalOwnsTasks(t *testing.T) {
	s := newTaskServer(t, tasks.WithTasks(tasks.TaskConfig{}))
	subs := make(chan string, 1)
	addTaskTool(t, s, "t", tasks.TaskOptional, func(ctx context.Context, r *server.Request, _ json.RawMessage) (*protocol.CallToolResult, error) {
		sub := "<none>"
		if ti := r.Token(); ti != nil {
			sub = ti.Subject
		}
		subs <- sub
		<-ctx.Done()
		return nil, ctx.Err()
	})
	c := tokenClient(s)
	id := startTask(t, c, "t", bearer("alice"))
	defer cancelTask(t, c, id, bearer("alice"))
	if sub := <-subs; sub != "alice" {
		t.Errorf("the task's Request.Token: %q", sub)
	}
	_, err := taskStatus(c, id, bearer("bob"))
	if !errors.Is(err, &server.Error{Code: protocol.CodeInvalidParamsError}) {
		t.Errorf("R-TASK-18: bob read alice's task: %v", err)
	}
	if st, err := taskStatus(c, id, bearer("alice")); err != nil || st != "working" {
		t.Errorf("alice cannot read her task: %q %v", st, err)
	}
}

// R-TASK-18, R-TASK-13: a listen filter honours a task id only for the
// token principal that created the task, as for the Authenticate
// principal (listen_test.go).
func TestAuthPrincipalListen(t *testing.T) {
	s := newTaskServer(t, tasks.WithTasks(tasks.TaskConfig{}))
	addTaskTool(t, s, "secret", tasks.TaskOptional, untilCancelled)
	c := tokenClient(s)
	id := startTask(t, c, "secret", bearer("alice"))
	defer cancelTask(t, c, id, bearer("alice"))
	for _, w := range []struct {
		user string
		want int
	}{{"bob", 0}, {"alice", 1}} {
		st := listenTasks(t, c, []string{id}, bearer(w.user))
		if ids := ackTaskIDs(t, st); len(ids) != w.want {
			t.Errorf("%s's acknowledgement lists %v, want %d", w.user, ids, w.want)
		}
		_ = st.Close()
	}
}
