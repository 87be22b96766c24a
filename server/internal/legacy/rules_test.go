package legacy

import (
	"encoding/json"
	"os"
	"reflect"
	"regexp"
	"strings"
	"testing"

	"github.com/mcpwire/mcpwire/protocol"
	"github.com/mcpwire/mcpwire/protocol/mcp20251125"
)

// The table tests of the hand rules H1–H14 (docs/dual-era.md §3.7). Each
// output is also validated against the revision's schema when
// MCP_SPEC_DIR is set.

// validateIf validates a message against revision r's schema when the
// specification is available.
func validateIf(t *testing.T, r Rev, msg []byte, def, method string, result bool) {
	t.Helper()
	if os.Getenv("MCP_SPEC_DIR") == "" {
		return
	}
	if err := checkMessage(t, r, msg, def, method, result, false); err != nil {
		t.Errorf("%v\n%s", err, shorten(msg))
	}
}

// projectResult projects res for r, validates it, and returns it decoded
// into plain JSON values.
func projectResult(t *testing.T, r Rev, method string, res any) map[string]any {
	t.Helper()
	out, err := AppendResult(nil, r, res)
	if err != nil {
		t.Fatalf("%s: AppendResult(%T): %v", r, res, err)
	}
	validateIf(t, r, response(out), resultDefs[method], method, true)
	var v map[string]any
	if err := json.Unmarshal(out, &v); err != nil {
		t.Fatalf("%s: %v", out, err)
	}
	return v
}

func projectNotification(t *testing.T, r Rev, n any) []byte {
	t.Helper()
	out, err := AppendNotification(nil, r, n)
	if err != nil {
		t.Fatalf("%s: AppendNotification(%T): %v", r, n, err)
	}
	m := methodOf(out)
	validateIf(t, r, out, notificationDefs[m], m, false)
	return out
}

// jsonOf decodes JSON text into plain values for comparisons.
func jsonOf(t *testing.T, s string) any {
	t.Helper()
	var v any
	if err := json.Unmarshal([]byte(s), &v); err != nil {
		t.Fatalf("%s: %v", s, err)
	}
	return v
}

func ptr[T any](v T) *T { return &v }

func raw(s string) json.RawMessage { return json.RawMessage(s) }

// H1: tool schemas are JSON Schema, copied verbatim in every revision,
// except that a boolean property schema takes its object form (older
// schemas require objects) and an input schema no revision can carry is
// an error naming the tool.
func TestH1ToolSchemas(t *testing.T) {
	rich := protocol.ToolInputSchema{
		Schema: ptr("https://json-schema.org/draft/2020-12/schema"),
		Extra: protocol.Members{
			{Name: "$defs", Value: raw(`{"address":{"$anchor":"addr","type":"object"}}`)},
			{Name: "properties", Value: raw(`{"street":{"type":"string"},"flag":true,"never":false}`)},
			{Name: "required", Value: raw(`["street"]`)},
			{Name: "additionalProperties", Value: raw(`false`)},
			{Name: "allOf", Value: raw(`[{"anyOf":[{"required":["street"]}]}]`)},
			{Name: "if", Value: raw(`{"properties":{"flag":{"const":true}}}`)},
			{Name: "then", Value: raw(`{"required":["never"]}`)},
			{Name: "else", Value: raw(`{}`)},
		},
	}
	want := jsonOf(t, `{"$schema":"https://json-schema.org/draft/2020-12/schema","type":"object",
		"$defs":{"address":{"$anchor":"addr","type":"object"}},
		"properties":{"street":{"type":"string"},"flag":{},"never":{"not":{}}},"required":["street"],
		"additionalProperties":false,"allOf":[{"anyOf":[{"required":["street"]}]}],
		"if":{"properties":{"flag":{"const":true}}},"then":{"required":["never"]},"else":{}}`)
	for _, r := range Revisions() {
		res := &protocol.ListToolsResult{Tools: []protocol.Tool{{Name: "json_schema_2020_12_tool", InputSchema: rich}}, CacheScope: protocol.CacheScopePublic}
		got := projectResult(t, r, "tools/list", res)
		tool := got["tools"].([]any)[0].(map[string]any)
		if !reflect.DeepEqual(tool["inputSchema"], want) {
			t.Errorf("%s: inputSchema = %v", r, tool["inputSchema"])
		}
	}
	for _, bad := range []string{`"x"`, `null`, `[1]`} {
		res := &protocol.ListToolsResult{Tools: []protocol.Tool{{Name: "bad", InputSchema: protocol.ToolInputSchema{Extra: protocol.Members{{Name: "required", Value: raw(bad)}}}}}}
		if _, err := AppendResult(nil, Rev20251125, res); err == nil || !strings.Contains(err.Error(), `tool "bad"`) {
			t.Errorf("required %s: %v", bad, err)
		}
	}
	res := &protocol.ListToolsResult{Tools: []protocol.Tool{{Name: "bad", InputSchema: protocol.ToolInputSchema{Extra: protocol.Members{{Name: "properties", Value: raw(`{"a":1}`)}}}}}}
	if _, err := AppendResult(nil, Rev20241105, res); err == nil {
		t.Error("a property schema 1 was accepted")
	}
}

