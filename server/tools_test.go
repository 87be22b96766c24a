package server

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

	"github.com/mcpwire/mcpwire/protocol"
)

// TestToolsCall covers tools/call outcomes (R-TOOL-06, R-TOOL-08,
// R-TOOL-09, A9): protocol errors, tool execution errors and results.
func TestToolsCall(t *testing.T) {
	s := newServer(t)
	addTool(t, s, `{"name":"nested","inputSchema":{"type":"object","properties":{
		"a":{"type":"object","properties":{"b":{"type":"string"}}},
		"n":{"type":"integer","minimum":1}},"required":["n"]}}`, textTool("ok"))
	addTool(t, s, `{"name":"fail","inputSchema":{"type":"object"}}`, func(context.Context, *Request, json.RawMessage) (*protocol.CallToolResult, error) {
		return nil, errors.New("upstream API returned 503")
	})
	addTool(t, s, `{"name":"proto","inputSchema":{"type":"object"}}`, func(context.Context, *Request, json.RawMessage) (*protocol.CallToolResult, error) {
		return nil, InvalidParams("date must be ISO 8601", map[string]string{"field": "when"})
	})
	addTool(t, s, `{"name":"nilres","inputSchema":{"type":"object"}}`, func(context.Context, *Request, json.RawMessage) (*protocol.CallToolResult, error) {
		return nil, nil
	})
	addTool(t, s, `{"name":"nocontent","inputSchema":{"type":"object"}}`, func(context.Context, *Request, json.RawMessage) (*protocol.CallToolResult, error) {
		return &protocol.CallToolResult{}, nil
	})
	out := `"outputSchema":{"type":"object","properties":{"n":{"type":"integer"}},"required":["n"]}`
	addTool(t, s, `{"name":"goodout","inputSchema":{"type":"object"},`+out+`}`, func(context.Context, *Request, json.RawMessage) (*protocol.CallToolResult, error) {
		return &protocol.CallToolResult{Content: []protocol.ContentBlock{Text(`{"n":1}`)}, StructuredContent: json.RawMessage(`{"n":1}`)}, nil
	})
	addTool(t, s, `{"name":"badout","inputSchema":{"type":"object"},`+out+`}`, func(context.Context, *Request, json.RawMessage) (*protocol.CallToolResult, error) {
		return &protocol.CallToolResult{Content: []protocol.ContentBlock{Text("x")}, StructuredContent: json.RawMessage(`{"n":"one"}`)}, nil
	})
	addTool(t, s, `{"name":"noout","inputSchema":{"type":"object"},`+out+`}`, func(context.Context, *Request, json.RawMessage) (*protocol.CallToolResult, error) {
		return TextResult("no structured content"), nil
	})
	addTool(t, s, `{"name":"errout","inputSchema":{"type":"object"},`+out+`}`, func(context.Context, *Request, json.RawMessage) (*protocol.CallToolResult, error) {
		r := TextResult("failed")
		r.IsError = ptr(true)
		return r, nil
	})
	addTool(t, s, `{"name":"args","inputSchema":{"type":"object"}}`, func(_ context.Context, _ *Request, args json.RawMessage) (*protocol.CallToolResult, error) {
		return TextResult(string(args)), nil
	})
	h := s.Handler(HTTPOptions{})
	isErr := func(substr ...string) func(t *testing.T, w *wire) {
		return func(t *testing.T, w *wire) {
			if !w.isError() {
				t.Fatalf("want isError: %s", w.raw)
			}
			for _, sub := range substr {
				if !strings.Contains(w.text(t, 0), sub) {
					t.Errorf("text %q lacks %q", w.text(t, 0), sub)
				}
			}
		}
	}
	cases := []struct {
		name   string
		params M
		code   int64
		status int
		check  func(t *testing.T, w *wire)
	}{
		{"R-TOOL-09 unknown tool is -32602", params(M{"name": "nope"}), protocol.CodeInvalidParamsError, 400, func(t *testing.T, w *wire) {
			if !strings.Contains(w.Error.Message, "nope") {
				t.Errorf("message %q does not name the tool", w.Error.Message)
			}
		}},
		{"R-TOOL-09 arguments a string is -32602", params(M{"name": "args", "arguments": "x"}), protocol.CodeInvalidParamsError, 400, nil},
		{"R-TOOL-09 arguments an array is -32602", params(M{"name": "args", "arguments": []any{1}}), protocol.CodeInvalidParamsError, 400, nil},
		{"R-TOOL-09 arguments a number is -32602", params(M{"name": "args", "arguments": 3}), protocol.CodeInvalidParamsError, 400, nil},
		{"R-TOOL-09 arguments null is -32602", params(M{"name": "args", "arguments": nil}), protocol.CodeInvalidParamsError, 400, nil},
		{"absent arguments reach the handler as {}", params(M{"name": "args"}), 0, 200, func(t *testing.T, w *wire) {
			if w.text(t, 0) != "{}" {
				t.Errorf("args %q", w.text(t, 0))
			}
		}},
		{"A9 missing required argument is isError naming it", params(M{"name": "nested", "arguments": M{}}), 0, 200, isErr("Invalid arguments", "n")},
		{"A9 nested type violation is isError naming the path", params(M{"name": "nested", "arguments": M{"n": 1, "a": M{"b": 7}}}), 0, 200, isErr("/a/b")},
		{"A9 minimum violation is isError naming the path", params(M{"name": "nested", "arguments": M{"n": 0}}), 0, 200, isErr("/n")},
		{"R-TOOL-09 handler error is an isError result", params(M{"name": "fail"}), 0, 200, isErr("upstream API returned 503")},
		{"R-TOOL-09 handler *Error is that protocol error", params(M{"name": "proto"}), protocol.CodeInvalidParamsError, 400, func(t *testing.T, w *wire) {
			if w.data(t)["field"] != "when" {
				t.Errorf("data %s", w.Error.Data)
			}
		}},
		{"nil result is -32603", params(M{"name": "nilres"}), protocol.CodeInternalError, 500, nil},
		{"R-TOOL-08 content is always present", params(M{"name": "nocontent"}), 0, 200, func(t *testing.T, w *wire) {
			if c, ok := w.Result["content"].([]any); !ok || len(c) != 0 {
				t.Errorf("content %v", w.Result["content"])
			}
		}},
		{"R-TOOL-06 structuredContent matching outputSchema", params(M{"name": "goodout"}), 0, 200, func(t *testing.T, w *wire) {
			if fmt.Sprint(w.Result["structuredContent"]) != "map[n:1]" {
				t.Errorf("structuredContent %v", w.Result["structuredContent"])
			}
		}},
		{"R-TOOL-06 structuredContent violating outputSchema is -32603", params(M{"name": "badout"}), protocol.CodeInternalError, 500, nil},
		{"R-TOOL-06 structuredContent missing under outputSchema is -32603", params(M{"name": "noout"}), protocol.CodeInternalError, 500, nil},
		{"R-TOOL-06 isError result is not held to outputSchema", params(M{"name": "errout"}), 0, 200, isErr("failed")},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			rec := post(t, h, rpc(1, protocol.MethodToolsCall, c.params), nil)
			w := single(t, rec)
			if w.code() != c.code || rec.Code != c.status {
				t.Fatalf("code %d status %d, want %d %d: %s", w.code(), rec.Code, c.code, c.status, w.raw)
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
		opts []Option
		ok   bool
	}{
		{"R-TOOL-04 plain name", `{"name":"a.b_c-D9","inputSchema":{"type":"object"}}`, nil, true},
		{"R-TOOL-04 128 characters", `{"name":"` + strings.Repeat("a", 128) + `","inputSchema":{"type":"object"}}`, nil, true},
		{"R-TOOL-04 129 characters (strict)", `{"name":"` + strings.Repeat("a", 129) + `","inputSchema":{"type":"object"}}`, []Option{WithStrictNames()}, false},
		{"R-TOOL-04 empty name (strict)", `{"name":"","inputSchema":{"type":"object"}}`, []Option{WithStrictNames()}, false},
		{"R-TOOL-04 space (strict)", `{"name":"a b","inputSchema":{"type":"object"}}`, []Option{WithStrictNames()}, false},
		{"R-TOOL-04 comma (strict)", `{"name":"a,b","inputSchema":{"type":"object"}}`, []Option{WithStrictNames()}, false},
		{"R-TOOL-04 non-ASCII (strict)", `{"name":"grüße","inputSchema":{"type":"object"}}`, []Option{WithStrictNames()}, false},
		{"R-SCHEMA-01 2020-12 by default (prefixItems)", `{"name":"t","inputSchema":{"type":"object","properties":{"p":{"prefixItems":[{"type":"string"}]}}}}`, nil, true},
		{"R-SCHEMA-02 draft-07 accepted", `{"name":"t","inputSchema":{"$schema":"http://json-schema.org/draft-07/schema#","type":"object","properties":{"a":{"items":[{"type":"string"}]}}}}`, nil, true},
		{"R-SCHEMA-02 2020-12 explicit", `{"name":"t","inputSchema":{"$schema":"https://json-schema.org/draft/2020-12/schema","type":"object"}}`, nil, true},
		{"R-SCHEMA-02 unknown dialect refused", `{"name":"t","inputSchema":{"$schema":"https://example.com/my-dialect","type":"object"}}`, nil, false},
		{"R-SCHEMA-04 invalid schema refused", `{"name":"t","inputSchema":{"type":"object","properties":{"a":{"type":"strang"}}}}`, nil, false},
		{"R-SCHEMA-04 invalid outputSchema refused", `{"name":"t","inputSchema":{"type":"object"},"outputSchema":{"type":7}}`, nil, false},
		{"local $ref resolves", `{"name":"t","inputSchema":{"type":"object","$defs":{"s":{"type":"string"}},"properties":{"a":{"$ref":"#/$defs/s"}}}}`, nil, true},
		{"R-SCHEMA-07 unresolvable local $ref refused", `{"name":"t","inputSchema":{"type":"object","properties":{"a":{"$ref":"#/$defs/missing"}}}}`, nil, false},
		{"R-SCHEMA-08 nesting within WithMaxSchemaDepth", `{"name":"t","inputSchema":{"type":"object","properties":{"a":{"type":"string"}}}}`, []Option{WithMaxSchemaDepth(3)}, true},
		{"R-SCHEMA-08 nesting beyond WithMaxSchemaDepth", `{"name":"t","inputSchema":{"type":"object","properties":{"a":{"type":"object","properties":{"b":{"type":"string"}}}}}}`, []Option{WithMaxSchemaDepth(3)}, false},
		{"R-SCHEMA-08 outputSchema nesting bounded too", `{"name":"t","inputSchema":{"type":"object"},"outputSchema":{"allOf":[{"allOf":[{"allOf":[{"type":"object"}]}]}]}}`, []Option{WithMaxSchemaDepth(3)}, false},
		{"R-SCHEMA-08 default depth bounds a deep anyOf chain", `{"name":"t","inputSchema":{"type":"object","properties":{"a":` + strings.Repeat(`{"anyOf":[`, 40) + `{}` + strings.Repeat(`]}`, 40) + `}}}`, nil, false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			s := newServer(t, c.opts...)
			err := s.AddTool(toolDef(t, c.def), textTool("x"))
			if (err == nil) != c.ok {
				t.Errorf("AddTool error %v, want ok=%v", err, c.ok)
			}
		})
	}
	t.Run("nil handler refused", func(t *testing.T) {
		if err := newServer(t).AddTool(toolDef(t, `{"name":"t","inputSchema":{"type":"object"}}`), nil); err == nil {
			t.Error("nil handler accepted")
		}
	})
}

