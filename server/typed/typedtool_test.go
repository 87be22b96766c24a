package typed_test

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	. "github.com/mcpwire/mcpwire/server/internal/testkit"
	"github.com/mcpwire/mcpwire/server/streamhttp"
	"github.com/mcpwire/mcpwire/server/typed"

	"github.com/mcpwire/mcpwire/protocol"
	"github.com/mcpwire/mcpwire/server"
)

// listedTool returns the tools/list entry of one tool.
func listedTool(t *testing.T, s *server.Server, name string) M {
	t.Helper()
	w := Call(t, Handler(s, streamhttp.Options{}), 1, protocol.MethodToolsList, Params(nil))
	tools, _ := w.Result["tools"].([]any)
	for _, x := range tools {
		if m, _ := x.(M); m["name"] == name {
			return m
		}
	}
	t.Fatalf("tool %s not listed: %s", name, w.Raw)
	return nil
}

type paint struct {
	Color string `json:"color"`
	Coats int    `json:"coats,omitempty"`
}

// TestAddTypedToolKeepsInputSchema: a schema given in def.InputSchema is
// declared and enforced instead of the inferred one (issue 12; R-TOOL-05,
// R-SCHEMA-01): an enum set by hand shows in tools/list, and a value
// outside it is refused as a tool execution error (R-TOOL-09).
func TestAddTypedToolKeepsInputSchema(t *testing.T) {
	s := NewServer(t)
	def := ToolDef(t, `{"name":"paint","inputSchema":{"type":"object","properties":{"color":{"type":"string","enum":["red"]},"coats":{"type":"integer","minimum":1}},"required":["color"]}}`)
	var got []string
	if err := typed.AddTool(s, def, func(_ context.Context, _ *server.Request, in paint) (string, error) {
		got = append(got, in.Color)
		return "painted " + in.Color, nil
	}); err != nil {
		t.Fatal(err)
	}
	in, _ := listedTool(t, s, "paint")["inputSchema"].(M)
	color, _ := in["properties"].(M)["color"].(M)
	if fmt.Sprint(color["enum"]) != "[red]" {
		t.Errorf("the enum set by hand is not in tools/list: %v", in)
	}
	h := Handler(s, streamhttp.Options{})
	if w := Call(t, h, 1, protocol.MethodToolsCall, Params(M{"name": "paint", "arguments": M{"color": "green"}})); !w.IsError() {
		t.Errorf("green accepted where only red is allowed: %s", w.Raw)
	}
	if w := Call(t, h, 2, protocol.MethodToolsCall, Params(M{"name": "paint", "arguments": M{"color": "red", "coats": 0}})); !w.IsError() {
		t.Errorf("minimum set by hand not enforced: %s", w.Raw)
	}
	if w := Call(t, h, 3, protocol.MethodToolsCall, Params(M{"name": "paint", "arguments": M{"color": "red"}})); w.IsError() || w.Text(t, 0) != `"painted red"` {
		t.Errorf("red refused: %s", w.Raw)
	}
	if strings.Join(got, ",") != "red" {
		t.Errorf("handler saw %v, want only red", got)
	}
}

// TestAddTypedToolKeepsOutputSchema: a given outputSchema is declared
// instead of the inferred one and results are checked against it
// (R-TOOL-06).
func TestAddTypedToolKeepsOutputSchema(t *testing.T) {
	s := NewServer(t)
	def := ToolDef(t, `{"name":"mix","inputSchema":{"type":"object"},"outputSchema":{"type":"object","properties":{"color":{"type":"string","enum":["red"]}},"required":["color"]}}`)
	if err := typed.AddTool(s, def, func(_ context.Context, _ *server.Request, in paint) (paint, error) {
		return in, nil
	}); err != nil {
		t.Fatal(err)
	}
	out, _ := listedTool(t, s, "mix")["outputSchema"].(M)
	if fmt.Sprint(out["properties"].(M)["color"].(M)["enum"]) != "[red]" {
		t.Errorf("the given outputSchema is not in tools/list: %v", out)
	}
	h := Handler(s, streamhttp.Options{})
	if w := Call(t, h, 1, protocol.MethodToolsCall, Params(M{"name": "mix", "arguments": M{"color": "red"}})); w.Error != nil {
		t.Errorf("a result matching the outputSchema refused: %s", w.Raw)
	}
	if w := Call(t, h, 2, protocol.MethodToolsCall, Params(M{"name": "mix", "arguments": M{"color": "green"}})); w.Code() != protocol.CodeInternalError {
		t.Errorf("a result outside the given outputSchema went out: %s", w.Raw)
	}
}

