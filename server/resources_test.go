package server_test

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	. "github.com/mcpwire/mcpwire/server/internal/testkit"
	"github.com/mcpwire/mcpwire/server/streamhttp"

	"github.com/mcpwire/mcpwire/protocol"
	"github.com/mcpwire/mcpwire/server"
)

// TestResourcesRead covers resources/read (R-RSRC-03, R-RSRC-04,
// R-RSRC-08, R-RSRC-12, R-BASE-14).
func TestResourcesRead(t *testing.T) {
	s := Fixture(t)
	AddResource(t, s, protocol.Resource{URI: "bin://logo", Name: "logo"}, func(_ context.Context, _ *server.Request, uri string, _ map[string]string) ([]protocol.ReadResourceResultContentsElem, error) {
		return server.BlobContents(uri, "image/png", "iVBORw0KGgo="), nil
	})
	AddResource(t, s, protocol.Resource{URI: "empty://x", Name: "empty"}, func(context.Context, *server.Request, string, map[string]string) ([]protocol.ReadResourceResultContentsElem, error) {
		return nil, nil
	})
	AddResource(t, s, protocol.Resource{URI: "gone://x", Name: "gone"}, func(context.Context, *server.Request, string, map[string]string) ([]protocol.ReadResourceResultContentsElem, error) {
		return nil, fmt.Errorf("looked everywhere: %w", server.ErrNotFound)
	})
	if err := s.AddResourceTemplate(protocol.ResourceTemplate{URITemplate: "repo://{owner}/{name}/file{/path*}", Name: "file"}, func(_ context.Context, _ *server.Request, uri string, vars map[string]string) ([]protocol.ReadResourceResultContentsElem, error) {
		return server.TextContents(uri, "", vars["owner"]+"|"+vars["name"]+"|"+vars["path"]), nil
	}); err != nil {
		t.Fatal(err)
	}
	h := Handler(s, streamhttp.Options{})
	notFound := func(uri string) func(t *testing.T, w *Wire) {
		return func(t *testing.T, w *Wire) {
			if w.Code() != protocol.CodeInvalidParamsError {
				t.Fatalf("R-RSRC-03: code %d, want -32602 (never -32002): %s", w.Code(), w.Raw)
			}
			if d := w.Data(t); d["uri"] != uri {
				t.Errorf("R-RSRC-03: data.uri %v, want %q", d["uri"], uri)
			}
			if w.Result != nil {
				t.Error("R-RSRC-04: a result for a missing resource")
			}
		}
	}
	text := func(want string) func(t *testing.T, w *Wire) {
		return func(t *testing.T, w *Wire) {
			c, _ := w.Result["contents"].([]any)
			if len(c) != 1 || c[0].(M)["text"] != want {
				t.Errorf("contents %v, want text %q", w.Result["contents"], want)
			}
		}
	}
	cases := []struct {
		name  string
		uri   string
		check func(t *testing.T, w *Wire)
	}{
		{"static", "file:///a.txt", func(t *testing.T, w *Wire) {
			c := w.Result["contents"].([]any)[0].(M)
			if c["uri"] != "file:///a.txt" || c["mimeType"] != "text/plain" || c["text"] != "A" {
				t.Errorf("contents %v", c)
			}
		}},
		{"R-RSRC-08 blob", "bin://logo", func(t *testing.T, w *Wire) {
			c := w.Result["contents"].([]any)[0].(M)
			if c["blob"] != "iVBORw0KGgo=" || c["mimeType"] != "image/png" {
				t.Errorf("contents %v", c)
			}
		}},
		{"template variables", "users://ann/profile", text("user ann")},
		{"template with several and exploded variables", "repo://acme/tool/file/src/main.go", text("acme|tool|src,main.go")},
		{"R-RSRC-03 unknown URI", "file:///missing.txt", notFound("file:///missing.txt")},
		{"R-RSRC-03 template handler ErrNotFound", "users://nobody/profile", notFound("users://nobody/profile")},
		{"R-RSRC-03 wrapped ErrNotFound", "gone://x", notFound("gone://x")},
		{"R-RSRC-04 empty contents become not found", "empty://x", notFound("empty://x")},
		{"R-RSRC-03 URI matching no template", "users://ann/settings", notFound("users://ann/settings")},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			rec := Post(t, h, Rpc(1, protocol.MethodResourcesRead, Params(M{"uri": c.uri})), nil)
			w := Single(t, rec)
			CheckCode(t, w.Code())
			if w.Error == nil && rec.Code != 200 {
				t.Errorf("status %d", rec.Code)
			}
			c.check(t, w)
		})
	}
	t.Run("resources/list and templates/list", func(t *testing.T) {
		w := Call(t, h, 1, protocol.MethodResourcesList, Params(nil))
		var uris []string
		for _, r := range w.Result["resources"].([]any) {
			uris = append(uris, r.(M)["uri"].(string))
		}
		if strings.Join(uris, " ") != "bin://logo empty://x file:///a.txt gone://x" {
			t.Errorf("resources %v", uris)
		}
		w = Call(t, h, 1, protocol.MethodResourcesTemplatesList, Params(nil))
		if n := len(w.Result["resourceTemplates"].([]any)); n != 2 {
			t.Errorf("%d templates", n)
		}
	})
	t.Run("registration checks", func(t *testing.T) {
		rh := func(context.Context, *server.Request, string, map[string]string) ([]protocol.ReadResourceResultContentsElem, error) {
			return nil, nil
		}
		if s.AddResource(protocol.Resource{Name: "x"}, rh) == nil {
			t.Error("resource without uri accepted")
		}
		if s.AddResource(protocol.Resource{URI: "x://y"}, rh) == nil {
			t.Error("resource without name accepted")
		}
		if s.AddResource(protocol.Resource{URI: "x://y", Name: "y"}, nil) == nil {
			t.Error("nil handler accepted")
		}
		if s.AddResourceTemplate(protocol.ResourceTemplate{URITemplate: "x://{unclosed", Name: "t"}, rh) == nil {
			t.Error("malformed template accepted")
		}
		if !s.RemoveResource("gone://x") || s.RemoveResource("gone://x") {
			t.Error("RemoveResource")
		}
	})
}

