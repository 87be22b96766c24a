package server_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	. "github.com/mcpwire/mcpwire/server/internal/testkit"
	"github.com/mcpwire/mcpwire/server/streamhttp"
	"github.com/mcpwire/mcpwire/server/typed"

	"github.com/mcpwire/mcpwire/protocol"
	"github.com/mcpwire/mcpwire/server"
)

// TestRequestAccessors checks what a handler sees of its request: it comes
// from this request's _meta only (R-META-02, R-META-05, R-STATE-01).
func TestRequestAccessors(t *testing.T) {
	s := NewServer(t)
	AddTool(t, s, `{"name":"who","inputSchema":{"type":"object"}}`, func(ctx context.Context, r *server.Request, _ json.RawMessage) (*protocol.CallToolResult, error) {
		fromCtx, ok := server.RequestFrom(ctx)
		info, hasInfo := r.ClientInfo()
		caps := r.ClientCapabilities()
		return server.TextResult(fmt.Sprintf("ctx=%v same=%v method=%s id=%s version=%s info=%v:%s elicitation=%v",
			ok, fromCtx == r, r.Method, r.ID, r.ProtocolVersion(), hasInfo, info.Name, caps.Elicitation != nil)), nil
	})
	h := Handler(s, streamhttp.Options{})
	w := Call(t, h, "r1", protocol.MethodToolsCall, WithMeta(Meta("io.modelcontextprotocol/clientInfo", M{"name": "cli", "version": "2"}, KeyCaps, M{"elicitation": M{}}), M{"name": "who"}))
	if got := w.Text(t, 0); got != "ctx=true same=true method=tools/call id=r1 version="+Rev+" info=true:cli elicitation=true" {
		t.Errorf("got %q", got)
	}
	w = Call(t, h, 2, protocol.MethodToolsCall, Params(M{"name": "who"}))
	if got := w.Text(t, 0); got != "ctx=true same=true method=tools/call id=2 version="+Rev+" info=false: elicitation=false" {
		t.Errorf("R-META-02: capabilities leaked from the previous request: %q", got)
	}
	if _, ok := server.RequestFrom(context.Background()); ok {
		t.Error("RequestFrom on a bare context")
	}
}

// TestContentHelpers checks that every content helper encodes into a
// valid result (R-TOOL-08, R-PROMPT-05, R-PROMPT-06).
func TestContentHelpers(t *testing.T) {
	s := NewServer(t)
	AddTool(t, s, `{"name":"all","inputSchema":{"type":"object"}}`, func(context.Context, *server.Request, json.RawMessage) (*protocol.CallToolResult, error) {
		return &protocol.CallToolResult{Content: []protocol.ContentBlock{
			server.Text("t"), server.Image("iVBORw0KGgo=", "image/png"), server.Audio("UklGRg==", "audio/wav"),
			server.EmbeddedText("file:///a.txt", "text/plain", "A"), server.EmbeddedText("file:///b.txt", "", "B"),
		}}, nil
	})
	AddTool(t, s, `{"name":"form","inputSchema":{"type":"object"}}`, func(_ context.Context, r *server.Request, _ json.RawMessage) (*protocol.CallToolResult, error) {
		return nil, r.AskInput(map[string]protocol.InputRequest{
			"f": server.ElicitForm("Confirm?", map[string]protocol.PrimitiveSchemaDefinition{"ok": server.BoolField("yes or no"), "why": server.StringField("")}, "ok"),
		}, nil)
	})
	h := Handler(s, streamhttp.Options{})
	w := Call(t, h, 1, protocol.MethodToolsCall, Params(M{"name": "all"}))
	var types []string
	for _, c := range w.Result["content"].([]any) {
		types = append(types, c.(M)["type"].(string))
	}
	if strings.Join(types, ",") != "text,image,audio,resource,resource" {
		t.Errorf("types %v: %s", types, w.Raw)
	}
	w = Call(t, h, 2, protocol.MethodToolsCall, WithMeta(Meta(KeyCaps, M{"elicitation": M{}}), M{"name": "form"}))
	schema := w.Result["inputRequests"].(M)["f"].(M)["params"].(M)["requestedSchema"].(M)
	props := schema["properties"].(M)
	if props["ok"].(M)["type"] != "boolean" || props["ok"].(M)["description"] != "yes or no" || props["why"].(M)["type"] != "string" {
		t.Errorf("R-ELIC-04: requestedSchema %v", schema)
	}
	if _, has := props["why"].(M)["description"]; has {
		t.Error("empty description written")
	}
}