// H2: the result envelope (resultType, ttlMs, cacheScope) and
// _meta.io.modelcontextprotocol/serverInfo never reach a legacy client; a
// handler's own _meta keys do, and hints the encoder would refuse do not
// stop the projection.
func TestH2Envelope(t *testing.T) {
	server := &protocol.Implementation{Name: "s", Version: "1"}
	for _, r := range Revisions() {
		got := projectResult(t, r, "tools/call", &protocol.CallToolResult{ResultType: "complete",
			Content: []protocol.ContentBlock{{Value: &protocol.TextContent{Text: "x"}}},
			Meta:    &protocol.ResultMetaObject{ServerInfo: server, Extra: protocol.Members{{Name: "vendor/k", Value: raw(`1`)}}}})
		if !reflect.DeepEqual(got, jsonOf(t, `{"content":[{"type":"text","text":"x"}],"_meta":{"vendor/k":1}}`)) {
			t.Errorf("%s: %v", r, got)
		}
		got = projectResult(t, r, "tools/list", &protocol.ListToolsResult{ResultType: "complete", TTLMs: 60000, CacheScope: protocol.CacheScopePublic,
			NextCursor: ptr("c2"), Tools: []protocol.Tool{}, Meta: &protocol.ResultMetaObject{ServerInfo: server}})
		if !reflect.DeepEqual(got, jsonOf(t, `{"tools":[],"nextCursor":"c2"}`)) {
			t.Errorf("%s: %v", r, got)
		}
		got = projectResult(t, r, "resources/read", &protocol.ReadResourceResult{TTLMs: -1, Contents: []protocol.ReadResourceResultContentsElem{}})
		if !reflect.DeepEqual(got, jsonOf(t, `{"contents":[]}`)) {
			t.Errorf("%s: %v", r, got)
		}
		for _, res := range []any{
			&protocol.ListPromptsResult{Prompts: []protocol.Prompt{}}, &protocol.ListResourcesResult{Resources: []protocol.Resource{}},
			&protocol.ListResourceTemplatesResult{ResourceTemplates: []protocol.ResourceTemplate{}},
			&protocol.GetPromptResult{ResultType: "complete", Messages: []protocol.PromptMessage{}, Meta: &protocol.ResultMetaObject{ServerInfo: server}},
			&protocol.CompleteResult{ResultType: "complete", Completion: protocol.CompleteResultCompletion{Values: []string{}}, Meta: &protocol.ResultMetaObject{ServerInfo: server}},
		} {
			out, err := AppendResult(nil, r, res)
			if err != nil {
				t.Fatalf("%s %T: %v", r, res, err)
			}
			for _, bad := range []string{"resultType", "ttlMs", "cacheScope", "serverInfo", "_meta"} {
				if strings.Contains(string(out), bad) {
					t.Errorf("%s %T: %s in %s", r, res, bad, out)
				}
			}
		}
	}
}

// H3: content blocks a revision lacks become text blocks saying what they
// were, in tool results and prompt messages alike, keeping the
// annotations the revision has.
func TestH3ContentFallbacks(t *testing.T) {
	ann := &protocol.Annotations{Audience: []protocol.Role{protocol.RoleUser}, Priority: ptr(0.5), LastModified: ptr("2025-01-01T00:00:00Z")}
	audio := protocol.ContentBlock{Value: &protocol.AudioContent{Data: "UklGRg==", MIMEType: "audio/wav", Annotations: ann, Meta: &protocol.MetaObject{}}}
	link := protocol.ContentBlock{Value: &protocol.ResourceLink{Name: "main.rs", Title: ptr("Main"), URI: "file:///src/main.rs", Description: ptr("The entry point"), Annotations: ann,
		Icons: []protocol.Icon{{Src: "https://x/i.png"}}}}
	bare := protocol.ContentBlock{Value: &protocol.ResourceLink{Name: "lib.rs", URI: "file:///src/lib.rs"}}
	cases := []struct {
		r    Rev
		want string
	}{
		{Rev20241105, `[{"type":"text","text":"[audio/wav content omitted: protocol 2024-11-05 has no audio content]","annotations":{"audience":["user"],"priority":0.5}},
			{"type":"text","text":"Main: file:///src/main.rs\nThe entry point","annotations":{"audience":["user"],"priority":0.5}},
			{"type":"text","text":"lib.rs: file:///src/lib.rs"}]`},
		{Rev20250326, `[{"type":"audio","data":"UklGRg==","mimeType":"audio/wav","annotations":{"audience":["user"],"priority":0.5}},
			{"type":"text","text":"Main: file:///src/main.rs\nThe entry point","annotations":{"audience":["user"],"priority":0.5}},
			{"type":"text","text":"lib.rs: file:///src/lib.rs"}]`},
		{Rev20250618, `[{"type":"audio","data":"UklGRg==","mimeType":"audio/wav","annotations":{"audience":["user"],"priority":0.5,"lastModified":"2025-01-01T00:00:00Z"},"_meta":{}},
			{"type":"resource_link","name":"main.rs","title":"Main","uri":"file:///src/main.rs","description":"The entry point","annotations":{"audience":["user"],"priority":0.5,"lastModified":"2025-01-01T00:00:00Z"}},
			{"type":"resource_link","name":"lib.rs","uri":"file:///src/lib.rs"}]`},
		{Rev20251125, `[{"type":"audio","data":"UklGRg==","mimeType":"audio/wav","annotations":{"audience":["user"],"priority":0.5,"lastModified":"2025-01-01T00:00:00Z"},"_meta":{}},
			{"type":"resource_link","name":"main.rs","title":"Main","uri":"file:///src/main.rs","description":"The entry point","annotations":{"audience":["user"],"priority":0.5,"lastModified":"2025-01-01T00:00:00Z"},"icons":[{"src":"https://x/i.png"}]},
			{"type":"resource_link","name":"lib.rs","uri":"file:///src/lib.rs"}]`},
	}
	for _, c := range cases {
		got := projectResult(t, c.r, "tools/call", &protocol.CallToolResult{Content: []protocol.ContentBlock{audio, link, bare}})
		if want := jsonOf(t, c.want); !reflect.DeepEqual(got["content"], want) {
			t.Errorf("%s: content = %v\nwant %v", c.r, got["content"], want)
		}
		prompt := projectResult(t, c.r, "prompts/get", &protocol.GetPromptResult{Messages: []protocol.PromptMessage{{Role: protocol.RoleAssistant, Content: audio}, {Role: protocol.RoleUser, Content: link}}})
		msgs := prompt["messages"].([]any)
		want := jsonOf(t, c.want).([]any)
		if !reflect.DeepEqual(msgs[0].(map[string]any)["content"], want[0]) || !reflect.DeepEqual(msgs[1].(map[string]any)["content"], want[1]) {
			t.Errorf("%s: prompt messages = %v", c.r, msgs)
		}
	}
}

