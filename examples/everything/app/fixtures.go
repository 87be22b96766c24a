package app

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/mcpwire/mcpwire/protocol"
	"github.com/mcpwire/mcpwire/server"
)

// A 1×1 PNG and a short WAV, base64.
const (
	pngBase64 = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg=="
	wavBase64 = "UklGRiQAAABXQVZFZm10IBAAAAABAAEAQB8AAEAfAAABAAgAZGF0YQAAAAA="
)

func addTools(s *server.Server) error {
	tools := []struct {
		def protocol.Tool
		h   server.ToolHandler
	}{
		{describe("test_simple_text", "Returns a simple text response."), func(context.Context, *server.Request, json.RawMessage) (*protocol.CallToolResult, error) {
			return server.TextResult("This is a simple text response for testing."), nil
		}},
		{describe("test_image_content", "Returns an image."), func(context.Context, *server.Request, json.RawMessage) (*protocol.CallToolResult, error) {
			return &protocol.CallToolResult{Content: []protocol.ContentBlock{server.Image(pngBase64, "image/png")}}, nil
		}},
		{describe("test_audio_content", "Returns audio."), func(context.Context, *server.Request, json.RawMessage) (*protocol.CallToolResult, error) {
			return &protocol.CallToolResult{Content: []protocol.ContentBlock{server.Audio(wavBase64, "audio/wav")}}, nil
		}},
		{describe("test_embedded_resource", "Returns an embedded resource."), func(context.Context, *server.Request, json.RawMessage) (*protocol.CallToolResult, error) {
			return &protocol.CallToolResult{Content: []protocol.ContentBlock{
				server.EmbeddedText("test://embedded-resource", "text/plain", "This is an embedded resource content."),
			}}, nil
		}},
		{describe("test_multiple_content_types", "Returns text, an image and a resource."), func(context.Context, *server.Request, json.RawMessage) (*protocol.CallToolResult, error) {
			return &protocol.CallToolResult{Content: []protocol.ContentBlock{
				server.Text("Multiple content types test:"),
				server.Image(pngBase64, "image/png"),
				server.EmbeddedText("test://mixed-content-resource", "application/json", `{"test":"data","value":123}`),
			}}, nil
		}},
		{describe("test_error_handling", "Always fails, as a tool execution error."), func(context.Context, *server.Request, json.RawMessage) (*protocol.CallToolResult, error) {
			return nil, errors.New("this tool intentionally returns an error for testing")
		}},
		{describe("test_tool_with_progress", "Reports progress three times, then answers."), func(ctx context.Context, r *server.Request, _ json.RawMessage) (*protocol.CallToolResult, error) {
			for i, p := range []float64{0, 50, 100} {
				if i > 0 {
					select {
					case <-ctx.Done():
						return nil, ctx.Err()
					case <-time.After(50 * time.Millisecond):
					}
				}
				r.Progress(ctx, p, 100, fmt.Sprintf("step %d of 3", i+1))
			}
			return server.TextResult("Progress test completed."), nil
		}},
		{describe("test_logging_tool", "Logs (only when the request sets a log level), then answers."), func(ctx context.Context, r *server.Request, _ json.RawMessage) (*protocol.CallToolResult, error) {
			r.Log(ctx, protocol.LoggingLevelInfo, "everything", json.RawMessage(`"logging tool started"`))
			r.Log(ctx, protocol.LoggingLevelDebug, "everything", json.RawMessage(`"a debug detail"`))
			return server.TextResult("Logging test completed."), nil
		}},
		{describe("test_missing_capability", "Needs the client's sampling capability."), func(_ context.Context, r *server.Request, _ json.RawMessage) (*protocol.CallToolResult, error) {
			if resp, ok := r.InputResponse("sample"); ok {
				if res, ok := resp.Value.(*protocol.CreateMessageResult); ok {
					return server.TextResult("Sampled with model " + res.Model), nil
				}
			}
			return nil, r.AskInput(map[string]protocol.InputRequest{"sample": server.SampleText("Say hello.", 50)}, nil)
		}},
		{describe("test_streaming_elicitation", "Asks the user for a name through elicitation."), func(_ context.Context, r *server.Request, _ json.RawMessage) (*protocol.CallToolResult, error) {
			if name, ok := acceptedString(r, "name_request", "name"); ok {
				return server.TextResult("Hello, " + name + "!"), nil
			}
			return nil, r.AskInput(map[string]protocol.InputRequest{
				"name_request": server.ElicitForm("What is your name?", map[string]protocol.PrimitiveSchemaDefinition{"name": server.StringField("Your name")}, "name"),
			}, nil)
		}},
	}
	for _, t := range tools {
		if t.def.InputSchema.Extra == nil {
			t.def.InputSchema.Extra = protocol.Members{{Name: "properties", Value: json.RawMessage(`{}`)}}
		}
		if err := s.AddTool(t.def, t.h); err != nil {
			return err
		}
	}
	// The list-change triggers re-register a tool or a prompt; the
	// registration itself notifies every listen stream that asked.
	if err := s.AddTool(withProps(describe("test_trigger_tool_change", "Re-registers test_dynamic_tool, which sends tools/list_changed to listen streams.")),
		func(context.Context, *server.Request, json.RawMessage) (*protocol.CallToolResult, error) {
			err := s.AddTool(withProps(describe("test_dynamic_tool", "A tool registered at run time.")), func(context.Context, *server.Request, json.RawMessage) (*protocol.CallToolResult, error) {
				return server.TextResult("dynamic"), nil
			}, server.Replace())
			if err != nil {
				return nil, err
			}
			return server.TextResult("Tool list changed."), nil
		}); err != nil {
		return err
	}
	if err := s.AddTool(withProps(describe("test_trigger_prompt_change", "Re-registers test_dynamic_prompt, which sends prompts/list_changed to listen streams.")),
		func(context.Context, *server.Request, json.RawMessage) (*protocol.CallToolResult, error) {
			err := s.AddPrompt(protocol.Prompt{Name: "test_dynamic_prompt", Description: ptr("A prompt registered at run time.")},
				func(context.Context, *server.Request, map[string]string) (*protocol.GetPromptResult, error) {
					return &protocol.GetPromptResult{Messages: []protocol.PromptMessage{{Role: protocol.RoleUser, Content: server.Text("dynamic")}}}, nil
				}, server.ReplacePrompt())
			if err != nil {
				return nil, err
			}
			return server.TextResult("Prompt list changed."), nil
		}); err != nil {
		return err
	}
	headerTool := describe("test_x_mcp_header", "Echoes a region that is mirrored into the Mcp-Param-Region header.")
	headerTool.InputSchema = server.MustInputSchema(`{"type":"object","properties":{"region":{"type":"string","x-mcp-header":"Region"}}}`)
	if err := s.AddTool(headerTool, func(_ context.Context, _ *server.Request, args json.RawMessage) (*protocol.CallToolResult, error) {
		var in struct {
			Region string `json:"region"`
		}
		_ = json.Unmarshal(args, &in)
		return server.TextResult("region: " + in.Region), nil
	}); err != nil {
		return err
	}
	schemaTool := describe("json_schema_2020_12_tool", "Has a JSON Schema 2020-12 input schema with $defs, $ref, allOf, anyOf and if/then/else.")
	schemaTool.InputSchema = server.MustInputSchema(`{
		"$schema": "https://json-schema.org/draft/2020-12/schema",
		"type": "object",
		"$defs": {"address": {"$anchor": "addressDef", "type": "object", "properties": {"street": {"type": "string"}, "city": {"type": "string"}}}},
		"properties": {
			"name": {"type": "string"},
			"address": {"$ref": "#/$defs/address"},
			"contactMethod": {"type": "string", "enum": ["phone", "email"]},
			"phone": {"type": "string"},
			"email": {"type": "string"}
		},
		"allOf": [{"anyOf": [{"required": ["phone"]}, {"required": ["email"]}]}],
		"if": {"properties": {"contactMethod": {"const": "phone"}}, "required": ["contactMethod"]},
		"then": {"required": ["phone"]},
		"else": {"required": ["email"]},
		"additionalProperties": false
	}`)
	return s.AddTool(schemaTool, func(_ context.Context, _ *server.Request, args json.RawMessage) (*protocol.CallToolResult, error) {
		return server.TextResult("Validated: " + string(args)), nil
	})
}

