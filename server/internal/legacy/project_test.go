package legacy

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"

	"github.com/mcpwire/mcpwire/protocol"
	"github.com/mcpwire/mcpwire/protocol/mcp20251125"
)

func TestParseRev(t *testing.T) {
	for i, name := range []string{"2024-11-05", "2025-03-26", "2025-06-18", "2025-11-25"} {
		r, ok := ParseRev(name)
		if !ok || r != Rev(i) || r.String() != name || !r.Valid() {
			t.Errorf("ParseRev(%q) = %v, %v", name, r, ok)
		}
	}
	for _, bad := range []string{"", "2026-07-28", "2024-10-07", "draft"} {
		if _, ok := ParseRev(bad); ok {
			t.Errorf("ParseRev(%q) succeeded", bad)
		}
	}
	if got := Revisions(); len(got) != 4 || got[0] != Rev20251125 || got[3] != Rev20241105 {
		t.Errorf("Revisions() = %v", got)
	}
	if Rev(9).Valid() || Rev(9).String() != "Rev(9)" {
		t.Errorf("Rev(9) = %v", Rev(9))
	}
	if _, err := AppendResult(nil, Rev(9), &protocol.CallToolResult{}); err == nil {
		t.Error("AppendResult accepted an invalid revision")
	}
}

// The methods per revision come from the schemas: batches only in
// 2025-03-26, elicitation/create from 2025-06-18, tasks in 2025-11-25.
func TestMessagesOf(t *testing.T) {
	for _, r := range Revisions() {
		m := MessagesOf(r)
		if m.Batches != (r == Rev20250326) {
			t.Errorf("%s: Batches = %v", r, m.Batches)
		}
		hasElicit := false
		for _, s := range m.ServerRequests {
			hasElicit = hasElicit || s == "elicitation/create"
		}
		if hasElicit != (r >= Rev20250618) {
			t.Errorf("%s: elicitation/create %v", r, hasElicit)
		}
		for _, want := range []string{"initialize", "ping", "tools/call", "completion/complete", "logging/setLevel", "resources/subscribe"} {
			found := false
			for _, s := range m.ClientRequests {
				found = found || s == want
			}
			if !found {
				t.Errorf("%s lacks client request %s", r, want)
			}
		}
	}
	m := MessagesOf(Rev20251125)
	m.ClientRequests[0] = "changed"
	if MessagesOf(Rev20251125).ClientRequests[0] == "changed" {
		t.Error("MessagesOf shares its slices")
	}
}

// stripMembers removes top-level members only, whatever the nesting,
// strings and whitespace around them.
func TestStripMembers(t *testing.T) {
	names := []string{"resultType", "ttlMs", "cacheScope"}
	for _, c := range []struct{ in, want string }{
		{`{"resultType":"complete"}`, `{}`},
		{`{"a":1,"resultType":"x","b":2}`, `{"a":1,"b":2}`},
		{`{"resultType":"x","a":1}`, `{"a":1}`},
		{`{"a":{"resultType":"nested"},"ttlMs":5,"cacheScope":"private","tools":[]}`, `{"a":{"resultType":"nested"},"tools":[]}`},
		{`{"s":"with \"resultType\":\"x\" inside","resultType":""}`, `{"s":"with \"resultType\":\"x\" inside"}`},
		{`{"s":"back\\\\","resultType":"","t":[1,{"u":"]}"}]}`, `{"s":"back\\\\","t":[1,{"u":"]}"}]}`},
		{` { "a" : [ 1 , 2 ] , "resultType" : "x" , "n" : null } `, ` {"a" : [ 1 , 2 ],"n" : null} `},
	} {
		got, err := stripMembers([]byte(c.in), names)
		if err != nil || string(got) != c.want {
			t.Errorf("stripMembers(%s) = %s, %v; want %s", c.in, got, err, c.want)
		}
	}
	for _, bad := range []string{``, `[]`, `{"a":`, `{"a":"x`, `{"a" 1}`} {
		if _, err := stripMembers([]byte(bad), names); err == nil {
			t.Errorf("stripMembers(%q) succeeded", bad)
		}
	}
}

