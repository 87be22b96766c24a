package server_test

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/mcpwire/mcpwire/server/typed"

	"github.com/mcpwire/mcpwire/protocol"
	"github.com/mcpwire/mcpwire/server"
	"github.com/mcpwire/mcpwire/servertest"
)

// TestInputSchemaErrors checks that a hand-written schema's problem is
// named with where it is.
func TestInputSchemaErrors(t *testing.T) {
	for _, c := range []struct{ name, raw, want string }{
		{"syntax, by line and column", "{\n  \"type\": \"object\",\n  \"properties\": {,}\n}", "line 3, column 18"},
		{"syntax on line 1", `{"type": "object",}`, "line 1, column 19"},
		{"wrong JSON type", `{"type": "object", "properties": []}`, "properties"},
		{"not an object", `[]`, "want a JSON object, got array"},
		{"a boolean schema", `true`, "want a JSON object, got boolean"},
		{"no type", `{"properties": {}}`, `"type" is missing`},
		{"type not object", `{"type": "array"}`, `"type" is "array"`},
		{"bad keyword value", `{"type": "object", "properties": {"n": {"minimum": "x"}}}`, "/properties/n/minimum"},
		{"remote $ref", `{"type": "object", "properties": {"n": {"$ref": "https://example.com/s.json"}}}`, "R-SCHEMA-05"},
		{"trailing JSON", `{"type": "object"} {}`, "more JSON after the schema"},
		{"empty", ``, "EOF"},
	} {
		t.Run(c.name, func(t *testing.T) {
			_, err := server.InputSchema(c.raw)
			if err == nil || !strings.Contains(err.Error(), c.want) || !strings.HasPrefix(err.Error(), "server: inputSchema: ") {
				t.Errorf("InputSchema(%q) = %v, want an error naming %q", c.raw, err, c.want)
			}
		})
	}
	if _, err := server.InputSchemaFrom(map[string]any{"type": "object", "f": func() {}}); err == nil {
		t.Error("InputSchemaFrom(a func) succeeded")
	}
	if _, err := server.OutputSchema(`{"type": "string"}`); err == nil || !strings.Contains(err.Error(), "server: outputSchema: ") {
		t.Errorf("OutputSchema(string) = %v", err)
	}
	defer func() {
		if recover() == nil {
			t.Error("MustInputSchema did not panic on a bad schema")
		}
	}()
	server.MustInputSchema(`{"type": "array"}`)
}

// TestInputSchemaKept checks that a schema built from text or from a map
// keeps every keyword: a tool registered with it refuses what the enum
// leaves out (isError, R-TOOL-09, A9), and a typed tool keeps it too.
func TestInputSchemaKept(t *testing.T) {
	fromText, err := server.InputSchema(`{"type":"object","properties":{"color":{"enum":["red"]}},"required":["color"]}`)
	if err != nil {
		t.Fatal(err)
	}
	fromMap, err := server.InputSchemaFrom(map[string]any{
		"type":       "object",
		"properties": map[string]any{"color": map[string]any{"enum": []string{"red"}}},
		"required":   []string{"color"},
	})
	if err != nil {
		t.Fatal(err)
	}
	out, err := server.OutputSchemaFrom(map[string]any{"type": "object", "properties": map[string]any{"ok": map[string]any{"type": "boolean"}}})
	if err != nil {
		t.Fatal(err)
	}
	s, _ := server.New(protocol.Implementation{Name: "t", Version: "1"})
	h := func(context.Context, *server.Request, json.RawMessage) (*protocol.CallToolResult, error) {
		return server.TextResult("painted"), nil
	}
	if err := s.AddTool(protocol.Tool{Name: "text", InputSchema: fromText}, h); err != nil {
		t.Fatal(err)
	}
	if err := s.AddTool(protocol.Tool{Name: "map", InputSchema: fromMap, OutputSchema: out}, func(context.Context, *server.Request, json.RawMessage) (*protocol.CallToolResult, error) {
		return server.StructuredResult(map[string]bool{"ok": true})
	}); err != nil {
		t.Fatal(err)
	}
	type paint struct {
		Color string `json:"color"`
	}
	if err := typed.AddTool(s, protocol.Tool{Name: "typed", InputSchema: fromText}, func(_ context.Context, _ *server.Request, p paint) (string, error) {
		return "painted " + p.Color, nil
	}); err != nil {
		t.Fatal(err)
	}
	c := servertest.New(s)
	for _, name := range []string{"text", "map", "typed"} {
		if _, err := c.CallTool(context.Background(), name, map[string]any{"color": "red"}); err != nil {
			t.Errorf("%s red: %v", name, err)
		}
		res, err := c.CallTool(context.Background(), name, map[string]any{"color": "green"})
		if err != nil || res.IsError == nil || !*res.IsError {
			t.Errorf("%s green: %+v %v, want a tool execution error (R-TOOL-09, A9)", name, res, err)
		}
	}
}

