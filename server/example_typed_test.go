package server_test

import (
	"context"
	"encoding/json"
	"fmt"
	"reflect"
	"strings"

	"github.com/google/jsonschema-go/jsonschema"

	"github.com/mcpwire/mcpwire/protocol"
	"github.com/mcpwire/mcpwire/server"
)

// callLines sends tools/call requests over stdio, one at a time, and
// prints, for each, whether it is a tool error and the text of its first
// content block.
func callLines(s *server.Server, tool string, args ...map[string]any) {
	for i, a := range args {
		var out strings.Builder
		in := request(i+1, "tools/call", map[string]any{"name": tool, "arguments": a}, nil)
		_ = s.ServeStdio(context.Background(), strings.NewReader(in+"\n"), &out)
		var resp struct {
			Result struct {
				Content []struct{ Text string }
				IsError bool
			}
		}
		_ = json.Unmarshal([]byte(out.String()), &resp)
		text := ""
		if len(resp.Result.Content) > 0 {
			text = resp.Result.Content[0].Text
		}
		fmt.Printf("isError=%v %s\n", resp.Result.IsError, text)
	}
}

type paintIn struct {
	Color string `json:"color"`
}

// A typed tool keeps the inputSchema it is given: the enum, which the Go
// type cannot say, is declared in tools/list and enforced on each call.
func ExampleAddTypedTool_schema() {
	s, _ := server.New(protocol.Implementation{Name: "paint", Version: "1.0.0"})
	var def protocol.Tool
	_ = protocol.Unmarshal([]byte(`{"name":"paint","inputSchema":{"type":"object",
		"properties":{"color":{"type":"string","enum":["red"]}},"required":["color"]}}`), &def)
	err := server.AddTypedTool(s, def, func(_ context.Context, _ *server.Request, in paintIn) (string, error) {
		return "painted " + in.Color, nil
	})
	fmt.Println("registered:", err == nil)
	callLines(s, "paint", map[string]any{"color": "red"}, map[string]any{"color": "green"})
	// Output:
	// registered: true
	// isError=false "painted red"
	// isError=true Invalid arguments: at /color: value must be 'red'
}

// In and Out may be any: the tool takes any object (the handler gets a
// map[string]any) and declares no outputSchema.
func ExampleAddTypedTool_any() {
	s, _ := server.New(protocol.Implementation{Name: "echo", Version: "1.0.0"})
	_ = server.AddTypedTool(s, protocol.Tool{Name: "keys"}, func(_ context.Context, _ *server.Request, in any) (any, error) {
		m := in.(map[string]any)
		return len(m), nil
	})
	callLines(s, "keys", map[string]any{"a": 1, "b": []int{2}})
	// Output:
	// isError=false 2
}

type shade string

type orderIn struct {
	Shade shade `json:"shade"`
	Count int   `json:"count"`
}

// InferSchema takes jsonschema-go's inference options; the schema it
// returns can be edited and given to AddTypedTool through ToolSchemas.
func ExampleInferSchema() {
	sch, _ := server.InferSchema[orderIn](&jsonschema.ForOptions{
		TypeSchemas: map[reflect.Type]*jsonschema.Schema{
			reflect.TypeFor[shade](): {Type: "string", Enum: []any{"red", "blue"}},
		},
	})
	sch.Properties["count"].Minimum = jsonschema.Ptr(1.0)
	def := protocol.Tool{Name: "order"}
	_ = server.ToolSchemas(&def, sch, nil)

	s, _ := server.New(protocol.Implementation{Name: "shop", Version: "1.0.0"})
	_ = server.AddTypedTool(s, def, func(_ context.Context, _ *server.Request, in orderIn) (string, error) {
		return fmt.Sprintf("%d %s", in.Count, in.Shade), nil
	})
	callLines(s, "order", map[string]any{"shade": "blue", "count": 2}, map[string]any{"shade": "blue", "count": 0})
	// Output:
	// isError=false "2 blue"
	// isError=true Invalid arguments: at /count: minimum: got 0, want 1
}
