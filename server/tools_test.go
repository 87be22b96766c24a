package server_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math/rand/v2"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"sync/atomic"
	"testing"

	. "github.com/mcpwire/mcpwire/server/internal/testkit"
	"github.com/mcpwire/mcpwire/server/streamhttp"
	"github.com/mcpwire/mcpwire/server/typed"

	"github.com/mcpwire/mcpwire/protocol"
	"github.com/mcpwire/mcpwire/server"
)

// TestToolsCall covers tools/call outcomes (R-TOOL-06, R-TOOL-08,
// R-TOOL-09, A9): protocol errors, tool execution errors and results.
func TestToolsCall(t *testing.T) {
	s := NewServer(t)
	AddTool(t, s, `{"name":"nested","inputSchema":{"type":"object","properties":{
		"a":{"type":"object","properties":{"b":{"type":"string"}}},
		"n":{"type":"integer","minimum":1}},"required":["n"]}}`, TextTool("ok"))
	AddTool(t, s, `{"name":"fail","inputSchema":{"type":"object"}}`, func(context.Context, *server.Request, json.RawMessage) (*protocol.CallToolResult, error) {
		return nil, errors.New("upstream API returned 503")
	})
	AddTool(t, s, `{"name":"proto","inputSchema":{"type":"object"}}`, func(context.Context, *server.Request, json.RawMessage) (*protocol.CallToolResult, error) {
		return nil, server.InvalidParams("date must be ISO 8601", map[string]string{"field": "when"})
	})
	AddTool(t, s, `{"name":"nilres","inputSchema":{"type":"object"}}`, func(context.Context, *server.Request, json.RawMessage) (*protocol.CallToolResult, error) {
		return nil, nil
	})
	AddTool(t, s, `{"name":"nocontent","inputSchema":{"type":"object"}}`, func(context.Context, *server.Request, json.RawMessage) (*protocol.CallToolResult, error) {
		return &protocol.CallToolResult{}, nil
	})
	out := `"outputSchema":{"type":"object","properties":{"n":{"type":"integer"}},"required":["n"]}`
	AddTool(t, s, `{"name":"goodout","inputSchema":{"type":"object"},`+out+`}`, func(context.Context, *server.Request, json.RawMessage) (*protocol.CallToolResult, error) {
		return &protocol.CallToolResult{Content: []protocol.ContentBlock{server.Text(`{"n":1}`)}, StructuredContent: json.RawMessage(`{"n":1}`)}, nil
	})
	AddTool(t, s, `{"name":"badout","inputSchema":{"type":"object"},`+out+`}`, func(context.Context, *server.Request, json.RawMessage) (*protocol.CallToolResult, error) {
		return &protocol.CallToolResult{Content: []protocol.ContentBlock{server.Text("x")}, StructuredContent: json.RawMessage(`{"n":"one"}`)}, nil
	})
	AddTool(t, s, `{"name":"noout","inputSchema":{"type":"object"},`+out+`}`, func(context.Context, *server.Request, json.RawMessage) (*protocol.CallToolResult, error) {
		return server.TextResult("no structured content"), nil
	})
	AddTool(t, s, `{"name":"errout","inputSchema":{"type":"object"},`+out+`}`, func(context.Context, *server.Request, json.RawMessage) (*protocol.CallToolResult, error) {
		r := server.TextResult("failed")
		r.IsError = TPtr(true)
		return r, nil
	})
	AddTool(t, s, `{"name":"args","inputSchema":{"type":"object"}}`, func(_ context.Context, _ *server.Request, args json.RawMessage) (*protocol.CallToolResult, error) {
		return server.TextResult(string(args)), nil
	})
	h := Handler(s, streamhttp.Options{})
	isErr := func(substr ...string) func(t *testing.T, w *Wire) {
		return func(t *testing.T, w *Wire) {
			if !w.IsError() {
				t.Fatalf("want isError: %s", w.Raw)
			}
			for _, sub := range substr {
				if !strings.Contains(w.Text(t, 0), sub) {
					t.Errorf("text %q lacks %q", w.Text(t, 0), sub)
				}
			}
		}
	}
	cases := []struct {
		name   string
		params M
		code   int64
		status int
		check  func(t *testing.T, w *Wire)
	}{
		{"R-TOOL-09 unknown tool is -32602", Params(M{"name": "nope"}), protocol.CodeInvalidParamsError, 400, func(t *testing.T, w *Wire) {
			if !strings.Contains(w.Error.Message, "nope") {
				t.Errorf("message %q does not name the tool", w.Error.Message)
			}
		}},
		{"R-TOOL-09 arguments a string is -32602", Params(M{"name": "args", "arguments": "x"}), protocol.CodeInvalidParamsError, 400, nil},
		{"R-TOOL-09 arguments an array is -32602", Params(M{"name": "args", "arguments": []any{1}}), protocol.CodeInvalidParamsError, 400, nil},
		{"R-TOOL-09 arguments a number is -32602", Params(M{"name": "args", "arguments": 3}), protocol.CodeInvalidParamsError, 400, nil},
		{"arguments null reaches the handler as {}, as absent arguments do (gen/overrides.go nullAsAbsent)", Params(M{"name": "args", "arguments": nil}), 0, 200, func(t *testing.T, w *Wire) {
			if w.Text(t, 0) != "{}" {
				t.Errorf("args %q", w.Text(t, 0))
			}
		}},
		{"absent arguments reach the handler as {}", Params(M{"name": "args"}), 0, 200, func(t *testing.T, w *Wire) {
			if w.Text(t, 0) != "{}" {
				t.Errorf("args %q", w.Text(t, 0))
			}
		}},
		{"A9 missing required argument is isError naming it", Params(M{"name": "nested", "arguments": M{}}), 0, 200, isErr("Invalid arguments", "n")},
		{"A9 nested type violation is isError naming the path", Params(M{"name": "nested", "arguments": M{"n": 1, "a": M{"b": 7}}}), 0, 200, isErr("/a/b")},
		{"A9 minimum violation is isError naming the path", Params(M{"name": "nested", "arguments": M{"n": 0}}), 0, 200, isErr("/n")},
		{"R-TOOL-09 handler error is an isError result", Params(M{"name": "fail"}), 0, 200, isErr("upstream API returned 503")},
		{"R-TOOL-09 handler *Error is that protocol error", Params(M{"name": "proto"}), protocol.CodeInvalidParamsError, 400, func(t *testing.T, w *Wire) {
			if w.Data(t)["field"] != "when" {
				t.Errorf("data %s", w.Error.Data)
			}
		}},
		{"nil result is -32603", Params(M{"name": "nilres"}), protocol.CodeInternalError, 500, nil},
		{"R-TOOL-08 content is always present", Params(M{"name": "nocontent"}), 0, 200, func(t *testing.T, w *Wire) {
			if c, ok := w.Result["content"].([]any); !ok || len(c) != 0 {
				t.Errorf("content %v", w.Result["content"])
			}
		}},
		{"R-TOOL-06 structuredContent matching outputSchema", Params(M{"name": "goodout"}), 0, 200, func(t *testing.T, w *Wire) {
			if fmt.Sprint(w.Result["structuredContent"]) != "map[n:1]" {
				t.Errorf("structuredContent %v", w.Result["structuredContent"])
			}
		}},
		{"R-TOOL-06 structuredContent violating outputSchema is -32603", Params(M{"name": "badout"}), protocol.CodeInternalError, 500, nil},
		{"R-TOOL-06 structuredContent missing under outputSchema is -32603", Params(M{"name": "noout"}), protocol.CodeInternalError, 500, nil},
		{"R-TOOL-06 isError result is not held to outputSchema", Params(M{"name": "errout"}), 0, 200, isErr("failed")},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			rec := Post(t, h, Rpc(1, protocol.MethodToolsCall, c.params), nil)
			w := Single(t, rec)
			if w.Code() != c.code || rec.Code != c.status {
				t.Fatalf("code %d status %d, want %d %d: %s", w.Code(), rec.Code, c.code, c.status, w.Raw)
			}
			if c.check != nil {
				c.check(t, w)
			}
		})
	}
}