// ExampleInputSchema registers a tool with a schema written by hand.
func ExampleInputSchema() {
	sch, err := server.InputSchema(`{
		"type": "object",
		"properties": {"color": {"enum": ["red", "blue"]}},
		"required": ["color"]
	}`)
	if err != nil {
		fmt.Println(err)
		return
	}
	s, _ := server.New(protocol.Implementation{Name: "demo", Version: "1.0.0"})
	_ = s.AddTool(protocol.Tool{Name: "paint", InputSchema: sch}, func(_ context.Context, _ *server.Request, args json.RawMessage) (*protocol.CallToolResult, error) {
		return server.TextResult("painted " + string(args)), nil
	})
	res, _ := servertest.New(s).CallTool(context.Background(), "paint", map[string]string{"color": "green"})
	fmt.Println(*res.IsError)

	_, err = server.InputSchema(`{"type": "object", "properties": {"n": {"minimum": "one"}}}`)
	fmt.Println(err)
	// Output:
	// true
	// server: inputSchema: not a valid JSON Schema: at /properties/n/minimum: got string, want number
}

// TestSchemaHugeNumbers checks that a bound out of float64's range
// (overflow or underflow) is refused by InputSchema and AddTool alike,
// naming where it is, rather than panicking in the validator (hostile
// review LIB-3; the second review's ATK-SCH-1 and -3: a property named
// "default", an underflow), while data and annotations are left alone
// (ATK-SCH-4).
func TestSchemaHugeNumbers(t *testing.T) {
	for _, raw := range []string{
		`{"type":"object","properties":{"n":{"multipleOf":1e99999999}}}`,
		`{"type":"object","properties":{"n":{"minimum":-1e999999999999}}}`,
		`{"type":"object","allOf":[{"properties":{"n":{"maximum":1e400}}}]}`,
		`{"type":"object","properties":{"n":{"exclusiveMinimum":1e309}}}`,
		`{"type":"object","properties":{"n":{"type":"number","multipleOf":1e-99999999}}}`,
		`{"type":"object","properties":{"default":{"type":"number","multipleOf":1e99999999}}}`,
		`{"type":"object","$defs":{"enum":{"multipleOf":1e-400}},"properties":{"e":{"$ref":"#/$defs/enum"}}}`,
	} {
		_, err := server.InputSchema(raw)
		if err == nil || !strings.Contains(err.Error(), "out of range") || !strings.Contains(err.Error(), "at /") {
			t.Errorf("InputSchema(%s) = %v, want out of range with its location", raw, err)
		}
		var def protocol.Tool
		if err := json.Unmarshal([]byte(`{"name":"t","inputSchema":`+raw+`}`), &def); err != nil {
			continue // the generated type refuses it already
		}
		s, _ := server.New(protocol.Implementation{Name: "t", Version: "1"})
		if err := s.AddTool(def, func(context.Context, *server.Request, json.RawMessage) (*protocol.CallToolResult, error) {
			return nil, nil
		}); err == nil {
			t.Errorf("AddTool accepted %s", raw)
		}
	}
}

// TestSchemaRefCycle checks that references that loop without descending
// into the instance are refused at registration (hostile review LIB-4:
// such a tool was registered, and every call reaching the loop failed),
// while recursion through properties and items is kept.
func TestSchemaRefCycle(t *testing.T) {
	for _, raw := range []string{
		`{"type":"object","$defs":{"a":{"$ref":"#/$defs/b"},"b":{"$ref":"#/$defs/a"}},"properties":{"x":{"$ref":"#/$defs/a"}}}`,
		`{"type":"object","$dynamicRef":"#meta","$dynamicAnchor":"meta"}`,
		`{"type":"object","$defs":{"a":{"allOf":[{"not":{"$ref":"#/$defs/a"}}]}},"properties":{"x":{"$ref":"#/$defs/a"}}}`,
		`{"type":"object","allOf":[{"$ref":"#"}]}`,
	} {
		if _, err := server.InputSchema(raw); err == nil || !strings.Contains(err.Error(), "loop back") {
			t.Errorf("InputSchema(%s) = %v, want the loop refused", raw, err)
		}
	}
	for _, raw := range []string{
		`{"type":"object","$defs":{"node":{"type":"object","properties":{"kids":{"type":"array","items":{"$ref":"#/$defs/node"}}}}},"properties":{"root":{"$ref":"#/$defs/node"}}}`,
		`{"type":"object","properties":{"next":{"$ref":"#"}}}`,
		`{"type":"object","$dynamicAnchor":"meta","properties":{"sub":{"$dynamicRef":"#meta"}}}`,
	} {
		if _, err := server.InputSchema(raw); err != nil {
			t.Errorf("InputSchema(%s) = %v, want a recursive schema accepted", raw, err)
		}
	}
}

// TestSchemaNumbersLeaveDataAlone checks that numbers that are data, not
// bounds, are not refused (the second review's ATK-SCH-4).
func TestSchemaNumbersLeaveDataAlone(t *testing.T) {
	for _, raw := range []string{
		`{"type":"object","x-limits":{"maximum":1e400}}`,
		`{"type":"object","properties":{"n":{"enum":[1e999999999999, 1],"default":1e400}}}`,
		`{"type":"object","properties":{"n":{"minimum":0,"multipleOf":0.5}}}`,
		`{"type":"object","properties":{"n":{"minimum":0e-5}}}`,
	} {
		if _, err := server.InputSchema(raw); err != nil {
			t.Errorf("InputSchema(%s) = %v, want it accepted", raw, err)
		}
	}
}
