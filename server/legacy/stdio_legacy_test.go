package legacy_test

import (
	"strings"
	"testing"
	"time"

	. "github.com/mcpwire/mcpwire/server/internal/testkit"
	"github.com/mcpwire/mcpwire/server/legacy"

	"github.com/mcpwire/mcpwire/protocol"
	"github.com/mcpwire/mcpwire/server"
)

// The legacy session of stdio (docs/dual-era.md §1.8 rows T4–T13, §2, §5):
// a scripted transcript per revision, every server line validated against
// the revision's schema.json, and modern lines interleaved on the same
// stream staying stateless (R-STATE-01). Legacy behaviour is cited by the
// 2025-11-25 spec pages (L1125/…) as the design does.

// TestStdioLegacyTranscript runs one session per legacy revision through
// everything a legacy client uses: L1125/basic/lifecycle.mdx (initialize,
// initialized, requests before it), L1125/basic/utilities/ping.mdx,
// L1125/server/tools.mdx, resources.mdx, prompts.mdx,
// utilities/completion.mdx, utilities/logging.mdx, utilities/pagination.mdx,
// L1125/basic/utilities/progress.mdx and cancellation.mdx, and the
// conversion rules of docs/conversion.md.
func TestStdioLegacyTranscript(t *testing.T) {
	for _, rev := range legacyRevs {
		t.Run(rev, func(t *testing.T) {
			f := newLegacyFixture(t, legacy.ErasBoth, server.WithPageSize(3))
			c := StartLegacyStdio(t, f.Server, rev)
			old := rev == "2024-11-05" || rev == "2025-03-26" // before 2025-06-18

			// initialize (§2.1): the negotiated version, capabilities from
			// the registrations, serverInfo, no _meta.
			w, _ := c.Call(0, "initialize", InitParams(rev, `{"roots":{"listChanged":true},"sampling":{},"elicitation":{}}`))
			if w.Result["protocolVersion"] != rev {
				t.Fatalf("initialize: %s", w.Raw)
			}
			caps, _ := w.Result["capabilities"].(M)
			for _, k := range []string{"tools", "prompts", "resources", "logging"} {
				if _, ok := caps[k]; !ok {
					t.Errorf("capabilities lack %s: %s", k, w.Raw)
				}
			}
			if _, ok := caps["completions"]; ok == (rev == "2024-11-05") {
				t.Errorf("completions capability for %s: %s", rev, w.Raw)
			}
			if res, _ := caps["resources"].(M); res["subscribe"] != true || res["listChanged"] != true {
				t.Errorf("resources capability %v", res)
			}
			for _, k := range []string{"tasks", "experimental", "extensions"} {
				if _, ok := caps[k]; ok {
					t.Errorf("capabilities declare %s: %s", k, w.Raw)
				}
			}
			if info, _ := w.Result["serverInfo"].(M); info["name"] != "test" || info["version"] != "1.0.0" {
				t.Errorf("serverInfo %v", w.Result["serverInfo"])
			}
			if hasMember(w, "_meta") {
				t.Errorf("initialize result with _meta: %s", w.Raw)
			}

			// L1: only ping before notifications/initialized (§2.2).
			if w, _ := c.Call(1, "tools/list", ""); w.Code() != protocol.CodeInvalidRequestError || !strings.Contains(w.Error.Message, "not initialized") {
				t.Errorf("a request before initialized: %s", w.Raw)
			}
			if w, _ := c.Call(2, "ping", ""); string(w.Members["result"]) != "{}" {
				t.Errorf("ping before initialized: %s", w.Raw)
			}
			c.Note("notifications/initialized", "")
			c.Note("notifications/initialized", "") // a second one changes nothing
			// T5: one session per process.
			if w, _ := c.Call(3, "initialize", InitParams(rev, "")); w.Code() != protocol.CodeInvalidRequestError {
				t.Errorf("initialize twice: %s", w.Raw)
			}

			// tools/list, paged (L1125/server/utilities/pagination.mdx); the
			// task-required tool is never listed (H5).
			var names []string
			cursor := ""
			for page := 0; page < 10; page++ {
				p := ""
				if cursor != "" {
					p = `{"cursor":"` + cursor + `"}`
				}
				w, _ := c.Call(10+page, "tools/list", p)
				tools, _ := w.Result["tools"].([]any)
				for _, x := range tools {
					tool, _ := x.(M)
					names = append(names, tool["name"].(string))
					if tool["name"] == "structured" {
						if _, ok := tool["outputSchema"]; ok == old {
							t.Errorf("outputSchema in %s: %v", rev, tool)
						}
					}
				}
				next, _ := w.Result["nextCursor"].(string)
				if next == "" {
					break
				}
				cursor = next
			}
			if got := strings.Join(names, ","); got != "ask,caps,count,echo,fail,hdr,logs,media,progress,structured,wait,waitpoll,whoami" {
				t.Errorf("tools listed: %s", got)
			}
			if w, _ := c.Call(20, "tools/list", `{"cursor":"not-a-cursor"}`); w.Code() != protocol.CodeInvalidParamsError {
				t.Errorf("a bad cursor: %s", w.Raw)
			}

			// tools/call
			if w, _ := c.Call(21, "tools/call", `{"name":"echo","arguments":{"text":"hi"}}`); ResultText(t, w) != "hi" {
				t.Errorf("echo: %s", w.Raw)
			}
			w, _ = c.Call(22, "tools/call", `{"name":"structured"}`)
			if hasMember(w, "structuredContent") == old || !strings.Contains(ResultText(t, w), `"x":7`) {
				t.Errorf("structured output in %s (H4): %s", rev, w.Raw)
			}
			w, _ = c.Call(23, "tools/call", `{"name":"media"}`)
			blocks, _ := w.Result["content"].([]any)
			kinds := []string{}
			for _, b := range blocks {
				kinds = append(kinds, b.(M)["type"].(string))
			}
			want := map[string]string{"2024-11-05": "text,text", "2025-03-26": "audio,text", "2025-06-18": "audio,resource_link", "2025-11-25": "audio,resource_link"}[rev]
			if strings.Join(kinds, ",") != want {
				t.Errorf("content kinds in %s (H3): %v, want %s: %s", rev, kinds, want, w.Raw)
			}
			if w, _ := c.Call(24, "tools/call", `{"name":"tasky"}`); w.Code() != protocol.CodeInvalidParamsError || !strings.Contains(w.Error.Message, "requires the "+NotesID+" extension") {
				t.Errorf("a tool that requires an extension (H5): %s", w.Raw)
			}
			if w, _ := c.Call(25, "tools/call", `{"name":"nope"}`); w.Code() != protocol.CodeInvalidParamsError || !strings.Contains(w.Error.Message, "Unknown tool") {
				t.Errorf("an unknown tool: %s", w.Raw)
			}
			if w, _ := c.Call(26, "tools/call", `{"name":"fail"}`); !w.IsError() {
				t.Errorf("a tool execution error: %s", w.Raw)
			}
			if w, _ := c.Call(27, "tools/call", `{"name":"echo","arguments":{"text":1}}`); !w.IsError() {
				t.Errorf("arguments violating the inputSchema are a tool execution error: %s", w.Raw)
			}
			if w, _ := c.Call(28, "tools/call", `{"name":"count","inputResponses":{}}`); w.Code() != protocol.CodeInvalidParamsError {
				t.Errorf("L7 inputResponses: %s", w.Raw)
			}
			if w, _ := c.Call(29, "tools/call", `{"name":5}`); w.Code() != protocol.CodeInvalidParamsError || !strings.Contains(w.Error.Message, "name") {
				t.Errorf("L5 a bad name: %s", w.Raw)
			}
			if w, _ := c.Call(30, "tools/call", ""); w.Code() != protocol.CodeInvalidParamsError {
				t.Errorf("L5 no params: %s", w.Raw)
			}
			if f.calls.get("tasky") != 0 {
				t.Error("the tool that requires an extension ran")
			}
			// H13: what the handler sees of initialize.
			w, _ = c.Call(31, "tools/call", `{"name":"caps"}`)
			got := ResultText(t, w)
			if strings.Contains(got, "elicitation") == old || !containsAll(got, `"roots":{}`, `"sampling":{}`, "legacy-test") || strings.Contains(got, "listChanged") {
				t.Errorf("client capabilities in %s: %s", rev, got)
			}
			// AskInput: -32021 without the capability (elicitation does not
			// exist before 2025-06-18), else the bridge asks the client
			// (elicitation/create on stdout) and calls the handler again.
			c.Answer = func(req *Wire) string {
				return `{"jsonrpc":"2.0","id":` + req.Id() + `,"result":{"action":"accept","content":{"name":"x"}}}`
			}
			w, _ = c.Call(32, "tools/call", `{"name":"ask"}`)
			c.Answer = nil
			if old {
				if w.Code() != protocol.CodeMissingRequiredClientCapabilityError || len(c.Asked) != 0 {
					t.Errorf("AskInput in %s: %s, want -32021", rev, w.Raw)
				}
			} else if len(c.Asked) != 1 || c.Asked[0].Method() != "elicitation/create" || ResultText(t, w) != "hello" {
				t.Errorf("AskInput through the bridge in %s: asked %d, %s", rev, len(c.Asked), w.Raw)
			}

			// resources (L1125/server/resources.mdx)
			if w, _ := c.Call(40, "resources/read", `{"uri":"file:///a.txt"}`); !strings.Contains(string(w.Raw), `"text":"A"`) {
				t.Errorf("resources/read: %s", w.Raw)
			}
			w, _ = c.Call(41, "resources/read", `{"uri":"users://nobody/profile"}`)
			if w.Code() != -32002 || w.Data(t)["uri"] != "users://nobody/profile" {
				t.Errorf("a missing resource is -32002 (H6): %s", w.Raw)
			}
			if w, _ := c.Call(42, "resources/templates/list", ""); !strings.Contains(string(w.Raw), "users://{id}/profile") {
				t.Errorf("templates: %s", w.Raw)
			}
			if w, _ := c.Call(43, "resources/list", ""); !strings.Contains(string(w.Raw), "test://watched-resource") {
				t.Errorf("resources/list: %s", w.Raw)
			}

			// prompts and completion
			if w, _ := c.Call(44, "prompts/get", `{"name":"greet","arguments":{"who":"x"}}`); !strings.Contains(string(w.Raw), "Hello x") {
				t.Errorf("prompts/get: %s", w.Raw)
			}
			if w, _ := c.Call(45, "prompts/get", `{"name":"greet"}`); w.Code() != protocol.CodeInvalidParamsError {
				t.Errorf("a missing argument: %s", w.Raw)
			}
			if w, _ := c.Call(46, "prompts/list", ""); !strings.Contains(string(w.Raw), "greet") {
				t.Errorf("prompts/list: %s", w.Raw)
			}
			w, _ = c.Call(47, "completion/complete", `{"ref":{"type":"ref/prompt","name":"greet"},"argument":{"name":"who","value":"a"}}`)
			if !strings.Contains(string(w.Raw), `"values":["a-1","a-2"]`) {
				t.Errorf("completion/complete: %s", w.Raw)
			}

			// logging (L1125/server/utilities/logging.mdx): nothing before
			// setLevel, then the level applies to later requests.
			w, notes := c.Call(50, "tools/call", `{"name":"logs"}`)
			if len(notes) != 0 || !strings.HasPrefix(ResultText(t, w), "level=unset version="+rev+" legacy=true") {
				t.Errorf("logs before setLevel: %v %s", notes, w.Raw)
			}
			if w, _ := c.Call(51, "logging/setLevel", `{"level":"info"}`); string(w.Members["result"]) != "{}" {
				t.Errorf("setLevel answers {} exactly: %s", w.Raw)
			}
			if w, _ := c.Call(52, "logging/setLevel", `{"level":"loud"}`); w.Code() != protocol.CodeInvalidParamsError {
				t.Errorf("a bad level: %s", w.Raw)
			}
			w, notes = c.Call(53, "tools/call", `{"name":"logs"}`)
			if len(notes) != 1 || notes[0].Method() != "notifications/message" || notes[0].Params()["data"] != "info line" || !strings.HasPrefix(ResultText(t, w), "level=info") {
				t.Errorf("logs at info: %v %s", notes, w.Raw)
			}

			// progress (L1125/basic/utilities/progress.mdx)
			_, notes = c.Call(54, "tools/call", `{"name":"progress","_meta":{"progressToken":"p1"}}`)
			if len(notes) != 3 {
				t.Fatalf("progress notifications: %v", notes)
			}
			for _, n := range notes {
				p := n.Params()
				if p["progressToken"] != "p1" {
					t.Errorf("progress: %s", n.Raw)
				}
				if _, ok := p["message"]; ok == (rev == "2024-11-05") {
					t.Errorf("progress message in %s: %s", rev, n.Raw)
				}
			}

			// subscriptions (§2.4): updates for subscribed URIs only.
			if w, _ := c.Call(60, "resources/subscribe", `{"uri":"test://watched-resource"}`); string(w.Members["result"]) != "{}" {
				t.Errorf("subscribe: %s", w.Raw)
			}
			if w, _ := c.Call(61, "resources/subscribe", `{"uri":"test://nothing"}`); w.Code() != -32002 {
				t.Errorf("subscribe to an unknown URI is -32002: %s", w.Raw)
			}
			_ = f.NotifyResourceUpdated("test://other")
			_ = f.NotifyResourceUpdated("test://watched-resource")
			if n := c.Next(); n.Method() != "notifications/resources/updated" || n.Params()["uri"] != "test://watched-resource" {
				t.Errorf("resource update: %s", n.Raw)
			}
			if w, _ := c.Call(62, "resources/unsubscribe", `{"uri":"test://watched-resource"}`); string(w.Members["result"]) != "{}" {
				t.Errorf("unsubscribe: %s", w.Raw)
			}
			_ = f.NotifyResourceUpdated("test://watched-resource")
			// list changes (§2.4): no params.
			_ = f.NotifyToolsChanged()
			if n := c.Next(); n.Method() != "notifications/tools/list_changed" || n.HasParams() {
				t.Errorf("list change: %s", n.Raw)
			}

			// cancellation (L1125/basic/utilities/cancellation.mdx) and L2.
			c.Ss.Send(EraBody(70, "tools/call", `{"name":"wait"}`))
			if id := recvWithin(t, f.started); id != "70" {
				t.Fatalf("started %s", id)
			}
			if w, _ := c.Call(70, "ping", ""); w.Code() != protocol.CodeInvalidRequestError {
				t.Errorf("L2 a running id reused: %s", w.Raw)
			}
			c.Note("notifications/cancelled", `{"requestId":70,"reason":"user"}`)
			// L3: methods this revision's session does not serve.
			for i, m := range []string{"tasks/get", "server/discover", "subscriptions/listen", "nope/nope"} {
				if w, _ := c.Call(80+i, m, `{}`); w.Code() != protocol.CodeMethodNotFoundError {
					t.Errorf("%s: %s", m, w.Raw)
				}
			}
			rest, err := c.Ss.Close()
			if err != nil {
				t.Fatal(err)
			}
			for _, w := range rest {
				t.Errorf("after the last request: %s (a cancelled request sends nothing, R-CANCEL-01)", w.Raw)
			}
			if f.calls.get("wait cancelled") != 1 {
				t.Error("the cancelled handler did not see its context end")
			}
		})
	}
}