// H4: structuredContent only as an object and only from 2025-06-18; when
// it goes and content would be empty, a text block carries its compact
// JSON. outputSchema likewise: from 2025-06-18, with type "object" at the
// root.
func TestH4StructuredOutput(t *testing.T) {
	text := []protocol.ContentBlock{{Value: &protocol.TextContent{Text: "22.5 °C"}}}
	cases := []struct {
		name    string
		content []protocol.ContentBlock
		sc      string
		r       Rev
		want    string
	}{
		{"object kept", text, `{"temperature":22.5}`, Rev20250618, `{"content":[{"type":"text","text":"22.5 °C"}],"structuredContent":{"temperature":22.5}}`},
		{"object kept 2025-11-25", text, `{"temperature":22.5}`, Rev20251125, `{"content":[{"type":"text","text":"22.5 °C"}],"structuredContent":{"temperature":22.5}}`},
		{"object dropped before 2025-06-18", text, `{"temperature":22.5}`, Rev20250326, `{"content":[{"type":"text","text":"22.5 °C"}]}`},
		{"array dropped", text, `[1,2]`, Rev20251125, `{"content":[{"type":"text","text":"22.5 °C"}]}`},
		{"array into empty content", nil, `[1, 2]`, Rev20251125, `{"content":[{"type":"text","text":"[1,2]"}]}`},
		{"object into empty content", []protocol.ContentBlock{}, `{ "a" : 1 }`, Rev20241105, `{"content":[{"type":"text","text":"{\"a\":1}"}]}`},
		{"string into empty content", nil, `"ok"`, Rev20250618, `{"content":[{"type":"text","text":"\"ok\""}]}`},
	}
	for _, c := range cases {
		got := projectResult(t, c.r, "tools/call", &protocol.CallToolResult{Content: c.content, StructuredContent: raw(c.sc)})
		if want := jsonOf(t, c.want); !reflect.DeepEqual(got, want) {
			t.Errorf("%s: %v\nwant %v", c.name, got, want)
		}
	}
	object := &protocol.ToolOutputSchema{Extra: protocol.Members{{Name: "type", Value: raw(`"object"`)}, {Name: "properties", Value: raw(`{"t":{"type":"number"}}`)}}}
	array := &protocol.ToolOutputSchema{Extra: protocol.Members{{Name: "type", Value: raw(`"array"`)}}}
	for _, r := range Revisions() {
		got := projectResult(t, r, "tools/list", &protocol.ListToolsResult{Tools: []protocol.Tool{
			{Name: "a", OutputSchema: object}, {Name: "b", OutputSchema: array}}, CacheScope: protocol.CacheScopePrivate})
		tools := got["tools"].([]any)
		_, hasA := tools[0].(map[string]any)["outputSchema"]
		_, hasB := tools[1].(map[string]any)["outputSchema"]
		if hasA != (r >= Rev20250618) || hasB {
			t.Errorf("%s: outputSchema kept: object %v, array %v", r, hasA, hasB)
		}
	}
}

// H5: a tool that requires an extension (a task-only tool) is not
// callable in a session.
func TestH5ExtensionRequired(t *testing.T) {
	e := ExtensionRequired("slow", "io.modelcontextprotocol/tasks")
	if e.Code != -32602 || e.Message != "Tool slow requires the io.modelcontextprotocol/tasks extension, which a legacy session does not have" {
		t.Errorf("ExtensionRequired = %+v", e)
	}
}

// H6 and H14: the server's resource-not-found becomes -32002 with its
// data; a handler's own -32602 and -32021 stay as they are.
func TestH6H14Errors(t *testing.T) {
	nf := Error{Code: -32602, Message: "Resource not found", Data: raw(`{"uri":"file:///x"}`)}
	cases := []struct {
		in     Error
		marked bool
		want   Error
	}{
		{nf, true, Error{Code: -32002, Message: "Resource not found", Data: raw(`{"uri":"file:///x"}`)}},
		{nf, false, nf},
		{Error{Code: -32602, Message: "Unknown tool: x"}, false, Error{Code: -32602, Message: "Unknown tool: x"}},
		{Error{Code: -32603, Message: "Internal error"}, true, Error{Code: -32603, Message: "Internal error"}},
		{Error{Code: -32021, Message: "Missing required client capability", Data: raw(`{"requiredCapabilities":{"sampling":{}}}`)}, false,
			Error{Code: -32021, Message: "Missing required client capability", Data: raw(`{"requiredCapabilities":{"sampling":{}}}`)}},
	}
	for _, c := range cases {
		for _, r := range Revisions() {
			if got := ProjectError(c.in, r, c.marked); !reflect.DeepEqual(got, c.want) {
				t.Errorf("%s ProjectError(%+v, %v) = %+v", r, c.in, c.marked, got)
			}
		}
	}
	if e := ResourceNotFound("test://watched"); e.Code != CodeResourceNotFound || string(e.Data) != `{"uri":"test://watched"}` {
		t.Errorf("ResourceNotFound = %+v", e)
	}
	id := protocol.IntRequestId(3)
	for _, r := range Revisions() {
		out, err := AppendError(nil, r, &id, ProjectError(nf, r, true))
		if err != nil {
			t.Fatal(err)
		}
		if want := `{"error":{"code":-32002,"data":{"uri":"file:///x"},"message":"Resource not found"},"id":3,"jsonrpc":"2.0"}`; string(out) != want {
			t.Errorf("%s: %s", r, out)
		}
		def := "JSONRPCError"
		if r == Rev20251125 {
			def = "JSONRPCErrorResponse"
		}
		validateIf(t, r, out, def, "", false)
	}
}

