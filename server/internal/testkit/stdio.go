package testkit

import (
	"bufio"
	"context"
	"encoding/json"
	"io"
	"strings"
	"testing"
	"time"

	"github.com/mcpwire/mcpwire/server"
)

// session drives ServeStdio through pipes.
type Session struct {
	T testing.TB
	// bridge allows the input bridge's server-to-client requests
	// (mcpwire-* ids) of a legacy session: R-STDIO-03 holds for modern
	// requests only (docs/dual-era.md §5).
	Bridge bool
	In     *io.PipeWriter
	Lines  chan string
	Done   chan error
	Cancel context.CancelFunc
}

func StartStdio(t testing.TB, s *server.Server) *Session {
	t.Helper()
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	ctx, cancel := context.WithCancel(context.Background())
	ss := &Session{T: t, In: inW, Lines: make(chan string, 100), Done: make(chan error, 1), Cancel: cancel}
	go func() {
		err := ServeStdio(ctx, s, inR, outW)
		outW.Close()
		ss.Done <- err
	}()
	go func() {
		sc := bufio.NewScanner(outR)
		sc.Buffer(nil, 1<<20)
		for sc.Scan() {
			ss.Lines <- sc.Text()
		}
		close(ss.Lines)
	}()
	t.Cleanup(func() {
		cancel()
		inW.Close()
	})
	return ss
}

func (ss *Session) Send(line string) {
	ss.T.Helper()
	if _, err := io.WriteString(ss.In, line+"\n"); err != nil {
		ss.T.Fatalf("write: %v", err)
	}
}

// recv returns the next message, failing after a timeout.
func (ss *Session) Recv() *Wire {
	ss.T.Helper()
	select {
	case l, ok := <-ss.Lines:
		if !ok {
			ss.T.Fatal("stdout closed")
		}
		return CheckStdioLineBridge(ss.T, l, ss.Bridge)
	case <-time.After(5 * time.Second):
		ss.T.Fatal("no message within 5 s")
	}
	return nil
}

// close ends input and returns what was written after the last recv and
// ServeStdio's result.
func (ss *Session) Close() ([]*Wire, error) {
	ss.T.Helper()
	ss.In.Close()
	var rest []*Wire
	for l := range ss.Lines {
		rest = append(rest, CheckStdioLineBridge(ss.T, l, ss.Bridge))
	}
	select {
	case err := <-ss.Done:
		return rest, err
	case <-time.After(5 * time.Second):
		ss.T.Fatal("ServeStdio did not return")
	}
	return nil, nil
}

// checkStdioLine checks one stdout line is one JSON-RPC message
// (R-STDIO-01/02) that is not a request (R-STDIO-03, R-BASE-11).
func CheckStdioLine(t testing.TB, l string) *Wire {
	t.Helper()
	return CheckStdioLineBridge(t, l, false)
}

// checkStdioLineBridge is checkStdioLine, allowing the input bridge's
// requests when bridge is set.
func CheckStdioLineBridge(t testing.TB, l string, bridge bool) *Wire {
	t.Helper()
	if !json.Valid([]byte(l)) {
		t.Fatalf("R-STDIO-02: stdout line is not JSON: %q", l)
	}
	w := DecodeWire(t, []byte(l))
	if w.HasID() && w.Method() != "" && !(bridge && strings.HasPrefix(w.Id(), `"mcpwire-`)) {
		t.Fatalf("R-STDIO-03: a request on stdout: %s", l)
	}
	return w
}
