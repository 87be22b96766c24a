package server_test

import (
	"fmt"

	"github.com/mcpwire/mcpwire/protocol"
	"github.com/mcpwire/mcpwire/server"
)

// ExampleStructuredResult returns structured content with its text copy,
// and a result mixing the other helpers.
func ExampleStructuredResult() {
	res, err := server.StructuredResult(map[string]any{"city": "Oslo", "tempC": -3.5})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(string(res.StructuredContent))
	fmt.Println(res.Content[0].Value.(*protocol.TextContent).Text)

	mixed := &protocol.CallToolResult{Content: []protocol.ContentBlock{
		server.Text("chart attached"),
		server.ImageBytes([]byte{0x89, 'P', 'N', 'G'}, "image/png"),
		server.ResourceLink("file:///data.csv", "data.csv", "text/csv"),
		server.EmbeddedBlob("file:///raw.bin", "", []byte{1, 2, 3}),
	}}
	fmt.Println(len(mixed.Content), *server.ErrorResult("disk full").IsError)
	// Output:
	// {"city":"Oslo","tempC":-3.5}
	// {"city":"Oslo","tempC":-3.5}
	// 4 true
}