// TestToolRegistration covers AddTool's checks (R-TOOL-04, R-SCHEMA-01,
// R-SCHEMA-02, R-SCHEMA-05, R-SCHEMA-07, R-SCHEMA-08).
func TestToolRegistration(t *testing.T) {
	cases := []struct {
		name string
		def  string
		opts []any
		ok   bool
	}{
		{"R-TOOL-04 plain name", `{"name":"a.b_c-D9","inputSchema":{"type":"object"}}`, nil, true},
		{"R-TOOL-04 128 characters", `{"name":"` + strings.Repeat("a", 128) + `","inputSchema":{"type":"object"}}`, nil, true},
		{"R-TOOL-04 129 characters (strict)", `{"name":"` + strings.Repeat("a", 129) + `","inputSchema":{"type":"object"}}`, []any{server.WithStrictNames()}, false},
		{"R-TOOL-04 empty name (strict)", `{"name":"","inputSchema":{"type":"object"}}`, []any{server.WithStrictNames()}, false},
		{"R-TOOL-04 space (strict)", `{"name":"a b","inputSchema":{"type":"object"}}`, []any{server.WithStrictNames()}, false},
		{"R-TOOL-04 comma (strict)", `{"name":"a,b","inputSchema":{"type":"object"}}`, []any{server.WithStrictNames()}, false},
		{"R-TOOL-04 non-ASCII (strict)", `{"name":"grüße","inputSchema":{"type":"object"}}`, []any{server.WithStrictNames()}, false},
		{"R-SCHEMA-01 2020-12 by default (prefixItems)", `{"name":"t","inputSchema":{"type":"object","properties":{"p":{"prefixItems":[{"type":"string"}]}}}}`, nil, true},
		{"R-SCHEMA-02 draft-07 accepted", `{"name":"t","inputSchema":{"$schema":"http://json-schema.org/draft-07/schema#","type":"object","properties":{"a":{"items":[{"type":"string"}]}}}}`, nil, true},
		{"R-SCHEMA-02 2020-12 explicit", `{"name":"t","inputSchema":{"$schema":"https://json-schema.org/draft/2020-12/schema","type":"object"}}`, nil, true},
		{"R-SCHEMA-02 unknown dialect refused", `{"name":"t","inputSchema":{"$schema":"https://example.com/my-dialect","type":"object"}}`, nil, false},
		{"R-SCHEMA-04 invalid schema refused", `{"name":"t","inputSchema":{"type":"object","properties":{"a":{"type":"strang"}}}}`, nil, false},
		{"R-SCHEMA-04 invalid outputSchema refused", `{"name":"t","inputSchema":{"type":"object"},"outputSchema":{"type":7}}`, nil, false},
		{"local $ref resolves", `{"name":"t","inputSchema":{"type":"object","$defs":{"s":{"type":"string"}},"properties":{"a":{"$ref":"#/$defs/s"}}}}`, nil, true},
		{"R-SCHEMA-07 unresolvable local $ref refused", `{"name":"t","inputSchema":{"type":"object","properties":{"a":{"$ref":"#/$defs/missing"}}}}`, nil, false},
		{"R-SCHEMA-08 nesting within WithMaxSchemaDepth", `{"name":"t","inputSchema":{"type":"object","properties":{"a":{"type":"string"}}}}`, []any{server.WithMaxSchemaDepth(3)}, true},
		{"R-SCHEMA-08 nesting beyond WithMaxSchemaDepth", `{"name":"t","inputSchema":{"type":"object","properties":{"a":{"type":"object","properties":{"b":{"type":"string"}}}}}}`, []any{server.WithMaxSchemaDepth(3)}, false},
		{"R-SCHEMA-08 outputSchema nesting bounded too", `{"name":"t","inputSchema":{"type":"object"},"outputSchema":{"allOf":[{"allOf":[{"allOf":[{"type":"object"}]}]}]}}`, []any{server.WithMaxSchemaDepth(3)}, false},
		{"R-SCHEMA-08 default depth bounds a deep anyOf chain", `{"name":"t","inputSchema":{"type":"object","properties":{"a":` + strings.Repeat(`{"anyOf":[`, 40) + `{}` + strings.Repeat(`]}`, 40) + `}}}`, nil, false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			s := NewServer(t, c.opts...)
			err := s.AddTool(ToolDef(t, c.def), TextTool("x"))
			if (err == nil) != c.ok {
				t.Errorf("AddTool error %v, want ok=%v", err, c.ok)
			}
		})
	}
	t.Run("nil handler refused", func(t *testing.T) {
		if err := NewServer(t).AddTool(ToolDef(t, `{"name":"t","inputSchema":{"type":"object"}}`), nil); err == nil {
			t.Error("nil handler accepted")
		}
	})
}