func ptr[T any](v T) *T { return &v }

// acceptedString reads an accepted elicitation's string field.
func acceptedString(r *server.Request, key, field string) (string, bool) {
	resp, ok := r.InputResponse(key)
	if !ok {
		return "", false
	}
	er, ok := resp.Value.(*protocol.ElicitResult)
	if !ok || er.Action != protocol.ElicitResultActionAccept {
		return "", false
	}
	v, ok := er.Content[field]
	if !ok || !v.IsString() {
		return "", false
	}
	return v.Str(), true
}

func addPrompts(s *server.Server) error {
	user := func(c protocol.ContentBlock) protocol.PromptMessage {
		return protocol.PromptMessage{Role: protocol.RoleUser, Content: c}
	}
	prompts := []struct {
		def protocol.Prompt
		h   server.PromptHandler
	}{
		{protocol.Prompt{Name: "test_simple_prompt", Description: ptr("A simple prompt without arguments.")},
			func(context.Context, *server.Request, map[string]string) (*protocol.GetPromptResult, error) {
				return &protocol.GetPromptResult{Messages: []protocol.PromptMessage{user(server.Text("This is a simple prompt for testing."))}}, nil
			}},
		{protocol.Prompt{Name: "test_prompt_with_arguments", Description: ptr("A prompt with two required arguments."), Arguments: []protocol.PromptArgument{
			{Name: "arg1", Description: ptr("First argument"), Required: ptr(true)},
			{Name: "arg2", Description: ptr("Second argument"), Required: ptr(true)},
		}}, func(_ context.Context, _ *server.Request, a map[string]string) (*protocol.GetPromptResult, error) {
			return &protocol.GetPromptResult{Messages: []protocol.PromptMessage{user(server.Text(fmt.Sprintf("Prompt with arguments: arg1='%s', arg2='%s'", a["arg1"], a["arg2"])))}}, nil
		}},
		{protocol.Prompt{Name: "test_prompt_with_embedded_resource", Description: ptr("A prompt that embeds a resource."), Arguments: []protocol.PromptArgument{
			{Name: "resourceUri", Description: ptr("URI of the resource to embed"), Required: ptr(true)},
		}}, func(_ context.Context, _ *server.Request, a map[string]string) (*protocol.GetPromptResult, error) {
			return &protocol.GetPromptResult{Messages: []protocol.PromptMessage{
				user(server.EmbeddedText(a["resourceUri"], "text/plain", "Embedded resource content for testing.")),
				user(server.Text("Please process the embedded resource above.")),
			}}, nil
		}},
		{protocol.Prompt{Name: "test_prompt_with_image", Description: ptr("A prompt with an image.")},
			func(context.Context, *server.Request, map[string]string) (*protocol.GetPromptResult, error) {
				return &protocol.GetPromptResult{Messages: []protocol.PromptMessage{
					user(server.Image(pngBase64, "image/png")),
					user(server.Text("Please analyze the image above.")),
				}}, nil
			}},
		{protocol.Prompt{Name: "test_input_required_result_prompt", Description: ptr("Asks for context through elicitation before it answers.")},
			func(_ context.Context, r *server.Request, _ map[string]string) (*protocol.GetPromptResult, error) {
				if c, ok := acceptedString(r, "user_context", "context"); ok {
					return &protocol.GetPromptResult{Messages: []protocol.PromptMessage{user(server.Text("Context: " + c))}}, nil
				}
				return nil, r.AskInput(map[string]protocol.InputRequest{
					"user_context": server.ElicitForm("What context should the prompt use?", map[string]protocol.PrimitiveSchemaDefinition{"context": server.StringField("Context")}, "context"),
				}, nil)
			}},
	}
	for _, p := range prompts {
		if err := s.AddPrompt(p.def, p.h); err != nil {
			return err
		}
	}
	return nil
}

