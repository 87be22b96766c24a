package app

import (
	"context"
	"encoding/json"
	"fmt"
	"time"

	"github.com/mcpwire/mcpwire/protocol"
	"github.com/mcpwire/mcpwire/server"
	"github.com/mcpwire/mcpwire/server/typed"
)

// The fixtures that the 2025-11-25 conformance scenarios call
// (docs/dual-era.md §10.6). Each is written once with AskInput, so that it
// serves both eras: a 2026-07-28 client gets an input_required result and
// retries with the responses; in a legacy session the input bridge sends
// the same requests as real server-to-client requests and calls the handler
// again with the answers.

// watchedResource is the resource that resources-subscribe and
// resources-unsubscribe watch.
const watchedResource = "test://watched-resource"

// Input request keys of the legacy fixtures.
const (
	keySampling    = "sampling"
	keyElicitation = "elicitation"
)

func addLegacyTools(s *server.Server) error {
	tools := []struct {
		def protocol.Tool
		h   server.ToolHandler
	}{
		{withProps(describe("test_tool_with_logging", "Logs three info messages about 50 ms apart, then answers.")), toolWithLogging},
		{withSchema(describe("test_sampling", "Asks the client's model to answer a prompt (sampling/createMessage)."),
			`{"prompt":{"type":"string","description":"The prompt to send to the model"}}`, "prompt"), toolSampling},
		{withSchema(describe("test_elicitation", "Asks the user for a username and an email (elicitation/create)."),
			`{"message":{"type":"string","description":"The message to show the user"}}`, "message"), toolElicitation},
		{withProps(describe("test_elicitation_sep1034_defaults", "Elicits a form whose string, integer, number, enum and boolean fields have defaults (SEP-1034).")),
			elicitTool("Please review and update the form fields with defaults", defaultsForm)},
		{withProps(describe("test_elicitation_sep1330_enums", "Elicits a form with every enum shape: untitled, titled and legacy single select, untitled and titled multi select (SEP-1330).")),
			elicitTool("Please select options from the enum fields", enumsForm)},
	}
	for _, t := range tools {
		if err := s.AddTool(t.def, t.h); err != nil {
			return err
		}
	}
	// test_reconnection lets its connection go: its calls run apart from
	// their HTTP request's goroutine.
	if err := s.AddTool(withProps(describe("test_reconnection", "Closes its response stream for SSE polling, then answers on the resumed stream.")), toolReconnection, server.AllowPolling()); err != nil {
		return err
	}
	if err := addStructuredTool(s); err != nil {
		return err
	}
	return s.AddResource(protocol.Resource{URI: watchedResource, Name: "watched-resource", Description: ptr("A resource to subscribe to."), MIMEType: ptr("text/plain")},
		func(_ context.Context, _ *server.Request, uri string, _ map[string]string) ([]protocol.ReadResourceResultContentsElem, error) {
			return server.TextContents(uri, "text/plain", "Watched resource content."), nil
		})
}

// withSchema gives a tool an object input schema with these properties
// (a JSON object) and required members.
func withSchema(t protocol.Tool, properties string, required ...string) protocol.Tool {
	req, _ := json.Marshal(required)
	t.InputSchema.Extra = protocol.Members{
		{Name: "properties", Value: json.RawMessage(properties)},
		{Name: "required", Value: json.RawMessage(req)},
	}
	return t
}

// logSteps are the messages of test_tool_with_logging, in order.
var logSteps = [...]string{"Tool execution started", "Tool processing data", "Tool execution completed"}

// logInterval separates the messages of test_tool_with_logging.
const logInterval = 50 * time.Millisecond

func toolWithLogging(ctx context.Context, r *server.Request, _ json.RawMessage) (*protocol.CallToolResult, error) {
	for i, msg := range logSteps {
		if i > 0 {
			select {
			case <-ctx.Done():
				return nil, ctx.Err()
			case <-time.After(logInterval):
			}
		}
		data, _ := json.Marshal(msg)
		r.Log(ctx, protocol.LoggingLevelInfo, "everything", data)
	}
	return server.TextResult("Tool with logging completed."), nil
}

