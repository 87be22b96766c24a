package mcp20251125

import (
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// decodeAs decodes one of legacyMessages into its type.
func decodeAs[T any](t *testing.T, name string) *T {
	t.Helper()
	for _, m := range legacyMessages {
		if m.name == name {
			v := new(T)
			require.NoError(t, Unmarshal([]byte(m.json), v), name)
			return v
		}
	}
	t.Fatalf("no legacy message %q", name)
	return nil
}

// resultAs decodes the result member of one of legacyMessages into T.
func resultAs[T any](t *testing.T, name string) *T {
	t.Helper()
	resp := decodeAs[JSONRPCResultResponse](t, name)
	raw, err := Marshal(&resp.Result)
	require.NoError(t, err)
	v := new(T)
	require.NoError(t, Unmarshal(raw, v))
	return v
}

// The decoded messages carry what the 2025-11-25 schema gives them, typed.
func TestLegacyTypedFields(t *testing.T) {
	init := decodeAs[InitializeRequest](t, "initialize")
	assert.True(t, init.ID.IsInt())
	assert.Equal(t, int64(1), init.ID.Int())
	assert.Equal(t, "initialize", init.Method())
	p := init.Params
	assert.Equal(t, "2025-11-25", p.ProtocolVersion)
	assert.Equal(t, "acme-client", p.ClientInfo.Name)
	require.NotNil(t, p.ClientInfo.WebsiteURL)
	assert.Equal(t, "https://client.example", *p.ClientInfo.WebsiteURL)
	require.NotNil(t, p.Capabilities.Roots)
	require.NotNil(t, p.Capabilities.Roots.ListChanged)
	assert.True(t, *p.Capabilities.Roots.ListChanged)
	require.NotNil(t, p.Capabilities.Elicitation)
	assert.NotNil(t, p.Capabilities.Elicitation.Form, "an empty capability object means supported")
	assert.NotNil(t, p.Capabilities.Elicitation.URL)
	require.NotNil(t, p.Capabilities.Sampling)
	assert.NotNil(t, p.Capabilities.Sampling.Tools)
	assert.Nil(t, p.Capabilities.Sampling.Context)
	require.NotNil(t, p.Capabilities.Tasks)
	assert.NotNil(t, p.Capabilities.Tasks.Requests.Elicitation.Create)
	trace, ok := p.Capabilities.Experimental["acme/trace"]
	require.True(t, ok)
	lvl, ok := trace.Extra.Get("level")
	require.True(t, ok)
	assert.Equal(t, "2", string(lvl))

	res := resultAs[InitializeResult](t, "initialize result")
	assert.Equal(t, "2025-11-25", res.ProtocolVersion)
	require.NotNil(t, res.Instructions)
	assert.NotNil(t, res.Capabilities.Logging)
	require.NotNil(t, res.Capabilities.Resources)
	assert.True(t, *res.Capabilities.Resources.Subscribe)
	assert.False(t, *res.Capabilities.Resources.ListChanged)
	assert.NotNil(t, res.Capabilities.Tasks.Requests.Tools.Call)
	require.Len(t, res.ServerInfo.Icons, 1)
	assert.Equal(t, IconThemeDark, *res.ServerInfo.Icons[0].Theme)

	call := decodeAs[CallToolRequest](t, "tools/call")
	assert.Equal(t, "get_weather", call.Params.Name)
	assert.JSONEq(t, `{"city":"Lisbon"}`, string(call.Params.Arguments))
	require.NotNil(t, call.Params.Meta)
	require.NotNil(t, call.Params.Meta.ProgressToken, "progressToken is typed in request _meta")
	assert.Equal(t, "tok-3", call.Params.Meta.ProgressToken.Str())
	vendor, ok := call.Params.Meta.Extra.Get("com.acme/trace")
	require.True(t, ok, "other _meta keys stay in Extra")
	assert.Equal(t, `"t1"`, string(vendor))

	out := resultAs[CallToolResult](t, "tools/call result with structuredContent")
	assert.JSONEq(t, `{"tempC":21.5}`, string(out.StructuredContent))
	require.Len(t, out.Content, 1)
	text, ok := out.Content[0].Value.(*TextContent)
	require.True(t, ok, "%T", out.Content[0].Value)
	assert.Equal(t, `{"tempC":21.5}`, text.Text)
	require.NotNil(t, out.IsError)
	assert.False(t, *out.IsError)

	tools := resultAs[ListToolsResult](t, "tools/list result")
	require.Len(t, tools.Tools, 1)
	assert.Equal(t, []string{"city"}, tools.Tools[0].InputSchema.Required)
	assert.Equal(t, "object", tools.Tools[0].InputSchema.Type())
	require.NotNil(t, tools.Tools[0].OutputSchema)
	assert.Equal(t, ToolExecutionTaskSupportOptional, *tools.Tools[0].Execution.TaskSupport)
	assert.True(t, *tools.Tools[0].Annotations.ReadOnlyHint)

	read := resultAs[ReadResourceResult](t, "resources/read result")
	require.Len(t, read.Contents, 2)
	assert.IsType(t, &TextResourceContents{}, read.Contents[0].Value)
	assert.IsType(t, &BlobResourceContents{}, read.Contents[1].Value)

	level := decodeAs[SetLevelRequest](t, "logging/setLevel")
	assert.Equal(t, LoggingLevelWarning, level.Params.Level)
	msg := decodeAs[LoggingMessageNotification](t, "notifications/message")
	assert.Equal(t, LoggingLevelError, msg.Params.Level)
	assert.JSONEq(t, `{"error":"connection lost","retries":3}`, string(msg.Params.Data))
}

// The server-to-client requests of this revision: elicitation in both
// modes with every kind of form field, and sampling with tools.
func TestLegacyServerRequests(t *testing.T) {
	el := decodeAs[ElicitRequest](t, "elicitation/create, form")
	assert.True(t, el.ID.IsString())
	form, ok := el.Params.Value.(*ElicitRequestFormParams)
	require.True(t, ok, "%T", el.Params.Value)
	assert.Equal(t, "form", form.Mode())
	assert.Equal(t, "object", form.RequestedSchema.Type())
	assert.Equal(t, []string{"repo"}, form.RequestedSchema.Required)
	kinds := map[string]any{
		"repo":       &StringSchema{},
		"private":    &BooleanSchema{},
		"visibility": &TitledSingleSelectEnumSchema{},
		"labels":     &UntitledMultiSelectEnumSchema{},
		"retries":    &NumberSchema{},
		"region":     &LegacyTitledEnumSchema{},
	}
	require.Len(t, form.RequestedSchema.Properties, len(kinds))
	for name, want := range kinds {
		assert.IsType(t, want, form.RequestedSchema.Properties[name].Value, name)
	}
	assert.Equal(t, NumberSchemaTypeInteger, form.RequestedSchema.Properties["retries"].Value.(*NumberSchema).Type)
	assert.Equal(t, []string{"Europe", "United States"}, form.RequestedSchema.Properties["region"].Value.(*LegacyTitledEnumSchema).EnumNames)

	bare := decodeAs[ElicitRequest](t, "elicitation/create, form without mode")
	assert.IsType(t, &ElicitRequestFormParams{}, bare.Params.Value, "no mode is form mode")
	b, err := Marshal(bare)
	require.NoError(t, err)
	assert.NotContains(t, string(b), `"mode"`, "an absent optional mode stays absent")

	url := decodeAs[ElicitRequest](t, "elicitation/create, url")
	u, ok := url.Params.Value.(*ElicitRequestURLParams)
	require.True(t, ok, "%T", url.Params.Value)
	assert.Equal(t, "el-42", u.ElicitationID)
	assert.Equal(t, "url", u.Mode())

	res := resultAs[ElicitResult](t, "elicitation result")
	assert.Equal(t, ElicitResultActionAccept, res.Action)
	c := res.Content
	assert.True(t, c["repo"].IsString())
	assert.Equal(t, "mcpwire", c["repo"].Str())
	assert.True(t, c["private"].IsBool())
	assert.True(t, c["retries"].IsInt())
	assert.Equal(t, int64(2), c["retries"].Int())
	assert.True(t, c["labels"].IsList())
	assert.Equal(t, []string{"bug"}, c["labels"].List())

	sm := decodeAs[CreateMessageRequest](t, "sampling/createMessage")
	sp := sm.Params
	assert.Equal(t, int64(100), sp.MaxTokens)
	assert.Equal(t, CreateMessageRequestParamsIncludeContextNone, *sp.IncludeContext)
	assert.Equal(t, ToolChoiceModeAuto, *sp.ToolChoice.Mode)
	require.Len(t, sp.Messages, 3)
	assert.IsType(t, &TextContent{}, sp.Messages[0].Content.Value)
	list, ok := sp.Messages[1].Content.Value.(SamplingMessageContentList)
	require.True(t, ok, "%T", sp.Messages[1].Content.Value)
	use, ok := list[0].Value.(*ToolUseContent)
	require.True(t, ok, "%T", list[0].Value)
	assert.Equal(t, "call-1", use.ID)
	assert.JSONEq(t, `{"city":"Paris"}`, string(use.Input))
	results := sp.Messages[2].Content.Value.(SamplingMessageContentList)
	tr, ok := results[0].Value.(*ToolResultContent)
	require.True(t, ok, "%T", results[0].Value)
	assert.Equal(t, "call-1", tr.ToolUseID)
	require.Len(t, sp.Tools, 1)

	smr := resultAs[CreateMessageResult](t, "sampling result")
	assert.Equal(t, RoleAssistant, smr.Role)
	assert.IsType(t, &TextContent{}, smr.Content.Value)

	roots := resultAs[ListRootsResult](t, "roots/list result")
	require.Len(t, roots.Roots, 1)
	assert.Equal(t, "file:///home/user/project", roots.Roots[0].URI)
}

// Notifications and errors.
func TestLegacyNotificationsAndErrors(t *testing.T) {
	prog := decodeAs[ProgressNotification](t, "progress")
	assert.Equal(t, "tok-3", prog.Params.ProgressToken.Str())
	assert.Equal(t, 50.0, prog.Params.Progress)
	assert.Equal(t, 100.0, *prog.Params.Total)
	can := decodeAs[CancelledNotification](t, "cancelled")
	require.NotNil(t, can.Params.RequestID)
	assert.True(t, can.Params.RequestID.IsInt(), "the cancelled request's id keeps its kind")
	assert.Equal(t, int64(3), can.Params.RequestID.Int())
	init := decodeAs[InitializedNotification](t, "initialized")
	assert.Nil(t, init.Params)

	e := decodeAs[JSONRPCErrorResponse](t, "error response")
	require.NotNil(t, e.ID)
	assert.Equal(t, int64(10), e.ID.Int())
	assert.Equal(t, int64(-32602), e.Error.Code)
	assert.JSONEq(t, `{"tool":"frobnicate"}`, string(e.Error.Data))
	noID := decodeAs[JSONRPCErrorResponse](t, "error response without id")
	assert.Nil(t, noID.ID, "2025-11-25 lets an error response leave out the id")

	ue := decodeAs[URLElicitationRequiredError](t, "URL elicitation required")
	assert.Equal(t, CodeURLElicitationRequiredError, ue.Error.Code())
	require.Len(t, ue.Error.Data.Elicitations, 1)
	assert.Equal(t, "el-43", ue.Error.Data.Elicitations[0].ElicitationID)
	assert.Equal(t, "URLElicitationRequiredError", ErrorCodeName(-32042))
	assert.Equal(t, "", ErrorCodeName(-32602), "the schema fixes no other code")
}

// TestLegacyInvalid refuses invalid legacy messages with the right kind and
// path, the same strictness as package protocol.
func TestLegacyInvalid(t *testing.T) {
	const initParams = `"capabilities":{},"clientInfo":{"name":"c","version":"1"}`
	cases := []struct {
		name, typ, in string
		kind          ErrorKind
		path          string
	}{
		// Duplicates, at any depth and through unions; an escaped name is the same name.
		{"duplicate param", "InitializeRequest", `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","protocolVersion":"2025-06-18",` + initParams + `}}`, KindDuplicate, "params.protocolVersion"},
		{"duplicate id in a message", "JSONRPCMessage", `{"jsonrpc":"2.0","id":1,"id":2,"method":"ping"}`, KindDuplicate, "id"},
		{"duplicate method in a union", "ClientRequest", `{"jsonrpc":"2.0","id":1,"method":"ping","method":"initialize"}`, KindDuplicate, "method"},
		{"duplicate in raw arguments", "CallToolRequest", `{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"x","arguments":{"a":1,"a":2}}}`, KindDuplicate, "params.arguments.a"},
		{"escaped duplicate", "SetLevelRequest", `{"jsonrpc":"2.0","id":6,"method":"logging/setLevel","params":{"level":"info","l\u0065vel":"debug"}}`, KindDuplicate, "params.level"},
		{"duplicate in _meta", "PingRequest", `{"jsonrpc":"2.0","id":1,"method":"ping","params":{"_meta":{"progressToken":1,"progressToken":2}}}`, KindDuplicate, "params._meta.progressToken"},

		// Case variants of declared names, the smuggling hole.
		{"case variant method", "JSONRPCMessage", `{"jsonrpc":"2.0","id":1,"method":"ping","Method":"initialize"}`, KindCaseVariant, "Method"},
		{"case variant on a typed request", "PingRequest", `{"jsonrpc":"2.0","id":1,"method":"ping","Method":"initialize"}`, KindCaseVariant, "Method"},
		{"case variant param", "InitializeRequest", `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","ProtocolVersion":"2026-07-28",` + initParams + `}}`, KindCaseVariant, "params.ProtocolVersion"},
		{"unicode case variant", "CallToolRequest", `{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"x","argumentſ":{}}}`, KindCaseVariant, "params.argumentſ"},
		{"case variant in _meta", "CallToolRequest", `{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"x","_meta":{"ProgressToken":1}}}`, KindCaseVariant, "params._meta.ProgressToken"},

		// Missing required members.
		{"initialize without clientInfo", "ClientRequest", `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{}}}`, KindMissing, "params.clientInfo"},
		{"initialize without params", "InitializeRequest", `{"jsonrpc":"2.0","id":1,"method":"initialize"}`, KindMissing, "params"},
		{"request without id", "PingRequest", `{"jsonrpc":"2.0","method":"ping"}`, KindMissing, "id"},
		{"tools/call without name", "CallToolRequest", `{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{}}`, KindMissing, "params.name"},
		{"sampling without maxTokens", "ServerRequest", `{"jsonrpc":"2.0","id":3,"method":"sampling/createMessage","params":{"messages":[]}}`, KindMissing, "params.maxTokens"},
		{"url elicitation without id", "ElicitRequestParams", `{"mode":"url","message":"m","url":"https://x"}`, KindMissing, "elicitationId"},
		{"elicit result without action", "ElicitResult", `{"content":{}}`, KindMissing, "action"},
		{"subscribe without uri", "SubscribeRequest", `{"jsonrpc":"2.0","id":4,"method":"resources/subscribe","params":{}}`, KindMissing, "params.uri"},
		{"progress without token", "ProgressNotification", `{"jsonrpc":"2.0","method":"notifications/progress","params":{"progress":1}}`, KindMissing, "params.progressToken"},
		{"error without message", "JSONRPCErrorResponse", `{"jsonrpc":"2.0","id":1,"error":{"code":-32603}}`, KindMissing, "error.message"},

		// Wrong consts.
		{"jsonrpc 1.0", "JSONRPCMessage", `{"jsonrpc":"1.0","id":1,"method":"ping"}`, KindConst, "jsonrpc"},
		{"method of another type", "InitializeRequest", `{"jsonrpc":"2.0","id":1,"method":"ping"}`, KindConst, "method"},
		{"error code of another error", "URLElicitationRequiredError", `{"jsonrpc":"2.0","id":1,"error":{"code":-32000,"message":"m","data":{"elicitations":[]}}}`, KindConst, "error.code"},
		{"requested schema not an object", "ElicitRequest", `{"jsonrpc":"2.0","id":1,"method":"elicitation/create","params":{"message":"m","requestedSchema":{"type":"array","properties":{}}}}`, KindConst, "params.requestedSchema.type"},
		{"initialized with another method", "InitializedNotification", `{"jsonrpc":"2.0","method":"notifications/initialised"}`, KindConst, "method"},

		// Enums.
		{"log level", "SetLevelRequest", `{"jsonrpc":"2.0","id":6,"method":"logging/setLevel","params":{"level":"verbose"}}`, KindEnum, "params.level"},
		{"elicit action", "ElicitResult", `{"action":"ok"}`, KindEnum, "action"},
		{"sampling role", "CreateMessageResult", `{"role":"system","content":{"type":"text","text":"x"},"model":"m"}`, KindEnum, "role"},

		// Unions: no branch, or two.
		{"unknown content type", "CallToolResult", `{"content":[{"type":"text","text":"a"},{"type":"bogus"}]}`, KindUnion, "content[1].type"},
		{"unknown form field type", "ElicitRequest", `{"jsonrpc":"2.0","id":1,"method":"elicitation/create","params":{"message":"m","requestedSchema":{"type":"object","properties":{"a":{"type":"date"}}}}}`, KindUnion, "params.requestedSchema.properties.a.type"},
		{"elicitation mode in the wrong case", "ElicitRequestParams", `{"mode":"Form","message":"m","requestedSchema":{"type":"object","properties":{}}}`, KindUnion, "mode"},
		{"request and response at once", "JSONRPCMessage", `{"jsonrpc":"2.0","id":1,"method":"x","result":{}}`, KindUnion, ""},
		{"two results at once", "ServerResult", `{"tools":[],"prompts":[]}`, KindUnion, ""},
		{"server notification from the client", "ClientNotification", `{"jsonrpc":"2.0","method":"notifications/message","params":{"level":"info","data":1}}`, KindUnion, "method"},
		{"2026-07-28 method", "ClientRequest", `{"jsonrpc":"2.0","id":1,"method":"server/discover"}`, KindUnion, "method"},

		// Null, types, ranges, syntax.
		{"error response with null id", "JSONRPCErrorResponse", `{"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"Parse error"}}`, KindNull, "id"},
		{"null optional member", "InitializeResult", `{"protocolVersion":"2025-11-25","capabilities":{},"serverInfo":{"name":"s","version":"1"},"instructions":null}`, KindNull, "instructions"},
		{"fractional id", "PingRequest", `{"jsonrpc":"2.0","id":1.5,"method":"ping"}`, KindType, "id"},
		{"progress as a string", "ProgressNotification", `{"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":"t","progress":"50"}}`, KindType, "params.progress"},
		{"priority above 1", "CreateMessageRequest", `{"jsonrpc":"2.0","id":1,"method":"sampling/createMessage","params":{"messages":[],"maxTokens":10,"modelPreferences":{"speedPriority":1.5}}}`, KindRange, "params.modelPreferences.speedPriority"},
		{"trailing data", "JSONRPCMessage", `{"jsonrpc":"2.0","method":"notifications/initialized"} {}`, KindSyntax, ""},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			v := NewValue(c.typ)
			require.NotNil(t, v, c.typ)
			err := Unmarshal([]byte(c.in), v)
			require.Error(t, err, "accepted %s", c.in)
			de, ok := AsDecodeError(err)
			require.True(t, ok, "%v (%T) is not a *DecodeError", err, err)
			assert.Equal(t, c.kind, de.Kind, "%v", err)
			assert.Equal(t, c.path, de.Path, "%v", err)
			assert.True(t, strings.HasPrefix(err.Error(), "mcp20251125: "), "error %q names its package", err)
			assert.True(t, errors.Is(err, &DecodeError{Kind: c.kind}))
			// encoding/json goes through the same decoder.
			assert.Error(t, json.Unmarshal([]byte(c.in), NewValue(c.typ)))
		})
	}
}