// The fast path of the strip gives what the general one gives, and steps
// aside when a later member exists or the value would be escaped.
func TestStripTail(t *testing.T) {
	for _, res := range []*protocol.CallToolResult{
		{Content: []protocol.ContentBlock{{Value: &protocol.TextContent{Text: `,"resultType":""}`}}}},
		{Content: []protocol.ContentBlock{}, ResultType: "complete"},
		{Content: []protocol.ContentBlock{}, ResultType: "odd\"value"},
		{Content: []protocol.ContentBlock{}, Extra: protocol.Members{{Name: "zz", Value: json.RawMessage(`1`)}}},
		{Content: []protocol.ContentBlock{}, StructuredContent: json.RawMessage(`{"resultType":"","x":[1]}`)},
		{Content: []protocol.ContentBlock{}, StructuredContent: json.RawMessage(`{ "spaced" : true }`), ResultType: "complete"},
		{Content: []protocol.ContentBlock{}, StructuredContent: json.RawMessage(`"s"`), IsError: ptr(true)},
	} {
		enc, err := protocol.Marshal(res)
		if err != nil {
			t.Fatal(err)
		}
		slow, err := stripMembers(bytes.Clone(enc), []string{"resultType"})
		if err != nil {
			t.Fatal(err)
		}
		fast := bytes.Clone(enc)
		if n, ok := stripTail(fast, res); ok {
			fast = fast[:n]
		} else {
			fast, _ = stripMembers(fast, []string{"resultType"})
		}
		if !bytes.Equal(fast, slow) {
			t.Errorf("fast %s, slow %s", fast, slow)
		}
		var top map[string]json.RawMessage
		if err := json.Unmarshal(fast, &top); err != nil {
			t.Fatalf("%s: %v", fast, err)
		}
		if _, left := top["resultType"]; left {
			t.Errorf("resultType left in %s", fast)
		}
	}
}

// Projection never modifies its input, and never what the input shares
// (a tool definition of the registry): what changes is copied first.
func TestProjectionLeavesInputAlone(t *testing.T) {
	title, desc, lm := "T", "D", "2025-01-01T00:00:00Z"
	shared := []protocol.Tool{{
		Name: "t", Title: &title, Description: &desc, Icons: []protocol.Icon{{Src: "https://x/i.png"}},
		Meta:         &protocol.MetaObject{Extra: protocol.Members{{Name: "k", Value: json.RawMessage(`1`)}}},
		Annotations:  &protocol.ToolAnnotations{Title: &title},
		InputSchema:  protocol.ToolInputSchema{Extra: protocol.Members{{Name: "properties", Value: json.RawMessage(`{"a":true}`)}}},
		OutputSchema: &protocol.ToolOutputSchema{Extra: protocol.Members{{Name: "type", Value: json.RawMessage(`"string"`)}}},
	}}
	results := []any{
		&protocol.ListToolsResult{Tools: shared, TTLMs: 5, CacheScope: protocol.CacheScopePublic, ResultType: "complete",
			Meta: &protocol.ResultMetaObject{ServerInfo: &protocol.Implementation{Name: "s", Version: "1"}}},
		&protocol.CallToolResult{ResultType: "complete", StructuredContent: json.RawMessage(`[1,2]`), Content: []protocol.ContentBlock{
			{Value: &protocol.AudioContent{Data: "AAAA", MIMEType: "audio/wav", Annotations: &protocol.Annotations{LastModified: &lm}}},
			{Value: &protocol.ResourceLink{Name: "n", URI: "file:///a", Title: &title, Icons: []protocol.Icon{{Src: "https://x/i.png"}}}},
			{Value: &protocol.TextContent{Text: "x", Meta: &protocol.MetaObject{}}},
		}},
		&protocol.GetPromptResult{Messages: []protocol.PromptMessage{{Role: protocol.RoleUser, Content: protocol.ContentBlock{Value: &protocol.AudioContent{Data: "AAAA", MIMEType: "audio/wav"}}}}},
		&protocol.ReadResourceResult{CacheScope: protocol.CacheScopePrivate, Contents: []protocol.ReadResourceResultContentsElem{{Value: &protocol.TextResourceContents{URI: "u", Text: "t", Meta: &protocol.MetaObject{}}}}},
	}
	for _, res := range results {
		before, err := protocol.Marshal(res)
		if err != nil {
			t.Fatal(err)
		}
		for _, r := range Revisions() {
			if _, err := AppendResult(nil, r, res); err != nil {
				t.Fatalf("%s %T: %v", r, res, err)
			}
			after, _ := protocol.Marshal(res)
			if !bytes.Equal(before, after) {
				t.Fatalf("%s: %T changed:\nbefore %s\nafter  %s", r, res, before, after)
			}
		}
	}
	if shared[0].Title == nil || shared[0].Icons == nil || shared[0].Meta == nil {
		t.Error("the shared tool definition was modified")
	}
}