func toolSampling(_ context.Context, r *server.Request, args json.RawMessage) (*protocol.CallToolResult, error) {
	var in struct {
		Prompt string `json:"prompt"`
	}
	if err := json.Unmarshal(args, &in); err != nil || in.Prompt == "" {
		return nil, server.InvalidParams("Invalid params: prompt must be a non-empty string", nil)
	}
	if resp, ok := r.InputResponse(keySampling); ok {
		if res, ok := resp.Value.(*protocol.CreateMessageResult); ok {
			text := ""
			if tc, ok := res.Content.Value.(*protocol.TextContent); ok {
				text = tc.Text
			}
			return server.TextResult("LLM response: " + text), nil
		}
	}
	return nil, r.AskInput(map[string]protocol.InputRequest{keySampling: server.SampleText(in.Prompt, 100)}, nil)
}

func toolElicitation(_ context.Context, r *server.Request, args json.RawMessage) (*protocol.CallToolResult, error) {
	var in struct {
		Message string `json:"message"`
	}
	if err := json.Unmarshal(args, &in); err != nil || in.Message == "" {
		return nil, server.InvalidParams("Invalid params: message must be a non-empty string", nil)
	}
	if res, ok := elicited(r); ok {
		return elicitationResult(res)
	}
	return nil, r.AskInput(map[string]protocol.InputRequest{keyElicitation: server.ElicitForm(in.Message,
		map[string]protocol.PrimitiveSchemaDefinition{
			"username": server.StringField("Your username"),
			"email":    server.StringField("Your email address"),
		}, "email", "username")}, nil)
}

// elicitTool is a tool that elicits the form made by fields with message
// and reports the user's answer.
func elicitTool(message string, fields func() map[string]protocol.PrimitiveSchemaDefinition) server.ToolHandler {
	return func(_ context.Context, r *server.Request, _ json.RawMessage) (*protocol.CallToolResult, error) {
		if res, ok := elicited(r); ok {
			return elicitationResult(res)
		}
		return nil, r.AskInput(map[string]protocol.InputRequest{keyElicitation: server.ElicitForm(message, fields())}, nil)
	}
}

// elicited returns the client's answer to the elicitation of keyElicitation.
func elicited(r *server.Request) (*protocol.ElicitResult, bool) {
	resp, ok := r.InputResponse(keyElicitation)
	if !ok {
		return nil, false
	}
	res, ok := resp.Value.(*protocol.ElicitResult)
	return res, ok
}

// elicitationResult reports an elicitation's answer as text:
// "User response: action=<action>, content=<JSON>".
func elicitationResult(res *protocol.ElicitResult) (*protocol.CallToolResult, error) {
	content := []byte("{}")
	if res.Content != nil {
		var err error
		if content, err = json.Marshal(res.Content); err != nil {
			return nil, fmt.Errorf("encoding the elicited content: %w", err)
		}
	}
	return server.TextResult(fmt.Sprintf("User response: action=%s, content=%s", res.Action, content)), nil
}

// defaultsForm is the form of test_elicitation_sep1034_defaults: a default
// on each primitive type and on an enum.
func defaultsForm() map[string]protocol.PrimitiveSchemaDefinition {
	return map[string]protocol.PrimitiveSchemaDefinition{
		"name":     {Value: &protocol.StringSchema{Description: ptr("User name"), Default: ptr("John Doe")}},
		"age":      {Value: &protocol.NumberSchema{Type: protocol.NumberSchemaTypeInteger, Description: ptr("User age"), Default: ptr(30.0)}},
		"score":    {Value: &protocol.NumberSchema{Type: protocol.NumberSchemaTypeNumber, Description: ptr("User score"), Default: ptr(95.5)}},
		"status":   {Value: &protocol.UntitledSingleSelectEnumSchema{Description: ptr("User status"), Enum: []string{"active", "inactive", "pending"}, Default: ptr("active")}},
		"verified": {Value: &protocol.BooleanSchema{Description: ptr("Verification status"), Default: ptr(true)}},
	}
}