// TestDraft07Semantics checks that a draft-07 schema validates with draft-07
// meaning: array-form items is a tuple (R-SCHEMA-02).
func TestDraft07Semantics(t *testing.T) {
	s := NewServer(t)
	AddTool(t, s, `{"name":"t","inputSchema":{"$schema":"http://json-schema.org/draft-07/schema#","type":"object","properties":{"a":{"type":"array","items":[{"type":"string"}]}}}}`, TextTool("ok"))
	h := Handler(s, streamhttp.Options{})
	if w := Call(t, h, 1, protocol.MethodToolsCall, Params(M{"name": "t", "arguments": M{"a": []any{"x", 2}}})); w.IsError() {
		t.Errorf("valid draft-07 tuple refused: %s", w.Raw)
	}
	if w := Call(t, h, 1, protocol.MethodToolsCall, Params(M{"name": "t", "arguments": M{"a": []any{1}}})); !w.IsError() || !strings.Contains(w.Text(t, 0), "/a/0") {
		t.Errorf("draft-07 tuple violation not reported at /a/0: %s", w.Raw)
	}
}

// TestRemoteRefNeverFetched checks R-SCHEMA-05/07: a network $ref (or
// $schema) is never dereferenced, and the tool is refused rather than
// treated as permissive.
func TestRemoteRefNeverFetched(t *testing.T) {
	var hits atomic.Int64
	canary := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		hits.Add(1)
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write([]byte(`{"type":"string"}`))
	}))
	defer canary.Close()
	u := canary.URL
	cases := []struct{ name, def string }{
		{"root $ref", `{"name":"t","inputSchema":{"type":"object","$ref":"` + u + `/x"}}`},
		{"property $ref", `{"name":"t","inputSchema":{"type":"object","properties":{"a":{"$ref":"` + u + `/a.json"}}}}`},
		{"relative $ref against a remote $id", `{"name":"t","inputSchema":{"$id":"` + u + `/root.json","type":"object","properties":{"a":{"$ref":"other.json"}}}}`},
		{"remote $schema", `{"name":"t","inputSchema":{"$schema":"` + u + `/meta","type":"object"}}`},
		{"outputSchema $ref", `{"name":"t","inputSchema":{"type":"object"},"outputSchema":{"$ref":"` + u + `/out"}}`},
		{"$dynamicRef to a remote document", `{"name":"t","inputSchema":{"type":"object","properties":{"a":{"$dynamicRef":"` + u + `/d#x"}}}}`},
	}
	for _, c := range cases {
		t.Run("R-SCHEMA-05 "+c.name, func(t *testing.T) {
			err := NewServer(t).AddTool(ToolDef(t, c.def), TextTool("x"))
			if err == nil {
				t.Error("R-SCHEMA-07: a tool with an unresolved remote reference was accepted")
			}
		})
	}
	if n := hits.Load(); n != 0 {
		t.Fatalf("R-SCHEMA-05: the canary server was fetched %d times", n)
	}
}

