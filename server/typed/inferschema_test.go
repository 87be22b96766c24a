package typed_test

import (
	"context"
	"fmt"
	"reflect"
	"strings"
	"testing"

	. "github.com/mcpwire/mcpwire/server/internal/testkit"
	"github.com/mcpwire/mcpwire/server/streamhttp"
	"github.com/mcpwire/mcpwire/server/typed"

	"github.com/google/jsonschema-go/jsonschema"

	"github.com/mcpwire/mcpwire/protocol"
	"github.com/mcpwire/mcpwire/server"
)

type tint string

type order struct {
	Shade tint     `json:"shade"`
	Tags  []string `json:"tags,omitempty"`
}

// TestInferSchemaEdited: a schema inferred with ForOptions and edited by
// hand goes into a typed tool through ToolSchemas, and what was added is
// declared and enforced (issue 12; R-TOOL-05).
func TestInferSchemaEdited(t *testing.T) {
	sch, err := typed.InferSchema[*order](&jsonschema.ForOptions{
		TypeSchemas: map[reflect.Type]*jsonschema.Schema{reflect.TypeFor[tint](): {Type: "string", Enum: []any{"red"}}},
	})
	if err != nil {
		t.Fatal(err)
	}
	if sch.Type != "object" {
		t.Fatalf("a pointer to a struct inferred as %q, want object", sch.Type)
	}
	sch.Properties["tags"].MaxItems = jsonschema.Ptr(1)
	def := protocol.Tool{Name: "order"}
	if err := typed.ToolSchemas(&def, sch, nil); err != nil {
		t.Fatal(err)
	}
	s := NewServer(t)
	if err := typed.AddTool(s, def, func(_ context.Context, _ *server.Request, in *order) (string, error) { return string(in.Shade), nil }); err != nil {
		t.Fatal(err)
	}
	in, _ := listedTool(t, s, "order")["inputSchema"].(M)
	props, _ := in["properties"].(M)
	if fmt.Sprint(props["shade"].(M)["enum"]) != "[red]" || fmt.Sprint(props["tags"].(M)["maxItems"]) != "1" {
		t.Errorf("the edited schema is not in tools/list: %v", in)
	}
	h := Handler(s, streamhttp.Options{})
	for _, c := range []struct {
		args M
		bad  bool
	}{
		{M{"shade": "red"}, false},
		{M{"shade": "green"}, true},
		{M{"shade": "red", "tags": []string{"a", "b"}}, true},
	} {
		if w := Call(t, h, 1, protocol.MethodToolsCall, Params(M{"name": "order", "arguments": c.args})); w.IsError() != c.bad {
			t.Errorf("%v: isError %v, want %v: %s", c.args, w.IsError(), c.bad, w.Raw)
		}
	}
}

// TestInferSchemaErrors: InferSchema names the type it cannot infer, and
// ToolSchemas refuses an inputSchema that is not an object schema.
func TestInferSchemaErrors(t *testing.T) {
	if _, err := typed.InferSchema[struct{ C chan int }](nil); err == nil || !strings.Contains(err.Error(), "InferSchema[struct { C chan int }]") {
		t.Errorf("error %v, want one naming the type", err)
	}
	if _, err := typed.InferSchema[struct{ C chan int }](&jsonschema.ForOptions{IgnoreInvalidTypes: true}); err != nil {
		t.Errorf("IgnoreInvalidTypes not applied: %v", err)
	}
	def := protocol.Tool{Name: "t"}
	if err := typed.ToolSchemas(&def, &jsonschema.Schema{Type: "array"}, nil); err == nil || !strings.Contains(err.Error(), `"type" must be "object"`) {
		t.Errorf("an array inputSchema: error %v", err)
	}
}