// recvWithin returns the next value on ch, failing after 5 s.
func recvWithin(t testing.TB, ch chan string) string {
	t.Helper()
	select {
	case v := <-ch:
		return v
	case <-time.After(5 * time.Second):
		t.Fatal("nothing within 5 s")
	}
	return ""
}

// TestStdioLegacyInterleaved checks that modern lines on a stream holding
// a legacy session stay stateless (R-STATE-01, §5): the session's log
// level, capabilities and version never reach them, their results keep the
// 2026-07-28 envelope, and the session is not disturbed by them.
func TestStdioLegacyInterleaved(t *testing.T) {
	f := newLegacyFixture(t, legacy.ErasBoth)
	c := StartLegacyStdio(t, f.Server, "2025-06-18")
	c.Open(`{"elicitation":{}}`)
	if w, _ := c.Call(1, "logging/setLevel", `{"level":"debug"}`); w.Error != nil {
		t.Fatal(w.Raw)
	}
	modern := func(id int, name string, mt M) *Wire {
		t.Helper()
		c.Ss.Send(string(Rpc(id, protocol.MethodToolsCall, WithMeta(mt, M{"name": name}))))
		for {
			w := c.Ss.Recv()
			if w.Method() != "" {
				t.Errorf("a notification for a modern request without logLevel: %s", w.Raw)
				continue
			}
			return w
		}
	}
	w := modern(2, "logs", Meta())
	if ResultText(t, w) != "level=unset version=2026-07-28 legacy=false" {
		t.Errorf("a modern request saw the session: %s", w.Raw)
	}
	if w.Result["resultType"] != "complete" || !hasMember(w, KeyInfo, "_meta") {
		t.Errorf("a modern result lost its envelope: %s", w.Raw)
	}
	// The session declared elicitation; a modern request that does not is
	// refused -32021 (R-META-02), and one that does gets input_required.
	if w := modern(3, "ask", Meta()); w.Code() != protocol.CodeMissingRequiredClientCapabilityError {
		t.Errorf("session capabilities reached a modern request: %s", w.Raw)
	}
	if w := modern(4, "ask", Meta(KeyCaps, M{"elicitation": M{}})); w.Result["resultType"] != "input_required" {
		t.Errorf("a modern AskInput: %s", w.Raw)
	}
	// The session is unchanged: its level is still debug.
	w, notes := c.Call(5, "tools/call", `{"name":"logs"}`)
	if len(notes) != 2 || ResultText(t, w) != "level=debug version=2025-06-18 legacy=true" {
		t.Errorf("the session after modern requests: %v %s", notes, w.Raw)
	}
	// A modern request reusing a legacy id is served (modern requests are
	// not the session's; L2 concerns session requests).
	c.Ss.Send(string(Rpc(6, protocol.MethodServerDiscover, Params(nil))))
	if w := c.Ss.Recv(); w.Error != nil || w.Result["supportedVersions"] == nil {
		t.Errorf("server/discover after initialize: %s", w.Raw)
	}
}