// TestPrompts covers prompts/get (R-PROMPT-03, R-PROMPT-08).
func TestPrompts(t *testing.T) {
	s := Fixture(t)
	h := Handler(s, streamhttp.Options{})
	cases := []struct {
		name string
		p    M
		code int64
		text string
	}{
		{"R-PROMPT-08 required argument given", Params(M{"name": "greet", "arguments": M{"who": "Ann"}}), 0, "Hello Ann"},
		{"R-PROMPT-03 unknown prompt is -32602", Params(M{"name": "nope"}), protocol.CodeInvalidParamsError, ""},
		{"R-PROMPT-03 missing required argument is -32602", Params(M{"name": "greet"}), protocol.CodeInvalidParamsError, ""},
		{"R-PROMPT-03 missing required argument among others is -32602", Params(M{"name": "greet", "arguments": M{"other": "x"}}), protocol.CodeInvalidParamsError, ""},
		{"R-PROMPT-08 non-string argument is -32602", Params(M{"name": "greet", "arguments": M{"who": 3}}), protocol.CodeInvalidParamsError, ""},
		{"non-ASCII prompt name", Params(M{"name": "grüße"}), 0, "Grüße"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			w := Call(t, h, 1, protocol.MethodPromptsGet, c.p)
			if w.Code() != c.code {
				t.Fatalf("code %d, want %d: %s", w.Code(), c.code, w.Raw)
			}
			if c.code != 0 {
				if w.Id() != "1" {
					t.Errorf("id %q", w.Id())
				}
				return
			}
			msgs, _ := w.Result["messages"].([]any)
			if len(msgs) != 1 {
				t.Fatalf("messages %v", w.Result["messages"])
			}
			m := msgs[0].(M)
			if m["role"] != "user" || m["content"].(M)["text"] != c.text {
				t.Errorf("message %v", m)
			}
		})
	}
	t.Run("messages never null", func(t *testing.T) {
		s := NewServer(t)
		AddPrompt(t, s, protocol.Prompt{Name: "empty"}, func(context.Context, *server.Request, map[string]string) (*protocol.GetPromptResult, error) {
			return &protocol.GetPromptResult{}, nil
		})
		AddPrompt(t, s, protocol.Prompt{Name: "nil"}, func(context.Context, *server.Request, map[string]string) (*protocol.GetPromptResult, error) {
			return nil, nil
		})
		h := Handler(s, streamhttp.Options{})
		if w := Call(t, h, 1, protocol.MethodPromptsGet, Params(M{"name": "empty"})); fmt.Sprint(w.Result["messages"]) != "[]" {
			t.Errorf("messages %s", w.Raw)
		}
		if w := Call(t, h, 1, protocol.MethodPromptsGet, Params(M{"name": "nil"})); w.Code() != protocol.CodeInternalError {
			t.Errorf("nil result: %s", w.Raw)
		}
		if s.AddPrompt(protocol.Prompt{}, func(context.Context, *server.Request, map[string]string) (*protocol.GetPromptResult, error) {
			return nil, nil
		}) == nil {
			t.Error("prompt without name accepted")
		}
		if !s.RemovePrompt("nil") || s.RemovePrompt("nil") {
			t.Error("RemovePrompt")
		}
	})
}

