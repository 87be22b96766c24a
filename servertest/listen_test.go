package servertest_test

import (
	"context"
	"errors"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/mcpwire/mcpwire/protocol"
	"github.com/mcpwire/mcpwire/server"
	"github.com/mcpwire/mcpwire/servertest"
)

// listenToolsChanged opens, in-process, a listen stream of s subscribed
// to tools/list_changed.
func listenToolsChanged(ctx context.Context, t *testing.T, s *server.Server) *servertest.Stream {
	t.Helper()
	yes := true
	st, err := servertest.New(s).Listen(ctx, protocol.SubscriptionFilter{ToolsListChanged: &yes})
	if err != nil {
		t.Fatal(err)
	}
	return st
}

// TestListen: a listen stream (R-SUB-01) delivers the list_changed
// notification it subscribed to, in-process; Close ends it and waits
// for the handler.
func TestListen(t *testing.T) {
	s := newServer(t)
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	st := listenToolsChanged(ctx, t, s)
	var seen []string
	for {
		n, err := st.Next(ctx)
		if err != nil {
			t.Fatalf("after %v: %v", seen, err)
		}
		seen = append(seen, n.Method)
		if n.Method == "notifications/tools/list_changed" {
			break
		}
		if len(seen) == 1 {
			// The first event is the acknowledgement: the stream is
			// subscribed, so a change now reaches it.
			if err := s.NotifyToolsChanged(); err != nil {
				t.Fatal(err)
			}
		}
	}
	t.Logf("events: %v", seen)
	if err := st.Close(); err != nil {
		t.Fatal(err)
	}
	if _, err := st.Next(ctx); err == nil {
		t.Error("Next after Close: no error")
	}
}

// TestListenRefused: a listen request the server refuses is an error
// from Listen with its HTTP status.
func TestListenRefused(t *testing.T) {
	c := servertest.New(newServer(t))
	_, err := c.Listen(context.Background(), protocol.SubscriptionFilter{}, servertest.WithProtocolVersion("2099-01-01"))
	var e *servertest.Error
	if !errors.As(err, &e) || e.Status != http.StatusBadRequest {
		t.Errorf("err %v", err)
	}
}

// TestListenShutdown: Shutdown ends a listen stream with its result
// (R-SUB-06), which Next reports as io.EOF.
func TestListenShutdown(t *testing.T) {
	s := newServer(t)
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	st := listenToolsChanged(ctx, t, s)
	defer st.Close()
	if _, err := st.Next(ctx); err != nil {
		t.Fatal(err)
	}
	go func() { _ = s.Shutdown(ctx) }()
	for {
		_, err := st.Next(ctx)
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
	}
	if !strings.Contains(string(st.Result()), `"resultType":"complete"`) {
		t.Errorf("result %s", st.Result())
	}
}

// TestListenCloseUnread: Close returns while the server is blocked
// writing events nobody reads (the pipe is closed under it).
func TestListenCloseUnread(t *testing.T) {
	s := newServer(t)
	st := listenToolsChanged(context.Background(), t, s)
	for range 500 {
		_ = s.NotifyToolsChanged()
	}
	closed := make(chan struct{})
	go func() { _ = st.Close(); close(closed) }()
	select {
	case <-closed:
	case <-time.After(10 * time.Second):
		t.Fatal("Close did not return")
	}
}