// TestAddTypedToolGivenSchemaChecked: a given schema that does not fit the
// Go type is refused at registration, with a message naming the type and
// the property.
func TestAddTypedToolGivenSchemaChecked(t *testing.T) {
	h := func(context.Context, *server.Request, paint) (paint, error) { return paint{}, nil }
	cases := []struct{ name, def, want string }{
		{"required property not a field", `{"name":"t","inputSchema":{"type":"object","required":["colour"]}}`, `required property "colour" is no field of In`},
		{"declared property not a field", `{"name":"t","inputSchema":{"type":"object","properties":{"hue":{"type":"string"}}}}`, `property "hue" is no field of In`},
		{"property type does not fit", `{"name":"t","inputSchema":{"type":"object","properties":{"coats":{"type":"string"}}}}`, `property "coats": type "string" does not fit`},
		{"output type does not fit", `{"name":"t","inputSchema":{"type":"object","properties":{"color":{"type":"string"}}},"outputSchema":{"type":"array"}}`, `outputSchema: type "array" does not fit`},
		{"output required not a field", `{"name":"t","inputSchema":{"type":"object","properties":{"color":{"type":"string"}}},"outputSchema":{"type":"object","required":["shade"]}}`, `required property "shade" is no field of Out`},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			err := typed.AddTool(NewServer(t), ToolDef(t, c.def), h)
			if err == nil || !strings.Contains(err.Error(), c.want) || !strings.Contains(err.Error(), "typed_test.paint") {
				t.Errorf("error %v, want one naming typed_test.paint and containing %q", err, c.want)
			}
		})
	}
	t.Run("integer fits number", func(t *testing.T) {
		type f struct {
			X float64 `json:"x"`
		}
		err := typed.AddTool(NewServer(t), ToolDef(t, `{"name":"t","inputSchema":{"type":"object","properties":{"x":{"type":"integer"}}}}`),
			func(context.Context, *server.Request, f) (f, error) { return f{}, nil })
		if err != nil {
			t.Error(err)
		}
	})
}

