package legacy

import (
	"testing"

	"github.com/mcpwire/mcpwire/protocol"
)

// benchCallToolResult is a typical tools/call result: three content blocks
// (text, image, embedded text resource), as a handler returns it.
func benchCallToolResult() *protocol.CallToolResult {
	mime := "text/plain"
	return &protocol.CallToolResult{Content: []protocol.ContentBlock{
		{Value: &protocol.TextContent{Text: "Current weather in New York: 72°F, partly cloudy, humidity 65%, wind 8 mph from the north-west."}},
		{Value: &protocol.ImageContent{Data: "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==", MIMEType: "image/png"}},
		{Value: &protocol.EmbeddedResource{Resource: protocol.EmbeddedResourceResource{Value: &protocol.TextResourceContents{URI: "file:///forecast.txt", MIMEType: &mime, Text: "Tomorrow: 75°F, sunny."}}}},
	}}
}

// benchEncode runs enc (which appends an encoding to its argument) in
// the benchmark's loop, reusing one buffer, and returns the last encoding.
func benchEncode(b *testing.B, enc func(buf []byte) ([]byte, error)) []byte {
	buf := make([]byte, 0, 1024)
	b.ReportAllocs()
	for b.Loop() {
		var err error
		if buf, err = enc(buf[:0]); err != nil {
			b.Fatal(err)
		}
	}
	return buf
}

// BenchmarkEncodeModernCallToolResult is the modern path: the result
// stamped as stamp() does (resultType, _meta.serverInfo), then encoded.
func BenchmarkEncodeModernCallToolResult(b *testing.B) {
	res := benchCallToolResult()
	res.ResultType = "complete"
	res.Meta = &protocol.ResultMetaObject{ServerInfo: &protocol.Implementation{Name: "bench", Version: "1.0.0"}}
	buf := benchEncode(b, func(buf []byte) ([]byte, error) { return protocol.AppendMarshal(buf, res) })
	b.SetBytes(int64(len(buf)))
}

// BenchmarkProjectCallToolResult is the legacy path for the same result:
// the hand rules, the zero pass, the modern encoder and the envelope strip.
func BenchmarkProjectCallToolResult(b *testing.B) {
	for _, r := range []Rev{Rev20251125, Rev20241105} {
		b.Run(r.String(), func(b *testing.B) {
			res := benchCallToolResult()
			buf := benchEncode(b, func(buf []byte) ([]byte, error) { return AppendResult(buf, r, res) })
			b.SetBytes(int64(len(buf)))
		})
	}
}

// The same result with structuredContent: the envelope is no longer the
// last member, so the strip takes its general path (a top-level scan).
func BenchmarkEncodeModernCallToolResultStructured(b *testing.B) {
	res := benchCallToolResult()
	res.StructuredContent = []byte(`{"temperature":22.5,"conditions":"Partly cloudy","humidity":65}`)
	res.ResultType = "complete"
	res.Meta = &protocol.ResultMetaObject{ServerInfo: &protocol.Implementation{Name: "bench", Version: "1.0.0"}}
	benchEncode(b, func(buf []byte) ([]byte, error) { return protocol.AppendMarshal(buf, res) })
}

func BenchmarkProjectCallToolResultStructured(b *testing.B) {
	res := benchCallToolResult()
	res.StructuredContent = []byte(`{"temperature":22.5,"conditions":"Partly cloudy","humidity":65}`)
	benchEncode(b, func(buf []byte) ([]byte, error) { return AppendResult(buf, Rev20251125, res) })
}