// TestCompletion covers completion/complete (R-COMP-01..03).
func TestCompletion(t *testing.T) {
	var values []string
	for i := 0; i < 150; i++ {
		values = append(values, fmt.Sprintf("v%03d", i))
	}
	s := NewServer(t, server.WithCompletion(func(_ context.Context, _ *server.Request, p *protocol.CompleteRequestParams) (*protocol.CompleteResult, error) {
		switch p.Argument.Value {
		case "many":
			return &protocol.CompleteResult{Completion: protocol.CompleteResultCompletion{Values: values}}, nil
		case "none":
			return nil, nil
		case "bad":
			return nil, server.InvalidParams("Unknown prompt", nil)
		case "boom":
			return nil, errors.New("index offline")
		}
		return &protocol.CompleteResult{Completion: protocol.CompleteResultCompletion{Values: []string{p.Argument.Value + "!"}}}, nil
	}))
	h := Handler(s, streamhttp.Options{})
	req := func(v string) M {
		return Params(M{"ref": M{"type": "ref/resource", "uri": "x://{a}"}, "argument": M{"name": "a", "value": v}})
	}
	t.Run("values", func(t *testing.T) {
		w := Call(t, h, 1, protocol.MethodCompletionComplete, req("x"))
		if fmt.Sprint(w.Result["completion"].(M)["values"]) != "[x!]" {
			t.Errorf("%s", w.Raw)
		}
	})
	t.Run("R-COMP-02 at most 100 values, hasMore set", func(t *testing.T) {
		w := Call(t, h, 1, protocol.MethodCompletionComplete, req("many"))
		c := w.Result["completion"].(M)
		if len(c["values"].([]any)) != 100 || c["hasMore"] != true {
			t.Errorf("values %d hasMore %v", len(c["values"].([]any)), c["hasMore"])
		}
	})
	t.Run("nil result is an empty completion", func(t *testing.T) {
		w := Call(t, h, 1, protocol.MethodCompletionComplete, req("none"))
		if fmt.Sprint(w.Result["completion"].(M)["values"]) != "[]" {
			t.Errorf("%s", w.Raw)
		}
	})
	t.Run("R-COMP-03 -32602 from the handler", func(t *testing.T) {
		if w := Call(t, h, 1, protocol.MethodCompletionComplete, req("bad")); w.Code() != protocol.CodeInvalidParamsError {
			t.Errorf("%s", w.Raw)
		}
	})
	t.Run("R-COMP-03 plain error is -32603", func(t *testing.T) {
		if w := Call(t, h, 1, protocol.MethodCompletionComplete, req("boom")); w.Code() != protocol.CodeInternalError {
			t.Errorf("%s", w.Raw)
		}
	})
	t.Run("invalid ref is -32602", func(t *testing.T) {
		w := Call(t, h, 1, protocol.MethodCompletionComplete, Params(M{"ref": M{"type": "ref/tool", "name": "x"}, "argument": M{"name": "a", "value": "v"}}))
		if w.Code() != protocol.CodeInvalidParamsError {
			t.Errorf("%s", w.Raw)
		}
	})
	t.Run("R-COMP-03 without WithCompletion: -32601 on both transports", func(t *testing.T) {
		s := Fixture(t)
		rec := Post(t, Handler(s, streamhttp.Options{}), Rpc(1, protocol.MethodCompletionComplete, req("x")), nil)
		if w := Single(t, rec); w.Code() != protocol.CodeMethodNotFoundError || rec.Code != 404 {
			t.Errorf("HTTP: %d %s", rec.Code, w.Raw)
		}
		out := Stdio(t, s, string(Rpc(1, protocol.MethodCompletionComplete, req("x"))))
		if len(out) != 1 || out[0].Code() != protocol.CodeMethodNotFoundError {
			t.Errorf("stdio: %v", out)
		}
	})
	t.Run("R-MRTR-02 a completion handler cannot return input_required", func(t *testing.T) {
		s := NewServer(t, server.WithCompletion(func(_ context.Context, r *server.Request, _ *protocol.CompleteRequestParams) (*protocol.CompleteResult, error) {
			return nil, r.AskInput(nil, []byte("x"))
		}))
		w := Call(t, Handler(s, streamhttp.Options{}), 1, protocol.MethodCompletionComplete, req("x"))
		if w.Code() != protocol.CodeInternalError {
			t.Errorf("%s", w.Raw)
		}
	})
}