// Values built in Go encode with their consts, and what the schema
// forbids is refused on encode too.
func TestLegacyEncode(t *testing.T) {
	b, err := Marshal(&InitializedNotification{})
	require.NoError(t, err)
	assert.JSONEq(t, `{"jsonrpc":"2.0","method":"notifications/initialized"}`, string(b))

	res := InitializeResult{ProtocolVersion: Revision, ServerInfo: Implementation{Name: "s", Version: "1"},
		Capabilities: ServerCapabilities{Tools: &ServerCapabilitiesTools{}}}
	b, err = Marshal(&res)
	require.NoError(t, err)
	assert.JSONEq(t, `{"protocolVersion":"2025-11-25","capabilities":{"tools":{}},"serverInfo":{"name":"s","version":"1"}}`, string(b))

	b, err = Marshal(&JSONRPCErrorResponse{Error: Error{Code: -32700, Message: "Parse error"}})
	require.NoError(t, err)
	assert.JSONEq(t, `{"jsonrpc":"2.0","error":{"code":-32700,"message":"Parse error"}}`, string(b), "no id, not a null one")

	b, err = Marshal(&URLElicitationRequiredError{ID: new(IntRequestId(7)), Error: URLElicitationRequiredErrorError{Message: "m",
		Data: URLElicitationRequiredErrorErrorData{Elicitations: []ElicitRequestURLParams{{ElicitationID: "e", Message: "go", URL: "https://x"}}}}})
	require.NoError(t, err)
	assert.JSONEq(t, `{"jsonrpc":"2.0","id":7,"error":{"code":-32042,"message":"m","data":{"elicitations":[{"mode":"url","elicitationId":"e","message":"go","url":"https://x"}]}}}`, string(b))

	el := ElicitRequest{ID: StringRequestId("e1"), Params: ElicitRequestParams{Value: &ElicitRequestFormParams{Message: "m",
		RequestedSchema: ElicitRequestFormParamsRequestedSchema{Properties: map[string]PrimitiveSchemaDefinition{"b": {Value: &BooleanSchema{}}, "a": {Value: &StringSchema{}}}}}}}
	b, err = Marshal(&el)
	require.NoError(t, err)
	assert.Equal(t, `{"id":"e1","jsonrpc":"2.0","method":"elicitation/create","params":{"message":"m","requestedSchema":{"properties":{"a":{"type":"string"},"b":{"type":"boolean"}},"type":"object"}}}`, string(b),
		"consts written, map keys sorted, an unset optional mode left out")

	_, err = Marshal(&SetLevelRequest{ID: IntRequestId(1), Params: SetLevelRequestParams{Level: "verbose"}})
	var ee *EncodeError
	assert.True(t, errors.As(err, &ee), "an enum value outside the enum must not encode: %v", err)
	_, err = Marshal(&PingRequest{})
	assert.True(t, errors.As(err, &ee), "an unset id must not encode: %v", err)
	_, err = Marshal(&ClientRequest{})
	assert.True(t, errors.As(err, &ee), "an empty union must not encode: %v", err)
	_, err = Marshal(&CallToolRequest{ID: IntRequestId(1), Params: CallToolRequestParams{Name: "x", Arguments: json.RawMessage(`{"a":`)}})
	assert.True(t, errors.As(err, &ee), "invalid raw JSON must not be written: %v", err)
}