// TestBrokenResults checks results and errors the schema forbids: the
// client gets -32603, never an invalid message (R-BASE-08).
func TestBrokenResults(t *testing.T) {
	s := NewServer(t)
	AddTool(t, s, `{"name":"nilblock","inputSchema":{"type":"object"}}`, func(context.Context, *server.Request, json.RawMessage) (*protocol.CallToolResult, error) {
		return &protocol.CallToolResult{Content: []protocol.ContentBlock{{}}}, nil
	})
	AddTool(t, s, `{"name":"baddata","inputSchema":{"type":"object"}}`, func(context.Context, *server.Request, json.RawMessage) (*protocol.CallToolResult, error) {
		return nil, &server.Error{Code: protocol.CodeInvalidParamsError, Message: "bad", Data: json.RawMessage(`{not json`)}
	})
	AddTool(t, s, `{"name":"badstruct","inputSchema":{"type":"object"}}`, func(context.Context, *server.Request, json.RawMessage) (*protocol.CallToolResult, error) {
		return &protocol.CallToolResult{Content: []protocol.ContentBlock{}, StructuredContent: json.RawMessage(`{"a":`)}, nil
	})
	h := Handler(s, streamhttp.Options{})
	if w := Call(t, h, 1, protocol.MethodToolsCall, Params(M{"name": "nilblock"})); w.Code() != protocol.CodeInternalError || w.Id() != "1" {
		t.Errorf("empty content block: %s", w.Raw)
	}
	if w := Call(t, h, 2, protocol.MethodToolsCall, Params(M{"name": "baddata"})); w.Code() != protocol.CodeInvalidParamsError || w.Error.Data != nil {
		t.Errorf("invalid error data: %s", w.Raw)
	}
	if w := Call(t, h, 3, protocol.MethodToolsCall, Params(M{"name": "badstruct"})); w.Code() != protocol.CodeInternalError {
		t.Errorf("invalid structuredContent: %s", w.Raw)
	}
}

// TestErrorHelpers checks the exported error constructors and HTTPStatus
// (R-HTTP-15, R-VER-02, R-META-01/03, A2).
func TestErrorHelpers(t *testing.T) {
	cases := []struct {
		err    *server.Error
		code   int64
		status int
	}{
		{server.InvalidParams("x", map[string]string{"uri": "u"}), protocol.CodeInvalidParamsError, 400},
		{server.InternalError("x"), protocol.CodeInternalError, 500},
		{server.MethodNotFound("x/y"), protocol.CodeMethodNotFoundError, 404},
		{server.MissingCapability(protocol.ClientCapabilities{}), protocol.CodeMissingRequiredClientCapabilityError, 400},
		{server.HeaderMismatch("x"), protocol.CodeHeaderMismatchError, 400},
		{&server.Error{Code: protocol.CodeUnsupportedProtocolVersionError}, protocol.CodeUnsupportedProtocolVersionError, 400},
		{&server.Error{Code: 1234}, 1234, 400},
	}
	for _, c := range cases {
		if c.err.Code != c.code || c.err.HTTPStatus() != c.status {
			t.Errorf("%v: code %d status %d", c.err, c.err.Code, c.err.HTTPStatus())
		}
		if !strings.Contains(c.err.Error(), fmt.Sprint(c.code)) {
			t.Errorf("Error() %q", c.err.Error())
		}
	}
	if d := string(server.InvalidParams("x", map[string]string{"uri": "u"}).Data); d != `{"uri":"u"}` {
		t.Errorf("data %s", d)
	}
	if d := string(server.InvalidParams("x", json.RawMessage(`[1]`)).Data); d != `[1]` {
		t.Errorf("raw data %s", d)
	}
	if server.InvalidParams("x", func() {}).Data != nil {
		t.Error("unencodable data kept")
	}
	wrapped := fmt.Errorf("ctx: %w", server.InvalidParams("x", nil))
	if !errors.Is(wrapped, &server.Error{Code: protocol.CodeInvalidParamsError}) || errors.Is(wrapped, &server.Error{Code: protocol.CodeInternalError}) {
		t.Error("errors.Is by code")
	}
}