// TestAddTypedToolTypes is the table over the types that can and cannot
// be In and Out (issue 12): what can is registered and answers a call,
// what cannot is refused with an error naming the type and the fix.
func TestAddTypedToolTypes(t *testing.T) {
	type ok struct {
		N int `json:"n"`
	}
	args := M{"n": 2}
	cases := []struct {
		name   string
		add    func(*server.Server) error
		err    string // "" when the registration must succeed
		schema string // the inputSchema in tools/list
		out    string // the outputSchema's type in tools/list, "" for none
		result string // the structuredContent, "" for none
		noArgs bool   // call with no arguments
	}{
		{name: "In struct", add: func(s *server.Server) error {
			return typed.AddTool(s, protocol.Tool{Name: "t"}, func(_ context.Context, _ *server.Request, in ok) (ok, error) { return in, nil })
		}, schema: `"type":"object"`, out: "object", result: `{"n":2}`},
		{name: "In pointer to struct", add: func(s *server.Server) error {
			return typed.AddTool(s, protocol.Tool{Name: "t"}, func(_ context.Context, _ *server.Request, in *ok) (ok, error) { return *in, nil })
		}, schema: `"properties":{"n":{"type":"integer"}}`, out: "object", result: `{"n":2}`},
		{name: "In struct{}", add: func(s *server.Server) error {
			return typed.AddTool(s, protocol.Tool{Name: "t"}, func(context.Context, *server.Request, struct{}) (ok, error) { return ok{N: 1}, nil })
		}, schema: `"additionalProperties":false`, out: "object", result: `{"n":1}`, noArgs: true},
		{name: "In any gets a map", add: func(s *server.Server) error {
			return typed.AddTool(s, protocol.Tool{Name: "t"}, func(_ context.Context, _ *server.Request, in any) (string, error) {
				m, isMap := in.(map[string]any)
				return fmt.Sprintf("%v %v", isMap, m["n"]), nil
			})
		}, schema: `{"type":"object"}`, out: "string", result: `"true 2"`},
		{name: "In json.RawMessage", add: func(s *server.Server) error {
			return typed.AddTool(s, protocol.Tool{Name: "t"}, func(_ context.Context, _ *server.Request, in json.RawMessage) (string, error) { return string(in), nil })
		}, schema: `{"type":"object"}`, out: "string", result: `"{\"n\":2}"`},
		{name: "In map", add: func(s *server.Server) error {
			return typed.AddTool(s, protocol.Tool{Name: "t"}, func(_ context.Context, _ *server.Request, in map[string]int) (int, error) { return in["n"], nil })
		}, schema: `"additionalProperties":{"type":"integer"}`, out: "integer", result: `2`},
		{name: "Out any, a value", add: func(s *server.Server) error {
			return typed.AddTool(s, protocol.Tool{Name: "t"}, func(_ context.Context, _ *server.Request, in ok) (any, error) { return []int{in.N}, nil })
		}, schema: `"type":"object"`, result: `[2]`},
		{name: "Out any, nil", add: func(s *server.Server) error {
			return typed.AddTool(s, protocol.Tool{Name: "t"}, func(context.Context, *server.Request, ok) (any, error) { return nil, nil })
		}, schema: `"type":"object"`},
		{name: "Out any, a CallToolResult", add: func(s *server.Server) error {
			return typed.AddTool(s, protocol.Tool{Name: "t"}, func(context.Context, *server.Request, ok) (any, error) { return server.TextResult("hi"), nil })
		}, schema: `"type":"object"`},
		{name: "Out CallToolResult", add: func(s *server.Server) error {
			return typed.AddTool(s, protocol.Tool{Name: "t"}, func(context.Context, *server.Request, ok) (*protocol.CallToolResult, error) {
				return server.TextResult("hi"), nil
			})
		}, schema: `"type":"object"`},
		{name: "Out another interface, nil", add: func(s *server.Server) error {
			return typed.AddTool(s, protocol.Tool{Name: "t"}, func(context.Context, *server.Request, ok) (fmt.Stringer, error) { return nil, nil })
		}, schema: `"type":"object"`},
		{name: "In another interface refused", add: func(s *server.Server) error {
			return typed.AddTool(s, protocol.Tool{Name: "t"}, func(context.Context, *server.Request, fmt.Stringer) (int, error) { return 0, nil })
		}, err: "AddTool[In=fmt.Stringer]: In must be"},
		{name: "In int refused", add: func(s *server.Server) error {
			return typed.AddTool(s, protocol.Tool{Name: "t"}, func(context.Context, *server.Request, int) (int, error) { return 0, nil })
		}, err: "AddTool[In=int]: In must be a struct, a pointer to one, struct{}, a map with string keys, json.RawMessage or any"},
		{name: "In string refused", add: func(s *server.Server) error {
			return typed.AddTool(s, protocol.Tool{Name: "t"}, func(context.Context, *server.Request, string) (int, error) { return 0, nil })
		}, err: "AddTool[In=string]: In must be"},
		{name: "In slice refused", add: func(s *server.Server) error {
			return typed.AddTool(s, protocol.Tool{Name: "t"}, func(context.Context, *server.Request, []ok) (int, error) { return 0, nil })
		}, err: "AddTool[In=[]typed_test.ok]: In must be"},
		{name: "In pointer to int refused", add: func(s *server.Server) error {
			return typed.AddTool(s, protocol.Tool{Name: "t"}, func(context.Context, *server.Request, *int) (int, error) { return 0, nil })
		}, err: "AddTool[In=*int]: In must be"},
		{name: "In map with int keys refused", add: func(s *server.Server) error {
			return typed.AddTool(s, protocol.Tool{Name: "t"}, func(context.Context, *server.Request, map[int]string) (int, error) { return 0, nil })
		}, err: "AddTool[In=map[int]string]: In must be"},
		{name: "In struct with a chan field refused", add: func(s *server.Server) error {
			return typed.AddTool(s, protocol.Tool{Name: "t"}, func(context.Context, *server.Request, struct{ C chan int }) (int, error) { return 0, nil })
		}, err: "AddTool[In=struct { C chan int }]: "},
		{name: "Out chan refused", add: func(s *server.Server) error {
			return typed.AddTool(s, protocol.Tool{Name: "t"}, func(context.Context, *server.Request, ok) (chan int, error) { return nil, nil })
		}, err: "AddTool[Out=chan int]: "},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			s := NewServer(t)
			err := c.add(s)
			if c.err != "" {
				if err == nil || !strings.Contains(err.Error(), c.err) {
					t.Fatalf("error %v, want one containing %q", err, c.err)
				}
				if strings.Contains(c.name, "Out") && !strings.Contains(err.Error(), "Out must be") {
					t.Errorf("error %v does not say what Out may be", err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			listed := listedTool(t, s, "t")
			in, _ := json.Marshal(listed["inputSchema"])
			if !strings.Contains(string(in), c.schema) {
				t.Errorf("inputSchema %s, want it to contain %s", in, c.schema)
			}
			out, _ := listed["outputSchema"].(M)
			if typ := fmt.Sprint(out["type"]); c.out == "" && out != nil || c.out != "" && typ != c.out {
				t.Errorf("outputSchema %v, want type %q", out, c.out)
			}
			p := M{"name": "t", "arguments": args}
			if c.noArgs {
				delete(p, "arguments")
			}
			w := Call(t, Handler(s, streamhttp.Options{}), 1, protocol.MethodToolsCall, Params(p))
			if w.Error != nil || w.IsError() {
				t.Fatalf("call failed: %s", w.Raw)
			}
			sc, has := w.Result["structuredContent"]
			b, _ := json.Marshal(sc)
			if c.result == "" && has || c.result != "" && string(b) != c.result {
				t.Errorf("structuredContent %s (present %v), want %q: %s", b, has, c.result, w.Raw)
			}
			if c.result != "" && w.Text(t, 0) != c.result {
				t.Errorf("text block %q, want the structuredContent's JSON (R-TOOL-07)", w.Text(t, 0))
			}
		})
	}
}