// TestStdioLegacyNegotiation checks initialize's negotiation (§1.10) and
// its refusals: a session opens only on success.
func TestStdioLegacyNegotiation(t *testing.T) {
	cases := []struct {
		name      string
		mode      legacy.Eras
		opts      []any
		params    string
		version   string // negotiated; "" for a refusal
		code      int64
		requested string
	}{
		{name: "a served version", mode: legacy.ErasBoth, params: InitParams("2025-03-26", ""), version: "2025-03-26"},
		{name: "an unknown older version gets the newest", mode: legacy.ErasBoth, params: InitParams("2024-10-07", ""), version: "2025-11-25"},
		{name: "a future version gets the newest", mode: legacy.ErasBoth, params: InitParams("2027-01-01", ""), version: "2025-11-25"},
		{name: "§1.5 2026-07-28 inside initialize is refused", mode: legacy.ErasBoth, params: InitParams("2026-07-28", ""), code: protocol.CodeInvalidParamsError, requested: "2026-07-28"},
		{name: "2026-07-28 with DowngradeModernInitialize", mode: legacy.ErasBoth, opts: []any{Legacy(legacy.Config{DowngradeModernInitialize: true})}, params: InitParams("2026-07-28", ""), version: "2025-11-25"},
		{name: "§1.9 2026-07-28 under ErasLegacy is negotiated down", mode: legacy.ErasLegacy, params: InitParams("2026-07-28", ""), version: "2025-11-25"},
		{name: "a version narrowed out", mode: legacy.ErasBoth, opts: []any{Legacy(legacy.Config{Versions: []string{"2025-06-18"}})}, params: InitParams("2025-11-25", ""), version: "2025-06-18"},
		{name: "§2.1 clientInfo is required", mode: legacy.ErasBoth, params: `{"protocolVersion":"2025-11-25","capabilities":{}}`, code: protocol.CodeInvalidParamsError},
		{name: "§2.1 no params", mode: legacy.ErasBoth, params: "", code: protocol.CodeInvalidParamsError},
		{name: "§2.1 a duplicate member", mode: legacy.ErasBoth, params: `{"protocolVersion":"2025-11-25","capabilities":{},"capabilities":{},"clientInfo":{"name":"c","version":"1"}}`, code: protocol.CodeInvalidRequestError},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			f := newLegacyFixture(t, c.mode, c.opts...)
			ss := StartStdio(t, f.Server)
			ss.Send(EraBody(1, "initialize", c.params))
			w := ss.Recv()
			if c.version != "" {
				if w.Result["protocolVersion"] != c.version {
					t.Fatalf("negotiated %s, want %s", w.Raw, c.version)
				}
				ss.Send(EraNote("notifications/initialized", ""))
				ss.Send(EraBody(2, "tools/call", `{"name":"count"}`))
				if w := ss.Recv(); ResultText(t, w) != "counted" {
					t.Errorf("the session does not serve: %s", w.Raw)
				}
				return
			}
			if w.Code() != c.code {
				t.Fatalf("got %s, want code %d", w.Raw, c.code)
			}
			if c.requested != "" && w.Data(t)["requested"] != c.requested {
				t.Errorf("data.requested: %s", w.Raw)
			}
			// No session was opened: a legacy request is still T7.
			ss.Send(EraBody(2, "tools/list", ""))
			if w := ss.Recv(); w.Code() != protocol.CodeInvalidParamsError || !strings.Contains(w.Error.Message, "send initialize first") {
				t.Errorf("a session was opened after a refused initialize: %s", w.Raw)
			}
		})
	}
}