// TestSSEErrorAfterNotifications checks that a handler that notifies and
// then fails ends its event stream with the error response (R-HTTP-10).
func TestSSEErrorAfterNotifications(t *testing.T) {
	s := NewServer(t)
	AddTool(t, s, `{"name":"t","inputSchema":{"type":"object"}}`, func(ctx context.Context, r *server.Request, _ json.RawMessage) (*protocol.CallToolResult, error) {
		r.Log(ctx, protocol.LoggingLevelInfo, "", json.RawMessage(`"starting"`))
		return nil, server.InvalidParams("no", nil)
	})
	rec := Post(t, Handler(s, streamhttp.Options{}), Rpc(1, protocol.MethodToolsCall, WithMeta(Meta(KeyLogLevel, "info"), M{"name": "t"})), nil)
	if rec.Header().Get("Content-Type") != "text/event-stream" {
		t.Fatalf("Content-Type %q", rec.Header().Get("Content-Type"))
	}
	msgs := SseMessages(t, rec.Body.Bytes())
	if len(msgs) != 2 || msgs[1].Code() != protocol.CodeInvalidParamsError || msgs[1].Id() != "1" {
		t.Errorf("events %q", rec.Body.String())
	}
}

// TestConcurrentRegistration registers and removes while requests run
// (R-STATE-02; run with -race).
func TestConcurrentRegistration(t *testing.T) {
	s := Fixture(t)
	h := Handler(s, streamhttp.Options{})
	var wg sync.WaitGroup
	for g := 0; g < 4; g++ {
		wg.Add(2)
		go func(g int) {
			defer wg.Done()
			for i := 0; i < 20; i++ {
				name := fmt.Sprintf("t%d_%d", g, i)
				if err := s.AddTool(protocol.Tool{Name: name}, TextTool(name)); err != nil {
					t.Error(err)
					return
				}
				s.RemoveTool(name)
			}
		}(g)
		go func() {
			defer wg.Done()
			for i := 0; i < 20; i++ {
				for _, b := range [][]byte{
					Rpc(i, protocol.MethodToolsList, Params(nil)),
					Rpc(i, protocol.MethodToolsCall, Params(M{"name": "echo", "arguments": M{"text": "x"}})),
					Rpc(i, protocol.MethodServerDiscover, Params(nil)),
				} {
					if rec := Post(t, h, b, nil); rec.Code != http.StatusOK {
						t.Errorf("status %d: %s", rec.Code, rec.Body.Bytes())
					}
				}
			}
		}()
	}
	wg.Wait()
}

// TestAddTypedToolShapes checks AddTypedTool with types whose schemas are
// not objects: the input must be an object (R-SCHEMA-09), the output may
// be any schema (R-TOOL-08).
func TestAddTypedToolShapes(t *testing.T) {
	s := NewServer(t)
	if err := typed.AddTool(s, protocol.Tool{Name: "str"}, func(context.Context, *server.Request, string) (string, error) { return "", nil }); err == nil {
		t.Error("R-SCHEMA-09: a string input type was accepted")
	}
	type in struct {
		N int `json:"n"`
	}
	if err := typed.AddTool(s, protocol.Tool{Name: "list"}, func(_ context.Context, _ *server.Request, v in) ([]int, error) {
		return []int{v.N, v.N}, nil
	}); err != nil {
		t.Fatal(err)
	}
	w := Call(t, Handler(s, streamhttp.Options{}), 1, protocol.MethodToolsCall, Params(M{"name": "list", "arguments": M{"n": 3}}))
	if fmt.Sprint(w.Result["structuredContent"]) != "[3 3]" {
		t.Errorf("%s", w.Raw)
	}
	if err := typed.AddTool(NewServer(t, server.WithStrictNames()), protocol.Tool{Name: "bad name"}, func(context.Context, *server.Request, in) (int, error) { return 0, nil }); err == nil {
		t.Error("R-TOOL-04: bad name accepted by AddTypedTool under WithStrictNames")
	}
}

