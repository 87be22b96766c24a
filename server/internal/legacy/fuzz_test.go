package legacy

import (
	"encoding/json"
	"os"
	"testing"

	"github.com/mcpwire/mcpwire/protocol"
	"github.com/mcpwire/mcpwire/protocol/mcp20251125"
)

// fuzzKinds are the values FuzzLegacyProject decodes the fuzzer's bytes
// into: each result of a client request, each notification the server
// sends, and the input requests of the bridge.
var fuzzKinds = []struct {
	method string
	kind   string // result, notification, input
	new    func() any
}{
	{"tools/call", "result", func() any { return new(protocol.CallToolResult) }},
	{"tools/list", "result", func() any { return new(protocol.ListToolsResult) }},
	{"prompts/get", "result", func() any { return new(protocol.GetPromptResult) }},
	{"prompts/list", "result", func() any { return new(protocol.ListPromptsResult) }},
	{"resources/list", "result", func() any { return new(protocol.ListResourcesResult) }},
	{"resources/templates/list", "result", func() any { return new(protocol.ListResourceTemplatesResult) }},
	{"resources/read", "result", func() any { return new(protocol.ReadResourceResult) }},
	{"completion/complete", "result", func() any { return new(protocol.CompleteResult) }},
	{"", "notification", func() any { return new(protocol.ServerNotification) }},
	{"", "input", func() any { return new(protocol.InputRequest) }},
}

// FuzzLegacyProject decodes random modern values (as a handler or the
// registry could build them, strictly decoded with package protocol) and
// projects them to every legacy revision: the output is a valid message of
// the revision (its schema when MCP_SPEC_DIR is set; a strict 2025-11-25
// decode always), or a clean error. Never a panic, never invalid JSON.
func FuzzLegacyProject(f *testing.F) {
	for _, s := range []struct {
		kind byte
		data string
	}{
		{0, `{"resultType":"complete","content":[{"type":"text","text":"x","_meta":{}},{"type":"audio","data":"AA==","mimeType":"audio/wav"},{"type":"resource_link","name":"n","uri":"u","title":"T"}],"structuredContent":[1]}`},
		{0, `{"resultType":"complete","content":[{"type":"resource","resource":{"uri":"u","blob":"AA==","_meta":{}}}],"structuredContent":{"a":1},"isError":true,"_meta":{"io.modelcontextprotocol/serverInfo":{"name":"s","version":"1"},"k":1}}`},
		{1, `{"resultType":"complete","ttlMs":1,"cacheScope":"public","tools":[{"name":"t","title":"T","icons":[{"src":"s"}],"execution":{"taskSupport":"x"},"inputSchema":{"type":"object","properties":{"a":true}},"outputSchema":{"type":"object"},"annotations":{"readOnlyHint":true}}]}`},
		{2, `{"resultType":"complete","messages":[{"role":"user","content":{"type":"resource_link","name":"n","uri":"u"}}]}`},
		{3, `{"resultType":"complete","ttlMs":0,"cacheScope":"private","prompts":[{"name":"p","title":"P","arguments":[{"name":"a","title":"A"}],"icons":[{"src":"s"}]}]}`},
		{4, `{"resultType":"complete","ttlMs":0,"cacheScope":"private","resources":[{"name":"r","uri":"u","annotations":{"lastModified":"x"},"size":3}]}`},
		{5, `{"resultType":"complete","ttlMs":0,"cacheScope":"private","resourceTemplates":[{"name":"r","uriTemplate":"u/{x}"}]}`},
		{6, `{"resultType":"complete","ttlMs":0,"cacheScope":"private","contents":[{"uri":"u","text":"t","_meta":{}}]}`},
		{7, `{"resultType":"complete","completion":{"values":["a"],"hasMore":false}}`},
		{8, `{"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":1,"progress":1,"message":"m","_meta":{}}}`},
		{8, `{"jsonrpc":"2.0","method":"notifications/tools/list_changed","params":{"_meta":{"io.modelcontextprotocol/subscriptionId":"s"}}}`},
		{9, `{"method":"elicitation/create","params":{"mode":"form","message":"m","requestedSchema":{"type":"object","properties":{"c":{"type":"string","oneOf":[{"const":"a","title":"A"}]}}}}}`},
		{9, `{"method":"sampling/createMessage","params":{"maxTokens":1,"messages":[{"role":"user","content":[{"type":"text","text":"a"}]}]}}`},
		{9, `{"method":"elicitation/create","params":{"mode":"url","message":"m","url":"https://x"}}`},
	} {
		f.Add(s.kind, []byte(s.data))
	}
	withSpec := os.Getenv("MCP_SPEC_DIR") != ""
	f.Fuzz(func(t *testing.T, kind byte, data []byte) {
		k := fuzzKinds[int(kind)%len(fuzzKinds)]
		v := k.new()
		if protocol.Unmarshal(data, v) != nil {
			return
		}
		for _, r := range Revisions() {
			var out []byte
			var err error
			var def, method string
			switch k.kind {
			case "result":
				out, err = AppendResult(nil, r, v)
				out = response(out)
				def, method = resultDefs[k.method], k.method
			case "notification":
				out, err = AppendNotification(nil, r, v.(*protocol.ServerNotification).Value)
				method = methodOf(out)
				def = notificationDefs[method]
			case "input":
				var e *Error
				method, out, e = InputRequest(r, protocol.StringRequestId("mcpwire-f"), "k", *v.(*protocol.InputRequest))
				if e != nil {
					err = e
				}
				def = requestDefs[method]
			}
			if err != nil {
				continue // a clean refusal
			}
			if !json.Valid(out) {
				t.Fatalf("%s: invalid JSON %s", r, out)
			}
			if r == Rev20251125 {
				var msg mcp20251125.JSONRPCMessage
				if err := mcp20251125.Unmarshal(out, &msg); err != nil {
					t.Fatalf("%s: %v\n%s", r, err, out)
				}
			}
			if withSpec {
				if err := checkWith(t, schemaWithoutFormats(t, r), out, def, method, k.kind == "result", false); err != nil {
					t.Fatalf("%v\ninput %s\noutput %s", err, data, out)
				}
			}
		}
	})
}