// A value with nothing to clear is encoded as it is, without a copy.
func TestZeroPassCopiesOnlyOnChange(t *testing.T) {
	res := &protocol.CallToolResult{Content: []protocol.ContentBlock{{Value: &protocol.TextContent{Text: "x"}}}}
	z, ok, err := zeroRoot(res, Rev20241105)
	if err != nil || !ok || z.v != any(res) {
		t.Errorf("zeroRoot = %v, %v, %v: want the value itself", z.v, ok, err)
	}
	res.Content[0].Value.(*protocol.TextContent).Meta = &protocol.MetaObject{}
	z, _, _ = zeroRoot(res, Rev20241105)
	if z.v == any(res) {
		t.Error("a change did not copy")
	}
	if z, _, _ = zeroRoot(res, Rev20250618); z.v != any(res) {
		t.Error("2025-06-18 declares _meta on text content: no copy expected")
	}
	plain, buf := benchCallToolResult(), make([]byte, 0, 1024)
	for _, r := range Revisions() {
		if allocs := testing.AllocsPerRun(100, func() { _, _ = AppendResult(buf[:0], r, plain) }); allocs != 0 {
			t.Errorf("%s: projecting a plain tools/call result costs %v allocations", r, allocs)
		}
	}
}

// Every root type of the tables projects, and types that are not roots,
// or roots of another kind, are refused cleanly.
func TestRootKinds(t *testing.T) {
	for _, c := range []struct {
		v    any
		kind string
	}{
		{&protocol.CallToolResult{}, "result"},
		{&mcp20251125.InitializeResult{}, "result"},
		{&mcp20251125.Result{}, "result"},
		{&protocol.ProgressNotification{}, "notification"},
		{&mcp20251125.ListRootsRequest{}, "request"},
		{&protocol.JSONRPCErrorResponse{}, "error"},
	} {
		z, ok, err := zeroRoot(c.v, Rev20251125)
		if err != nil || !ok || z.kind != c.kind {
			t.Errorf("zeroRoot(%T) = %+v, %v, %v", c.v, z, ok, err)
		}
	}
	// ping, logging/setLevel and resources/(un)subscribe answer {} exactly
	// (the suite's ping and logging-set-level fail on any key).
	for _, r := range Revisions() {
		if out, err := AppendResult(nil, r, &mcp20251125.Result{}); err != nil || string(out) != `{}` {
			t.Errorf("%s: empty result %s, %v", r, out, err)
		}
	}
	if _, err := AppendResult(nil, Rev20251125, &protocol.ProgressNotification{}); err == nil {
		t.Error("AppendResult took a notification")
	}
	if _, err := AppendNotification(nil, Rev20251125, &protocol.CallToolResult{}); err == nil {
		t.Error("AppendNotification took a result")
	}
	for _, v := range []any{&protocol.DiscoverResult{}, &protocol.Tool{}, nil, "x", (*protocol.CallToolResult)(nil), (*protocol.ListToolsResult)(nil)} {
		if _, err := AppendResult(nil, Rev20251125, v); err == nil {
			t.Errorf("AppendResult(%T) succeeded", v)
		}
	}
	if _, err := AppendResult(nil, Rev20241105, &mcp20251125.ElicitRequest{}); err == nil {
		t.Error("an elicitation went to 2024-11-05")
	}
	if n := len(roots); n != 24 {
		t.Errorf("%d roots", n)
	}
}

// The gaps of the tables are what the runtime fills: only the error
// response's id, which AppendError always writes when it is known.
func TestRequiredGaps(t *testing.T) {
	if len(requiredGaps) != 1 || requiredGaps[0] != (requiredGap{Type: "protocol.JSONRPCErrorResponse", Member: "id", Revs: 0b0111}) {
		t.Fatalf("requiredGaps = %+v: review what the runtime must set", requiredGaps)
	}
	id := protocol.StringRequestId("a")
	for _, r := range Revisions() {
		out, err := AppendError(nil, r, &id, Error{Code: -32601, Message: "Method not found"})
		if err != nil || !strings.Contains(string(out), `"id":"a"`) {
			t.Errorf("%s: %s, %v", r, out, err)
		}
	}
}

func TestAppendErrorInvalidData(t *testing.T) {
	id := protocol.IntRequestId(7)
	out, err := AppendError(nil, Rev20250618, &id, Error{Code: -32603, Message: "x", Data: json.RawMessage(`{bad`)})
	if err != nil || string(out) != `{"error":{"code":-32603,"message":"x"},"id":7,"jsonrpc":"2.0"}` {
		t.Errorf("AppendError = %s, %v", out, err)
	}
}