func addResources(s *server.Server) error {
	if err := s.AddResource(protocol.Resource{URI: "test://static-text", Name: "static-text", Description: ptr("A static text resource."), MIMEType: ptr("text/plain")},
		func(_ context.Context, _ *server.Request, uri string, _ map[string]string) ([]protocol.ReadResourceResultContentsElem, error) {
			return server.TextContents(uri, "text/plain", "This is the content of the static text resource."), nil
		}); err != nil {
		return err
	}
	if err := s.AddResource(protocol.Resource{URI: "test://static-binary", Name: "static-binary", Description: ptr("A static binary resource."), MIMEType: ptr("image/png")},
		func(_ context.Context, _ *server.Request, uri string, _ map[string]string) ([]protocol.ReadResourceResultContentsElem, error) {
			return server.BlobContents(uri, "image/png", pngBase64), nil
		}); err != nil {
		return err
	}
	return s.AddResourceTemplate(protocol.ResourceTemplate{URITemplate: "test://template/{id}/data", Name: "template", Description: ptr("Data for an id."), MIMEType: ptr("application/json")},
		func(_ context.Context, _ *server.Request, uri string, vars map[string]string) ([]protocol.ReadResourceResultContentsElem, error) {
			b, _ := json.Marshal(map[string]any{"id": vars["id"], "templateTest": true, "data": "Data for ID: " + vars["id"]})
			return server.TextContents(uri, "application/json", string(b)), nil
		})
}

// withProps gives a tool an empty properties object.
func withProps(t protocol.Tool) protocol.Tool {
	t.InputSchema.Extra = protocol.Members{{Name: "properties", Value: json.RawMessage(`{}`)}}
	return t
}
