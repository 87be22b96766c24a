package server

import "github.com/mcpwire/mcpwire/protocol"

// Text returns a text content block.
func Text(text string) protocol.ContentBlock {
	return protocol.ContentBlock{Value: &protocol.TextContent{Text: text}}
}

// Image returns an image content block; data is base64.
func Image(data, mimeType string) protocol.ContentBlock {
	return protocol.ContentBlock{Value: &protocol.ImageContent{Data: data, MIMEType: mimeType}}
}

// Audio returns an audio content block; data is base64.
func Audio(data, mimeType string) protocol.ContentBlock {
	return protocol.ContentBlock{Value: &protocol.AudioContent{Data: data, MIMEType: mimeType}}
}

// EmbeddedText returns a resource content block holding a text resource.
func EmbeddedText(uri, mimeType, text string) protocol.ContentBlock {
	c := &protocol.TextResourceContents{URI: uri, Text: text}
	if mimeType != "" {
		c.MIMEType = &mimeType
	}
	return protocol.ContentBlock{Value: &protocol.EmbeddedResource{Resource: protocol.EmbeddedResourceResource{Value: c}}}
}

// TextResult returns a tool result with one text block.
func TextResult(text string) *protocol.CallToolResult {
	return &protocol.CallToolResult{Content: []protocol.ContentBlock{Text(text)}}
}

// ElicitForm returns an elicitation/create input request in form mode.
func ElicitForm(message string, properties map[string]protocol.PrimitiveSchemaDefinition, required ...string) protocol.InputRequest {
	return protocol.InputRequest{Value: &protocol.ElicitRequest{Params: protocol.ElicitRequestParams{Value: &protocol.ElicitRequestFormParams{
		Message:         message,
		RequestedSchema: protocol.ElicitRequestFormParamsRequestedSchema{Properties: properties, Required: required},
	}}}}
}

// StringField is a form field of type string, for ElicitForm.
func StringField(description string) protocol.PrimitiveSchemaDefinition {
	s := &protocol.StringSchema{}
	if description != "" {
		s.Description = &description
	}
	return protocol.PrimitiveSchemaDefinition{Value: s}
}

// BoolField is a form field of type boolean, for ElicitForm.
func BoolField(description string) protocol.PrimitiveSchemaDefinition {
	s := &protocol.BooleanSchema{}
	if description != "" {
		s.Description = &description
	}
	return protocol.PrimitiveSchemaDefinition{Value: s}
}

// SampleText returns a sampling/createMessage input request with one user
// text message.
func SampleText(text string, maxTokens int64) protocol.InputRequest {
	return protocol.InputRequest{Value: &protocol.CreateMessageRequest{Params: protocol.CreateMessageRequestParams{
		MaxTokens: maxTokens,
		Messages: []protocol.SamplingMessage{{
			Role:    protocol.RoleUser,
			Content: protocol.SamplingMessageContent{Value: &protocol.TextContent{Text: text}},
		}},
	}}}
}

// ListRoots returns a roots/list input request.
func ListRoots() protocol.InputRequest {
	return protocol.InputRequest{Value: &protocol.ListRootsRequest{Params: &protocol.ListRootsRequestParams{}}}
}