// TestDraft07Semantics checks that a draft-07 schema validates with draft-07
// meaning: array-form items is a tuple (R-SCHEMA-02).
func TestDraft07Semantics(t *testing.T) {
	s := newServer(t)
	addTool(t, s, `{"name":"t","inputSchema":{"$schema":"http://json-schema.org/draft-07/schema#","type":"object","properties":{"a":{"type":"array","items":[{"type":"string"}]}}}}`, textTool("ok"))
	h := s.Handler(HTTPOptions{})
	if w := call(t, h, 1, protocol.MethodToolsCall, params(M{"name": "t", "arguments": M{"a": []any{"x", 2}}})); w.isError() {
		t.Errorf("valid draft-07 tuple refused: %s", w.raw)
	}
	if w := call(t, h, 1, protocol.MethodToolsCall, params(M{"name": "t", "arguments": M{"a": []any{1}}})); !w.isError() || !strings.Contains(w.text(t, 0), "/a/0") {
		t.Errorf("draft-07 tuple violation not reported at /a/0: %s", w.raw)
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
			err := newServer(t).AddTool(toolDef(t, c.def), textTool("x"))
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
			s := newServer(t, WithPageSize(size))
			for _, n := range shuffled {
				addTool(t, s, `{"name":"`+n+`","inputSchema":{"type":"object"}}`, textTool(n))
			}
			h := s.Handler(HTTPOptions{})
			walk := func() ([]string, []string) {
				var got, cursors []string
				var cursor any
				for i := 0; i < 20; i++ {
					p := params(nil)
					if cursor != nil {
						p["cursor"] = cursor
					}
					w := call(t, h, i, protocol.MethodToolsList, p)
					if w.Error != nil {
						t.Fatalf("error %s", w.raw)
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
		h := fixture(t).Handler(HTTPOptions{})
		for _, c := range []any{"", "%%%", "bm90LWEtY3Vyc29y", "c1:echo", 42} {
			for _, m := range []string{protocol.MethodToolsList, protocol.MethodPromptsList, protocol.MethodResourcesList, protocol.MethodResourcesTemplatesList} {
				rec := post(t, h, rpc(1, m, params(M{"cursor": c})), nil)
				w := single(t, rec)
				if w.code() != protocol.CodeInvalidParamsError || w.id() != "1" {
					t.Errorf("%s cursor %v: %s", m, c, w.raw)
				}
			}
		}
	})
	t.Run("R-PAGE-02 cursor survives removal of its item", func(t *testing.T) {
		s := newServer(t, WithPageSize(2))
		for _, n := range names {
			addTool(t, s, `{"name":"`+n+`","inputSchema":{"type":"object"}}`, textTool(n))
		}
		h := s.Handler(HTTPOptions{})
		w := call(t, h, 1, protocol.MethodToolsList, params(nil))
		if !s.RemoveTool("bravo") {
			t.Fatal("RemoveTool")
		}
		w = call(t, h, 2, protocol.MethodToolsList, params(M{"cursor": w.Result["nextCursor"]}))
		tools, _ := w.Result["tools"].([]any)
		if len(tools) != 2 || tools[0].(M)["name"] != "charlie" {
			t.Errorf("page after removal: %s", w.raw)
		}
	})
}

// TestOtherListsPaginate checks prompts/list, resources/list and
// resources/templates/list share the paging (R-PAGE-01).
func TestOtherListsPaginate(t *testing.T) {
	s := newServer(t, WithPageSize(2))
	rh := func(_ context.Context, _ *Request, uri string, _ map[string]string) ([]protocol.ReadResourceResultContentsElem, error) {
		return TextContents(uri, "", "x"), nil
	}
	for _, n := range []string{"c", "a", "b"} {
		addPrompt(t, s, protocol.Prompt{Name: n}, func(context.Context, *Request, map[string]string) (*protocol.GetPromptResult, error) {
			return &protocol.GetPromptResult{}, nil
		})
		addResource(t, s, protocol.Resource{URI: "x://" + n, Name: n}, rh)
		if err := s.AddResourceTemplate(protocol.ResourceTemplate{URITemplate: "t" + n + "://{v}", Name: n}, rh); err != nil {
			t.Fatal(err)
		}
	}
	h := s.Handler(HTTPOptions{})
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
				p := params(nil)
				if cursor != nil {
					p["cursor"] = cursor
				}
				w := call(t, h, i, c.method, p)
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
	s := newServer(t)
	err := AddTypedTool(s, protocol.Tool{Name: "forecast"}, func(_ context.Context, _ *Request, in typedIn) (typedOut, error) {
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
	h := s.Handler(HTTPOptions{})
	w := call(t, h, 1, protocol.MethodToolsList, params(nil))
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

	w = call(t, h, 2, protocol.MethodToolsCall, params(M{"name": "forecast", "arguments": M{"city": "Oslo", "days": 2}}))
	if w.isError() || w.Error != nil {
		t.Fatalf("call failed: %s", w.raw)
	}
	sc, _ := json.Marshal(w.Result["structuredContent"])
	if !jsonEq(t, sc, []byte(`{"city":"Oslo","temps":[20.5,21.5]}`)) {
		t.Errorf("structuredContent %s", sc)
	}
	if !jsonEq(t, []byte(w.text(t, 0)), sc) {
		t.Errorf("R-TOOL-07: text block %q does not hold the structured JSON", w.text(t, 0))
	}

	w = call(t, h, 3, protocol.MethodToolsCall, params(M{"name": "forecast", "arguments": M{"city": "Oslo"}}))
	if !w.isError() {
		t.Errorf("missing required days not refused: %s", w.raw)
	}
	w = call(t, h, 4, protocol.MethodToolsCall, params(M{"name": "forecast", "arguments": M{"city": "Oslo", "days": 1, "extra": true}}))
	if !w.isError() {
		t.Errorf("unknown argument accepted by an inferred schema: %s", w.raw)
	}
	w = call(t, h, 5, protocol.MethodToolsCall, params(M{"name": "forecast", "arguments": M{"city": "Atlantis", "days": 1}}))
	if !w.isError() || !strings.Contains(w.text(t, 0), "no such city") {
		t.Errorf("typed handler error not an isError result: %s", w.raw)
	}
}

// TestToolReplaceRemove checks re-registration and RemoveTool.
func TestToolReplaceRemove(t *testing.T) {
	s := newServer(t)
	addTool(t, s, `{"name":"t","inputSchema":{"type":"object"}}`, textTool("one"))
	addTool(t, s, `{"name":"t","inputSchema":{"type":"object"}}`, textTool("two"), Replace())
	h := s.Handler(HTTPOptions{})
	if w := call(t, h, 1, protocol.MethodToolsCall, params(M{"name": "t"})); w.text(t, 0) != "two" {
		t.Errorf("not replaced: %s", w.raw)
	}
	if !s.RemoveTool("t") || s.RemoveTool("t") {
		t.Error("RemoveTool results")
	}
	if w := call(t, h, 1, protocol.MethodToolsCall, params(M{"name": "t"})); w.code() != protocol.CodeInvalidParamsError {
		t.Errorf("removed tool still served: %s", w.raw)
	}
}

// R-SCHEMA-08: a schema too large to validate cheaply is refused at
// registration.
func TestSchemaNodeLimit(t *testing.T) {
	s := newServer(t)
	var b strings.Builder
	b.WriteString(`{"type":"object","anyOf":[`)
	for i := range DefaultMaxSchemaNodes {
		if i > 0 {
			b.WriteByte(',')
		}
		b.WriteString(`{"required":["a"]}`)
	}
	b.WriteString(`]}`)
	def := toolDef(t, `{"name":"big","inputSchema":`+b.String()+`}`)
	err := s.AddTool(def, textTool("x"))
	if err == nil || !strings.Contains(err.Error(), "nodes") {
		t.Fatalf("AddTool accepted a schema of %d subschemas: %v", DefaultMaxSchemaNodes, err)
	}
}

// R-SCHEMA-08: a chain of $refs whose validation doubles at every step is
// refused at registration; a recursive but linear schema is accepted.
func TestSchemaRefExpansion(t *testing.T) {
	s := newServer(t)
	defs := []string{}
	for i := range 30 {
		defs = append(defs, fmt.Sprintf(`"d%d":{"anyOf":[{"$ref":"#/$defs/d%d"},{"$ref":"#/$defs/d%d"}]}`, i, i+1, i+1))
	}
	defs = append(defs, `"d30":{"type":"string"}`)
	bomb := `{"name":"bomb","inputSchema":{"type":"object","properties":{"x":{"$ref":"#/$defs/d0"}},"$defs":{` + strings.Join(defs, ",") + `}}}`
	if err := s.AddTool(toolDef(t, bomb), textTool("x")); err == nil || !strings.Contains(err.Error(), "steps") {
		t.Fatalf("AddTool accepted a schema that expands to 2^30 steps: %v", err)
	}
	tree := `{"name":"tree","inputSchema":{"type":"object","properties":{"root":{"$ref":"#/$defs/node"}},"$defs":{"node":{"type":"object","properties":{"kids":{"type":"array","items":{"$ref":"#/$defs/node"}}}}}}}`
	if err := s.AddTool(toolDef(t, tree), textTool("x")); err != nil {
		t.Fatalf("a recursive schema was refused: %v", err)
	}
}

// TestAddTypedToolResult: with Out = *protocol.CallToolResult the handler's
// result goes out as it is, with no outputSchema and no structuredContent,
// while the input is still inferred and validated.
func TestAddTypedToolResult(t *testing.T) {
	s := newServer(t)
	err := AddTypedTool(s, protocol.Tool{Name: "echo"}, func(_ context.Context, _ *Request, in struct {
		Text string `json:"text"`
	}) (*protocol.CallToolResult, error) {
		if in.Text == "" {
			return nil, nil // a handler bug: no result
		}
		return TextResult("echo: " + in.Text), nil
	})
	if err != nil {
		t.Fatal(err)
	}
	h := s.Handler(HTTPOptions{})
	w := call(t, h, 1, protocol.MethodToolsList, params(nil))
	tool := w.Result["tools"].([]any)[0].(M)
	if _, has := tool["outputSchema"]; has {
		t.Errorf("outputSchema declared for a *CallToolResult output: %v", tool)
	}
	if in := tool["inputSchema"].(M); fmt.Sprint(in["required"]) != "[text]" {
		t.Errorf("inputSchema not inferred: %v", in)
	}
	w = call(t, h, 2, protocol.MethodToolsCall, params(M{"name": "echo", "arguments": M{"text": "hi"}}))
	if w.isError() || w.Error != nil || w.text(t, 0) != "echo: hi" {
		t.Fatalf("call: %s", w.raw)
	}
	if _, has := w.Result["structuredContent"]; has {
		t.Errorf("structuredContent added: %s", w.raw)
	}
	w = call(t, h, 3, protocol.MethodToolsCall, params(M{"name": "echo", "arguments": M{"text": 1}}))
	if !w.isError() {
		t.Errorf("argument of the wrong type accepted: %s", w.raw)
	}
	w = call(t, h, 4, protocol.MethodToolsCall, params(M{"name": "echo", "arguments": M{"text": ""}}))
	if w.Error == nil || w.Error.Code != protocol.CodeInternalError {
		t.Errorf("a nil result must be -32603: %s", w.raw)
	}
}