// H7: list_changed notifications go without params, resources/updated
// without the modern subscriptionId; the other notifications lose what
// their revision lacks (progress message before 2025-03-26, _meta before
// 2025-11-25).
func TestH7Notifications(t *testing.T) {
	sub := protocol.StringRequestId("listen-1")
	meta := &protocol.NotificationMetaObject{SubscriptionID: &sub}
	for _, r := range Revisions() {
		for n, method := range map[any]string{
			&protocol.ToolListChangedNotification{Params: &protocol.NotificationParams{Meta: meta}}:     "notifications/tools/list_changed",
			&protocol.PromptListChangedNotification{Params: &protocol.NotificationParams{Meta: meta}}:   "notifications/prompts/list_changed",
			&protocol.ResourceListChangedNotification{Params: &protocol.NotificationParams{Meta: meta}}: "notifications/resources/list_changed",
		} {
			if got := string(projectNotification(t, r, n)); got != `{"jsonrpc":"2.0","method":"`+method+`"}` {
				t.Errorf("%s: %s", r, got)
			}
		}
		up := &protocol.ResourceUpdatedNotification{Params: protocol.ResourceUpdatedNotificationParams{URI: "file:///a",
			Meta: &protocol.NotificationMetaObject{SubscriptionID: &sub, Extra: protocol.Members{{Name: "vendor/k", Value: raw(`true`)}}}}}
		want := `{"jsonrpc":"2.0","method":"notifications/resources/updated","params":{"uri":"file:///a"}}`
		if r == Rev20251125 {
			want = `{"jsonrpc":"2.0","method":"notifications/resources/updated","params":{"_meta":{"vendor/k":true},"uri":"file:///a"}}`
		}
		if got := string(projectNotification(t, r, up)); got != want {
			t.Errorf("%s: %s", r, got)
		}
		if up.Params.Meta.SubscriptionID == nil {
			t.Fatal("the notification was modified")
		}
		prog := &protocol.ProgressNotification{Params: protocol.ProgressNotificationParams{ProgressToken: protocol.StringProgressToken("p1"),
			Progress: 50, Total: ptr(100.0), Message: ptr("half"), Meta: &protocol.NotificationMetaObject{}}}
		want = map[Rev]string{
			Rev20241105: `{"jsonrpc":"2.0","method":"notifications/progress","params":{"progress":50,"progressToken":"p1","total":100}}`,
			Rev20250326: `{"jsonrpc":"2.0","method":"notifications/progress","params":{"message":"half","progress":50,"progressToken":"p1","total":100}}`,
			Rev20250618: `{"jsonrpc":"2.0","method":"notifications/progress","params":{"message":"half","progress":50,"progressToken":"p1","total":100}}`,
			Rev20251125: `{"jsonrpc":"2.0","method":"notifications/progress","params":{"_meta":{},"message":"half","progress":50,"progressToken":"p1","total":100}}`,
		}[r]
		if got := string(projectNotification(t, r, prog)); got != want {
			t.Errorf("%s: %s", r, got)
		}
		logm := &protocol.LoggingMessageNotification{Params: protocol.LoggingMessageNotificationParams{Level: protocol.LoggingLevelInfo, Data: raw(`"started"`), Meta: &protocol.NotificationMetaObject{}}}
		if got := string(projectNotification(t, r, logm)); strings.Contains(got, "_meta") != (r == Rev20251125) {
			t.Errorf("%s: %s", r, got)
		}
		// The server's own cancellations always name the request (required
		// up to 2025-06-18).
		cn := &protocol.CancelledNotification{Params: protocol.CancelledNotificationParams{RequestID: protocol.StringRequestId("mcpwire-1"), Reason: ptr("timed out")}}
		if got := string(projectNotification(t, r, cn)); got != `{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"reason":"timed out","requestId":"mcpwire-1"}}` {
			t.Errorf("%s: %s", r, got)
		}
	}
	if _, err := AppendNotification(nil, Rev20251125, &protocol.SubscriptionsAcknowledgedNotification{}); err == nil {
		t.Error("subscriptions/acknowledged went to a session")
	}
}

// H8: an input_required result is never sent in a session.
func TestH8InputRequired(t *testing.T) {
	if _, err := AppendResult(nil, Rev20251125, &protocol.InputRequiredResult{}); err == nil || !strings.Contains(err.Error(), "bridge") {
		t.Errorf("AppendResult(InputRequiredResult) = %v", err)
	}
}

func elicit(t *testing.T, params string) protocol.InputRequest {
	t.Helper()
	var req protocol.InputRequest
	if err := protocol.Unmarshal([]byte(`{"method":"elicitation/create","params":`+params+`}`), &req); err != nil {
		t.Fatal(err)
	}
	return req
}

func sampling(t *testing.T, params string) protocol.InputRequest {
	t.Helper()
	var req protocol.InputRequest
	if err := protocol.Unmarshal([]byte(`{"method":"sampling/createMessage","params":`+params+`}`), &req); err != nil {
		t.Fatal(err)
	}
	return req
}

