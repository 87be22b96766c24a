package server

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"fmt"

	"github.com/mcpwire/mcpwire/protocol"
)

// Ptr returns a pointer to v, for the optional fields of the protocol
// types: protocol.Tool{Title: server.Ptr("Weather")}.
func Ptr[T any](v T) *T { return &v }

// ErrorResult returns a tool execution error: a result with isError set
// and text as its one content block, which the model reads (tools.mdx,
// error handling). It is what a ToolHandler's plain error becomes.
func ErrorResult(text string) *protocol.CallToolResult { return toolError(text) }

// ImageBytes returns an image content block holding data, which it
// encodes in base64 (Image takes data already encoded).
func ImageBytes(data []byte, mimeType string) protocol.ContentBlock {
	return Image(base64.StdEncoding.EncodeToString(data), mimeType)
}

// EmbeddedBlob returns a resource content block holding a binary
// resource; data is encoded in base64 here. mimeType "" leaves it out.
func EmbeddedBlob(uri, mimeType string, data []byte) protocol.ContentBlock {
	c := &protocol.BlobResourceContents{URI: uri, Blob: base64.StdEncoding.EncodeToString(data)}
	if mimeType != "" {
		c.MIMEType = &mimeType
	}
	return protocol.ContentBlock{Value: &protocol.EmbeddedResource{Resource: protocol.EmbeddedResourceResource{Value: c}}}
}

// ResourceLink returns a resource_link content block pointing at uri,
// which the client may read with resources/read; name is required by the
// schema, mimeType "" leaves it out.
func ResourceLink(uri, name, mimeType string) protocol.ContentBlock {
	l := &protocol.ResourceLink{URI: uri, Name: name}
	if mimeType != "" {
		l.MIMEType = &mimeType
	}
	return protocol.ContentBlock{Value: l}
}

// StructuredResult returns a tool result whose structuredContent is v
// encoded with encoding/json, with the same JSON as its one text block,
// for clients that read only content (tools.mdx, structured content). v
// must encode as a JSON object; an error says why not. A tool with an
// outputSchema has v checked against it when the result is sent.
func StructuredResult(v any) (*protocol.CallToolResult, error) {
	b, err := json.Marshal(v)
	if err != nil {
		return nil, fmt.Errorf("server: StructuredResult: %w", err)
	}
	if t := bytes.TrimSpace(b); len(t) == 0 || t[0] != '{' {
		return nil, fmt.Errorf("server: StructuredResult: %T encodes as %.20s, not a JSON object (structuredContent must be an object)", v, b)
	}
	return &protocol.CallToolResult{StructuredContent: b, Content: []protocol.ContentBlock{Text(string(b))}}, nil
}
