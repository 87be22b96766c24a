package server_test

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/mcpwire/mcpwire/protocol"
	"github.com/mcpwire/mcpwire/server"
	"github.com/mcpwire/mcpwire/servertest"
)

// Tests of the extension API's registration and result envelope
// (server/ext.go, extResult): what the tasks extension relies on, with
// extensions of the tests' own.

const extID = "com.example/ext"

var declareExt = servertest.WithCapabilities(protocol.ClientCapabilities{
	Extensions: map[string]protocol.JSONObject{extID: protocol.JSONObject(`{}`)},
})

func handleWith(res server.Result, err error) server.ExtensionMethod {
	return server.ExtensionMethod{Handle: func(context.Context, *server.Request, json.RawMessage) (server.Result, error) { return res, err }}
}

func newExtServer(t *testing.T, opts ...server.Option) *server.Server {
	t.Helper()
	s, err := server.New(protocol.Implementation{Name: "ext", Version: "1"}, opts...)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func TestAddExtensionRefusals(t *testing.T) {
	ok := handleWith(nil, nil)
	for _, c := range []struct {
		name string
		ext  server.Extension
		want string
	}{
		{"no id", server.Extension{}, "needs an ID"},
		{"core method", server.Extension{ID: "a", Methods: map[string]server.ExtensionMethod{"tools/call": ok}}, "is a core method"},
		{"no handler", server.Extension{ID: "a", Methods: map[string]server.ExtensionMethod{"a/get": {}}}, "has no Handle"},
		{"listen without accept", server.Extension{ID: "a", Listen: &server.ListenFilter{Member: "aIds", Method: "notifications/a"}}, "needs Member, Method and Accept"},
		// Names an extension may not take (a hostile review, F4): empty,
		// JSON-RPC's rpc.*, notifications, and what 2026-07-28 removed.
		{"empty method", server.Extension{ID: "a", Methods: map[string]server.ExtensionMethod{"": ok}}, "a reserved name"},
		{"rpc.", server.Extension{ID: "a", Methods: map[string]server.ExtensionMethod{"rpc.discover": ok}}, "a reserved name"},
		{"notification", server.Extension{ID: "a", Methods: map[string]server.ExtensionMethod{"notifications/a": ok}}, "a reserved name"},
		{"initialize", server.Extension{ID: "a", Methods: map[string]server.ExtensionMethod{"initialize": ok}}, "is a core method"},
		{"ping", server.Extension{ID: "a", Methods: map[string]server.ExtensionMethod{"ping": ok}}, "is a core method"},
		{"tasks/result", server.Extension{ID: "a", Methods: map[string]server.ExtensionMethod{"tasks/result": ok}}, "is a core method"},
	} {
		s := newExtServer(t)
		if err := s.AddExtension(c.ext); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: AddExtension = %v, want %q", c.name, err, c.want)
		}
	}
	// Twice the same id, a method or a listen member of another extension.
	accept := func(context.Context, *server.Request, []string) ([]string, error) { return nil, nil }
	s := newExtServer(t, server.WithExtension(server.Extension{ID: "a",
		Methods: map[string]server.ExtensionMethod{"a/get": ok},
		Listen:  &server.ListenFilter{Member: "aIds", Method: "notifications/a", Accept: accept}}))
	for _, c := range []struct {
		ext  server.Extension
		want string
	}{
		{server.Extension{ID: "a"}, "added twice"},
		{server.Extension{ID: "b", Methods: map[string]server.ExtensionMethod{"a/get": ok}}, "added twice"},
		{server.Extension{ID: "b", Listen: &server.ListenFilter{Member: "aIds", Method: "notifications/b", Accept: accept}}, "another extension's"},
	} {
		if err := s.AddExtension(c.ext); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("AddExtension(%s) = %v, want %q", c.ext.ID, err, c.want)
		}
	}
	if !s.HasExtension("a") || s.HasExtension("b") {
		t.Error("HasExtension: want a only")
	}
	// A refused WithExtension fails New.
	if _, err := server.New(protocol.Implementation{Name: "x", Version: "1"}, server.WithExtension(server.Extension{})); err == nil {
		t.Error("New with an extension without ID succeeded")
	}
}

// The extension is advertised under its id with its settings, in
// server/discover (R-VER-04: the client needs to know to declare it).
func TestExtensionAdvertised(t *testing.T) {
	s := newExtServer(t, server.WithExtension(server.Extension{ID: extID, Settings: protocol.JSONObject(`{"v":2}`)}))
	raw, err := servertest.New(s).Do(context.Background(), "server/discover", "", nil)
	if err != nil {
		t.Fatal(err)
	}
	var d protocol.DiscoverResult
	if err := protocol.Unmarshal(raw, &d); err != nil {
		t.Fatal(err)
	}
	if got := string(d.Capabilities.Extensions[extID]); got != `{"v":2}` {
		t.Errorf("capabilities.extensions[%s] = %s in %s", extID, got, raw)
	}
}

