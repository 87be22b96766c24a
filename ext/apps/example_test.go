package apps_test

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/mcpwire/mcpwire/ext/apps"
	"github.com/mcpwire/mcpwire/ext/apps/appsproto"
	"github.com/mcpwire/mcpwire/protocol"
	"github.com/mcpwire/mcpwire/server"
)

// A server with one view and one tool that shows it: the resource's CSP
// lets the view fetch from one origin; the tool answers a client that
// renders MCP Apps with structuredContent for the view, and any other
// with text alone.
func Example() {
	ui := apps.New()
	s, err := server.New(protocol.Implementation{Name: "clock", Version: "1.0.0"}, ui.Option())
	if err != nil {
		panic(err)
	}
	err = ui.AddResource(apps.Resource{
		URI:  "ui://clock/view.html",
		Name: "Clock view",
		UI:   appsproto.McpUiResourceMeta{Csp: &appsproto.McpUiResourceCsp{ConnectDomains: []string{"https://time.example.com"}}},
		HTML: apps.StaticHTML("<!doctype html><p id=time></p>"),
	})
	if err != nil {
		panic(err)
	}
	var in protocol.ToolInputSchema
	_ = protocol.Unmarshal([]byte(`{"type":"object"}`), &in)
	err = ui.AddTool(protocol.Tool{Name: "get-time", InputSchema: in},
		func(_ context.Context, r *server.Request, _ json.RawMessage) (*protocol.CallToolResult, error) {
			res := &protocol.CallToolResult{Content: []protocol.ContentBlock{{Value: &protocol.TextContent{Text: "12:00"}}}}
			if apps.Supported(r) {
				res.StructuredContent = json.RawMessage(`{"time":"12:00"}`)
			}
			return res, nil
		},
		apps.ToolUI{ResourceURI: "ui://clock/view.html"})
	fmt.Println(err, s.HasExtension(apps.ExtensionID))
	// Output: <nil> true
}

// A tool may name only a UI resource that is registered: the error says
// which one is missing.
func ExampleApps_AddTool_missingResource() {
	ui := apps.New()
	if _, err := server.New(protocol.Implementation{Name: "n", Version: "1"}, ui.Option()); err != nil {
		panic(err)
	}
	noop := func(context.Context, *server.Request, json.RawMessage) (*protocol.CallToolResult, error) {
		return &protocol.CallToolResult{}, nil
	}
	err := ui.AddTool(protocol.Tool{Name: "show"}, noop, apps.ToolUI{ResourceURI: "ui://shop/cart.html"})
	fmt.Println(err)
	// Output: server: tool show: apps: _meta.ui.resourceUri ui://shop/cart.html: no UI resource of that URI is registered (Apps.AddResource first)
}

// The CSP domains of a UI resource are origins: anything else is refused
// with the member and the reason.
func ExampleCheckResourceMeta() {
	_, err := apps.CheckResourceMeta(appsproto.McpUiResourceMeta{Csp: &appsproto.McpUiResourceCsp{
		ConnectDomains: []string{"https://api.example.com/v1"},
	}})
	fmt.Println(err)
	// Output: _meta.ui.csp.connectDomains[0] "https://api.example.com/v1": not an origin: it has a path, query or fragment
}

// SetToolMeta writes the tool's _meta.ui and the flat key older hosts
// read, for a tool registered otherwise than by Apps.AddTool (with
// Apps.Link).
func ExampleSetToolMeta() {
	def := protocol.Tool{Name: "show-cart"}
	_ = apps.SetToolMeta(&def, apps.ToolUI{ResourceURI: "ui://shop/cart.html", Visibility: []appsproto.McpUiToolVisibility{apps.VisibleToModel}})
	b, _ := protocol.Marshal(def.Meta)
	fmt.Println(string(b))
	// Output: {"ui":{"resourceUri":"ui://shop/cart.html","visibility":["model"]},"ui/resourceUri":"ui://shop/cart.html"}
}
