package server

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

	"github.com/mcpwire/mcpwire/protocol"
)

// TestRequestAccessors checks what a handler sees of its request: it comes
// from this request's _meta only (R-META-02, R-META-05, R-STATE-01).
func TestRequestAccessors(t *testing.T) {
	s := newServer(t)
	addTool(t, s, `{"name":"who","inputSchema":{"type":"object"}}`, func(ctx context.Context, r *Request, _ json.RawMessage) (*protocol.CallToolResult, error) {
		fromCtx, ok := RequestFrom(ctx)
		info, hasInfo := r.ClientInfo()
		caps := r.ClientCapabilities()
		return TextResult(fmt.Sprintf("ctx=%v same=%v method=%s id=%s version=%s info=%v:%s elicitation=%v",
			ok, fromCtx == r, r.Method, r.ID, r.ProtocolVersion(), hasInfo, info.Name, caps.Elicitation != nil)), nil
	})
	h := s.Handler(HTTPOptions{})
	w := call(t, h, "r1", protocol.MethodToolsCall, withMeta(meta("io.modelcontextprotocol/clientInfo", M{"name": "cli", "version": "2"}, keyCaps, M{"elicitation": M{}}), M{"name": "who"}))
	if got := w.text(t, 0); got != "ctx=true same=true method=tools/call id=r1 version="+rev+" info=true:cli elicitation=true" {
		t.Errorf("got %q", got)
	}
	w = call(t, h, 2, protocol.MethodToolsCall, params(M{"name": "who"}))
	if got := w.text(t, 0); got != "ctx=true same=true method=tools/call id=2 version="+rev+" info=false: elicitation=false" {
		t.Errorf("R-META-02: capabilities leaked from the previous request: %q", got)
	}
	if _, ok := RequestFrom(context.Background()); ok {
		t.Error("RequestFrom on a bare context")
	}
}

// TestContentHelpers checks that every content helper encodes into a
// valid result (R-TOOL-08, R-PROMPT-05, R-PROMPT-06).
func TestContentHelpers(t *testing.T) {
	s := newServer(t)
	addTool(t, s, `{"name":"all","inputSchema":{"type":"object"}}`, func(context.Context, *Request, json.RawMessage) (*protocol.CallToolResult, error) {
		return &protocol.CallToolResult{Content: []protocol.ContentBlock{
			Text("t"), Image("iVBORw0KGgo=", "image/png"), Audio("UklGRg==", "audio/wav"),
			EmbeddedText("file:///a.txt", "text/plain", "A"), EmbeddedText("file:///b.txt", "", "B"),
		}}, nil
	})
	addTool(t, s, `{"name":"form","inputSchema":{"type":"object"}}`, func(_ context.Context, r *Request, _ json.RawMessage) (*protocol.CallToolResult, error) {
		return nil, r.AskInput(map[string]protocol.InputRequest{
			"f": ElicitForm("Confirm?", map[string]protocol.PrimitiveSchemaDefinition{"ok": BoolField("yes or no"), "why": StringField("")}, "ok"),
		}, nil)
	})
	h := s.Handler(HTTPOptions{})
	w := call(t, h, 1, protocol.MethodToolsCall, params(M{"name": "all"}))
	var types []string
	for _, c := range w.Result["content"].([]any) {
		types = append(types, c.(M)["type"].(string))
	}
	if strings.Join(types, ",") != "text,image,audio,resource,resource" {
		t.Errorf("types %v: %s", types, w.raw)
	}
	w = call(t, h, 2, protocol.MethodToolsCall, withMeta(meta(keyCaps, M{"elicitation": M{}}), M{"name": "form"}))
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
	s := newServer(t)
	addTool(t, s, `{"name":"nilblock","inputSchema":{"type":"object"}}`, func(context.Context, *Request, json.RawMessage) (*protocol.CallToolResult, error) {
		return &protocol.CallToolResult{Content: []protocol.ContentBlock{{}}}, nil
	})
	addTool(t, s, `{"name":"baddata","inputSchema":{"type":"object"}}`, func(context.Context, *Request, json.RawMessage) (*protocol.CallToolResult, error) {
		return nil, &Error{Code: protocol.CodeInvalidParamsError, Message: "bad", Data: json.RawMessage(`{not json`)}
	})
	addTool(t, s, `{"name":"badstruct","inputSchema":{"type":"object"}}`, func(context.Context, *Request, json.RawMessage) (*protocol.CallToolResult, error) {
		return &protocol.CallToolResult{Content: []protocol.ContentBlock{}, StructuredContent: json.RawMessage(`{"a":`)}, nil
	})
	h := s.Handler(HTTPOptions{})
	if w := call(t, h, 1, protocol.MethodToolsCall, params(M{"name": "nilblock"})); w.code() != protocol.CodeInternalError || w.id() != "1" {
		t.Errorf("empty content block: %s", w.raw)
	}
	if w := call(t, h, 2, protocol.MethodToolsCall, params(M{"name": "baddata"})); w.code() != protocol.CodeInvalidParamsError || w.Error.Data != nil {
		t.Errorf("invalid error data: %s", w.raw)
	}
	if w := call(t, h, 3, protocol.MethodToolsCall, params(M{"name": "badstruct"})); w.code() != protocol.CodeInternalError {
		t.Errorf("invalid structuredContent: %s", w.raw)
	}
}