// TestToolsListPagination checks deterministic order (R-TOOL-03), opaque
// cursors and page size (R-PAGE-01..04).
func TestToolsListPagination(t *testing.T) {
	names := []string{"alpha", "bravo", "charlie", "delta", "echo", "foxtrot", "golf"}
	shuffled := slices.Clone(names)
	rand.Shuffle(len(shuffled), func(i, j int) { shuffled[i], shuffled[j] = shuffled[j], shuffled[i] })
	for _, size := range []int{1, 2, 3, 7, 100} {
		t.Run(fmt.Sprintf("page size %d", size), func(t *testing.T) {
			s := NewServer(t, server.WithPageSize(size))
			for _, n := range shuffled {
				AddTool(t, s, `{"name":"`+n+`","inputSchema":{"type":"object"}}`, TextTool(n))
			}
			h := Handler(s, streamhttp.Options{})
			walk := func() ([]string, []string) {
				var got, cursors []string
				var cursor any
				for i := 0; i < 20; i++ {
					p := Params(nil)
					if cursor != nil {
						p["cursor"] = cursor
					}
					w := Call(t, h, i, protocol.MethodToolsList, p)
					if w.Error != nil {
						t.Fatalf("error %s", w.Raw)
					}
					tools, _ := w.Result["tools"].([]any)
					if len(tools) > size {
						t.Fatalf("page of %d, size %d", len(tools), size)
					}
					for _, tl := range tools {
						got = append(got, tl.(M)["name"].(string))
					}
					next, has := w.Result["nextCursor"]
					if !has {
						return got, cursors
					}
					c, _ := next.(string)
					if c == "" {
						t.Fatal(`R-PAGE-04: nextCursor ""`)
					}
					for _, n := range names {
						if strings.Contains(c, n) {
							t.Errorf("R-PAGE-01: cursor %q is not opaque (shows %q)", c, n)
						}
					}
					cursors = append(cursors, c)
					cursor = c
				}
				t.Fatal("pagination does not end")
				return nil, nil
			}
			got, cursors := walk()
			if !slices.Equal(got, names) {
				t.Errorf("R-TOOL-03: order %v, want %v", got, names)
			}
			if want := (len(names) - 1) / size; len(cursors) != want {
				t.Errorf("%d cursors, want %d", len(cursors), want)
			}
			again, cursors2 := walk()
			if !slices.Equal(again, got) || !slices.Equal(cursors, cursors2) {
				t.Error("R-PAGE-02: a second walk differs")
			}
		})
	}
	t.Run("R-PAGE-03 invalid cursors are -32602", func(t *testing.T) {
		h := Handler(Fixture(t), streamhttp.Options{})
		for _, c := range []any{"", "%%%", "bm90LWEtY3Vyc29y", "c1:echo", 42} {
			for _, m := range []string{protocol.MethodToolsList, protocol.MethodPromptsList, protocol.MethodResourcesList, protocol.MethodResourcesTemplatesList} {
				rec := Post(t, h, Rpc(1, m, Params(M{"cursor": c})), nil)
				w := Single(t, rec)
				if w.Code() != protocol.CodeInvalidParamsError || w.Id() != "1" {
					t.Errorf("%s cursor %v: %s", m, c, w.Raw)
				}
			}
		}
	})
	t.Run("R-PAGE-02 cursor survives removal of its item", func(t *testing.T) {
		s := NewServer(t, server.WithPageSize(2))
		for _, n := range names {
			AddTool(t, s, `{"name":"`+n+`","inputSchema":{"type":"object"}}`, TextTool(n))
		}
		h := Handler(s, streamhttp.Options{})
		w := Call(t, h, 1, protocol.MethodToolsList, Params(nil))
		if !s.RemoveTool("bravo") {
			t.Fatal("RemoveTool")
		}
		w = Call(t, h, 2, protocol.MethodToolsList, Params(M{"cursor": w.Result["nextCursor"]}))
		tools, _ := w.Result["tools"].([]any)
		if len(tools) != 2 || tools[0].(M)["name"] != "charlie" {
			t.Errorf("page after removal: %s", w.Raw)
		}
	})
}

