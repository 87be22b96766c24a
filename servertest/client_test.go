package servertest_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"testing"

	"github.com/mcpwire/mcpwire/protocol"
	"github.com/mcpwire/mcpwire/server"
	"github.com/mcpwire/mcpwire/servertest"
)

func mustUnmarshal[T any](t testing.TB, s string) T {
	t.Helper()
	var v T
	if err := protocol.Unmarshal([]byte(s), &v); err != nil {
		t.Fatalf("%s: %v", s, err)
	}
	return v
}

func newServer(t testing.TB, opts ...server.Option) *server.Server {
	t.Helper()
	s, err := server.New(protocol.Implementation{Name: "servertest-test", Version: "1"}, opts...)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func addTool(t testing.TB, s *server.Server, name string, h server.ToolHandler) {
	t.Helper()
	def := mustUnmarshal[protocol.Tool](t, `{"name":"`+name+`","inputSchema":{"type":"object"}}`)
	if err := s.AddTool(def, h); err != nil {
		t.Fatal(err)
	}
}

func text(t testing.TB, res *protocol.CallToolResult) string {
	t.Helper()
	if len(res.Content) != 1 {
		t.Fatalf("content %d blocks, want 1", len(res.Content))
	}
	tc, ok := res.Content[0].Value.(*protocol.TextContent)
	if !ok {
		t.Fatalf("content %T, want text", res.Content[0].Value)
	}
	return tc.Text
}

// TestCallToolSeesRequest: the handler gets the arguments, the principal
// (through streamhttp.Options.Authenticate), the clientInfo, capabilities
// and extra _meta of the call, per call over the Client's defaults
// (R-META-01: every 2026-07-28 request carries its own _meta).
func TestCallToolSeesRequest(t *testing.T) {
	s := newServer(t)
	addTool(t, s, "echo", func(_ context.Context, r *server.Request, args json.RawMessage) (*protocol.CallToolResult, error) {
		var a struct{ Text string }
		_ = json.Unmarshal(args, &a)
		info := ""
		if r.Meta.ClientInfo != nil {
			info = r.Meta.ClientInfo.Name
		}
		traceRaw, _ := r.Meta.Extra.Get("example.com/trace")
		trace := string(traceRaw)
		return server.TextResult(fmt.Sprintf("%s|%s|%s|%s|elicit=%v|sample=%v", a.Text, r.Principal, info, r.ProtocolVersion(),
			r.Meta.ClientCapabilities.Elicitation != nil, r.Meta.ClientCapabilities.Sampling != nil) + "|" + trace), nil
	})
	c := servertest.New(s, servertest.WithPrincipal("alice"), servertest.WithClientInfo(protocol.Implementation{Name: "my-test", Version: "2"}))
	ctx := context.Background()

	res, err := c.CallTool(ctx, "echo", map[string]string{"text": "hi"})
	if err != nil {
		t.Fatal(err)
	}
	if got, want := text(t, res), "hi|alice|my-test|"+protocol.Revision+"|elicit=false|sample=false|"; got != want {
		t.Errorf("got %q, want %q", got, want)
	}

	res, err = c.CallTool(ctx, "echo", map[string]string{"text": "again"},
		servertest.WithPrincipal("bob"),
		servertest.WithCapabilities(protocol.ClientCapabilities{Sampling: &protocol.ClientCapabilitiesSampling{}}),
		servertest.WithMeta("example.com/trace", "t-1"))
	if err != nil {
		t.Fatal(err)
	}
	if got, want := text(t, res), `again|bob|my-test|`+protocol.Revision+`|elicit=false|sample=true|"t-1"`; got != want {
		t.Errorf("got %q, want %q", got, want)
	}
}

// TestErrors: a JSON-RPC error is an *Error with its code and the HTTP
// status, and matches a *server.Error of that code with errors.Is.
func TestErrors(t *testing.T) {
	s := newServer(t)
	addTool(t, s, "fail", func(context.Context, *server.Request, json.RawMessage) (*protocol.CallToolResult, error) {
		return nil, &server.Error{Code: protocol.CodeInvalidParamsError, Message: "custom failure", Data: json.RawMessage(`{"why":"test"}`)}
	})
	c := servertest.New(s)
	ctx := context.Background()

	_, err := c.CallTool(ctx, "fail", nil)
	var e *servertest.Error
	if !errors.As(err, &e) {
		t.Fatalf("err %v (%T), want *servertest.Error", err, err)
	}
	if e.Code != protocol.CodeInvalidParamsError || e.Message != "custom failure" || string(e.Data) != `{"why":"test"}` || e.Status == 0 {
		t.Errorf("got %+v", e)
	}
	if !errors.Is(err, &server.Error{Code: protocol.CodeInvalidParamsError}) {
		t.Error("errors.Is with *server.Error of the same code is false")
	}

	// An unknown tool: -32602 (R-TOOL-07).
	_, err = c.CallTool(ctx, "nope", nil)
	if !errors.As(err, &e) || e.Code != protocol.CodeInvalidParamsError {
		t.Errorf("unknown tool: %v", err)
	}

	// An unsupported protocol version is refused by the HTTP layer
	// (header and _meta agree, so it is the version itself).
	_, err = c.CallTool(ctx, "fail", nil, servertest.WithProtocolVersion("2099-01-01"))
	if !errors.As(err, &e) || e.Status != http.StatusBadRequest {
		t.Errorf("unsupported version: %v", err)
	}
}

// TestListToolsAllPages follows nextCursor (R-PAGE-01) through pages of 2.
func TestListToolsAllPages(t *testing.T) {
	s := newServer(t, server.WithPageSize(2))
	for i := range 5 {
		addTool(t, s, fmt.Sprintf("t%d", i), func(context.Context, *server.Request, json.RawMessage) (*protocol.CallToolResult, error) {
			return server.TextResult(""), nil
		})
	}
	tools, err := servertest.New(s).ListTools(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, tl := range tools {
		names = append(names, tl.Name)
	}
	if got := strings.Join(names, ","); got != "t0,t1,t2,t3,t4" {
		t.Errorf("tools %s", got)
	}
}

// TestPromptResourceComplete covers GetPrompt, ReadResource and Complete.
func TestPromptResourceComplete(t *testing.T) {
	s := newServer(t, server.WithCompletion(func(_ context.Context, _ *server.Request, p *protocol.CompleteRequestParams) (*protocol.CompleteResult, error) {
		ref := ""
		if pr, ok := p.Ref.Value.(*protocol.PromptReference); ok {
			ref = pr.Name
		}
		ctxArg := ""
		if p.Context != nil {
			ctxArg = p.Context.Arguments["lang"]
		}
		return &protocol.CompleteResult{Completion: protocol.CompleteResultCompletion{Values: []string{ref + ":" + p.Argument.Name + "=" + p.Argument.Value + ":" + ctxArg}}}, nil
	}))
	if err := s.AddPrompt(mustUnmarshal[protocol.Prompt](t, `{"name":"greet","arguments":[{"name":"who"}]}`),
		func(_ context.Context, _ *server.Request, args map[string]string) (*protocol.GetPromptResult, error) {
			return &protocol.GetPromptResult{Messages: []protocol.PromptMessage{{Role: protocol.RoleUser, Content: server.Text("Hello " + args["who"])}}}, nil
		}); err != nil {
		t.Fatal(err)
	}
	if err := s.AddResource(mustUnmarshal[protocol.Resource](t, `{"name":"note","uri":"note://today"}`),
		func(_ context.Context, _ *server.Request, uri string, _ map[string]string) ([]protocol.ReadResourceResultContentsElem, error) {
			return []protocol.ReadResourceResultContentsElem{{Value: &protocol.TextResourceContents{URI: uri, Text: "milk"}}}, nil
		}); err != nil {
		t.Fatal(err)
	}
	c := servertest.New(s)
	ctx := context.Background()

	p, err := c.GetPrompt(ctx, "greet", map[string]string{"who": "Ann"})
	if err != nil {
		t.Fatal(err)
	}
	if len(p.Messages) != 1 || p.Messages[0].Content.Value.(*protocol.TextContent).Text != "Hello Ann" {
		t.Errorf("prompt %+v", p.Messages)
	}

	r, err := c.ReadResource(ctx, "note://today")
	if err != nil {
		t.Fatal(err)
	}
	if len(r.Contents) != 1 || r.Contents[0].Value.(*protocol.TextResourceContents).Text != "milk" {
		t.Errorf("resource %+v", r.Contents)
	}
	if _, err := c.ReadResource(ctx, "note://other"); err == nil {
		t.Error("unknown resource: no error")
	}

	cr, err := c.Complete(ctx, protocol.CompleteRequestParamsRef{Value: &protocol.PromptReference{Name: "greet"}}, "who", "A", map[string]string{"lang": "en"})
	if err != nil {
		t.Fatal(err)
	}
	if got := strings.Join(cr.Completion.Values, ","); got != "greet:who=A:en" {
		t.Errorf("completion %q", got)
	}
}

// TestConcurrentCalls: one Client is used from many goroutines at once
// (run under -race), each call with its own principal.
func TestConcurrentCalls(t *testing.T) {
	s := newServer(t)
	addTool(t, s, "who", func(_ context.Context, r *server.Request, _ json.RawMessage) (*protocol.CallToolResult, error) {
		return server.TextResult(r.Principal), nil
	})
	c := servertest.New(s)
	errs := make(chan error, 16)
	for i := range 16 {
		go func() {
			p := fmt.Sprintf("p%d", i)
			res, err := c.CallTool(context.Background(), "who", nil, servertest.WithPrincipal(p))
			if err == nil && res.Content[0].Value.(*protocol.TextContent).Text != p {
				err = fmt.Errorf("call as %s answered %s", p, res.Content[0].Value.(*protocol.TextContent).Text)
			}
			errs <- err
		}()
	}
	for range 16 {
		if err := <-errs; err != nil {
			t.Error(err)
		}
	}
}
