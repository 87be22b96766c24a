package mcp20251125

import (
	"bytes"
	"encoding/json"
	"fmt"
	"reflect"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// legacyMessage is one message of a 2025-11-25 session, written for these
// tests from the revision's schema and specification pages.
type legacyMessage struct {
	name string
	json string
	// typ is the type the whole message decodes into; for a response it is
	// JSONRPCResultResponse or JSONRPCErrorResponse.
	typ string
	// union is the direction union the message belongs to (ClientRequest,
	// ServerNotification, …) and variant the Go type it must choose; empty
	// for responses.
	union, variant string
	// For results: the type of the result member, and which side sends it
	// (ServerResult or ClientResult) with the variant that union chooses.
	result, resultUnion, resultVariant string
	// extra names the Extra fields that hold members on purpose.
	extra []string
}

// legacyMessages are a session's worth of messages: the initialize
// handshake, the server features a legacy client uses, the requests a
// server sends a legacy client, notifications both ways, and errors.
var legacyMessages = []legacyMessage{
	{
		name: "initialize",
		json: `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25",` +
			`"capabilities":{"roots":{"listChanged":true},"sampling":{"tools":{}},"elicitation":{"form":{},"url":{}},` +
			`"tasks":{"list":{},"requests":{"elicitation":{"create":{}}}},"experimental":{"acme/trace":{"level":2}}},` +
			`"clientInfo":{"name":"acme-client","title":"Acme Client","version":"0.9.1","websiteUrl":"https://client.example"}}}`,
		typ: "InitializeRequest", union: "ClientRequest", variant: "*mcp20251125.InitializeRequest",
	},
	{
		name: "initialize result",
		json: `{"jsonrpc":"2.0","id":1,"result":{"protocolVersion":"2025-11-25",` +
			`"capabilities":{"logging":{},"completions":{},"prompts":{"listChanged":true},"resources":{"subscribe":true,"listChanged":false},` +
			`"tools":{"listChanged":true},"tasks":{"list":{},"cancel":{},"requests":{"tools":{"call":{}}}}},` +
			`"serverInfo":{"name":"acme-server","version":"3.1.0","icons":[{"src":"https://server.example/icon.png","mimeType":"image/png","sizes":["48x48"],"theme":"dark"}]},` +
			`"instructions":"Call list_files before read_file."}}`,
		typ: "JSONRPCResultResponse", result: "InitializeResult", resultUnion: "ServerResult", resultVariant: "*mcp20251125.InitializeResult",
	},
	{
		name: "initialized",
		json: `{"jsonrpc":"2.0","method":"notifications/initialized"}`,
		typ:  "InitializedNotification", union: "ClientNotification", variant: "*mcp20251125.InitializedNotification",
	},
	{
		name: "ping from the client",
		json: `{"jsonrpc":"2.0","id":"ping-7","method":"ping"}`,
		typ:  "PingRequest", union: "ClientRequest", variant: "*mcp20251125.PingRequest",
	},
	{
		name: "ping from the server",
		json: `{"jsonrpc":"2.0","id":"srv-ping","method":"ping","params":{"_meta":{"progressToken":9}}}`,
		typ:  "PingRequest", union: "ServerRequest", variant: "*mcp20251125.PingRequest",
	},
	{
		name: "ping result",
		json: `{"jsonrpc":"2.0","id":"ping-7","result":{}}`,
		typ:  "JSONRPCResultResponse", result: "EmptyResult", resultUnion: "ServerResult", resultVariant: "*mcp20251125.Result",
	},
	{
		name: "tools/list",
		json: `{"jsonrpc":"2.0","id":2,"method":"tools/list","params":{"cursor":"page-2"}}`,
		typ:  "ListToolsRequest", union: "ClientRequest", variant: "*mcp20251125.ListToolsRequest",
	},
	{
		name: "tools/list result",
		json: `{"jsonrpc":"2.0","id":2,"result":{"tools":[{"name":"get_weather","title":"Weather","description":"Current weather for a city",` +
			`"inputSchema":{"type":"object","properties":{"city":{"type":"string"}},"required":["city"]},` +
			`"outputSchema":{"type":"object","properties":{"tempC":{"type":"number"}},"required":["tempC"]},` +
			`"annotations":{"readOnlyHint":true,"openWorldHint":true},"execution":{"taskSupport":"optional"}}],"nextCursor":"page-3"}}`,
		typ: "JSONRPCResultResponse", result: "ListToolsResult", resultUnion: "ServerResult", resultVariant: "*mcp20251125.ListToolsResult",
	},
	{
		name: "tools/call",
		json: `{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"_meta":{"progressToken":"tok-3","com.acme/trace":"t1"},"name":"get_weather","arguments":{"city":"Lisbon"}}}`,
		typ:  "CallToolRequest", union: "ClientRequest", variant: "*mcp20251125.CallToolRequest",
		extra: []string{"Params.Meta.Extra"},
	},
	{
		name: "tools/call result with structuredContent",
		json: `{"jsonrpc":"2.0","id":3,"result":{"content":[{"type":"text","text":"{\"tempC\":21.5}"}],"structuredContent":{"tempC":21.5},"isError":false}}`,
		typ:  "JSONRPCResultResponse", result: "CallToolResult", resultUnion: "ServerResult", resultVariant: "*mcp20251125.CallToolResult",
	},
	{
		name: "resources/subscribe",
		json: `{"jsonrpc":"2.0","id":4,"method":"resources/subscribe","params":{"uri":"file:///var/log/app.log"}}`,
		typ:  "SubscribeRequest", union: "ClientRequest", variant: "*mcp20251125.SubscribeRequest",
	},
	{
		name: "resources/updated",
		json: `{"jsonrpc":"2.0","method":"notifications/resources/updated","params":{"uri":"file:///var/log/app.log"}}`,
		typ:  "ResourceUpdatedNotification", union: "ServerNotification", variant: "*mcp20251125.ResourceUpdatedNotification",
	},
	{
		name: "resources/read result",
		json: `{"jsonrpc":"2.0","id":5,"result":{"contents":[{"uri":"file:///var/log/app.log","mimeType":"text/plain","text":"started"},` +
			`{"uri":"file:///var/log/app.gz","mimeType":"application/gzip","blob":"H4sIAAAAAAAAAwMAAAAAAAAAAAA="}]}}`,
		typ: "JSONRPCResultResponse", result: "ReadResourceResult", resultUnion: "ServerResult", resultVariant: "*mcp20251125.ReadResourceResult",
	},
	{
		name: "logging/setLevel",
		json: `{"jsonrpc":"2.0","id":6,"method":"logging/setLevel","params":{"level":"warning"}}`,
		typ:  "SetLevelRequest", union: "ClientRequest", variant: "*mcp20251125.SetLevelRequest",
	},
	{
		name: "notifications/message",
		json: `{"jsonrpc":"2.0","method":"notifications/message","params":{"level":"error","logger":"db","data":{"error":"connection lost","retries":3}}}`,
		typ:  "LoggingMessageNotification", union: "ServerNotification", variant: "*mcp20251125.LoggingMessageNotification",
	},
	{
		name: "elicitation/create, form",
		json: `{"jsonrpc":"2.0","id":"srv-1","method":"elicitation/create","params":{"mode":"form","message":"Which repository should I use?",` +
			`"requestedSchema":{"type":"object","properties":{` +
			`"repo":{"type":"string","title":"Repository","minLength":1},` +
			`"private":{"type":"boolean","default":false},` +
			`"visibility":{"type":"string","oneOf":[{"const":"team","title":"Team"},{"const":"org","title":"Organisation"}]},` +
			`"labels":{"type":"array","items":{"type":"string","enum":["bug","docs"]},"maxItems":2},` +
			`"retries":{"type":"integer","minimum":0,"maximum":5},` +
			`"region":{"type":"string","enum":["eu","us"],"enumNames":["Europe","United States"]}},"required":["repo"]}}}`,
		typ: "ElicitRequest", union: "ServerRequest", variant: "*mcp20251125.ElicitRequest",
	},
	{
		name: "elicitation/create, form without mode",
		json: `{"jsonrpc":"2.0","id":"srv-1b","method":"elicitation/create","params":{"message":"Your name?","requestedSchema":{"type":"object","properties":{"name":{"type":"string"}}}}}`,
		typ:  "ElicitRequest", union: "ServerRequest", variant: "*mcp20251125.ElicitRequest",
	},
	{
		name: "elicitation/create, url",
		json: `{"jsonrpc":"2.0","id":"srv-2","method":"elicitation/create","params":{"mode":"url","elicitationId":"el-42","url":"https://auth.example/connect?session=el-42","message":"Sign in to continue."}}`,
		typ:  "ElicitRequest", union: "ServerRequest", variant: "*mcp20251125.ElicitRequest",
	},
	{
		name: "elicitation result",
		json: `{"jsonrpc":"2.0","id":"srv-1","result":{"action":"accept","content":{"repo":"mcpwire","private":true,"visibility":"team","labels":["bug"],"retries":2}}}`,
		typ:  "JSONRPCResultResponse", result: "ElicitResult", resultUnion: "ClientResult", resultVariant: "*mcp20251125.ElicitResult",
	},
	{
		name: "elicitation complete",
		json: `{"jsonrpc":"2.0","method":"notifications/elicitation/complete","params":{"elicitationId":"el-42"}}`,
		typ:  "ElicitationCompleteNotification", union: "ServerNotification", variant: "*mcp20251125.ElicitationCompleteNotification",
	},
	{
		name: "sampling/createMessage",
		json: `{"jsonrpc":"2.0","id":"srv-3","method":"sampling/createMessage","params":{` +
			`"messages":[{"role":"user","content":{"type":"text","text":"Weather in Paris?"}},` +
			`{"role":"assistant","content":[{"type":"tool_use","id":"call-1","name":"get_weather","input":{"city":"Paris"}}]},` +
			`{"role":"user","content":[{"type":"tool_result","toolUseId":"call-1","content":[{"type":"text","text":"18C"}]}]}],` +
			`"modelPreferences":{"hints":[{"name":"sonnet"}],"intelligencePriority":0.8,"speedPriority":0.5},` +
			`"systemPrompt":"Be brief.","includeContext":"none","maxTokens":100,"temperature":0.2,"stopSequences":["\n\n"],` +
			`"tools":[{"name":"get_weather","inputSchema":{"type":"object","properties":{"city":{"type":"string"}}}}],"toolChoice":{"mode":"auto"}}}`,
		typ: "CreateMessageRequest", union: "ServerRequest", variant: "*mcp20251125.CreateMessageRequest",
	},
	{
		name: "sampling result",
		json: `{"jsonrpc":"2.0","id":"srv-3","result":{"role":"assistant","content":{"type":"text","text":"18 °C and sunny."},"model":"sonnet-4","stopReason":"endTurn"}}`,
		typ:  "JSONRPCResultResponse", result: "CreateMessageResult", resultUnion: "ClientResult", resultVariant: "*mcp20251125.CreateMessageResult",
	},
	{
		name: "roots/list",
		json: `{"jsonrpc":"2.0","id":"srv-4","method":"roots/list"}`,
		typ:  "ListRootsRequest", union: "ServerRequest", variant: "*mcp20251125.ListRootsRequest",
	},
	{
		name: "roots/list result",
		json: `{"jsonrpc":"2.0","id":"srv-4","result":{"roots":[{"uri":"file:///home/user/project","name":"project"}]}}`,
		typ:  "JSONRPCResultResponse", result: "ListRootsResult", resultUnion: "ClientResult", resultVariant: "*mcp20251125.ListRootsResult",
	},
	{
		name: "roots changed",
		json: `{"jsonrpc":"2.0","method":"notifications/roots/list_changed"}`,
		typ:  "RootsListChangedNotification", union: "ClientNotification", variant: "*mcp20251125.RootsListChangedNotification",
	},
	{
		name: "progress",
		json: `{"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":"tok-3","progress":50,"total":100,"message":"Halfway"}}`,
		typ:  "ProgressNotification", union: "ServerNotification", variant: "*mcp20251125.ProgressNotification",
	},
	{
		name: "cancelled",
		json: `{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":3,"reason":"User pressed stop"}}`,
		typ:  "CancelledNotification", union: "ClientNotification", variant: "*mcp20251125.CancelledNotification",
	},
	{
		name: "prompts/get",
		json: `{"jsonrpc":"2.0","id":8,"method":"prompts/get","params":{"name":"review","arguments":{"file":"main.go"}}}`,
		typ:  "GetPromptRequest", union: "ClientRequest", variant: "*mcp20251125.GetPromptRequest",
	},
	{
		name: "completion/complete",
		json: `{"jsonrpc":"2.0","id":9,"method":"completion/complete","params":{"ref":{"type":"ref/resource","uri":"file:///{path}"},"argument":{"name":"path","value":"ma"},"context":{"arguments":{"root":"/src"}}}}`,
		typ:  "CompleteRequest", union: "ClientRequest", variant: "*mcp20251125.CompleteRequest",
	},
	{
		name: "error response",
		json: `{"jsonrpc":"2.0","id":10,"error":{"code":-32602,"message":"Unknown tool: frobnicate","data":{"tool":"frobnicate"}}}`,
		typ:  "JSONRPCErrorResponse",
	},
	{
		name: "error response without id",
		json: `{"jsonrpc":"2.0","error":{"code":-32700,"message":"Parse error"}}`,
		typ:  "JSONRPCErrorResponse",
	},
	{
		name: "URL elicitation required",
		json: `{"jsonrpc":"2.0","id":11,"error":{"code":-32042,"message":"Authorization required",` +
			`"data":{"elicitations":[{"mode":"url","elicitationId":"el-43","url":"https://auth.example/x","message":"Authorize acme"}]}}}`,
		typ: "URLElicitationRequiredError",
	},
}

// semantic decodes JSON into plain Go values for comparison.
func semantic(t *testing.T, b []byte) any {
	t.Helper()
	d := json.NewDecoder(bytes.NewReader(b))
	d.UseNumber()
	var v any
	require.NoError(t, d.Decode(&v), "invalid JSON %s", b)
	return v
}

// unionValue returns the Value of a union pointer, through reflection.
func unionValue(t *testing.T, u any) any {
	t.Helper()
	rv := reflect.ValueOf(u).Elem().FieldByName("Value")
	require.True(t, rv.IsValid(), "%T is not a union", u)
	return rv.Interface()
}

// declaredOnly fails for every Extra member in v: the messages of these
// tests use only members the schema declares, so a member kept in Extra is
// a misspelling in the test or a member the generator missed. Free-form
// objects (a struct with no declared member, such as a tool's property
// schema or an experimental capability) hold everything in Extra and are
// not checked; skip names the other Extra fields that legitimately hold
// members (a response's result before it is decoded into its own type, a
// vendor _meta key).
func declaredOnly(t *testing.T, v any, skip ...string) {
	t.Helper()
	var walk func(rv reflect.Value, path string)
	walk = func(rv reflect.Value, path string) {
		switch rv.Kind() {
		case reflect.Pointer, reflect.Interface:
			if !rv.IsNil() {
				walk(rv.Elem(), path)
			}
		case reflect.Slice:
			if rv.Type() == reflect.TypeOf(json.RawMessage(nil)) {
				return
			}
			for i := 0; i < rv.Len(); i++ {
				walk(rv.Index(i), fmt.Sprintf("%s[%d]", path, i))
			}
		case reflect.Map:
			for _, k := range rv.MapKeys() {
				walk(rv.MapIndex(k), path+"."+k.String())
			}
		case reflect.Struct:
			declared := 0
			for i := 0; i < rv.NumField(); i++ {
				if f := rv.Type().Field(i); f.IsExported() && f.Name != "Extra" {
					declared++
				}
			}
			for i := 0; i < rv.NumField(); i++ {
				f := rv.Type().Field(i)
				if !f.IsExported() {
					continue
				}
				p := strings.TrimPrefix(path+"."+f.Name, ".")
				if f.Name == "Extra" {
					if m := rv.Field(i).Interface().(Members); len(m) > 0 && declared > 0 && !contains(skip, p) {
						t.Errorf("%s holds undeclared members %v", p, m)
					}
					continue
				}
				walk(rv.Field(i), p)
			}
		}
	}
	walk(reflect.ValueOf(v), "")
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// TestLegacyMessagesRoundTrip decodes each message into its type, checks
// that every member is a declared one, and encodes it back to the same
// JSON, with Marshal and with encoding/json.
func TestLegacyMessagesRoundTrip(t *testing.T) {
	for _, m := range legacyMessages {
		t.Run(m.name, func(t *testing.T) {
			v := NewValue(m.typ)
			require.NotNil(t, v, m.typ)
			require.NoError(t, Unmarshal([]byte(m.json), v))
			if m.result != "" {
				declaredOnly(t, v, "Result.Extra")
			} else {
				declaredOnly(t, v, m.extra...)
			}
			out, err := Marshal(v)
			require.NoError(t, err)
			assert.Equal(t, semantic(t, []byte(m.json)), semantic(t, out), "round trip:\n got %s\nwant %s", out, m.json)

			v2 := NewValue(m.typ)
			require.NoError(t, json.Unmarshal([]byte(m.json), v2))
			out2, err := json.Marshal(v2)
			require.NoError(t, err)
			assert.Equal(t, semantic(t, []byte(m.json)), semantic(t, out2), "encoding/json round trip")

			if m.result == "" {
				return
			}
			// The result member, decoded into its own type and into the
			// union of its sender.
			resp := v.(*JSONRPCResultResponse)
			raw, err := Marshal(&resp.Result)
			require.NoError(t, err)
			r := NewValue(m.result)
			require.NotNil(t, r, m.result)
			require.NoError(t, Unmarshal(raw, r))
			declaredOnly(t, r)
			out, err = Marshal(r)
			require.NoError(t, err)
			assert.Equal(t, semantic(t, raw), semantic(t, out))
			u := NewValue(m.resultUnion)
			require.NoError(t, Unmarshal(raw, u))
			assert.Equal(t, m.resultVariant, fmt.Sprintf("%T", unionValue(t, u)))
		})
	}
}

// TestLegacyMessageUnions decodes each message as a JSONRPCMessage and as
// a member of its direction union, and checks the variant chosen and the
// method table's view of it.
func TestLegacyMessageUnions(t *testing.T) {
	envelope := map[string]string{
		"JSONRPCResultResponse": "*mcp20251125.JSONRPCResultResponse",
		"JSONRPCErrorResponse":  "*mcp20251125.JSONRPCErrorResponse",
		// An error of a fixed code is a JSONRPCErrorResponse on the wire.
		"URLElicitationRequiredError": "*mcp20251125.JSONRPCErrorResponse",
	}
	for _, m := range legacyMessages {
		t.Run(m.name, func(t *testing.T) {
			var msg JSONRPCMessage
			require.NoError(t, Unmarshal([]byte(m.json), &msg))
			want, isResponse := envelope[m.typ]
			if !isResponse {
				want = "*mcp20251125.JSONRPCRequest"
				if strings.HasSuffix(m.typ, "Notification") {
					want = "*mcp20251125.JSONRPCNotification"
				}
			}
			assert.Equal(t, want, fmt.Sprintf("%T", msg.Value))
			out, err := Marshal(&msg)
			require.NoError(t, err)
			assert.Equal(t, semantic(t, []byte(m.json)), semantic(t, out))

			var resp JSONRPCResponse
			err = Unmarshal([]byte(m.json), &resp)
			if isResponse {
				require.NoError(t, err)
			} else {
				// Neither response has its required member: the chooser
				// lets the closer one report it.
				de, ok := AsDecodeError(err)
				require.True(t, ok, "a %s decoded as a JSONRPCResponse: %v", m.typ, err)
				assert.Equal(t, KindMissing, de.Kind, "%v", err)
			}
			if m.union == "" {
				return
			}
			u := NewValue(m.union)
			require.NotNil(t, u, m.union)
			require.NoError(t, Unmarshal([]byte(m.json), u))
			assert.Equal(t, m.variant, fmt.Sprintf("%T", unionValue(t, u)))

			// The method table names the same type and the same sender.
			var probe struct {
				Method string `json:"method"`
			}
			require.NoError(t, json.Unmarshal([]byte(m.json), &probe))
			info, ok := LookupMethod(probe.Method)
			require.True(t, ok, probe.Method)
			assert.Equal(t, m.typ, info.Message)
			fromClient := strings.HasPrefix(m.union, "Client")
			if fromClient {
				assert.True(t, info.FromClient, "%s is sent by the client", probe.Method)
			} else {
				assert.True(t, info.FromServer, "%s is sent by the server", probe.Method)
			}
			assert.Equal(t, strings.HasSuffix(m.union, "Notification"), info.Notification)
			// The other side's union refuses it, unless both sides send it.
			other := strings.Replace(m.union, "Client", "Server", 1)
			if !fromClient {
				other = strings.Replace(m.union, "Server", "Client", 1)
			}
			err = Unmarshal([]byte(m.json), NewValue(other))
			if info.FromClient && info.FromServer {
				assert.NoError(t, err, "%s is sent by both sides", probe.Method)
			} else {
				de, ok := AsDecodeError(err)
				require.True(t, ok, "%s decoded as a %s: %v", probe.Method, other, err)
				assert.Equal(t, KindUnion, de.Kind)
			}
		})
	}
}
