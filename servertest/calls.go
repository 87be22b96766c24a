package servertest

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/mcpwire/mcpwire/protocol"
)

// CallTool calls the tool name with args (encoded with encoding/json;
// nil sends {}), answering input requests with the callbacks.
//
// It sends the standard headers of the call (MCP-Protocol-Version,
// Mcp-Method, Mcp-Name) but not the Mcp-Param-* headers that a tool's
// x-mcp-header arguments need: the server refuses such a call without
// them (-32020, HTTP 400), as it would a real client's. Send them with
// WithHeader("Mcp-Param-Region", "eu").
func (c *Client) CallTool(ctx context.Context, name string, args any, opts ...Option) (*protocol.CallToolResult, error) {
	var a json.RawMessage = []byte("{}")
	if args != nil {
		b, err := json.Marshal(args)
		if err != nil {
			return nil, fmt.Errorf("servertest: encode arguments of %s: %w", name, err)
		}
		a = b
	}
	var res protocol.CallToolResult
	err := c.rounds(ctx, opts, "tools/call", name, map[string]any{"name": name, "arguments": a}, &res)
	if err != nil {
		return nil, err
	}
	return &res, nil
}

// ListTools returns every tool, following nextCursor through all pages.
func (c *Client) ListTools(ctx context.Context, opts ...Option) ([]protocol.Tool, error) {
	cfg := c.callConfig(opts)
	var tools []protocol.Tool
	var cursor *string
	for {
		params := map[string]any{}
		if cursor != nil {
			params["cursor"] = *cursor
		}
		raw, err := c.do(ctx, &cfg, "tools/list", "", params)
		if err != nil {
			return nil, err
		}
		var page protocol.ListToolsResult
		if err := protocol.Unmarshal(raw, &page); err != nil {
			return nil, fmt.Errorf("servertest: decode tools/list result: %w", err)
		}
		tools = append(tools, page.Tools...)
		if page.NextCursor == nil || *page.NextCursor == "" {
			return tools, nil
		}
		if cursor != nil && *cursor == *page.NextCursor {
			return nil, fmt.Errorf("servertest: tools/list returned the same cursor %q twice", *cursor)
		}
		cursor = page.NextCursor
	}
}

// GetPrompt gets the prompt name with args, answering input requests with
// the callbacks.
func (c *Client) GetPrompt(ctx context.Context, name string, args map[string]string, opts ...Option) (*protocol.GetPromptResult, error) {
	params := map[string]any{"name": name}
	if args != nil {
		params["arguments"] = args
	}
	var res protocol.GetPromptResult
	if err := c.rounds(ctx, opts, "prompts/get", name, params, &res); err != nil {
		return nil, err
	}
	return &res, nil
}

// ReadResource reads the resource uri, answering input requests with the
// callbacks.
func (c *Client) ReadResource(ctx context.Context, uri string, opts ...Option) (*protocol.ReadResourceResult, error) {
	var res protocol.ReadResourceResult
	if err := c.rounds(ctx, opts, "resources/read", uri, map[string]any{"uri": uri}, &res); err != nil {
		return nil, err
	}
	return &res, nil
}

// Complete asks for completions of argument (name and partial value) of
// ref, a prompt (&protocol.PromptReference{Name: …}) or a resource
// template (&protocol.ResourceTemplateReference{URI: …}); completed holds the values of the
// arguments already chosen (the request's context), nil for none.
func (c *Client) Complete(ctx context.Context, ref protocol.CompleteRequestParamsRef, argName, argValue string, completed map[string]string, opts ...Option) (*protocol.CompleteResult, error) {
	refJSON, err := protocol.Marshal(&ref)
	if err != nil {
		return nil, fmt.Errorf("servertest: encode completion ref: %w", err)
	}
	params := map[string]any{
		"ref":      json.RawMessage(refJSON),
		"argument": map[string]string{"name": argName, "value": argValue},
	}
	if completed != nil {
		params["context"] = map[string]any{"arguments": completed}
	}
	cfg := c.callConfig(opts)
	raw, err := c.do(ctx, &cfg, "completion/complete", "", params)
	if err != nil {
		return nil, err
	}
	var res protocol.CompleteResult
	if err := protocol.Unmarshal(raw, &res); err != nil {
		return nil, fmt.Errorf("servertest: decode completion/complete result: %w", err)
	}
	return &res, nil
}