// TestErrorHelpers checks the exported error constructors and HTTPStatus
// (R-HTTP-15, R-VER-02, R-META-01/03, A2).
func TestErrorHelpers(t *testing.T) {
	cases := []struct {
		err    *Error
		code   int64
		status int
	}{
		{InvalidParams("x", map[string]string{"uri": "u"}), protocol.CodeInvalidParamsError, 400},
		{InternalError("x"), protocol.CodeInternalError, 500},
		{MethodNotFound("x/y"), protocol.CodeMethodNotFoundError, 404},
		{MissingCapability(protocol.ClientCapabilities{}), protocol.CodeMissingRequiredClientCapabilityError, 400},
		{HeaderMismatch("x"), protocol.CodeHeaderMismatchError, 400},
		{&Error{Code: protocol.CodeUnsupportedProtocolVersionError}, protocol.CodeUnsupportedProtocolVersionError, 400},
		{&Error{Code: 1234}, 1234, 400},
	}
	for _, c := range cases {
		if c.err.Code != c.code || c.err.HTTPStatus() != c.status {
			t.Errorf("%v: code %d status %d", c.err, c.err.Code, c.err.HTTPStatus())
		}
		if !strings.Contains(c.err.Error(), fmt.Sprint(c.code)) {
			t.Errorf("Error() %q", c.err.Error())
		}
	}
	if d := string(InvalidParams("x", map[string]string{"uri": "u"}).Data); d != `{"uri":"u"}` {
		t.Errorf("data %s", d)
	}
	if d := string(InvalidParams("x", json.RawMessage(`[1]`)).Data); d != `[1]` {
		t.Errorf("raw data %s", d)
	}
	if InvalidParams("x", func() {}).Data != nil {
		t.Error("unencodable data kept")
	}
	wrapped := fmt.Errorf("ctx: %w", InvalidParams("x", nil))
	if !errors.Is(wrapped, &Error{Code: protocol.CodeInvalidParamsError}) || errors.Is(wrapped, &Error{Code: protocol.CodeInternalError}) {
		t.Error("errors.Is by code")
	}
}

// TestSSEErrorAfterNotifications checks that a handler that notifies and
// then fails ends its event stream with the error response (R-HTTP-10).
func TestSSEErrorAfterNotifications(t *testing.T) {
	s := newServer(t)
	addTool(t, s, `{"name":"t","inputSchema":{"type":"object"}}`, func(ctx context.Context, r *Request, _ json.RawMessage) (*protocol.CallToolResult, error) {
		r.Log(ctx, protocol.LoggingLevelInfo, "", json.RawMessage(`"starting"`))
		return nil, InvalidParams("no", nil)
	})
	rec := post(t, s.Handler(HTTPOptions{}), rpc(1, protocol.MethodToolsCall, withMeta(meta(keyLogLevel, "info"), M{"name": "t"})), nil)
	if rec.Header().Get("Content-Type") != "text/event-stream" {
		t.Fatalf("Content-Type %q", rec.Header().Get("Content-Type"))
	}
	msgs := sseMessages(t, rec.Body.Bytes())
	if len(msgs) != 2 || msgs[1].code() != protocol.CodeInvalidParamsError || msgs[1].id() != "1" {
		t.Errorf("events %q", rec.Body.String())
	}
}