// The method table of the revision: the initialize era's methods, each
// with its sender and types.
func TestLegacyMethodTable(t *testing.T) {
	assert.Equal(t, "2025-11-25", Revision)
	assert.Len(t, Methods(), 31)
	init, ok := LookupMethod(MethodInitialize)
	require.True(t, ok)
	assert.True(t, init.FromClient)
	assert.False(t, init.FromServer)
	assert.Equal(t, "InitializeResult", init.Result)
	assert.IsType(t, &InitializeRequestParams{}, init.NewParams())
	assert.IsType(t, &InitializeResult{}, init.NewResult())
	for _, name := range []string{MethodPing, MethodNotificationsProgress, MethodNotificationsCancelled, MethodTasksGet, MethodNotificationsTasksStatus} {
		m, ok := LookupMethod(name)
		require.True(t, ok, name)
		assert.True(t, m.FromClient && m.FromServer, "%s is sent by both sides", name)
	}
	for _, name := range []string{MethodElicitationCreate, MethodSamplingCreateMessage, MethodRootsList} {
		m, ok := LookupMethod(name)
		require.True(t, ok, name)
		assert.True(t, m.FromServer && !m.FromClient, "%s is sent by the server", name)
	}
	ping, _ := LookupMethod(MethodPing)
	assert.Equal(t, "EmptyResult", ping.Result)
	assert.IsType(t, &Result{}, ping.NewResult())
	for _, name := range []string{"server/discover", "subscriptions/listen"} {
		_, ok := LookupMethod(name)
		assert.False(t, ok, "%s is a 2026-07-28 method", name)
	}
	n, ok := LookupMethod(MethodNotificationsInitialized)
	require.True(t, ok)
	assert.True(t, n.Notification)
	assert.Empty(t, n.Result)
}

// The member limit counts a member once, however many unions decide on
// the way down: the probe that chooses a branch gives back what it
// counted, and the branch counts the members again. (A tools/call inside
// JSONRPCMessage, as the server reads a legacy body, goes through two unions; before the fix 60 members
// counted 3 × 60 and 70 was refused.)
func TestMemberLimitThroughUnions(t *testing.T) {
	var b strings.Builder
	b.WriteString(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"t","arguments":{`)
	for i := range 60 {
		if i > 0 {
			b.WriteByte(',')
		}
		fmt.Fprintf(&b, `"k%d":1`, i)
	}
	b.WriteString(`}}}`)
	body := []byte(b.String())
	// 60 arguments + jsonrpc, id, method, params, name, arguments.
	const members = 66
	require.NoError(t, UnmarshalOptions{MaxMembers: members}.Unmarshal(body, new(JSONRPCMessage)))
	require.NoError(t, UnmarshalOptions{MaxMembers: members}.Unmarshal(body, new(ClientRequest)))
	de, ok := AsDecodeError(UnmarshalOptions{MaxMembers: members - 1}.Unmarshal(body, new(JSONRPCMessage)))
	require.True(t, ok)
	assert.Equal(t, KindLimit, de.Kind)
}
