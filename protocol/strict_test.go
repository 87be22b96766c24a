package protocol

import (
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"testing"

	goccy "github.com/goccy/go-json"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

const meta = `"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}`

func decodeErr(t *testing.T, data string, v any) *DecodeError {
	t.Helper()
	err := Unmarshal([]byte(data), v)
	require.Error(t, err, "accepted %s", data)
	de, ok := AsDecodeError(err)
	require.True(t, ok, "error %v is not a *DecodeError", err)
	return de
}

// RequestId and ProgressToken keep the JSON kind they arrived with.
func TestIDKindRoundTrip(t *testing.T) {
	for _, id := range []string{`"7"`, `7`, `-9223372036854775808`, `""`, `"x\"y"`} {
		in := `{"id":` + id + `,"jsonrpc":"2.0","method":"tools/list","params":{` + meta + `,"progressToken":` + id + `}}`
		var r ListToolsRequest
		require.NoError(t, Unmarshal([]byte(in), &r), in)
		assert.Equal(t, id[0] == '"', r.ID.IsString(), id)
		assert.Equal(t, id[0] != '"', r.ID.IsInt(), id)
		out, err := Marshal(&r)
		require.NoError(t, err)
		assert.Contains(t, string(out), `"id":`+id)
		assert.Contains(t, string(out), `"progressToken":`+id)
	}
	assert.Equal(t, "call-1", StringRequestId("call-1").String())
	assert.Equal(t, "42", IntRequestId(42).String())
	assert.NotEqual(t, StringRequestId("1"), IntRequestId(1), "string and integer ids must differ")
	de := decodeErr(t, `{"id":1.5,"jsonrpc":"2.0","method":"tools/list"}`, new(JSONRPCRequest))
	assert.Equal(t, KindType, de.Kind)
	assert.Equal(t, "id", de.Path)
	_, err := Marshal(&JSONRPCRequest{Method: "x"})
	var ee *EncodeError
	assert.True(t, errors.As(err, &ee), "unset id must not encode: %v", err)
}

// const members are written whatever the Go value holds.
func TestConstsWritten(t *testing.T) {
	out, err := Marshal(TextContent{})
	require.NoError(t, err)
	assert.JSONEq(t, `{"text":"","type":"text"}`, string(out))
	out, err = json.Marshal(TextContent{Text: "hi"})
	require.NoError(t, err, "encoding/json goes through MarshalJSON")
	assert.JSONEq(t, `{"text":"hi","type":"text"}`, string(out))
	out, err = Marshal(&CallToolRequest{ID: IntRequestId(1), Params: CallToolRequestParams{Name: "echo", Meta: RequestMetaObject{ProtocolVersion: "2026-07-28"}}})
	require.NoError(t, err)
	assert.JSONEq(t, `{"id":1,"jsonrpc":"2.0","method":"tools/call","params":{"_meta":{"io.modelcontextprotocol/clientCapabilities":{},"io.modelcontextprotocol/protocolVersion":"2026-07-28"},"name":"echo"}}`, string(out))
	assert.Equal(t, "text", (&TextContent{}).Type())
	assert.Equal(t, int64(-32021), (&MissingRequiredClientCapabilityErrorError{}).Code())
}

// The message-smuggling hole: goccy lets a case variant win; strict decoding
// refuses it, as it refuses duplicates.
func TestCaseVariantAndDuplicates(t *testing.T) {
	in := `{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}},"name":"x","NAME":"evil"}`
	var plain struct {
		Name string `json:"name"`
	}
	require.NoError(t, goccy.Unmarshal([]byte(in), &plain))
	assert.Equal(t, "evil", plain.Name, "goccy's behaviour changed; the comparison in docs/performance.md needs a look")
	de := decodeErr(t, in, new(CallToolRequestParams))
	assert.Equal(t, KindCaseVariant, de.Kind)
	assert.Equal(t, "NAME", de.Path)

	de = decodeErr(t, `{`+meta+`,"name":"x","name":"y"}`, new(CallToolRequestParams))
	assert.Equal(t, KindDuplicate, de.Kind)
	assert.Equal(t, "name", de.Path)
	de = decodeErr(t, `{`+meta+`,"name":"x","arguments":{"a":1,"a":2}}`, new(CallToolRequestParams))
	assert.Equal(t, KindDuplicate, de.Kind)
	assert.Equal(t, "arguments.a", de.Path)
	de = decodeErr(t, `{`+meta+`,"name":"x","n\u0061me":"y"}`, new(CallToolRequestParams))
	assert.Equal(t, KindDuplicate, de.Kind, "an escaped name is the same name")
	assert.True(t, errors.Is(de, &DecodeError{Kind: KindDuplicate}))
}

// Undeclared members are kept and written back; _meta keeps vendor keys
// next to the typed reserved keys.
func TestOpenObjectsKeepMembers(t *testing.T) {
	in := `{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{"roots":{}},"io.modelcontextprotocol/logLevel":"info","com.example/traceId":"abc","progressToken":"p1"},"name":"x","future":{"a":[1,2]}}`
	var p CallToolRequestParams
	require.NoError(t, Unmarshal([]byte(in), &p))
	assert.Equal(t, "2026-07-28", p.Meta.ProtocolVersion)
	require.NotNil(t, p.Meta.LogLevel)
	assert.Equal(t, LoggingLevelInfo, *p.Meta.LogLevel)
	assert.NotNil(t, p.Meta.ClientCapabilities.Roots, "an empty capability object means supported and must survive")
	v, ok := p.Meta.Extra.Get("com.example/traceId")
	require.True(t, ok)
	assert.Equal(t, `"abc"`, string(v))
	fut, ok := p.Extra.Get("future")
	require.True(t, ok)
	assert.Equal(t, `{"a":[1,2]}`, string(fut))
	out, err := Marshal(&p)
	require.NoError(t, err)
	assert.JSONEq(t, in, string(out))

	tool := `{"name":"t","inputSchema":{"type":"object","$schema":"https://json-schema.org/draft/2020-12/schema","properties":{"a":{"type":"string"}},"required":["a"],"additionalProperties":false}}`
	var tl Tool
	require.NoError(t, Unmarshal([]byte(tool), &tl))
	out, err = Marshal(&tl)
	require.NoError(t, err)
	assert.JSONEq(t, tool, string(out), "inputSchema keywords stay at the top level of the schema")

	var tc TextContent
	require.NoError(t, Unmarshal([]byte(`{"type":"text","text":"a","x-vendor":true}`), &tc))
	out, _ = Marshal(&tc)
	assert.JSONEq(t, `{"type":"text","text":"a","x-vendor":true}`, string(out))

	tc.Extra = Members{{Name: "text", Value: json.RawMessage(`"dup"`)}}
	_, err = Marshal(&tc)
	assert.Error(t, err, "an Extra member may not shadow a declared one")
	tc.Extra = Members{{Name: "x", Value: json.RawMessage(`{bad`)}}
	_, err = Marshal(&tc)
	assert.Error(t, err, "invalid raw JSON must not be written")
}

// Null is refused in required and optional members alike.
func TestNull(t *testing.T) {
	de := decodeErr(t, `{"type":"text","text":null}`, new(TextContent))
	assert.Equal(t, KindNull, de.Kind)
	assert.Equal(t, "text", de.Path)
	de = decodeErr(t, `{"type":"text","text":"a","annotations":null}`, new(TextContent))
	assert.Equal(t, KindNull, de.Kind)
	assert.Equal(t, "annotations", de.Path)
}

// Unions choose their variant by discriminator, kind and required members.
func TestUnionChoice(t *testing.T) {
	cases := []struct {
		in, union, want string
	}{
		{`{"resultType":"complete","content":[]}`, "ServerResult", "*protocol.CallToolResult"},
		{`{"resultType":"input_required","requestState":"s"}`, "ServerResult", "*protocol.InputRequiredResult"},
		{`{"resultType":"complete"}`, "ServerResult", "*protocol.Result"},
		{`{"jsonrpc":"2.0","id":1,"method":"x"}`, "JSONRPCMessage", "*protocol.JSONRPCRequest"},
		{`{"jsonrpc":"2.0","method":"x"}`, "JSONRPCMessage", "*protocol.JSONRPCNotification"},
		{`{"jsonrpc":"2.0","id":1,"result":{"resultType":"complete"}}`, "JSONRPCMessage", "*protocol.JSONRPCResultResponse"},
		{`{"jsonrpc":"2.0","id":1,"error":{"code":-32601,"message":"no"}}`, "JSONRPCMessage", "*protocol.JSONRPCErrorResponse"},
		{`{"type":"string","enum":["a"]}`, "PrimitiveSchemaDefinition", "*protocol.UntitledSingleSelectEnumSchema"},
		{`{"type":"string","enum":["a"],"enumNames":["A"]}`, "PrimitiveSchemaDefinition", "*protocol.LegacyTitledEnumSchema"},
		{`{"type":"array","items":{"anyOf":[{"const":"a","title":"A"}]}}`, "MultiSelectEnumSchema", "*protocol.TitledMultiSelectEnumSchema"},
		{`{"type":"array","items":{"type":"string","enum":["a"]}}`, "MultiSelectEnumSchema", "*protocol.UntitledMultiSelectEnumSchema"},
		{`{"message":"m","requestedSchema":{"type":"object","properties":{}}}`, "ElicitRequestParams", "*protocol.ElicitRequestFormParams"},
		{`[{"type":"text","text":"a"}]`, "SamplingMessageContent", "protocol.SamplingMessageContentList"},
		// A member literally named "items.enum" is an undeclared member,
		// not the nested key the probe looks for: the branch is chosen by
		// items itself, and the member is kept.
		{`{"type":"array","items.enum":["x"],"items.type":"string","items":{"anyOf":[{"const":"a","title":"A"}]}}`, "MultiSelectEnumSchema", "*protocol.TitledMultiSelectEnumSchema"},
	}
	for _, c := range cases {
		v := NewValue(c.union)
		require.NotNil(t, v, c.union)
		require.NoError(t, Unmarshal([]byte(c.in), v), c.in)
		got := typeName(v)
		assert.Equal(t, c.want, got, c.in)
		out, err := Marshal(v)
		require.NoError(t, err)
		assert.JSONEq(t, c.in, string(out))
	}
	de := decodeErr(t, `{"content":[{"type":"text","text":"a"},{"type":"image","data":"","mimeType":"image/png"},{"type":"bogus"}],"resultType":"complete"}`, new(CallToolResult))
	assert.Equal(t, "content[2].type", de.Path)
	assert.Equal(t, KindUnion, de.Kind)
	de = decodeErr(t, `{"jsonrpc":"1.0","id":1,"method":"x"}`, new(JSONRPCMessage))
	assert.Equal(t, KindConst, de.Kind)
	assert.Equal(t, "jsonrpc", de.Path)
	de = decodeErr(t, `{"jsonrpc":"2.0","id":1,"method":"x","result":{}}`, new(JSONRPCMessage))
	assert.Equal(t, KindUnion, de.Kind, "a request that is also a response is ambiguous")
	_, err := Marshal(&ContentBlock{})
	assert.Error(t, err, "an empty union must not encode")
}

func typeName(v any) string {
	switch u := v.(type) {
	case *ServerResult:
		return typeOf(u.Value)
	case *JSONRPCMessage:
		return typeOf(u.Value)
	case *PrimitiveSchemaDefinition:
		return typeOf(u.Value)
	case *MultiSelectEnumSchema:
		return typeOf(u.Value)
	case *ElicitRequestParams:
		return typeOf(u.Value)
	case *SamplingMessageContent:
		return typeOf(u.Value)
	}
	return "?"
}

func typeOf(v any) string { return fmt.Sprintf("%T", v) }

// Error responses keep their own code and data types.
func TestErrorTypes(t *testing.T) {
	in := `{"jsonrpc":"2.0","id":"r1","error":{"code":-32021,"message":"needs elicitation","data":{"requiredCapabilities":{"elicitation":{"form":{}}}}}}`
	var e MissingRequiredClientCapabilityError
	require.NoError(t, Unmarshal([]byte(in), &e))
	assert.NotNil(t, e.Error.Data.RequiredCapabilities.Elicitation)
	de := decodeErr(t, strings.Replace(in, "-32021", "-32020", 1), new(MissingRequiredClientCapabilityError))
	assert.Equal(t, KindConst, de.Kind)
	assert.Equal(t, "error.code", de.Path)
	var u UnsupportedProtocolVersionError
	require.NoError(t, Unmarshal([]byte(`{"jsonrpc":"2.0","id":1,"error":{"code":-32022,"message":"m","data":{"supported":["2026-07-28"],"requested":"1999-01-01"}}}`), &u))
	assert.Equal(t, []string{"2026-07-28"}, u.Error.Data.Supported)
	assert.Equal(t, "MissingRequiredClientCapabilityError", ErrorCodeName(CodeMissingRequiredClientCapabilityError))
	assert.Equal(t, int64(-32700), CodeParseError)
}

// The method table gives the Go types of each method.
func TestLookupMethod(t *testing.T) {
	m, ok := LookupMethod(MethodToolsCall)
	require.True(t, ok)
	assert.True(t, m.FromClient)
	assert.IsType(t, &CallToolRequestParams{}, m.NewParams())
	assert.IsType(t, &CallToolResult{}, m.NewResult())
	_, ok = LookupMethod("initialize")
	assert.False(t, ok)
	assert.Len(t, Methods(), 21)
	for _, n := range []string{"EmptyResult", "ClientResult", "NotificationParams", "RequestId", "ProgressToken"} {
		assert.NotNil(t, NewValue(n), n)
	}
}

// Decoding is one pass with few allocations (not a timing test: allocation
// counts are deterministic). The raw go-jsonschema decoder made 171.
func TestDecodeAllocs(t *testing.T) {
	data := []byte(`{"jsonrpc":"2.0","id":"call-tool-example","method":"tools/call","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientInfo":{"name":"ExampleClient","version":"1.0.0"},"io.modelcontextprotocol/clientCapabilities":{}},"name":"get_weather","arguments":{"location":"New York"}}}`)
	allocs := testing.AllocsPerRun(100, func() {
		var v CallToolRequest
		if err := Unmarshal(data, &v); err != nil {
			t.Fatal(err)
		}
	})
	assert.LessOrEqual(t, allocs, 15.0)
}

// Depth is limited before anything deeper is parsed.
func TestMaxDepth(t *testing.T) {
	deep := `{"type":"text","text":"a","x":` + strings.Repeat("[", 100000) + strings.Repeat("]", 100000) + `}`
	de := decodeErr(t, deep, new(TextContent))
	assert.Equal(t, KindDepth, de.Kind)
	shallow := `{"type":"text","text":"a","x":` + strings.Repeat("[", 10) + strings.Repeat("]", 10) + `}`
	require.NoError(t, Unmarshal([]byte(shallow), new(TextContent)))
	err := UnmarshalOptions{MaxDepth: 5}.Unmarshal([]byte(shallow), new(TextContent))
	de, ok := AsDecodeError(err)
	require.True(t, ok, "%v", err)
	assert.Equal(t, KindDepth, de.Kind)
}

// The string and member limits refuse a document as soon as it crosses
// them, with KindLimit.
func TestStringAndMemberLimits(t *testing.T) {
	long := `{"type":"text","text":"` + strings.Repeat("a", 100) + `"}`
	err := UnmarshalOptions{MaxStringBytes: 99}.Unmarshal([]byte(long), new(TextContent))
	de, ok := AsDecodeError(err)
	require.True(t, ok, "%v", err)
	assert.Equal(t, KindLimit, de.Kind)
	assert.Equal(t, "text", de.Path)
	require.NoError(t, UnmarshalOptions{MaxStringBytes: 100}.Unmarshal([]byte(long), new(TextContent)))
	escaped := `{"type":"text","text":"` + strings.Repeat(`\u0061`, 100) + `"}`
	_, ok = AsDecodeError(UnmarshalOptions{MaxStringBytes: 99}.Unmarshal([]byte(escaped), new(TextContent)))
	assert.True(t, ok, "the limit applies after unescaping too")

	var b strings.Builder
	b.WriteString(`{"type":"text","text":"a","x":{`)
	for i := range 50 {
		if i > 0 {
			b.WriteByte(',')
		}
		fmt.Fprintf(&b, `"k%d":1`, i)
	}
	b.WriteString(`}}`)
	err = UnmarshalOptions{MaxMembers: 40}.Unmarshal([]byte(b.String()), new(TextContent))
	de, ok = AsDecodeError(err)
	require.True(t, ok, "%v", err)
	assert.Equal(t, KindLimit, de.Kind)
	require.NoError(t, UnmarshalOptions{MaxMembers: 60}.Unmarshal([]byte(b.String()), new(TextContent)))
}

// Case variants are found with Unicode folding, as encoding/json matches
// member names: "nameſ"-style spellings with U+017F or U+212A are refused.
func TestUnicodeCaseVariants(t *testing.T) {
	var r JSONRPCRequest
	de := decodeErr(t, `{"jsonrpc":"2.0","id":1,"method":"tools/list","paramſ":{}}`, &r)
	assert.Equal(t, KindCaseVariant, de.Kind)
	var p CallToolRequestParams
	de = decodeErr(t, `{"name":"x","_meta":{"io.modelcontextprotocol/protocolVersion":"x","io.modelcontextprotocol/clientCapabilities":{},"progressTo\u212Aen":1}}`, &p)
	assert.Equal(t, KindCaseVariant, de.Kind)
	assert.Equal(t, "_meta.progressTo\u212Aen", de.Path)
}
