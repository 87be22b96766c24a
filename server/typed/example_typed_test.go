package typed_test

import (
	"context"
	"encoding/json"
	"fmt"
	"reflect"
	"strings"

	"github.com/google/jsonschema-go/jsonschema"

	"github.com/mcpwire/mcpwire/protocol"
	"github.com/mcpwire/mcpwire/server"
	"github.com/mcpwire/mcpwire/server/stdio"
	"github.com/mcpwire/mcpwire/server/typed"
)

// callLines sends tools/call requests over stdio, one at a time, and
// prints, for each, whether it is a tool error and the text of its first
// content block.
func callLines(s *server.Server, tool string, args ...map[string]any) {
	for i, a := range args {
		var out strings.Builder
		in := request(i+1, "tools/call", map[string]any{"name": tool, "arguments": a}, nil)
		_ = stdio.Serve(context.Background(), s, strings.NewReader(in+"\n"), &out, stdio.Options{})
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
func ExampleAddTool_schema() {
	s, _ := server.New(protocol.Implementation{Name: "paint", Version: "1.0.0"})
	var def protocol.Tool
	_ = protocol.Unmarshal([]byte(`{"name":"paint","inputSchema":{"type":"object",
		"properties":{"color":{"type":"string","enum":["red"]}},"required":["color"]}}`), &def)
	err := typed.AddTool(s, def, func(_ context.Context, _ *server.Request, in paintIn) (string, error) {
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
func ExampleAddTool_any() {
	s, _ := server.New(protocol.Implementation{Name: "echo", Version: "1.0.0"})
	_ = typed.AddTool(s, protocol.Tool{Name: "keys"}, func(_ context.Context, _ *server.Request, in any) (any, error) {
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
// returns can be edited and given to AddTool through ToolSchemas.
func ExampleInferSchema() {
	sch, _ := typed.InferSchema[orderIn](&jsonschema.ForOptions{
		TypeSchemas: map[reflect.Type]*jsonschema.Schema{
			reflect.TypeFor[shade](): {Type: "string", Enum: []any{"red", "blue"}},
		},
	})
	sch.Properties["count"].Minimum = jsonschema.Ptr(1.0)
	def := protocol.Tool{Name: "order"}
	_ = typed.ToolSchemas(&def, sch, nil)

	s, _ := server.New(protocol.Implementation{Name: "shop", Version: "1.0.0"})
	_ = typed.AddTool(s, def, func(_ context.Context, _ *server.Request, in orderIn) (string, error) {
		return fmt.Sprintf("%d %s", in.Count, in.Shade), nil
	})
	callLines(s, "order", map[string]any{"shade": "blue", "count": 2}, map[string]any{"shade": "blue", "count": 0})
	// Output:
	// isError=false "2 blue"
	// isError=true Invalid arguments: at /count: minimum: got 0, want 1
}

func ExampleAddTool() {
	s, _ := server.New(protocol.Implementation{Name: "weather", Version: "1.0.0"})
	_ = typed.AddTool(s, protocol.Tool{Name: "forecast"}, func(_ context.Context, _ *server.Request, in forecastIn) (forecastOut, error) {
		out := forecastOut{City: in.City}
		for i := 0; i < in.Days; i++ {
			out.Highs = append(out.Highs, 20+i)
		}
		return out, nil
	})
	var out strings.Builder
	in := request(1, "tools/call", map[string]any{"name": "forecast", "arguments": map[string]any{"city": "Oslo", "days": 2}}, nil)
	_ = stdio.Serve(context.Background(), s, strings.NewReader(in+"\n"), &out, stdio.Options{})

	var resp struct {
		Result struct {
			Content           []struct{ Text string }
			StructuredContent json.RawMessage
		}
	}
	_ = json.Unmarshal([]byte(out.String()), &resp)
	fmt.Println("structuredContent:", string(resp.Result.StructuredContent))
	fmt.Println("text block:       ", resp.Result.Content[0].Text)
	// Output:
	// structuredContent: {"city":"Oslo","highs":[20,21]}
	// text block:        {"city":"Oslo","highs":[20,21]}
}

// A tool with typed arguments whose handler builds the result itself:
// Out is *protocol.CallToolResult, so no outputSchema is declared.
func ExampleAddTool_result() {
	s, _ := server.New(protocol.Implementation{Name: "demo", Version: "1.0.0"})
	_ = typed.AddTool(s, protocol.Tool{Name: "greet"}, func(_ context.Context, _ *server.Request, in greetIn) (*protocol.CallToolResult, error) {
		return server.TextResult("Hello, " + in.Name + "!"), nil
	})
	var out strings.Builder
	in := request(1, "tools/call", map[string]any{"name": "greet", "arguments": map[string]any{"name": "Ada"}}, nil)
	_ = stdio.Serve(context.Background(), s, strings.NewReader(in+"\n"), &out, stdio.Options{})

	var resp struct {
		Result struct {
			Content []struct{ Text string }
		}
	}
	_ = json.Unmarshal([]byte(out.String()), &resp)
	fmt.Println(resp.Result.Content[0].Text)
	// Output:
	// Hello, Ada!
}

type forecastIn struct {
	City string `json:"city"`
	Days int    `json:"days"`
}

type forecastOut struct {
	City  string `json:"city"`
	Highs []int  `json:"highs"`
}

type greetIn struct {
	Name string `json:"name"`
}