// bridge builds an input request for r, validates it, and returns its
// params as plain JSON.
func bridge(t *testing.T, r Rev, req protocol.InputRequest) map[string]any {
	t.Helper()
	method, out, e := InputRequest(r, protocol.StringRequestId("mcpwire-x"), "k", req)
	if e != nil {
		t.Fatalf("%s: %v", r, e)
	}
	validateIf(t, r, out, requestDefs[method], method, false)
	var m struct {
		ID     string         `json:"id"`
		Params map[string]any `json:"params"`
	}
	if err := json.Unmarshal(out, &m); err != nil || m.ID != "mcpwire-x" {
		t.Fatalf("%s: %s", r, out)
	}
	return m.Params
}

// H9: a URL elicitation gets a fresh elicitationId of 22 base64url
// characters; a form elicitation goes without mode.
func TestH9Elicitation(t *testing.T) {
	url := elicit(t, `{"mode":"url","message":"Sign in","url":"https://example.com/auth"}`)
	a, b := bridge(t, Rev20251125, url), bridge(t, Rev20251125, url)
	re := regexp.MustCompile(`^[A-Za-z0-9_-]{22}$`)
	if !re.MatchString(a["elicitationId"].(string)) || a["elicitationId"] == b["elicitationId"] || a["mode"] != "url" {
		t.Errorf("url params %v, %v", a, b)
	}
	form := elicit(t, `{"mode":"form","message":"Name?","requestedSchema":{"type":"object","properties":{"name":{"type":"string"}},"required":["name"]}}`)
	for _, r := range []Rev{Rev20250618, Rev20251125} {
		p := bridge(t, r, form)
		if _, has := p["mode"]; has || p["message"] != "Name?" {
			t.Errorf("%s: form params %v", r, p)
		}
	}
}

// H10: for 2025-06-18 a titled single-select becomes enum + enumNames, and
// defaults go (that revision has them only on booleans); 2025-11-25 gets
// every schema as it is.
func TestH10EnumSchemas(t *testing.T) {
	req := elicit(t, `{"mode":"form","message":"m","requestedSchema":{"type":"object","properties":{
		"color":{"type":"string","title":"Color","oneOf":[{"const":"r","title":"Red"},{"const":"g","title":"Green"}],"default":"r"},
		"size":{"type":"string","enum":["s","m"],"default":"m"},
		"name":{"type":"string","default":"John Doe"},
		"age":{"type":"integer","default":30},
		"ok":{"type":"boolean","default":true}}}}`)
	got := bridge(t, Rev20250618, req)["requestedSchema"].(map[string]any)["properties"]
	want := jsonOf(t, `{"color":{"type":"string","title":"Color","enum":["r","g"],"enumNames":["Red","Green"]},
		"size":{"type":"string","enum":["s","m"]},"name":{"type":"string"},"age":{"type":"integer"},"ok":{"type":"boolean","default":true}}`)
	if !reflect.DeepEqual(got, want) {
		t.Errorf("2025-06-18: %v\nwant %v", got, want)
	}
	got = bridge(t, Rev20251125, req)["requestedSchema"].(map[string]any)["properties"]
	if c := got.(map[string]any)["color"].(map[string]any); c["oneOf"] == nil || c["default"] != "r" {
		t.Errorf("2025-11-25: %v", got)
	}
}

// H11: before 2025-11-25 a sampling message holds one block: a one-block
// array is sent as the block.
func TestH11SamplingContent(t *testing.T) {
	req := sampling(t, `{"maxTokens":10,"messages":[{"role":"user","content":[{"type":"text","text":"hi"}]}]}`)
	for _, r := range Revisions() {
		content := bridge(t, r, req)["messages"].([]any)[0].(map[string]any)["content"]
		_, isList := content.([]any)
		if isList != (r == Rev20251125) {
			t.Errorf("%s: content %v", r, content)
		}
	}
}

// H12: what a revision cannot carry is the -32603 error naming the input
// request and the feature, before anything is built.
func TestH12NotExpressible(t *testing.T) {
	form := elicit(t, `{"mode":"form","message":"m","requestedSchema":{"type":"object","properties":{}}}`)
	url := elicit(t, `{"mode":"url","message":"m","url":"https://x"}`)
	multi := elicit(t, `{"mode":"form","message":"m","requestedSchema":{"type":"object","properties":{"c":{"type":"array","items":{"type":"string","enum":["a"]}}}}}`)
	tools := sampling(t, `{"maxTokens":10,"messages":[],"tools":[{"name":"t","inputSchema":{"type":"object"}}]}`)
	choice := sampling(t, `{"maxTokens":10,"messages":[],"toolChoice":{"mode":"auto"}}`)
	two := sampling(t, `{"maxTokens":10,"messages":[{"role":"user","content":[{"type":"text","text":"a"},{"type":"text","text":"b"}]}]}`)
	toolUse := sampling(t, `{"maxTokens":10,"messages":[{"role":"assistant","content":{"type":"tool_use","id":"1","name":"t","input":{}}}]}`)
	audio := sampling(t, `{"maxTokens":10,"messages":[{"role":"user","content":{"type":"audio","data":"AA==","mimeType":"audio/wav"}}]}`)
	cases := []struct {
		req     protocol.InputRequest
		r       Rev
		feature string
	}{
		{form, Rev20241105, "elicitation"},
		{form, Rev20250326, "elicitation"},
		{url, Rev20250618, "URL elicitation"},
		{multi, Rev20250618, "a multi-select enum property"},
		{tools, Rev20250618, "sampling tools"},
		{choice, Rev20250618, "sampling toolChoice"},
		{two, Rev20250618, "sampling content of 2 blocks"},
		{toolUse, Rev20250618, "tool_use sampling content"},
		{audio, Rev20241105, "audio sampling content"},
	}
	for _, c := range cases {
		_, out, e := InputRequest(c.r, protocol.StringRequestId("x"), "ask", c.req)
		want := "input request ask needs " + c.feature + ", which protocol " + c.r.String() + " cannot carry"
		if e == nil || e.Code != -32603 || e.Message != want || out != nil {
			t.Errorf("%s %s: %v, %s", c.r, c.feature, e, out)
		}
	}
	// And what they can.
	for _, c := range []struct {
		req protocol.InputRequest
		r   Rev
	}{{form, Rev20250618}, {url, Rev20251125}, {multi, Rev20251125}, {tools, Rev20251125}, {two, Rev20251125}, {audio, Rev20250326}} {
		bridge(t, c.r, c.req)
	}
	roots := protocol.InputRequest{Value: &protocol.ListRootsRequest{Params: &protocol.ListRootsRequestParams{Meta: &protocol.MetaObject{}}}}
	for _, r := range Revisions() {
		if p := bridge(t, r, roots); p != nil {
			t.Errorf("%s: roots/list params %v", r, p)
		}
	}
	if _, _, e := InputRequest(Rev20251125, protocol.StringRequestId("x"), "k", protocol.InputRequest{}); e == nil {
		t.Error("an empty input request was built")
	}
}