// TestStdioLegacyOnly checks ErasLegacy on stdio (§1.8 T13, §1.9): after
// initialize, a modern request is -32600 and server/discover -32601.
func TestStdioLegacyOnly(t *testing.T) {
	f := newLegacyFixture(t, legacy.ErasLegacy)
	c := StartLegacyStdio(t, f.Server, "2025-11-25")
	c.Open("")
	c.Ss.Send(string(Rpc(1, protocol.MethodToolsList, Params(nil))))
	if w := c.Ss.Recv(); w.Code() != protocol.CodeInvalidRequestError || !strings.Contains(w.Error.Message, "2026-07-28 requests are not served") {
		t.Errorf("T13: %s", w.Raw)
	}
	c.Ss.Send(string(Rpc(2, protocol.MethodServerDiscover, Params(nil))))
	if w := c.Ss.Recv(); w.Code() != protocol.CodeMethodNotFoundError {
		t.Errorf("server/discover: %s", w.Raw)
	}
	if w, _ := c.Call(3, "tools/call", `{"name":"count"}`); ResultText(t, w) != "counted" {
		t.Errorf("the session: %s", w.Raw)
	}
	// T9: a response line in a session is never answered.
	c.Ss.Send(`{"jsonrpc":"2.0","id":"mcpwire-nope","result":{}}`)
	if w, _ := c.Call(4, "ping", ""); w.Error != nil {
		t.Errorf("ping after a response line: %s", w.Raw)
	}
}