// ToolExtension: the extension must be there (or IfAbsent make it, with
// the right id, once), CheckTool may refuse, and one value per extension.
func TestToolExtensionRegistration(t *testing.T) {
	def := protocol.Tool{Name: "t"}
	h := func(context.Context, *server.Request, json.RawMessage) (*protocol.CallToolResult, error) {
		return server.TextResult("ok"), nil
	}
	s := newExtServer(t)
	if err := s.AddTool(def, h, server.ToolExtension(extID, 1, server.ToolExtensionOptions{})); err == nil || !strings.Contains(err.Error(), "is not on this server") {
		t.Errorf("ToolExtension of an absent extension: %v", err)
	}
	if err := s.AddTool(def, h, server.ToolExtension(extID, 1, server.ToolExtensionOptions{IfAbsent: func() server.Extension { return server.Extension{ID: "other"} }})); err == nil || !strings.Contains(err.Error(), `has the id "other"`) {
		t.Errorf("IfAbsent with the wrong id: %v", err)
	}
	var made, attached atomic.Int32
	ifAbsent := func() server.Extension {
		made.Add(1)
		return server.Extension{ID: extID,
			Attach: func(*server.Server) { attached.Add(1) },
			CheckTool: func(_ string, v any) error {
				if v.(int) < 0 {
					return errors.New("negative")
				}
				return nil
			}}
	}
	opt := func(v int) server.ToolOption {
		return server.ToolExtension(extID, v, server.ToolExtensionOptions{IfAbsent: ifAbsent})
	}
	if err := s.AddTool(def, h, opt(1)); err != nil {
		t.Fatal(err)
	}
	def2 := def
	def2.Name = "t2"
	if err := s.AddTool(def2, h, opt(-1)); err == nil || !strings.Contains(err.Error(), "tool t2: negative") {
		t.Errorf("CheckTool's refusal: %v", err)
	}
	if err := s.AddTool(def2, h, opt(1), opt(2)); err == nil || !strings.Contains(err.Error(), "given twice") {
		t.Errorf("the extension twice for a tool: %v", err)
	}
	if made.Load() != 1 || attached.Load() != 1 || !s.HasExtension(extID) {
		t.Errorf("IfAbsent made %d, Attach ran %d times; want 1 and 1", made.Load(), attached.Load())
	}
}

// The envelope of an extension method's result (R-BASE-05, R-META-04):
// resultType "complete" unless the result has its own, serverInfo in
// _meta; nil is the empty result; anything that is not a JSON object, or
// does not encode, is -32603 and the handler's value is not sent.
func TestExtensionResultEnvelope(t *testing.T) {
	for _, c := range []struct {
		name    string
		res     server.Result
		want    string // in the result
		wantErr int64
	}{
		{"map", map[string]int{"n": 1}, `"resultType":"complete","n":1`, 0},
		{"own resultType", map[string]string{"resultType": "complete", "id": "x"}, `"resultType":"complete","id":"x"`, 0},
		{"nil", nil, `"resultType":"complete"`, 0},
		{"empty object", struct{}{}, `"resultType":"complete"`, 0},
		{"core result", &protocol.Result{ResultType: "complete"}, `"resultType":"complete"`, 0},
		{"array", []int{1}, "", protocol.CodeInternalError},
		{"string", "hi", "", protocol.CodeInternalError},
		{"no encoding", map[string]any{"f": func() {}}, "", protocol.CodeInternalError},
		{"bad _meta", map[string]any{"_meta": 5}, "", protocol.CodeInternalError},
		// A hostile review (F6): a null resultType is the default, a typed
		// nil is refused without a panic, reserved resultTypes are refused.
		{"null resultType", map[string]any{"resultType": nil, "n": 1}, `"resultType":"complete"`, 0},
		{"typed nil", (*protocol.CallToolResult)(nil), "", protocol.CodeInternalError},
		{"task from a method", map[string]string{"resultType": "task"}, "", protocol.CodeInternalError},
		{"input_required", map[string]string{"resultType": "input_required"}, "", protocol.CodeInternalError},
		{"core input_required", &protocol.Result{ResultType: "input_required"}, "", protocol.CodeInternalError},
	} {
		s := newExtServer(t, server.WithExtension(server.Extension{ID: extID,
			Methods: map[string]server.ExtensionMethod{"ext/get": handleWith(c.res, nil)}}))
		raw, err := servertest.New(s).Do(context.Background(), "ext/get", "", nil, declareExt)
		var se *servertest.Error
		switch {
		case c.wantErr != 0:
			if !errors.As(err, &se) || se.Code != c.wantErr {
				t.Errorf("%s: err %v, want code %d (result %s)", c.name, err, c.wantErr, raw)
			}
		case err != nil:
			t.Errorf("%s: %v", c.name, err)
		case !strings.Contains(string(raw), c.want) || !strings.Contains(string(raw), `"io.modelcontextprotocol/serverInfo":{"name":"ext","version":"1"}`):
			t.Errorf("%s: result %s, want %s and serverInfo", c.name, raw, c.want)
		}
	}
}