// TestOtherListsPaginate checks prompts/list, resources/list and
// resources/templates/list share the paging (R-PAGE-01).
func TestOtherListsPaginate(t *testing.T) {
	s := NewServer(t, server.WithPageSize(2))
	rh := func(_ context.Context, _ *server.Request, uri string, _ map[string]string) ([]protocol.ReadResourceResultContentsElem, error) {
		return server.TextContents(uri, "", "x"), nil
	}
	for _, n := range []string{"c", "a", "b"} {
		AddPrompt(t, s, protocol.Prompt{Name: n}, func(context.Context, *server.Request, map[string]string) (*protocol.GetPromptResult, error) {
			return &protocol.GetPromptResult{}, nil
		})
		AddResource(t, s, protocol.Resource{URI: "x://" + n, Name: n}, rh)
		if err := s.AddResourceTemplate(protocol.ResourceTemplate{URITemplate: "t" + n + "://{v}", Name: n}, rh); err != nil {
			t.Fatal(err)
		}
	}
	h := Handler(s, streamhttp.Options{})
	cases := []struct {
		method, key, field string
		want               []string
	}{
		{protocol.MethodPromptsList, "prompts", "name", []string{"a", "b", "c"}},
		{protocol.MethodResourcesList, "resources", "uri", []string{"x://a", "x://b", "x://c"}},
		// Templates keep registration order (they are tried in that order).
		{protocol.MethodResourcesTemplatesList, "resourceTemplates", "uriTemplate", []string{"tc://{v}", "ta://{v}", "tb://{v}"}},
	}
	for _, c := range cases {
		t.Run(c.method, func(t *testing.T) {
			var got []string
			var cursor any
			for i := 0; i < 5; i++ {
				p := Params(nil)
				if cursor != nil {
					p["cursor"] = cursor
				}
				w := Call(t, h, i, c.method, p)
				items, _ := w.Result[c.key].([]any)
				for _, it := range items {
					got = append(got, it.(M)[c.field].(string))
				}
				var ok bool
				if cursor, ok = w.Result["nextCursor"]; !ok {
					break
				}
			}
			if !slices.Equal(got, c.want) {
				t.Errorf("got %v, want %v", got, c.want)
			}
		})
	}
}