// H13: a session's requests carry _meta from initialize and setLevel.
func TestH13SessionMeta(t *testing.T) {
	var p mcp20251125.InitializeRequestParams
	err := mcp20251125.Unmarshal([]byte(`{"protocolVersion":"2025-06-18","clientInfo":{"name":"c","version":"1","title":"C"},
		"capabilities":{"roots":{"listChanged":true},"sampling":{},"elicitation":{},"tasks":{"list":{}},"experimental":{"x":{"y":1}},"extensions":{"io.modelcontextprotocol/tasks":{}},"vendor":{}}}`), &p)
	if err != nil {
		t.Fatal(err)
	}
	s, err := NewSession(Rev20250618, &p, nil)
	if err != nil {
		t.Fatal(err)
	}
	caps, err := protocol.Marshal(&s.ClientCapabilities)
	if err != nil {
		t.Fatal(err)
	}
	if want := `{"elicitation":{},"experimental":{"x":{"y":1}},"roots":{},"sampling":{},"vendor":{}}`; string(caps) != want {
		t.Errorf("capabilities %s\nwant %s", caps, want)
	}
	if s.ClientInfo == nil || s.ClientInfo.Name != "c" || *s.ClientInfo.Title != "C" {
		t.Errorf("clientInfo %+v", s.ClientInfo)
	}
	old, err := NewSession(Rev20250326, &p, nil)
	if err != nil {
		t.Fatal(err)
	}
	if old.ClientCapabilities.Elicitation != nil {
		t.Error("2025-03-26 has no elicitation, whatever the client sent")
	}
	level := protocol.LoggingLevelWarning
	s.LogLevel = &level
	var call mcp20251125.CallToolRequestParams
	if err := mcp20251125.Unmarshal([]byte(`{"name":"t","arguments":{"a":1},"task":{"ttl":1000},
		"_meta":{"progressToken":7,"vendor/trace":"abc","io.modelcontextprotocol/logLevel":"debug","io.modelcontextprotocol/clientInfo":{"name":"x","version":"2"}}}`), &call); err != nil {
		t.Fatal(err)
	}
	got, e := s.CallTool(&call)
	if e != nil {
		t.Fatal(e)
	}
	if got.Name != "t" || string(got.Arguments) != `{"a":1}` || got.InputResponses != nil || got.RequestState != nil {
		t.Errorf("params %+v", got)
	}
	m := got.Meta
	if m.ProtocolVersion != "2025-06-18" || m.LogLevel == nil || *m.LogLevel != "warning" || m.ClientInfo.Name != "c" ||
		m.ProgressToken == nil || !m.ProgressToken.IsInt() || m.ProgressToken.Int() != 7 || m.ClientCapabilities.Roots == nil {
		t.Errorf("meta %+v", m)
	}
	if len(m.Extra) != 1 || m.Extra[0].Name != "vendor/trace" {
		t.Errorf("meta extra %+v: the reserved keys must be dropped", m.Extra)
	}
	// A modern request's _meta encodes.
	if _, err := protocol.Marshal(got); err != nil {
		t.Errorf("converted params do not encode: %v", err)
	}
	// L7: the members of a modern retry are refused.
	for _, extra := range []string{`"inputResponses":{}`, `"requestState":"x"`} {
		var c mcp20251125.CallToolRequestParams
		if err := mcp20251125.Unmarshal([]byte(`{"name":"t",`+extra+`}`), &c); err != nil {
			t.Fatal(err)
		}
		if _, e := s.CallTool(&c); e == nil || e.Code != -32602 {
			t.Errorf("%s: %v", extra, e)
		}
		var g mcp20251125.GetPromptRequestParams
		_ = mcp20251125.Unmarshal([]byte(`{"name":"p",`+extra+`}`), &g)
		if _, e := s.GetPrompt(&g); e == nil || e.Code != -32602 {
			t.Errorf("prompts/get %s: %v", extra, e)
		}
		var rr mcp20251125.ReadResourceRequestParams
		_ = mcp20251125.Unmarshal([]byte(`{"uri":"u",`+extra+`}`), &rr)
		if _, e := s.ReadResource(&rr); e == nil || e.Code != -32602 {
			t.Errorf("resources/read %s: %v", extra, e)
		}
	}
}

