package server_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"log/slog"
	"strings"
	"testing"

	. "github.com/mcpwire/mcpwire/server/internal/testkit"
	"github.com/mcpwire/mcpwire/server/legacy"
	"github.com/mcpwire/mcpwire/server/streamhttp"

	"github.com/mcpwire/mcpwire/protocol"
	"github.com/mcpwire/mcpwire/server"
)

// errPolicyServer has a tool, a prompt, a resource and a completion
// handler that each fail with err.
func errPolicyServer(t *testing.T, err error, logs *bytes.Buffer, opts ...any) *server.Server {
	t.Helper()
	opts = append(opts,
		server.WithLogger(slog.New(slog.NewTextHandler(logs, nil))),
		server.WithCompletion(func(context.Context, *server.Request, *protocol.CompleteRequestParams) (*protocol.CompleteResult, error) {
			return nil, err
		}))
	s := NewServer(t, opts...)
	AddTool(t, s, `{"name":"fail","inputSchema":{"type":"object"}}`, func(context.Context, *server.Request, json.RawMessage) (*protocol.CallToolResult, error) {
		return nil, err
	})
	if e := s.AddPrompt(protocol.Prompt{Name: "fail"}, func(context.Context, *server.Request, map[string]string) (*protocol.GetPromptResult, error) {
		return nil, err
	}); e != nil {
		t.Fatal(e)
	}
	if e := s.AddResource(protocol.Resource{URI: "test://fail", Name: "fail"}, func(context.Context, *server.Request, string, map[string]string) ([]protocol.ReadResourceResultContentsElem, error) {
		return nil, err
	}); e != nil {
		t.Fatal(e)
	}
	return s
}

var errPolicyCalls = []struct {
	kind, method string
	p            M
}{
	{"prompt", protocol.MethodPromptsGet, M{"name": "fail"}},
	{"resource", protocol.MethodResourcesRead, M{"uri": "test://fail"}},
	{"completion", protocol.MethodCompletionComplete, M{"ref": M{"type": "ref/prompt", "name": "fail"}, "argument": M{"name": "a", "value": ""}}},
}

// TestErrorPolicyPlainError: a plain error of a prompt, resource or
// completion handler is -32603 "Internal error" with its text only in the
// log, or in the message under WithErrorDetails; a tool's is isError with
// its text under both settings (package doc, "Handler errors").
func TestErrorPolicyPlainError(t *testing.T) {
	secret := errors.New("db password rejected at 10.0.0.7")
	for _, details := range []bool{false, true} {
		var logs bytes.Buffer
		var opts []any
		if details {
			opts = append(opts, server.WithErrorDetails())
		}
		h := Handler(errPolicyServer(t, secret, &logs, opts...), streamhttp.Options{})
		name := map[bool]string{false: "hidden", true: "WithErrorDetails"}[details]
		for _, c := range errPolicyCalls {
			t.Run(name+"/"+c.kind, func(t *testing.T) {
				logs.Reset()
				w := Call(t, h, 1, c.method, Params(c.p))
				if w.Code() != protocol.CodeInternalError {
					t.Fatalf("code %d, want -32603: %s", w.Code(), w.Raw)
				}
				want := "Internal error"
				if details {
					want = secret.Error()
				}
				if w.Error.Message != want {
					t.Errorf("message %q, want %q", w.Error.Message, want)
				}
				if !details && bytes.Contains(w.Raw, []byte("10.0.0.7")) {
					t.Errorf("the error's text reached the client: %s", w.Raw)
				}
				if !strings.Contains(logs.String(), "10.0.0.7") || !strings.Contains(logs.String(), c.method) {
					t.Errorf("the error is not logged with its method: %q", logs.String())
				}
			})
		}
		t.Run(name+"/tool", func(t *testing.T) {
			w := Call(t, h, 1, protocol.MethodToolsCall, Params(M{"name": "fail"}))
			if w.Error != nil || !w.IsError() || w.Text(t, 0) != secret.Error() {
				t.Errorf("want isError with the text: %s", w.Raw)
			}
		})
	}
}

// TestErrorPolicyTypedError: a *Error reaches the client with its code,
// message and data from every kind of handler, under both settings.
func TestErrorPolicyTypedError(t *testing.T) {
	typed := server.NewError(-31999, "quota exceeded", map[string]int{"retryAfter": 3})
	reserved := server.NewError(-32050, "reserved", nil)
	for _, details := range []bool{false, true} {
		var opts []any
		if details {
			opts = append(opts, server.WithErrorDetails())
		}
		name := map[bool]string{false: "default", true: "WithErrorDetails"}[details]
		calls := append(errPolicyCalls[:len(errPolicyCalls):len(errPolicyCalls)], struct {
			kind, method string
			p            M
		}{"tool", protocol.MethodToolsCall, M{"name": "fail"}})
		var logs bytes.Buffer
		h := Handler(errPolicyServer(t, typed, &logs, opts...), streamhttp.Options{})
		hr := Handler(errPolicyServer(t, reserved, &logs, opts...), streamhttp.Options{})
		for _, c := range calls {
			t.Run(name+"/"+c.kind, func(t *testing.T) {
				w := Call(t, h, 1, c.method, Params(c.p))
				if w.Code() != -31999 || w.Error.Message != "quota exceeded" || string(w.Error.Data) != `{"retryAfter":3}` {
					t.Errorf("want the *Error as it is: %s", w.Raw)
				}
				// A code JSON-RPC reserves, undefined by the spec, is never sent.
				w = Call(t, hr, 1, c.method, Params(c.p))
				if w.Code() != protocol.CodeInternalError || w.Error.Message != "Internal error" {
					t.Errorf("reserved code: %s", w.Raw)
				}
			})
		}
	}
}

// TestErrorPolicyLegacy: a legacy session (stdio, 2025-06-18) gets the
// same policy: hidden by default, the text under WithErrorDetails, a
// tool's error as isError.
func TestErrorPolicyLegacy(t *testing.T) {
	secret := errors.New("db password rejected at 10.0.0.7")
	for _, details := range []bool{false, true} {
		var logs bytes.Buffer
		opts := []any{Eras(legacy.ErasBoth)}
		if details {
			opts = append(opts, server.WithErrorDetails())
		}
		c := StartLegacyStdio(t, errPolicyServer(t, secret, &logs, opts...), "2025-06-18")
		c.Open(`{}`)
		want := "Internal error"
		if details {
			want = secret.Error()
		}
		for i, m := range []struct{ method, params string }{
			{protocol.MethodPromptsGet, `{"name":"fail"}`},
			{protocol.MethodResourcesRead, `{"uri":"test://fail"}`},
			{protocol.MethodCompletionComplete, `{"ref":{"type":"ref/prompt","name":"fail"},"argument":{"name":"a","value":""}}`},
		} {
			w, _ := c.Call(i+1, m.method, m.params)
			if w.Code() != protocol.CodeInternalError || w.Error.Message != want {
				t.Errorf("details %v, %s: %s", details, m.method, w.Raw)
			}
		}
		w, _ := c.Call(9, protocol.MethodToolsCall, `{"name":"fail","arguments":{}}`)
		if w.Error != nil || !w.IsError() || ResultText(t, w) != secret.Error() {
			t.Errorf("details %v, tool: %s", details, w.Raw)
		}
	}
}