type typedIn struct {
	City  string `json:"city" jsonschema:"the city"`
	Days  int    `json:"days"`
	Units string `json:"units,omitempty"`
}

type typedOut struct {
	City  string    `json:"city"`
	Temps []float64 `json:"temps"`
}

// TestAddTypedTool checks inferred schemas, structuredContent and the
// text block that mirrors it (R-TOOL-06, R-TOOL-07).
func TestAddTypedTool(t *testing.T) {
	s := NewServer(t)
	err := typed.AddTool(s, protocol.Tool{Name: "forecast"}, func(_ context.Context, _ *server.Request, in typedIn) (typedOut, error) {
		if in.City == "Atlantis" {
			return typedOut{}, errors.New("no such city")
		}
		out := typedOut{City: in.City}
		for i := 0; i < in.Days; i++ {
			out.Temps = append(out.Temps, 20.5+float64(i))
		}
		return out, nil
	})
	if err != nil {
		t.Fatal(err)
	}
	h := Handler(s, streamhttp.Options{})
	w := Call(t, h, 1, protocol.MethodToolsList, Params(nil))
	tool := w.Result["tools"].([]any)[0].(M)
	in := tool["inputSchema"].(M)
	if in["type"] != "object" {
		t.Errorf("inputSchema type %v", in["type"])
	}
	props, _ := in["properties"].(M)
	for _, k := range []string{"city", "days", "units"} {
		if _, ok := props[k]; !ok {
			t.Errorf("inputSchema lacks %s: %v", k, in)
		}
	}
	if req := fmt.Sprint(in["required"]); !strings.Contains(req, "city") || !strings.Contains(req, "days") || strings.Contains(req, "units") {
		t.Errorf("required %v", in["required"])
	}
	outSchema, _ := tool["outputSchema"].(M)
	if p, _ := outSchema["properties"].(M); p["temps"] == nil {
		t.Errorf("outputSchema %v", outSchema)
	}

	w = Call(t, h, 2, protocol.MethodToolsCall, Params(M{"name": "forecast", "arguments": M{"city": "Oslo", "days": 2}}))
	if w.IsError() || w.Error != nil {
		t.Fatalf("call failed: %s", w.Raw)
	}
	sc, _ := json.Marshal(w.Result["structuredContent"])
	if !jsonEq(t, sc, []byte(`{"city":"Oslo","temps":[20.5,21.5]}`)) {
		t.Errorf("structuredContent %s", sc)
	}
	if !jsonEq(t, []byte(w.Text(t, 0)), sc) {
		t.Errorf("R-TOOL-07: text block %q does not hold the structured JSON", w.Text(t, 0))
	}

	w = Call(t, h, 3, protocol.MethodToolsCall, Params(M{"name": "forecast", "arguments": M{"city": "Oslo"}}))
	if !w.IsError() {
		t.Errorf("missing required days not refused: %s", w.Raw)
	}
	w = Call(t, h, 4, protocol.MethodToolsCall, Params(M{"name": "forecast", "arguments": M{"city": "Oslo", "days": 1, "extra": true}}))
	if !w.IsError() {
		t.Errorf("unknown argument accepted by an inferred schema: %s", w.Raw)
	}
	w = Call(t, h, 5, protocol.MethodToolsCall, Params(M{"name": "forecast", "arguments": M{"city": "Atlantis", "days": 1}}))
	if !w.IsError() || !strings.Contains(w.Text(t, 0), "no such city") {
		t.Errorf("typed handler error not an isError result: %s", w.Raw)
	}
}