// The other conversions of request params, through ConvertParams.
func TestConvertParams(t *testing.T) {
	s := &Session{Rev: Rev20241105}
	for _, c := range []struct {
		v    any
		want string
	}{
		{new(mcp20251125.GetPromptRequestParams), `{"name":"p","arguments":{"a":"b"}}`},
		{new(mcp20251125.ReadResourceRequestParams), `{"uri":"file:///a","_meta":{"progressToken":"t"}}`},
		{new(mcp20251125.PaginatedRequestParams), `{"cursor":"c"}`},
		{new(mcp20251125.CompleteRequestParams), `{"ref":{"type":"ref/resource","uri":"file:///{x}"},"argument":{"name":"x","value":"a"},"context":{"arguments":{"y":"1"}}}`},
		{new(mcp20251125.CompleteRequestParams), `{"ref":{"type":"ref/prompt","name":"p"},"argument":{"name":"x","value":"a"}}`},
	} {
		if err := mcp20251125.Unmarshal([]byte(c.want), c.v); err != nil {
			t.Fatal(err)
		}
		out, e := s.ConvertParams(c.v)
		if e != nil {
			t.Fatalf("%T: %v", c.v, e)
		}
		b, err := protocol.Marshal(out)
		if err != nil {
			t.Fatal(err)
		}
		// The converted params are what a modern client would have sent,
		// with the session's _meta.
		var got, want map[string]any
		_ = json.Unmarshal(b, &got)
		_ = json.Unmarshal([]byte(c.want), &want)
		meta := got["_meta"].(map[string]any)
		delete(got, "_meta")
		delete(want, "_meta")
		if !reflect.DeepEqual(got, want) || meta["io.modelcontextprotocol/protocolVersion"] != "2024-11-05" {
			t.Errorf("%T: %s", c.v, b)
		}
	}
	if out, e := s.ConvertParams(nil); e != nil || out.(*protocol.PaginatedRequestParams).Meta.ProtocolVersion != "2024-11-05" {
		t.Errorf("ConvertParams(nil) = %v, %v", out, e)
	}
	if _, e := s.ConvertParams(&mcp20251125.SetLevelRequestParams{}); e == nil {
		t.Error("setLevel params were converted: the runtime serves them")
	}
	for _, f := range []func() *Error{
		func() *Error { _, e := s.CallTool(nil); return e },
		func() *Error { _, e := s.GetPrompt(nil); return e },
		func() *Error { _, e := s.ReadResource(nil); return e },
		func() *Error { _, e := s.Complete(nil); return e },
	} {
		if e := f(); e == nil || e.Code != -32602 {
			t.Errorf("nil params: %v", e)
		}
	}
}

// The client's answers to the bridge's requests become the handler's
// InputResponse, without _meta (a root keeps its own).
func TestInputResponse(t *testing.T) {
	cases := []struct {
		method, in, want string
	}{
		{"elicitation/create", `{"action":"accept","content":{"name":"Jane","age":25,"ok":true,"tags":["a"]},"_meta":{"k":1}}`, `{"action":"accept","content":{"age":25,"name":"Jane","ok":true,"tags":["a"]}}`},
		{"elicitation/create", `{"action":"decline"}`, `{"action":"decline"}`},
		{"sampling/createMessage", `{"role":"assistant","content":{"type":"text","text":"Paris"},"model":"m","stopReason":"endTurn","_meta":{}}`, `{"content":{"text":"Paris","type":"text"},"model":"m","role":"assistant","stopReason":"endTurn"}`},
		{"roots/list", `{"roots":[{"uri":"file:///home","name":"home","_meta":{"k":2}}],"_meta":{}}`, `{"roots":[{"_meta":{"k":2},"name":"home","uri":"file:///home"}]}`},
	}
	for _, c := range cases {
		resp, e := InputResponse(c.method, raw(c.in))
		if e != nil {
			t.Fatalf("%s: %v", c.method, e)
		}
		b, err := protocol.Marshal(resp.Value)
		if err != nil || string(b) != c.want {
			t.Errorf("%s: %s, %v\nwant %s", c.method, b, err, c.want)
		}
	}
	for _, c := range []struct{ method, in string }{
		{"elicitation/create", `{"action":"maybe"}`},
		{"elicitation/create", `{"action":"accept","action":"decline"}`},
		{"sampling/createMessage", `{"role":"assistant"}`},
		{"roots/list", `{"roots":{}}`},
	} {
		if _, e := InputResponse(c.method, raw(c.in)); e == nil || e.Code != -32602 {
			t.Errorf("%s %s: %v", c.method, c.in, e)
		}
	}
	if _, e := InputResponse("tools/call", raw(`{}`)); e == nil {
		t.Error("an answer to tools/call was accepted")
	}
}

// The initialize result, built by the server as an mcp20251125 value,
// keeps per revision what it declares: completions from 2025-03-26,
// serverInfo's title from 2025-06-18 and its icons, description and
// websiteUrl in 2025-11-25; tasks never reach older revisions.
func TestInitializeResult(t *testing.T) {
	var res mcp20251125.InitializeResult
	if err := mcp20251125.Unmarshal([]byte(`{"protocolVersion":"2025-11-25","instructions":"hi",
		"capabilities":{"tools":{"listChanged":true},"completions":{},"logging":{},"tasks":{"list":{}}},
		"serverInfo":{"name":"s","version":"1","title":"S","description":"d","websiteUrl":"https://x","icons":[{"src":"https://x/i.png"}]}}`), &res); err != nil {
		t.Fatal(err)
	}
	for _, r := range Revisions() {
		got := projectResult(t, r, "initialize", &res)
		caps := got["capabilities"].(map[string]any)
		info := got["serverInfo"].(map[string]any)
		_, completions := caps["completions"]
		_, tasks := caps["tasks"]
		_, title := info["title"]
		_, icons := info["icons"]
		if completions != (r >= Rev20250326) || tasks != (r == Rev20251125) || title != (r >= Rev20250618) || icons != (r == Rev20251125) || got["instructions"] != "hi" {
			t.Errorf("%s: %v", r, got)
		}
	}
}

