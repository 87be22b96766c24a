package server_test

import (
	"context"
	"errors"
	"log/slog"
	"strings"
	"sync"
	"testing"

	. "github.com/mcpwire/mcpwire/server/internal/testkit"
	"github.com/mcpwire/mcpwire/server/streamhttp"
	"github.com/mcpwire/mcpwire/server/typed"

	"github.com/mcpwire/mcpwire/protocol"
	"github.com/mcpwire/mcpwire/server"
)

// recorder is a slog.Handler that keeps the records it is given.
type recorder struct {
	mu      sync.Mutex
	records []slog.Record
}

func (r *recorder) Enabled(context.Context, slog.Level) bool { return true }
func (r *recorder) Handle(_ context.Context, rec slog.Record) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.records = append(r.records, rec.Clone())
	return nil
}
func (r *recorder) WithAttrs([]slog.Attr) slog.Handler { return r }
func (r *recorder) WithGroup(string) slog.Handler      { return r }

// warnings returns the warnings logged, as "message name=value ...".
func (r *recorder) warnings() []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	var out []string
	for _, rec := range r.records {
		if rec.Level != slog.LevelWarn {
			continue
		}
		s := rec.Message
		rec.Attrs(func(a slog.Attr) bool {
			s += " " + a.String()
			return true
		})
		out = append(out, s)
	}
	return out
}

// names lists the names in a tools/list or prompts/list result.
func names(t *testing.T, s *server.Server, method, member string) string {
	t.Helper()
	w := Call(t, Handler(s, streamhttp.Options{}), 1, method, Params(nil))
	var out []string
	for _, x := range w.Result[member].([]any) {
		out = append(out, x.(M)["name"].(string))
	}
	return strings.Join(out, ",")
}

// TestNameRule: a tool or prompt name outside 1-128 characters of
// [A-Za-z0-9_.-] (R-TOOL-04, a SHOULD) is accepted with a warning in the
// server's log, and refused under WithStrictNames; an empty name is
// refused either way; a name registered twice is an error wrapping
// ErrDuplicate, so names stay unique (R-TOOL-04), unless Replace (tools)
// or ReplacePrompt (prompts) says to replace it.
func TestNameRule(t *testing.T) {
	ph := func(context.Context, *server.Request, map[string]string) (*protocol.GetPromptResult, error) {
		return &protocol.GetPromptResult{}, nil
	}
	type in struct{}
	th := func(context.Context, *server.Request, in) (string, error) { return "ok", nil }
	register := map[string]func(s *server.Server, name string, replace ...bool) error{
		"AddTool": func(s *server.Server, name string, replace ...bool) error {
			if len(replace) > 0 {
				return s.AddTool(protocol.Tool{Name: name}, TextTool("ok"), server.Replace())
			}
			return s.AddTool(protocol.Tool{Name: name}, TextTool("ok"))
		},
		"AddTypedTool": func(s *server.Server, name string, replace ...bool) error {
			if len(replace) > 0 {
				return typed.AddTool(s, protocol.Tool{Name: name}, th, server.Replace())
			}
			return typed.AddTool(s, protocol.Tool{Name: name}, th)
		},
		"AddPrompt": func(s *server.Server, name string, replace ...bool) error {
			if len(replace) > 0 {
				return s.AddPrompt(protocol.Prompt{Name: name}, ph, server.ReplacePrompt())
			}
			return s.AddPrompt(protocol.Prompt{Name: name}, ph)
		},
	}
	list := func(how string) (string, string) {
		if how == "AddPrompt" {
			return protocol.MethodPromptsList, "prompts"
		}
		return protocol.MethodToolsList, "tools"
	}
	bad := []string{"a b", "a,b", "grüße", "x/y", strings.Repeat("a", 129)}
	for how, add := range register {
		t.Run(how, func(t *testing.T) {
			method, member := list(how)
			for _, name := range bad {
				rec := &recorder{}
				s := NewServer(t, server.WithLogger(slog.New(rec)))
				if err := add(s, name); err != nil {
					t.Errorf("%q refused by default: %v", name, err)
				}
				if got := names(t, s, method, member); got != name {
					t.Errorf("%q: listed %q", name, got)
				}
				w := rec.warnings()
				if len(w) != 1 || !strings.Contains(w[0], "R-TOOL-04") || !strings.Contains(w[0], name) {
					t.Errorf("%q: warnings %q, want one naming it and R-TOOL-04", name, w)
				}

				rec = &recorder{}
				s = NewServer(t, server.WithLogger(slog.New(rec)), server.WithStrictNames())
				err := add(s, name)
				if err == nil || !strings.Contains(err.Error(), "WithStrictNames") {
					t.Errorf("%q under WithStrictNames: error %v", name, err)
				}
				if got := names(t, s, method, member); got != "" {
					t.Errorf("%q under WithStrictNames: listed %q", name, got)
				}
			}
			for _, opts := range [][]any{nil, {server.WithStrictNames()}} {
				rec := &recorder{}
				s := NewServer(t, append([]any{server.WithLogger(slog.New(rec))}, opts...)...)
				if err := add(s, ""); err == nil {
					t.Error("an empty name accepted")
				}
				if err := add(s, "a.b_c-D9"); err != nil {
					t.Errorf("a good name refused: %v", err)
				}
				if err := add(s, "a.b_c-D9"); !errors.Is(err, server.ErrDuplicate) || !strings.Contains(err.Error(), "a.b_c-D9") {
					t.Errorf("re-registering a name: %v, want ErrDuplicate naming it", err)
				}
				if err := add(s, "a.b_c-D9", true); err != nil {
					t.Errorf("replacing a name on purpose: %v", err)
				}
				if got := names(t, s, method, member); got != "a.b_c-D9" {
					t.Errorf("after registering a name twice: listed %q, want it once", got)
				}
				if w := rec.warnings(); len(w) != 0 {
					t.Errorf("warnings for good names: %q", w)
				}
			}
		})
	}
}