// TestToolReplaceRemove checks re-registration and RemoveTool.
func TestToolReplaceRemove(t *testing.T) {
	s := NewServer(t)
	AddTool(t, s, `{"name":"t","inputSchema":{"type":"object"}}`, TextTool("one"))
	AddTool(t, s, `{"name":"t","inputSchema":{"type":"object"}}`, TextTool("two"), server.Replace())
	h := Handler(s, streamhttp.Options{})
	if w := Call(t, h, 1, protocol.MethodToolsCall, Params(M{"name": "t"})); w.Text(t, 0) != "two" {
		t.Errorf("not replaced: %s", w.Raw)
	}
	if !s.RemoveTool("t") || s.RemoveTool("t") {
		t.Error("RemoveTool results")
	}
	if w := Call(t, h, 1, protocol.MethodToolsCall, Params(M{"name": "t"})); w.Code() != protocol.CodeInvalidParamsError {
		t.Errorf("removed tool still served: %s", w.Raw)
	}
}

// R-SCHEMA-08: a schema too large to validate cheaply is refused at
// registration.
func TestSchemaNodeLimit(t *testing.T) {
	s := NewServer(t)
	var b strings.Builder
	b.WriteString(`{"type":"object","anyOf":[`)
	for i := range server.DefaultMaxSchemaNodes {
		if i > 0 {
			b.WriteByte(',')
		}
		b.WriteString(`{"required":["a"]}`)
	}
	b.WriteString(`]}`)
	def := ToolDef(t, `{"name":"big","inputSchema":`+b.String()+`}`)
	err := s.AddTool(def, TextTool("x"))
	if err == nil || !strings.Contains(err.Error(), "nodes") {
		t.Fatalf("AddTool accepted a schema of %d subschemas: %v", server.DefaultMaxSchemaNodes, err)
	}
}