// TestListsFollowRegistration: the lists' sorted names are cached between
// changes, so every add and remove must show in the next list, in order.
func TestListsFollowRegistration(t *testing.T) {
	s := NewServer(t)
	h := Handler(s, streamhttp.Options{})
	rh := func(context.Context, *server.Request, string, map[string]string) ([]protocol.ReadResourceResultContentsElem, error) {
		return nil, nil
	}
	ph := func(context.Context, *server.Request, map[string]string) (*protocol.GetPromptResult, error) {
		return nil, nil
	}
	names := func(method, member, key string) string {
		t.Helper()
		w := Call(t, h, 1, method, Params(nil))
		var out []string
		for _, x := range w.Result[member].([]any) {
			out = append(out, x.(M)[key].(string))
		}
		return strings.Join(out, ",")
	}
	steps := []struct {
		change func()
		want   string
	}{
		{func() {}, ""},
		{func() {
			_ = s.AddTool(protocol.Tool{Name: "c"}, TextTool("c"))
			_ = s.AddTool(protocol.Tool{Name: "a"}, TextTool("a"))
		}, "a,c"},
		{func() { _ = s.AddTool(protocol.Tool{Name: "b"}, TextTool("b")) }, "a,b,c"},
		{func() { s.RemoveTool("a") }, "b,c"},
		{func() { s.RemoveTool("zz") }, "b,c"},
	}
	for i, st := range steps {
		st.change()
		if got := names(protocol.MethodToolsList, "tools", "name"); got != st.want {
			t.Errorf("tools step %d: got %q, want %q", i, got, st.want)
		}
		if got := names(protocol.MethodToolsList, "tools", "name"); got != st.want {
			t.Errorf("tools step %d, listed again: got %q, want %q", i, got, st.want)
		}
	}
	_ = s.AddPrompt(protocol.Prompt{Name: "q"}, ph)
	_ = names(protocol.MethodPromptsList, "prompts", "name")
	_ = s.AddPrompt(protocol.Prompt{Name: "p"}, ph)
	if got := names(protocol.MethodPromptsList, "prompts", "name"); got != "p,q" {
		t.Errorf("prompts after add: %q", got)
	}
	s.RemovePrompt("q")
	if got := names(protocol.MethodPromptsList, "prompts", "name"); got != "p" {
		t.Errorf("prompts after remove: %q", got)
	}
	_ = s.AddResource(protocol.Resource{URI: "x://2", Name: "two"}, rh)
	_ = names(protocol.MethodResourcesList, "resources", "uri")
	_ = s.AddResource(protocol.Resource{URI: "x://1", Name: "one"}, rh)
	if got := names(protocol.MethodResourcesList, "resources", "uri"); got != "x://1,x://2" {
		t.Errorf("resources after add: %q", got)
	}
	s.RemoveResource("x://2")
	if got := names(protocol.MethodResourcesList, "resources", "uri"); got != "x://1" {
		t.Errorf("resources after remove: %q", got)
	}
}

// TestHandlerContextAfterReturn checks that the handler's context keeps
// the context.Context contract once the handler has returned: Done is
// never nil, it is closed once Err is non-nil, and a goroutine the handler
// left waiting on it wakes up (issue 9, item 7). It covers a goroutine
// that asked for Done before the handler returned and one that asks
// after, with and without the handler deadline, over HTTP and stdio.
func TestHandlerContextAfterReturn(t *testing.T) {
	for _, timeout := range []time.Duration{server.DefaultHandlerTimeout, 0} {
		for _, early := range []bool{true, false} {
			t.Run(fmt.Sprintf("timeout=%v/early=%v", timeout, early), func(t *testing.T) {
				s := NewServer(t, server.WithHandlerTimeout(timeout))
				woke := make(chan string, 2)
				AddTool(t, s, `{"name":"leaver","inputSchema":{"type":"object"}}`, func(ctx context.Context, _ *server.Request, _ json.RawMessage) (*protocol.CallToolResult, error) {
					var done <-chan struct{}
					if early {
						done = ctx.Done()
						if done == nil {
							return nil, errors.New("Done is nil while the handler runs")
						}
					}
					go func() {
						d := done
						if d == nil {
							time.Sleep(10 * time.Millisecond) // after the handler returned
							d = ctx.Done()
						}
						if d == nil {
							woke <- "Done returned nil"
							return
						}
						select {
						case <-d:
							if ctx.Err() == nil {
								woke <- "Done closed while Err is nil"
								return
							}
							woke <- "ok"
						case <-time.After(5 * time.Second):
							woke <- "Done not closed 5 s after the response"
						}
					}()
					return server.TextResult("bye"), nil
				})
				check := func(transport string) {
					select {
					case got := <-woke:
						if got != "ok" {
							t.Errorf("%s: %s", transport, got)
						}
					case <-time.After(10 * time.Second):
						t.Fatalf("%s: the handler's goroutine never reported", transport)
					}
				}
				w := Call(t, Handler(s, streamhttp.Options{}), 1, protocol.MethodToolsCall, Params(M{"name": "leaver"}))
				if got := w.Text(t, 0); got != "bye" {
					t.Fatalf("HTTP: got %q", got)
				}
				check("HTTP")
				in := string(Rpc(2, protocol.MethodToolsCall, Params(M{"name": "leaver"}))) + "\n"
				var out strings.Builder
				if err := ServeStdio(context.Background(), s, strings.NewReader(in), &out); err != nil {
					t.Fatal(err)
				}
				check("stdio")
			})
		}
	}
}