// TestConcurrentRegistration registers and removes while requests run
// (R-STATE-02; run with -race).
func TestConcurrentRegistration(t *testing.T) {
	s := fixture(t)
	h := s.Handler(HTTPOptions{})
	var wg sync.WaitGroup
	for g := 0; g < 4; g++ {
		wg.Add(2)
		go func(g int) {
			defer wg.Done()
			for i := 0; i < 20; i++ {
				name := fmt.Sprintf("t%d_%d", g, i)
				if err := s.AddTool(protocol.Tool{Name: name}, textTool(name)); err != nil {
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
					rpc(i, protocol.MethodToolsList, params(nil)),
					rpc(i, protocol.MethodToolsCall, params(M{"name": "echo", "arguments": M{"text": "x"}})),
					rpc(i, protocol.MethodServerDiscover, params(nil)),
				} {
					if rec := post(t, h, b, nil); rec.Code != http.StatusOK {
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
	s := newServer(t)
	if err := AddTypedTool(s, protocol.Tool{Name: "str"}, func(context.Context, *Request, string) (string, error) { return "", nil }); err == nil {
		t.Error("R-SCHEMA-09: a string input type was accepted")
	}
	type in struct {
		N int `json:"n"`
	}
	if err := AddTypedTool(s, protocol.Tool{Name: "list"}, func(_ context.Context, _ *Request, v in) ([]int, error) {
		return []int{v.N, v.N}, nil
	}); err != nil {
		t.Fatal(err)
	}
	w := call(t, s.Handler(HTTPOptions{}), 1, protocol.MethodToolsCall, params(M{"name": "list", "arguments": M{"n": 3}}))
	if fmt.Sprint(w.Result["structuredContent"]) != "[3 3]" {
		t.Errorf("%s", w.raw)
	}
	if err := AddTypedTool(newServer(t, WithStrictNames()), protocol.Tool{Name: "bad name"}, func(context.Context, *Request, in) (int, error) { return 0, nil }); err == nil {
		t.Error("R-TOOL-04: bad name accepted by AddTypedTool under WithStrictNames")
	}
}

// TestListsFollowRegistration: the lists' sorted names are cached between
// changes, so every add and remove must show in the next list, in order.
func TestListsFollowRegistration(t *testing.T) {
	s := newServer(t)
	h := s.Handler(HTTPOptions{})
	rh := func(context.Context, *Request, string, map[string]string) ([]protocol.ReadResourceResultContentsElem, error) {
		return nil, nil
	}
	ph := func(context.Context, *Request, map[string]string) (*protocol.GetPromptResult, error) { return nil, nil }
	names := func(method, member, key string) string {
		t.Helper()
		w := call(t, h, 1, method, params(nil))
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
			_ = s.AddTool(protocol.Tool{Name: "c"}, textTool("c"))
			_ = s.AddTool(protocol.Tool{Name: "a"}, textTool("a"))
		}, "a,c"},
		{func() { _ = s.AddTool(protocol.Tool{Name: "b"}, textTool("b")) }, "a,b,c"},
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
	for _, timeout := range []time.Duration{DefaultHandlerTimeout, 0} {
		for _, early := range []bool{true, false} {
			t.Run(fmt.Sprintf("timeout=%v/early=%v", timeout, early), func(t *testing.T) {
				s := newServer(t, WithHandlerTimeout(timeout))
				woke := make(chan string, 2)
				addTool(t, s, `{"name":"leaver","inputSchema":{"type":"object"}}`, func(ctx context.Context, _ *Request, _ json.RawMessage) (*protocol.CallToolResult, error) {
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
					return TextResult("bye"), nil
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
				w := call(t, s.Handler(HTTPOptions{}), 1, protocol.MethodToolsCall, params(M{"name": "leaver"}))
				if got := w.text(t, 0); got != "bye" {
					t.Fatalf("HTTP: got %q", got)
				}
				check("HTTP")
				in := string(rpc(2, protocol.MethodToolsCall, params(M{"name": "leaver"}))) + "\n"
				var out strings.Builder
				if err := s.ServeStdio(context.Background(), strings.NewReader(in), &out); err != nil {
					t.Fatal(err)
				}
				check("stdio")
			})
		}
	}
}