// R-SCHEMA-08: a chain of $refs whose validation doubles at every step is
// refused at registration; a recursive but linear schema is accepted.
func TestSchemaRefExpansion(t *testing.T) {
	s := NewServer(t)
	defs := []string{}
	for i := range 30 {
		defs = append(defs, fmt.Sprintf(`"d%d":{"anyOf":[{"$ref":"#/$defs/d%d"},{"$ref":"#/$defs/d%d"}]}`, i, i+1, i+1))
	}
	defs = append(defs, `"d30":{"type":"string"}`)
	bomb := `{"name":"bomb","inputSchema":{"type":"object","properties":{"x":{"$ref":"#/$defs/d0"}},"$defs":{` + strings.Join(defs, ",") + `}}}`
	if err := s.AddTool(ToolDef(t, bomb), TextTool("x")); err == nil || !strings.Contains(err.Error(), "steps") {
		t.Fatalf("AddTool accepted a schema that expands to 2^30 steps: %v", err)
	}
	tree := `{"name":"tree","inputSchema":{"type":"object","properties":{"root":{"$ref":"#/$defs/node"}},"$defs":{"node":{"type":"object","properties":{"kids":{"type":"array","items":{"$ref":"#/$defs/node"}}}}}}}`
	if err := s.AddTool(ToolDef(t, tree), TextTool("x")); err != nil {
		t.Fatalf("a recursive schema was refused: %v", err)
	}
}

// TestAddTypedToolResult: with Out = *protocol.CallToolResult the handler's
// result goes out as it is, with no outputSchema and no structuredContent,
// while the input is still inferred and validated.
func TestAddTypedToolResult(t *testing.T) {
	s := NewServer(t)
	err := typed.AddTool(s, protocol.Tool{Name: "echo"}, func(_ context.Context, _ *server.Request, in struct {
		Text string `json:"text"`
	}) (*protocol.CallToolResult, error) {
		if in.Text == "" {
			return nil, nil // a handler bug: no result
		}
		return server.TextResult("echo: " + in.Text), nil
	})
	if err != nil {
		t.Fatal(err)
	}
	h := Handler(s, streamhttp.Options{})
	w := Call(t, h, 1, protocol.MethodToolsList, Params(nil))
	tool := w.Result["tools"].([]any)[0].(M)
	if _, has := tool["outputSchema"]; has {
		t.Errorf("outputSchema declared for a *CallToolResult output: %v", tool)
	}
	if in := tool["inputSchema"].(M); fmt.Sprint(in["required"]) != "[text]" {
		t.Errorf("inputSchema not inferred: %v", in)
	}
	w = Call(t, h, 2, protocol.MethodToolsCall, Params(M{"name": "echo", "arguments": M{"text": "hi"}}))
	if w.IsError() || w.Error != nil || w.Text(t, 0) != "echo: hi" {
		t.Fatalf("call: %s", w.Raw)
	}
	if _, has := w.Result["structuredContent"]; has {
		t.Errorf("structuredContent added: %s", w.Raw)
	}
	w = Call(t, h, 3, protocol.MethodToolsCall, Params(M{"name": "echo", "arguments": M{"text": 1}}))
	if !w.IsError() {
		t.Errorf("argument of the wrong type accepted: %s", w.Raw)
	}
	w = Call(t, h, 4, protocol.MethodToolsCall, Params(M{"name": "echo", "arguments": M{"text": ""}}))
	if w.Error == nil || w.Error.Code != protocol.CodeInternalError {
		t.Errorf("a nil result must be -32603: %s", w.Raw)
	}
}
