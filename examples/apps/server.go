package main

import (
	"context"
	_ "embed"
	"encoding/json"
	"time"

	"github.com/mcpwire/mcpwire/ext/apps"
	"github.com/mcpwire/mcpwire/protocol"
	"github.com/mcpwire/mcpwire/server"
)

// viewHTML is the view of ui://get-time/mcp-app.html.
//
//go:embed view.html
var viewHTML string

// resourceURI is the UI resource the get-time tool shows.
const resourceURI = "ui://get-time/mcp-app.html"

// newServer builds the server: the MCP Apps extension, the view, and the
// get-time tool linked to it; now is the clock.
func newServer(now func() time.Time) (*server.Server, error) {
	ui := apps.New()
	s, err := server.New(protocol.Implementation{Name: "Basic MCP App Server (Go)", Version: "1.0.0"}, ui.Option())
	if err != nil {
		return nil, err
	}
	err = ui.AddResource(apps.Resource{URI: resourceURI, Name: resourceURI, HTML: apps.StaticHTML(viewHTML)})
	if err != nil {
		return nil, err
	}
	var def protocol.Tool
	err = protocol.Unmarshal([]byte(`{
		"name": "get-time",
		"title": "Get Time",
		"description": "Returns the current server time as an ISO 8601 string.",
		"inputSchema": {"type": "object", "properties": {}},
		"outputSchema": {"type": "object", "properties": {"time": {"type": "string"}}, "required": ["time"]}
	}`), &def)
	if err != nil {
		return nil, err
	}
	getTime := func(context.Context, *server.Request, json.RawMessage) (*protocol.CallToolResult, error) {
		t := now().UTC().Format("2006-01-02T15:04:05.000Z")
		sc, err := json.Marshal(map[string]string{"time": t})
		if err != nil {
			return nil, err
		}
		return &protocol.CallToolResult{
			Content:           []protocol.ContentBlock{{Value: &protocol.TextContent{Text: t}}},
			StructuredContent: sc,
		}, nil
	}
	if err := ui.AddTool(def, getTime, apps.ToolUI{ResourceURI: resourceURI}); err != nil {
		return nil, err
	}
	return s, nil
}