// TestResourceURILimitAndLock checks that a resources/read URI is bounded
// (WithMaxURIBytes; -32602 over it, also in a listen filter) and that
// matching a long URI against the templates holds no lock: a registration
// queued behind a slow match, and every request behind that registration,
// would otherwise wait for it (hostile review D6).
func TestResourceURILimitAndLock(t *testing.T) {
	s := NewServer(t, server.WithMaxURIBytes(64))
	if err := s.AddResourceTemplate(protocol.ResourceTemplate{URITemplate: "t://{a}/{b}/x", Name: "t"},
		func(_ context.Context, _ *server.Request, uri string, vars map[string]string) ([]protocol.ReadResourceResultContentsElem, error) {
			return server.TextContents(uri, "", vars["a"]), nil
		}); err != nil {
		t.Fatal(err)
	}
	h := Handler(s, streamhttp.Options{})
	ok := "t://" + strings.Repeat("a", 64-len("t:///b/x")) + "/b/x"
	if w := Call(t, h, 1, protocol.MethodResourcesRead, Params(M{"uri": ok})); w.Error != nil {
		t.Fatalf("a URI of exactly the limit: %s", w.Raw)
	}
	long := "t://" + strings.Repeat("a", 65) + "/b/x"
	w := Call(t, h, 2, protocol.MethodResourcesRead, Params(M{"uri": long}))
	if w.Code() != protocol.CodeInvalidParamsError || !strings.Contains(string(w.Raw), "more than the limit of 64") {
		t.Errorf("a URI over the limit: %s", w.Raw)
	}
	rec := Post(t, h, Rpc(3, protocol.MethodSubscriptionsListen, Params(M{"notifications": M{"resourceSubscriptions": []string{ok, long}}})), nil)
	if w := Single(t, rec); w.Code() != protocol.CodeInvalidParamsError || !strings.Contains(string(w.Raw), "resourceSubscriptions[1] has") {
		t.Errorf("a listen filter with a URI over the limit: %d %s", rec.Code, w.Raw)
	}

	// The match runs outside the lock. Fifty templates that each scan the
	// whole URI before failing make one read of a long URI slow; a
	// registration made meanwhile (it takes the write lock) must finish
	// while that read is still matching, instead of waiting for it.
	s2 := NewServer(t)
	for i := range 50 {
		if err := s2.AddResourceTemplate(protocol.ResourceTemplate{URITemplate: fmt.Sprintf("slow://{x}/end%d", i), Name: "slow"},
			func(_ context.Context, _ *server.Request, uri string, _ map[string]string) ([]protocol.ReadResourceResultContentsElem, error) {
				return server.TextContents(uri, "", "ok"), nil
			}); err != nil {
			t.Fatal(err)
		}
	}
	uri := "slow://" + strings.Repeat("x", server.DefaultMaxURIBytes-len("slow://"))
	h2 := Handler(s2, streamhttp.Options{})
	done := make(chan *Wire, 1)
	start := time.Now()
	go func() { done <- Call(t, h2, 1, protocol.MethodResourcesRead, Params(M{"uri": uri})) }()
	time.Sleep(20 * time.Millisecond) // the read has its snapshot and is matching
	added := time.Now()
	AddTool(t, s2, `{"name":"late","inputSchema":{"type":"object"}}`, TextTool("late"))
	addTook := time.Since(added)
	w = <-done
	readTook := time.Since(start)
	// A ratio within one run, not a timing: with the lock held while
	// matching, the registration takes nearly the whole read.
	if addTook*5 > readTook {
		t.Errorf("a registration during a long template match took %v of the read's %v: it waited for the match", addTook, readTook)
	}
	if w.Code() != protocol.CodeInvalidParamsError {
		t.Errorf("no template matches: %s", w.Raw)
	}
}