// enumsForm is the form of test_elicitation_sep1330_enums: each of the five
// enum shapes once.
func enumsForm() map[string]protocol.PrimitiveSchemaDefinition {
	return map[string]protocol.PrimitiveSchemaDefinition{
		"untitledSingle": {Value: &protocol.UntitledSingleSelectEnumSchema{Description: ptr("Choose an option"), Enum: []string{"option1", "option2", "option3"}}},
		"titledSingle": {Value: &protocol.TitledSingleSelectEnumSchema{Description: ptr("Choose a titled option"), OneOf: []protocol.TitledSingleSelectEnumSchemaOneOfElem{
			{Const: "value1", Title: "First Option"}, {Const: "value2", Title: "Second Option"}, {Const: "value3", Title: "Third Option"},
		}}},
		"legacyEnum":    {Value: &protocol.LegacyTitledEnumSchema{Description: ptr("Choose a legacy option"), Enum: []string{"opt1", "opt2", "opt3"}, EnumNames: []string{"Option One", "Option Two", "Option Three"}}},
		"untitledMulti": {Value: &protocol.UntitledMultiSelectEnumSchema{Description: ptr("Choose several options"), Items: protocol.UntitledMultiSelectEnumSchemaItems{Enum: []string{"option1", "option2", "option3"}}}},
		"titledMulti": {Value: &protocol.TitledMultiSelectEnumSchema{Description: ptr("Choose several titled options"), Items: protocol.TitledMultiSelectEnumSchemaItems{AnyOf: []protocol.TitledMultiSelectEnumSchemaItemsAnyOfElem{
			{Const: "value1", Title: "First Choice"}, {Const: "value2", Title: "Second Choice"}, {Const: "value3", Title: "Third Choice"},
		}}}},
	}
}

// reconnectDelay is how long test_reconnection works after it closed its
// response stream, so that the client has to resume it to get the result.
const reconnectDelay = 300 * time.Millisecond

// toolReconnection serves server-sse-polling (docs/dual-era.md §4.8): in a
// legacy session over Streamable HTTP it closes the POST's SSE stream
// (retry 0: the default interval) and answers after reconnectDelay, on the
// stream the client resumes with Last-Event-ID. Elsewhere (stdio, modern
// requests) the disconnect does nothing and the tool just answers late.
func toolReconnection(ctx context.Context, req *server.Request, _ json.RawMessage) (*protocol.CallToolResult, error) {
	req.DisconnectForPolling(0)
	select {
	case <-ctx.Done():
		return nil, ctx.Err()
	case <-time.After(reconnectDelay):
	}
	return server.TextResult("Reconnection test completed"), nil
}

// weather is the structured result of test_structured_output: typed.AddTool
// derives the tool's outputSchema from it.
type weather struct {
	Temperature float64 `json:"temperature"`
	Conditions  string  `json:"conditions"`
}

// addStructuredTool registers test_structured_output, a tool with an
// outputSchema and an icon, which the legacy interop clients check per
// revision: structuredContent and outputSchema from 2025-06-18, icons from
// 2025-11-25, and only the text copy before.
func addStructuredTool(s *server.Server) error {
	def := describe("test_structured_output", "Answers a structured weather report (structuredContent with an outputSchema).")
	def.Icons = []protocol.Icon{{Src: "data:image/svg+xml;base64,PHN2ZyB4bWxucz0iaHR0cDovL3d3dy53My5vcmcvMjAwMC9zdmciLz4=", MIMEType: ptr("image/svg+xml")}}
	return typed.AddTool(s, def, func(context.Context, *server.Request, struct{}) (weather, error) {
		return weather{Temperature: 21.5, Conditions: "sunny"}, nil
	})
}
