package legacy_test

import (
	"context"
	"encoding/json"
	"strings"
	"sync"
	"testing"
	"time"

	. "github.com/mcpwire/mcpwire/server/internal/testkit"
	"github.com/mcpwire/mcpwire/server/legacy"
	"github.com/mcpwire/mcpwire/server/typed"

	"github.com/mcpwire/mcpwire/protocol"
	"github.com/mcpwire/mcpwire/server"
)

// Helpers of the legacy-session tests: a fixture with one of each thing a
// legacy client uses, and validation of every server message against the
// schema.json of the session's revision (from MCP_SPEC_DIR; skipped
// without it).

// legacyRevs are the legacy revisions, newest first.
var legacyRevs = []string{"2025-11-25", "2025-06-18", "2025-03-26", "2024-11-05"}

// legacyFixture is the era fixture under mode, with the tools and
// resources the transcripts call: a structured tool, a logging tool, a
// progress tool, a tool that waits for its context, content a revision
// may lack (audio, a resource link), a tool that requires an extension
// (H5), a completion handler and a watched resource.
type legacyFixture struct {
	*server.Server
	calls   *countCalls
	started chan string
}

type countCalls struct {
	mu sync.Mutex
	n  map[string]int
}

func (c *countCalls) add(name string) {
	c.mu.Lock()
	c.n[name]++
	c.mu.Unlock()
}

func (c *countCalls) get(name string) int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.n[name]
}

func newLegacyFixture(t testing.TB, mode legacy.Eras, opts ...any) *legacyFixture {
	t.Helper()
	complete := server.WithCompletion(func(_ context.Context, _ *server.Request, p *protocol.CompleteRequestParams) (*protocol.CompleteResult, error) {
		return &protocol.CompleteResult{Completion: protocol.CompleteResultCompletion{Values: []string{p.Argument.Value + "-1", p.Argument.Value + "-2"}}}, nil
	})
	s, _ := eraFixture(t, mode, append([]any{complete}, opts...)...)
	f := &legacyFixture{Server: s, calls: &countCalls{n: map[string]int{}}, started: make(chan string, 10)}
	type point struct {
		X int `json:"x"`
	}
	if err := typed.AddTool(s, protocol.Tool{Name: "structured"}, func(context.Context, *server.Request, struct{}) (point, error) {
		f.calls.add("structured")
		return point{X: 7}, nil
	}); err != nil {
		t.Fatal(err)
	}
	AddTool(t, s, `{"name":"logs","inputSchema":{"type":"object"}}`, func(ctx context.Context, r *server.Request, _ json.RawMessage) (*protocol.CallToolResult, error) {
		f.calls.add("logs")
		r.Log(ctx, protocol.LoggingLevelDebug, "t", json.RawMessage(`"debug line"`))
		r.Log(ctx, protocol.LoggingLevelInfo, "t", json.RawMessage(`"info line"`))
		return server.TextResult("level=" + levelOf(r) + " version=" + r.ProtocolVersion() + " legacy=" + boolText((r.ProtocolVersion() != protocol.Revision))), nil
	})
	AddTool(t, s, `{"name":"progress","inputSchema":{"type":"object"}}`, func(ctx context.Context, r *server.Request, _ json.RawMessage) (*protocol.CallToolResult, error) {
		for i := 1; i <= 3; i++ {
			r.Progress(ctx, float64(i), 3, "step")
		}
		return server.TextResult("done"), nil
	})
	wait := func(ctx context.Context, r *server.Request, _ json.RawMessage) (*protocol.CallToolResult, error) {
		f.started <- r.ID.String()
		select {
		case <-ctx.Done():
			f.calls.add("wait cancelled")
			return server.TextResult("cancelled"), nil
		case <-time.After(10 * time.Second):
			return server.TextResult("waited"), nil
		}
	}
	AddTool(t, s, `{"name":"wait","inputSchema":{"type":"object"}}`, wait)
	AddTool(t, s, `{"name":"waitpoll","inputSchema":{"type":"object"}}`, wait, server.AllowPolling()) // on a worker of its own (2025-11-25)
	AddTool(t, s, `{"name":"media","inputSchema":{"type":"object"}}`, func(context.Context, *server.Request, json.RawMessage) (*protocol.CallToolResult, error) {
		return &protocol.CallToolResult{Content: []protocol.ContentBlock{
			server.Audio("AAAA", "audio/wav"),
			{Value: &protocol.ResourceLink{URI: "file:///a.txt", Name: "a"}},
		}}, nil
	})
	AddTool(t, s, `{"name":"caps","inputSchema":{"type":"object"}}`, func(_ context.Context, r *server.Request, _ json.RawMessage) (*protocol.CallToolResult, error) {
		b, _ := protocol.Marshal(TPtr(r.ClientCapabilities()))
		info, _ := r.ClientInfo()
		return server.TextResult(string(b) + " " + info.Name), nil
	})
	if err := s.AddTool(ToolDef(t, `{"name":"tasky","inputSchema":{"type":"object"}}`), func(context.Context, *server.Request, json.RawMessage) (*protocol.CallToolResult, error) {
		f.calls.add("tasky")
		return server.TextResult("task"), nil
	}, NotesTool()); err != nil {
		t.Fatal(err)
	}
	AddResource(t, s, protocol.Resource{URI: "test://watched-resource", Name: "watched"},
		func(_ context.Context, _ *server.Request, uri string, _ map[string]string) ([]protocol.ReadResourceResultContentsElem, error) {
			return server.TextContents(uri, "text/plain", "watched"), nil
		})
	return f
}

func levelOf(r *server.Request) string {
	if r.Meta.LogLevel == nil {
		return "unset"
	}
	return string(*r.Meta.LogLevel)
}

func boolText(b bool) string {
	if b {
		return "true"
	}
	return "false"
}

// hasMember reports whether the JSON object at path (member names) in a
// message has member name.
func hasMember(w *Wire, name string, path ...string) bool {
	var v any = w.Result
	for _, p := range path {
		m, _ := v.(M)
		v = m[p]
	}
	m, _ := v.(M)
	_, ok := m[name]
	return ok
}

// contains reports whether s holds every one of subs.
func containsAll(s string, subs ...string) bool {
	for _, x := range subs {
		if !strings.Contains(s, x) {
			return false
		}
	}
	return true
}

// era is the fixture server's Era.
func (f *legacyFixture) era() *legacy.Era { return EraOf(f.Server) }
