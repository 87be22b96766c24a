package legacy_test

import (
	"bufio"
	"context"
	"encoding/json"
	"io"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/mcpwire/mcpwire/protocol"
	"github.com/mcpwire/mcpwire/server"
	. "github.com/mcpwire/mcpwire/server/internal/testkit"
	"github.com/mcpwire/mcpwire/server/legacy"
	"github.com/mcpwire/mcpwire/server/streamhttp"
)

// roundsTool registers "two": its first call waits for release and asks
// for input with state only (the bridge calls it again at once), its
// second reports whether Shutdown had returned while it ran.
func roundsTool(t *testing.T, s *server.Server, release <-chan struct{}, shutDone *atomic.Bool, round2 chan<- struct{}) {
	t.Helper()
	tool := protocol.Tool{Name: "two"}
	tool.InputSchema.Extra = protocol.Members{{Name: "properties", Value: json.RawMessage(`{}`)}}
	err := s.AddTool(tool, func(ctx context.Context, r *server.Request, _ json.RawMessage) (*protocol.CallToolResult, error) {
		if r.State() == nil {
			<-release
			return nil, r.AskInput(nil, []byte("s"))
		}
		close(round2)
		time.Sleep(100 * time.Millisecond) // Shutdown would return now if it did not wait for this round
		if shutDone.Load() {
			return server.ErrorResult("Shutdown returned during round 2"), nil
		}
		return server.TextResult("round 2"), nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

// Shutdown waits for a legacy call across its input rounds, and never
// panics in the gap between two rounds (the regression of the split:
// the call was held only from after its first round, so the count
// Shutdown waited on reached zero and rose again, a reused WaitGroup).
// Over stdio, and over HTTP without resumability, where the request's
// stream does not hold the call.
func TestShutdownWaitsAcrossInputRounds(t *testing.T) {
	t.Run("stdio", func(t *testing.T) {
		s := NewServer(t)
		release, round2 := make(chan struct{}), make(chan struct{})
		var shutDone atomic.Bool
		roundsTool(t, s, release, &shutDone, round2)
		ir, iw := io.Pipe()
		or, ow := io.Pipe()
		served := make(chan struct{})
		go func() { _ = ServeStdio(context.Background(), s, ir, ow); _ = ow.Close(); close(served) }()
		lines := make(chan string, 8)
		go func() {
			sc := bufio.NewScanner(or)
			for sc.Scan() {
				lines <- sc.Text()
			}
		}()
		_, _ = io.WriteString(iw, EraBody(0, "initialize", InitParams("2025-06-18", ""))+"\n")
		<-lines
		_, _ = io.WriteString(iw, EraNote("notifications/initialized", "")+"\n")
		_, _ = io.WriteString(iw, EraBody(2, "tools/call", `{"name":"two"}`)+"\n")
		shut := startShutdown(t, s, &shutDone, release)
		<-round2
		select {
		case line := <-lines:
			if !strings.Contains(line, `"round 2"`) {
				t.Errorf("the call's answer: %s", line)
			}
		case <-time.After(10 * time.Second):
			t.Fatal("no answer")
		}
		if err := <-shut; err != nil {
			t.Fatal(err)
		}
		_ = iw.Close()
		<-served
	})
	t.Run("http, no resumability", func(t *testing.T) {
		s := NewServer(t)
		release, round2 := make(chan struct{}), make(chan struct{})
		var shutDone atomic.Bool
		roundsTool(t, s, release, &shutDone, round2)
		e, err := legacy.New(s, legacy.Config{ReplayRetention: -1})
		if err != nil {
			t.Fatal(err)
		}
		c := NewLegacyHTTP(t, streamhttp.Handler(s, streamhttp.Options{Legacy: e}), "2025-11-25")
		c.Open("{}")
		answer := make(chan string, 1)
		go func() {
			rec := EraRequest(t, c.H, "POST", EraBody(2, "tools/call", `{"name":"two"}`), legacy.HeaderSessionID, c.Sid, server.HeaderProtocolVersion, c.Rev)
			answer <- rec.Body.String()
		}()
		shut := startShutdown(t, s, &shutDone, release)
		if body := <-answer; !strings.Contains(body, `"round 2"`) {
			t.Errorf("the call's answer: %s", body)
		}
		if err := <-shut; err != nil {
			t.Fatal(err)
		}
	})
}

// startShutdown lets the first round's handler start, begins Shutdown,
// then releases the first round; shutDone is set when Shutdown returns.
func startShutdown(t *testing.T, s *server.Server, shutDone *atomic.Bool, release chan struct{}) <-chan error {
	t.Helper()
	time.Sleep(50 * time.Millisecond) // the call reaches its first round
	shut := make(chan error, 1)
	go func() {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		err := s.Shutdown(ctx)
		shutDone.Store(true)
		shut <- err
	}()
	time.Sleep(50 * time.Millisecond) // Shutdown is waiting
	close(release)
	return shut
}