// An undeclared member that carries the name of a member a revision
// declares (2025-11-25's Tool.execution, absent from 2026-07-28), or a
// case variant of it, is dropped for that revision: its value is
// unchecked, strict readers refuse case variants, and the core tasks it
// would announce are not served. Other undeclared members are kept.
func TestUndeclaredDropped(t *testing.T) {
	for _, name := range []string{"execution", "eXeCution"} {
		tool := protocol.Tool{Name: "t", Extra: protocol.Members{{Name: "vendor/x", Value: raw(`1`)}, {Name: name, Value: raw(`{"taskSupport":7}`)}}}
		for _, r := range Revisions() {
			got := projectResult(t, r, "tools/list", &protocol.ListToolsResult{Tools: []protocol.Tool{tool}, CacheScope: protocol.CacheScopePrivate})
			tl := got["tools"].([]any)[0].(map[string]any)
			_, exec := tl[name]
			if exec != (r != Rev20251125) || tl["vendor/x"] != 1.0 {
				t.Errorf("%s: %v", r, tl)
			}
		}
	}
	if want := map[string]map[string]Revs{"mcp20251125.UntitledSingleSelectEnumSchema": {"enumNames": 0b0100}, "protocol.Tool": {"execution": 0b1000}}; !reflect.DeepEqual(undeclaredDropped, want) {
		t.Errorf("undeclaredDropped = %v", undeclaredDropped)
	}
}

// The initialize result the server builds: capabilities from its
// features, per revision, and serverInfo projected.
func TestInitializeResultBuilt(t *testing.T) {
	info := protocol.Implementation{Name: "everything", Version: "1.0.0", Title: ptr("Everything"), WebsiteURL: ptr("https://x"), Icons: []protocol.Icon{{Src: "https://x/i.png"}}}
	all := ServerFeatures{Tools: true, Prompts: true, Resources: true, Completions: true, Logging: true}
	want := map[Rev]string{
		Rev20241105: `{"protocolVersion":"2024-11-05","capabilities":{"logging":{},"prompts":{"listChanged":true},"resources":{"listChanged":true,"subscribe":true},"tools":{"listChanged":true}},"serverInfo":{"name":"everything","version":"1.0.0"},"instructions":"Use the tools."}`,
		Rev20250326: `{"protocolVersion":"2025-03-26","capabilities":{"completions":{},"logging":{},"prompts":{"listChanged":true},"resources":{"listChanged":true,"subscribe":true},"tools":{"listChanged":true}},"serverInfo":{"name":"everything","version":"1.0.0"},"instructions":"Use the tools."}`,
		Rev20250618: `{"protocolVersion":"2025-06-18","capabilities":{"completions":{},"logging":{},"prompts":{"listChanged":true},"resources":{"listChanged":true,"subscribe":true},"tools":{"listChanged":true}},"serverInfo":{"name":"everything","version":"1.0.0","title":"Everything"},"instructions":"Use the tools."}`,
		Rev20251125: `{"protocolVersion":"2025-11-25","capabilities":{"completions":{},"logging":{},"prompts":{"listChanged":true},"resources":{"listChanged":true,"subscribe":true},"tools":{"listChanged":true}},"serverInfo":{"name":"everything","version":"1.0.0","title":"Everything","websiteUrl":"https://x","icons":[{"src":"https://x/i.png"}]},"instructions":"Use the tools."}`,
	}
	for _, r := range Revisions() {
		res, err := InitializeResult(r, all, info, "Use the tools.")
		if err != nil {
			t.Fatal(err)
		}
		if got := projectResult(t, r, "initialize", res); !reflect.DeepEqual(got, jsonOf(t, want[r])) {
			t.Errorf("%s: %v", r, got)
		}
		res, err = InitializeResult(r, ServerFeatures{}, protocol.Implementation{Name: "n", Version: "1"}, "")
		if err != nil {
			t.Fatal(err)
		}
		if got := projectResult(t, r, "initialize", res); !reflect.DeepEqual(got["capabilities"], map[string]any{}) || got["instructions"] != nil {
			t.Errorf("%s: %v", r, got)
		}
	}
}

// A session rebuilt from its stored record equals the one initialize made.
func TestRestoreSession(t *testing.T) {
	var p mcp20251125.InitializeRequestParams
	if err := mcp20251125.Unmarshal([]byte(`{"protocolVersion":"2025-11-25","clientInfo":{"name":"c","version":"1"},"capabilities":{"elicitation":{"form":{}},"roots":{"listChanged":true}}}`), &p); err != nil {
		t.Fatal(err)
	}
	s, err := NewSession(Rev20251125, &p, nil)
	if err != nil {
		t.Fatal(err)
	}
	caps, _ := mcp20251125.Marshal(&p.Capabilities)
	info, _ := mcp20251125.Marshal(&p.ClientInfo)
	back, err := RestoreSession(Rev20251125, caps, info, "info", nil)
	if err != nil {
		t.Fatal(err)
	}
	level := protocol.LoggingLevelInfo
	s.LogLevel = &level
	if !reflect.DeepEqual(s, back) {
		t.Errorf("restored %+v, want %+v", back, s)
	}
	for _, bad := range [][3]string{{`{"x":1,"x":2}`, `{"name":"c","version":"1"}`, ""}, {`{}`, `{"name":"c"}`, ""}, {`{}`, `{"name":"c","version":"1"}`, "loud"}} {
		if _, err := RestoreSession(Rev20251125, raw(bad[0]), raw(bad[1]), bad[2], nil); err == nil {
			t.Errorf("RestoreSession(%v) succeeded", bad)
		}
	}
}
