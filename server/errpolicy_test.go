package server

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"log/slog"
	"strings"
	"testing"

	"github.com/mcpwire/mcpwire/protocol"
)

// errPolicyServer has a tool, a prompt, a resource and a completion
// handler that each fail with err.
func errPolicyServer(t *testing.T, err error, logs *bytes.Buffer, opts ...Option) *Server {
	t.Helper()
	opts = append(opts,
		WithLogger(slog.New(slog.NewTextHandler(logs, nil))),
		WithCompletion(func(context.Context, *Request, *protocol.CompleteRequestParams) (*protocol.CompleteResult, error) {
			return nil, err
		}))
	s := newServer(t, opts...)
	addTool(t, s, `{"name":"fail","inputSchema":{"type":"object"}}`, func(context.Context, *Request, json.RawMessage) (*protocol.CallToolResult, error) {
		return nil, err
	})
	if e := s.AddPrompt(protocol.Prompt{Name: "fail"}, func(context.Context, *Request, map[string]string) (*protocol.GetPromptResult, error) {
		return nil, err
	}); e != nil {
		t.Fatal(e)
	}
	if e := s.AddResource(protocol.Resource{URI: "test://fail", Name: "fail"}, func(context.Context, *Request, string, map[string]string) ([]protocol.ReadResourceResultContentsElem, error) {
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
		var opts []Option
		if details {
			opts = append(opts, WithErrorDetails())
		}
		h := errPolicyServer(t, secret, &logs, opts...).Handler(HTTPOptions{})
		name := map[bool]string{false: "hidden", true: "WithErrorDetails"}[details]
		for _, c := range errPolicyCalls {
			t.Run(name+"/"+c.kind, func(t *testing.T) {
				logs.Reset()
				w := call(t, h, 1, c.method, params(c.p))
				if w.code() != protocol.CodeInternalError {
					t.Fatalf("code %d, want -32603: %s", w.code(), w.raw)
				}
				want := "Internal error"
				if details {
					want = secret.Error()
				}
				if w.Error.Message != want {
					t.Errorf("message %q, want %q", w.Error.Message, want)
				}
				if !details && bytes.Contains(w.raw, []byte("10.0.0.7")) {
					t.Errorf("the error's text reached the client: %s", w.raw)
				}
				if !strings.Contains(logs.String(), "10.0.0.7") || !strings.Contains(logs.String(), c.method) {
					t.Errorf("the error is not logged with its method: %q", logs.String())
				}
			})
		}
		t.Run(name+"/tool", func(t *testing.T) {
			w := call(t, h, 1, protocol.MethodToolsCall, params(M{"name": "fail"}))
			if w.Error != nil || !w.isError() || w.text(t, 0) != secret.Error() {
				t.Errorf("want isError with the text: %s", w.raw)
			}
		})
	}
}

// TestErrorPolicyTypedError: a *Error reaches the client with its code,
// message and data from every kind of handler, under both settings.
func TestErrorPolicyTypedError(t *testing.T) {
	typed := newError(-31999, "quota exceeded", map[string]int{"retryAfter": 3})
	reserved := newError(-32050, "reserved", nil)
	for _, details := range []bool{false, true} {
		var opts []Option
		if details {
			opts = append(opts, WithErrorDetails())
		}
		name := map[bool]string{false: "default", true: "WithErrorDetails"}[details]
		calls := append(errPolicyCalls[:len(errPolicyCalls):len(errPolicyCalls)], struct {
			kind, method string
			p            M
		}{"tool", protocol.MethodToolsCall, M{"name": "fail"}})
		var logs bytes.Buffer
		h := errPolicyServer(t, typed, &logs, opts...).Handler(HTTPOptions{})
		hr := errPolicyServer(t, reserved, &logs, opts...).Handler(HTTPOptions{})
		for _, c := range calls {
			t.Run(name+"/"+c.kind, func(t *testing.T) {
				w := call(t, h, 1, c.method, params(c.p))
				if w.code() != -31999 || w.Error.Message != "quota exceeded" || string(w.Error.Data) != `{"retryAfter":3}` {
					t.Errorf("want the *Error as it is: %s", w.raw)
				}
				// A code JSON-RPC reserves, undefined by the spec, is never sent.
				w = call(t, hr, 1, c.method, params(c.p))
				if w.code() != protocol.CodeInternalError || w.Error.Message != "Internal error" {
					t.Errorf("reserved code: %s", w.raw)
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
		opts := []Option{WithEras(ErasBoth)}
		if details {
			opts = append(opts, WithErrorDetails())
		}
		c := startLegacyStdio(t, errPolicyServer(t, secret, &logs, opts...), "2025-06-18")
		c.open(`{}`)
		want := "Internal error"
		if details {
			want = secret.Error()
		}
		for i, m := range []struct{ method, params string }{
			{protocol.MethodPromptsGet, `{"name":"fail"}`},
			{protocol.MethodResourcesRead, `{"uri":"test://fail"}`},
			{protocol.MethodCompletionComplete, `{"ref":{"type":"ref/prompt","name":"fail"},"argument":{"name":"a","value":""}}`},
		} {
			w, _ := c.call(i+1, m.method, m.params)
			if w.code() != protocol.CodeInternalError || w.Error.Message != want {
				t.Errorf("details %v, %s: %s", details, m.method, w.raw)
			}
		}
		w, _ := c.call(9, protocol.MethodToolsCall, `{"name":"fail","arguments":{}}`)
		if w.Error != nil || !w.isError() || resultText(t, w) != secret.Error() {
			t.Errorf("details %v, tool: %s", details, w.raw)
		}
	}
}
