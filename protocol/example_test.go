package protocol_test

import (
	"errors"
	"fmt"

	"github.com/mcpwire/mcpwire/protocol"
)

// Decoding is strict: this message names "name" twice, differently cased.
func ExampleUnmarshal() {
	body := []byte(`{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}},"name":"get_weather","NAME":"delete_all"}`)
	var p protocol.CallToolRequestParams
	err := protocol.Unmarshal(body, &p)
	var de *protocol.DecodeError
	if errors.As(err, &de) {
		fmt.Println(de.Kind, de.Path)
	}
	// Output: case-variant NAME
}

// Const members are written by the encoder: a zero TextContent has its
// "type".
func ExampleMarshal() {
	res := protocol.CallToolResult{ResultType: "complete", Content: []protocol.ContentBlock{
		{Value: &protocol.TextContent{Text: "72°F and sunny"}},
	}}
	b, err := protocol.Marshal(&res)
	if err != nil {
		panic(err)
	}
	fmt.Println(string(b))
	// Output: {"content":[{"text":"72°F and sunny","type":"text"}],"resultType":"complete"}
}

// RequestId keeps the JSON kind it arrived with.
func ExampleRequestId() {
	var r protocol.JSONRPCRequest
	_ = protocol.Unmarshal([]byte(`{"jsonrpc":"2.0","id":"7","method":"tools/list"}`), &r)
	fmt.Println(r.ID.IsString(), r.ID)
	b, _ := protocol.Marshal(&r)
	fmt.Println(string(b))
	// Output:
	// true 7
	// {"id":"7","jsonrpc":"2.0","method":"tools/list"}
}

// The method table gives the Go types of each method of the revision.
func ExampleLookupMethod() {
	m, _ := protocol.LookupMethod(protocol.MethodToolsCall)
	fmt.Println(m.Params, m.Result, m.FromClient)
	_, ok := protocol.LookupMethod("initialize")
	fmt.Println(ok)
	// Output:
	// CallToolRequestParams CallToolResult true
	// false
}

// Undeclared members, such as vendor keys in _meta, survive a round trip.
func ExampleMembers() {
	var m protocol.RequestMetaObject
	_ = protocol.Unmarshal([]byte(`{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{},"com.example/traceId":"abc"}`), &m)
	v, _ := m.Extra.Get("com.example/traceId")
	fmt.Println(m.ProtocolVersion, string(v))
	// Output: 2026-07-28 "abc"
}

// A transport that knows the method beside the body (Streamable HTTP's
// Mcp-Method header) passes it as a hint: the request is decoded straight
// into its variant. A wrong hint changes nothing but the work.
func ExampleUnmarshalOptions_UnmarshalVariant() {
	body := []byte(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}},"name":"get_weather"}}`)
	for _, hint := range []string{protocol.MethodToolsCall, protocol.MethodToolsList} {
		var req protocol.ClientRequest
		if err := (protocol.UnmarshalOptions{}).UnmarshalVariant(body, &req, hint); err != nil {
			panic(err)
		}
		call := req.Value.(*protocol.CallToolRequest)
		fmt.Println(hint, "→", call.Params.Name)
	}
	// Output:
	// tools/call → get_weather
	// tools/list → get_weather
}

// A caller that encodes a result holding raw JSON it wrote itself, and
// knows to be valid, can spare the encoder its check of those bytes.
func ExampleMarshalOptions() {
	sc := []byte(`{"temperature":22}`) // written by our own encoder
	res := protocol.CallToolResult{ResultType: "complete", StructuredContent: sc, Content: []protocol.ContentBlock{}}
	b, err := protocol.MarshalOptions{Trusted: sc}.AppendMarshal(nil, &res)
	if err != nil {
		panic(err)
	}
	fmt.Println(string(b))
	// Output: {"content":[],"resultType":"complete","structuredContent":{"temperature":22}}
}