// An extension method with a NameMember needs Mcp-Name equal to it over
// HTTP (-32020, as for tools/call); one without checks none.
func TestExtensionMethodName(t *testing.T) {
	var ran atomic.Int32
	h := server.ExtensionMethod{NameMember: "itemId", Handle: func(context.Context, *server.Request, json.RawMessage) (server.Result, error) {
		ran.Add(1)
		return nil, nil
	}}
	s := newExtServer(t, server.WithExtension(server.Extension{ID: extID,
		Methods: map[string]server.ExtensionMethod{"ext/get": h, "ext/list": handleWith(nil, nil)}}))
	c := servertest.New(s)
	ctx := context.Background()
	p := map[string]any{"itemId": "i1"}
	if _, err := c.Do(ctx, "ext/get", "i1", p, declareExt); err != nil {
		t.Errorf("matching Mcp-Name: %v", err)
	}
	for _, name := range []string{"", "i2"} {
		var se *servertest.Error
		if _, err := c.Do(ctx, "ext/get", name, p, declareExt); !errors.As(err, &se) || se.Code != protocol.CodeHeaderMismatchError || se.Status != 400 {
			t.Errorf("Mcp-Name %q: %v, want -32020 HTTP 400", name, err)
		}
	}
	if _, err := c.Do(ctx, "ext/list", "", nil, declareExt); err != nil {
		t.Errorf("a method without NameMember: %v", err)
	}
	if ran.Load() != 1 {
		t.Errorf("the handler ran %d times, want 1 (never for a header mismatch)", ran.Load())
	}
}

// An extension's Middleware takes over another method than tools/call
// (here prompts/get, for a client that declares the extension), inside
// the server's own middleware; AddExtension after New refuses one.
func TestExtensionMiddleware(t *testing.T) {
	var order []string
	outer := func(next server.Handler) server.Handler {
		return func(ctx context.Context, r *server.Request) (server.Result, error) {
			order = append(order, "outer")
			return next(ctx, r)
		}
	}
	takeOver := func(next server.Handler) server.Handler {
		return func(ctx context.Context, r *server.Request) (server.Result, error) {
			order = append(order, "extension")
			if r.Method == "prompts/get" && r.Declares(extID) {
				return &protocol.GetPromptResult{Description: server.Ptr("by the extension"), Messages: []protocol.PromptMessage{}}, nil
			}
			return next(ctx, r)
		}
	}
	s := newExtServer(t, server.WithMiddleware(outer), server.WithExtension(server.Extension{ID: extID, Middleware: takeOver}))
	if err := s.AddPrompt(protocol.Prompt{Name: "p"}, func(context.Context, *server.Request, map[string]string) (*protocol.GetPromptResult, error) {
		return &protocol.GetPromptResult{Description: server.Ptr("by the handler"), Messages: []protocol.PromptMessage{}}, nil
	}); err != nil {
		t.Fatal(err)
	}
	c := servertest.New(s)
	ctx := context.Background()
	for _, tc := range []struct {
		opts []servertest.Option
		want string
	}{{nil, "by the handler"}, {[]servertest.Option{declareExt}, "by the extension"}} {
		order = nil
		res, err := c.GetPrompt(ctx, "p", nil, tc.opts...)
		if err != nil || res.Description == nil || *res.Description != tc.want {
			t.Errorf("prompts/get: %v %v, want %q", res, err, tc.want)
		}
		if strings.Join(order, ",") != "outer,extension" {
			t.Errorf("order %v, want the server's middleware first", order)
		}
	}
	if err := s.AddExtension(server.Extension{ID: "late", Middleware: takeOver}); err == nil || !strings.Contains(err.Error(), "give it to New") {
		t.Errorf("AddExtension with a Middleware after New: %v", err)
	}
}

// Attach may call the server (a hostile review, F3: it ran under the
// registration lock, and HasExtension there hung the server).
func TestExtensionAttachCallsServer(t *testing.T) {
	var saw bool
	e := server.Extension{ID: extID, Attach: func(s *server.Server) { saw = !s.HasExtension(extID) }}
	done := make(chan error, 1)
	go func() {
		s, err := server.New(protocol.Implementation{Name: "x", Version: "1"})
		if err == nil {
			err = s.AddExtension(e)
		}
		done <- err
	}()
	select {
	case err := <-done:
		if err != nil || !saw {
			t.Errorf("AddExtension: %v; Attach saw the extension not yet added: %v", err, saw)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("AddExtension with an Attach that calls HasExtension did not return")
	}
}
