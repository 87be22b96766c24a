package server

import (
	"strings"
	"testing"
	"time"

	"github.com/mcpwire/mcpwire/protocol"
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
			f := newLegacyFixture(t, ErasBoth, WithPageSize(3))
			c := startLegacyStdio(t, f.Server, rev)
			old := rev == "2024-11-05" || rev == "2025-03-26" // before 2025-06-18

			// initialize (§2.1): the negotiated version, capabilities from
			// the registrations, serverInfo, no _meta.
			w, _ := c.call(0, "initialize", initParams(rev, `{"roots":{"listChanged":true},"sampling":{},"elicitation":{}}`))
			if w.Result["protocolVersion"] != rev {
				t.Fatalf("initialize: %s", w.raw)
			}
			caps, _ := w.Result["capabilities"].(M)
			for _, k := range []string{"tools", "prompts", "resources", "logging"} {
				if _, ok := caps[k]; !ok {
					t.Errorf("capabilities lack %s: %s", k, w.raw)
				}
			}
			if _, ok := caps["completions"]; ok == (rev == "2024-11-05") {
				t.Errorf("completions capability for %s: %s", rev, w.raw)
			}
			if res, _ := caps["resources"].(M); res["subscribe"] != true || res["listChanged"] != true {
				t.Errorf("resources capability %v", res)
			}
			for _, k := range []string{"tasks", "experimental", "extensions"} {
				if _, ok := caps[k]; ok {
					t.Errorf("capabilities declare %s: %s", k, w.raw)
				}
			}
			if info, _ := w.Result["serverInfo"].(M); info["name"] != "test" || info["version"] != "1.0.0" {
				t.Errorf("serverInfo %v", w.Result["serverInfo"])
			}
			if hasMember(w, "_meta") {
				t.Errorf("initialize result with _meta: %s", w.raw)
			}

			// L1: only ping before notifications/initialized (§2.2).
			if w, _ := c.call(1, "tools/list", ""); w.code() != protocol.CodeInvalidRequestError || !strings.Contains(w.Error.Message, "not initialized") {
				t.Errorf("a request before initialized: %s", w.raw)
			}
			if w, _ := c.call(2, "ping", ""); string(w.members["result"]) != "{}" {
				t.Errorf("ping before initialized: %s", w.raw)
			}
			c.note("notifications/initialized", "")
			c.note("notifications/initialized", "") // a second one changes nothing
			// T5: one session per process.
			if w, _ := c.call(3, "initialize", initParams(rev, "")); w.code() != protocol.CodeInvalidRequestError {
				t.Errorf("initialize twice: %s", w.raw)
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
				w, _ := c.call(10+page, "tools/list", p)
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
			if w, _ := c.call(20, "tools/list", `{"cursor":"not-a-cursor"}`); w.code() != protocol.CodeInvalidParamsError {
				t.Errorf("a bad cursor: %s", w.raw)
			}

			// tools/call
			if w, _ := c.call(21, "tools/call", `{"name":"echo","arguments":{"text":"hi"}}`); resultText(t, w) != "hi" {
				t.Errorf("echo: %s", w.raw)
			}
			w, _ = c.call(22, "tools/call", `{"name":"structured"}`)
			if hasMember(w, "structuredContent") == old || !strings.Contains(resultText(t, w), `"x":7`) {
				t.Errorf("structured output in %s (H4): %s", rev, w.raw)
			}
			w, _ = c.call(23, "tools/call", `{"name":"media"}`)
			blocks, _ := w.Result["content"].([]any)
			kinds := []string{}
			for _, b := range blocks {
				kinds = append(kinds, b.(M)["type"].(string))
			}
			want := map[string]string{"2024-11-05": "text,text", "2025-03-26": "audio,text", "2025-06-18": "audio,resource_link", "2025-11-25": "audio,resource_link"}[rev]
			if strings.Join(kinds, ",") != want {
				t.Errorf("content kinds in %s (H3): %v, want %s: %s", rev, kinds, want, w.raw)
			}
			if w, _ := c.call(24, "tools/call", `{"name":"tasky"}`); w.code() != protocol.CodeInvalidParamsError || !strings.Contains(w.Error.Message, "requires the "+notesID+" extension") {
				t.Errorf("a tool that requires an extension (H5): %s", w.raw)
			}
			if w, _ := c.call(25, "tools/call", `{"name":"nope"}`); w.code() != protocol.CodeInvalidParamsError || !strings.Contains(w.Error.Message, "Unknown tool") {
				t.Errorf("an unknown tool: %s", w.raw)
			}
			if w, _ := c.call(26, "tools/call", `{"name":"fail"}`); !w.isError() {
				t.Errorf("a tool execution error: %s", w.raw)
			}
			if w, _ := c.call(27, "tools/call", `{"name":"echo","arguments":{"text":1}}`); !w.isError() {
				t.Errorf("arguments violating the inputSchema are a tool execution error: %s", w.raw)
			}
			if w, _ := c.call(28, "tools/call", `{"name":"count","inputResponses":{}}`); w.code() != protocol.CodeInvalidParamsError {
				t.Errorf("L7 inputResponses: %s", w.raw)
			}
			if w, _ := c.call(29, "tools/call", `{"name":5}`); w.code() != protocol.CodeInvalidParamsError || !strings.Contains(w.Error.Message, "name") {
				t.Errorf("L5 a bad name: %s", w.raw)
			}
			if w, _ := c.call(30, "tools/call", ""); w.code() != protocol.CodeInvalidParamsError {
				t.Errorf("L5 no params: %s", w.raw)
			}
			if f.calls.get("tasky") != 0 {
				t.Error("the tool that requires an extension ran")
			}
			// H13: what the handler sees of initialize.
			w, _ = c.call(31, "tools/call", `{"name":"caps"}`)
			got := resultText(t, w)
			if strings.Contains(got, "elicitation") == old || !containsAll(got, `"roots":{}`, `"sampling":{}`, "legacy-test") || strings.Contains(got, "listChanged") {
				t.Errorf("client capabilities in %s: %s", rev, got)
			}
			// AskInput: -32021 without the capability (elicitation does not
			// exist before 2025-06-18), else the bridge asks the client
			// (elicitation/create on stdout) and calls the handler again.
			c.answer = func(req *wire) string {
				return `{"jsonrpc":"2.0","id":` + req.id() + `,"result":{"action":"accept","content":{"name":"x"}}}`
			}
			w, _ = c.call(32, "tools/call", `{"name":"ask"}`)
			c.answer = nil
			if old {
				if w.code() != protocol.CodeMissingRequiredClientCapabilityError || len(c.asked) != 0 {
					t.Errorf("AskInput in %s: %s, want -32021", rev, w.raw)
				}
			} else if len(c.asked) != 1 || c.asked[0].method() != "elicitation/create" || resultText(t, w) != "hello" {
				t.Errorf("AskInput through the bridge in %s: asked %d, %s", rev, len(c.asked), w.raw)
			}

			// resources (L1125/server/resources.mdx)
			if w, _ := c.call(40, "resources/read", `{"uri":"file:///a.txt"}`); !strings.Contains(string(w.raw), `"text":"A"`) {
				t.Errorf("resources/read: %s", w.raw)
			}
			w, _ = c.call(41, "resources/read", `{"uri":"users://nobody/profile"}`)
			if w.code() != -32002 || w.data(t)["uri"] != "users://nobody/profile" {
				t.Errorf("a missing resource is -32002 (H6): %s", w.raw)
			}
			if w, _ := c.call(42, "resources/templates/list", ""); !strings.Contains(string(w.raw), "users://{id}/profile") {
				t.Errorf("templates: %s", w.raw)
			}
			if w, _ := c.call(43, "resources/list", ""); !strings.Contains(string(w.raw), "test://watched-resource") {
				t.Errorf("resources/list: %s", w.raw)
			}

			// prompts and completion
			if w, _ := c.call(44, "prompts/get", `{"name":"greet","arguments":{"who":"x"}}`); !strings.Contains(string(w.raw), "Hello x") {
				t.Errorf("prompts/get: %s", w.raw)
			}
			if w, _ := c.call(45, "prompts/get", `{"name":"greet"}`); w.code() != protocol.CodeInvalidParamsError {
				t.Errorf("a missing argument: %s", w.raw)
			}
			if w, _ := c.call(46, "prompts/list", ""); !strings.Contains(string(w.raw), "greet") {
				t.Errorf("prompts/list: %s", w.raw)
			}
			w, _ = c.call(47, "completion/complete", `{"ref":{"type":"ref/prompt","name":"greet"},"argument":{"name":"who","value":"a"}}`)
			if !strings.Contains(string(w.raw), `"values":["a-1","a-2"]`) {
				t.Errorf("completion/complete: %s", w.raw)
			}

			// logging (L1125/server/utilities/logging.mdx): nothing before
			// setLevel, then the level applies to later requests.
			w, notes := c.call(50, "tools/call", `{"name":"logs"}`)
			if len(notes) != 0 || !strings.HasPrefix(resultText(t, w), "level=unset version="+rev+" legacy=true") {
				t.Errorf("logs before setLevel: %v %s", notes, w.raw)
			}
			if w, _ := c.call(51, "logging/setLevel", `{"level":"info"}`); string(w.members["result"]) != "{}" {
				t.Errorf("setLevel answers {} exactly: %s", w.raw)
			}
			if w, _ := c.call(52, "logging/setLevel", `{"level":"loud"}`); w.code() != protocol.CodeInvalidParamsError {
				t.Errorf("a bad level: %s", w.raw)
			}
			w, notes = c.call(53, "tools/call", `{"name":"logs"}`)
			if len(notes) != 1 || notes[0].method() != "notifications/message" || notes[0].params()["data"] != "info line" || !strings.HasPrefix(resultText(t, w), "level=info") {
				t.Errorf("logs at info: %v %s", notes, w.raw)
			}

			// progress (L1125/basic/utilities/progress.mdx)
			_, notes = c.call(54, "tools/call", `{"name":"progress","_meta":{"progressToken":"p1"}}`)
			if len(notes) != 3 {
				t.Fatalf("progress notifications: %v", notes)
			}
			for _, n := range notes {
				p := n.params()
				if p["progressToken"] != "p1" {
					t.Errorf("progress: %s", n.raw)
				}
				if _, ok := p["message"]; ok == (rev == "2024-11-05") {
					t.Errorf("progress message in %s: %s", rev, n.raw)
				}
			}

			// subscriptions (§2.4): updates for subscribed URIs only.
			if w, _ := c.call(60, "resources/subscribe", `{"uri":"test://watched-resource"}`); string(w.members["result"]) != "{}" {
				t.Errorf("subscribe: %s", w.raw)
			}
			if w, _ := c.call(61, "resources/subscribe", `{"uri":"test://nothing"}`); w.code() != -32002 {
				t.Errorf("subscribe to an unknown URI is -32002: %s", w.raw)
			}
			_ = f.NotifyResourceUpdated("test://other")
			_ = f.NotifyResourceUpdated("test://watched-resource")
			if n := c.next(); n.method() != "notifications/resources/updated" || n.params()["uri"] != "test://watched-resource" {
				t.Errorf("resource update: %s", n.raw)
			}
			if w, _ := c.call(62, "resources/unsubscribe", `{"uri":"test://watched-resource"}`); string(w.members["result"]) != "{}" {
				t.Errorf("unsubscribe: %s", w.raw)
			}
			_ = f.NotifyResourceUpdated("test://watched-resource")
			// list changes (§2.4): no params.
			_ = f.NotifyToolsChanged()
			if n := c.next(); n.method() != "notifications/tools/list_changed" || n.hasParams() {
				t.Errorf("list change: %s", n.raw)
			}

			// cancellation (L1125/basic/utilities/cancellation.mdx) and L2.
			c.ss.send(eraBody(70, "tools/call", `{"name":"wait"}`))
			if id := recvWithin(t, f.started); id != "70" {
				t.Fatalf("started %s", id)
			}
			if w, _ := c.call(70, "ping", ""); w.code() != protocol.CodeInvalidRequestError {
				t.Errorf("L2 a running id reused: %s", w.raw)
			}
			c.note("notifications/cancelled", `{"requestId":70,"reason":"user"}`)
			// L3: methods this revision's session does not serve.
			for i, m := range []string{"tasks/get", "server/discover", "subscriptions/listen", "nope/nope"} {
				if w, _ := c.call(80+i, m, `{}`); w.code() != protocol.CodeMethodNotFoundError {
					t.Errorf("%s: %s", m, w.raw)
				}
			}
			rest, err := c.ss.close()
			if err != nil {
				t.Fatal(err)
			}
			for _, w := range rest {
				t.Errorf("after the last request: %s (a cancelled request sends nothing, R-CANCEL-01)", w.raw)
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

func (w *wire) hasParams() bool { _, ok := w.members["params"]; return ok }

// TestStdioLegacyInterleaved checks that modern lines on a stream holding
// a legacy session stay stateless (R-STATE-01, §5): the session's log
// level, capabilities and version never reach them, their results keep the
// 2026-07-28 envelope, and the session is not disturbed by them.
func TestStdioLegacyInterleaved(t *testing.T) {
	f := newLegacyFixture(t, ErasBoth)
	c := startLegacyStdio(t, f.Server, "2025-06-18")
	c.open(`{"elicitation":{}}`)
	if w, _ := c.call(1, "logging/setLevel", `{"level":"debug"}`); w.Error != nil {
		t.Fatal(w.raw)
	}
	modern := func(id int, name string, mt M) *wire {
		t.Helper()
		c.ss.send(string(rpc(id, protocol.MethodToolsCall, withMeta(mt, M{"name": name}))))
		for {
			w := c.ss.recv()
			if w.method() != "" {
				t.Errorf("a notification for a modern request without logLevel: %s", w.raw)
				continue
			}
			return w
		}
	}
	w := modern(2, "logs", meta())
	if resultText(t, w) != "level=unset version=2026-07-28 legacy=false" {
		t.Errorf("a modern request saw the session: %s", w.raw)
	}
	if w.Result["resultType"] != "complete" || !hasMember(w, keyInfo, "_meta") {
		t.Errorf("a modern result lost its envelope: %s", w.raw)
	}
	// The session declared elicitation; a modern request that does not is
	// refused -32021 (R-META-02), and one that does gets input_required.
	if w := modern(3, "ask", meta()); w.code() != protocol.CodeMissingRequiredClientCapabilityError {
		t.Errorf("session capabilities reached a modern request: %s", w.raw)
	}
	if w := modern(4, "ask", meta(keyCaps, M{"elicitation": M{}})); w.Result["resultType"] != "input_required" {
		t.Errorf("a modern AskInput: %s", w.raw)
	}
	// The session is unchanged: its level is still debug.
	w, notes := c.call(5, "tools/call", `{"name":"logs"}`)
	if len(notes) != 2 || resultText(t, w) != "level=debug version=2025-06-18 legacy=true" {
		t.Errorf("the session after modern requests: %v %s", notes, w.raw)
	}
	// A modern request reusing a legacy id is served (modern requests are
	// not the session's; L2 concerns session requests).
	c.ss.send(string(rpc(6, protocol.MethodServerDiscover, params(nil))))
	if w := c.ss.recv(); w.Error != nil || w.Result["supportedVersions"] == nil {
		t.Errorf("server/discover after initialize: %s", w.raw)
	}
}

// TestStdioLegacyNegotiation checks initialize's negotiation (§1.10) and
// its refusals: a session opens only on success.
func TestStdioLegacyNegotiation(t *testing.T) {
	cases := []struct {
		name      string
		mode      Eras
		opts      []Option
		params    string
		version   string // negotiated; "" for a refusal
		code      int64
		requested string
	}{
		{name: "a served version", mode: ErasBoth, params: initParams("2025-03-26", ""), version: "2025-03-26"},
		{name: "an unknown older version gets the newest", mode: ErasBoth, params: initParams("2024-10-07", ""), version: "2025-11-25"},
		{name: "a future version gets the newest", mode: ErasBoth, params: initParams("2027-01-01", ""), version: "2025-11-25"},
		{name: "§1.5 2026-07-28 inside initialize is refused", mode: ErasBoth, params: initParams("2026-07-28", ""), code: protocol.CodeInvalidParamsError, requested: "2026-07-28"},
		{name: "2026-07-28 with DowngradeModernInitialize", mode: ErasBoth, opts: []Option{WithLegacy(LegacyConfig{DowngradeModernInitialize: true})}, params: initParams("2026-07-28", ""), version: "2025-11-25"},
		{name: "§1.9 2026-07-28 under ErasLegacy is negotiated down", mode: ErasLegacy, params: initParams("2026-07-28", ""), version: "2025-11-25"},
		{name: "a version narrowed out", mode: ErasBoth, opts: []Option{WithLegacy(LegacyConfig{Versions: []string{"2025-06-18"}})}, params: initParams("2025-11-25", ""), version: "2025-06-18"},
		{name: "§2.1 clientInfo is required", mode: ErasBoth, params: `{"protocolVersion":"2025-11-25","capabilities":{}}`, code: protocol.CodeInvalidParamsError},
		{name: "§2.1 no params", mode: ErasBoth, params: "", code: protocol.CodeInvalidParamsError},
		{name: "§2.1 a duplicate member", mode: ErasBoth, params: `{"protocolVersion":"2025-11-25","capabilities":{},"capabilities":{},"clientInfo":{"name":"c","version":"1"}}`, code: protocol.CodeInvalidRequestError},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			f := newLegacyFixture(t, c.mode, c.opts...)
			ss := startStdio(t, f.Server)
			ss.send(eraBody(1, "initialize", c.params))
			w := ss.recv()
			if c.version != "" {
				if w.Result["protocolVersion"] != c.version {
					t.Fatalf("negotiated %s, want %s", w.raw, c.version)
				}
				ss.send(eraNote("notifications/initialized", ""))
				ss.send(eraBody(2, "tools/call", `{"name":"count"}`))
				if w := ss.recv(); resultText(t, w) != "counted" {
					t.Errorf("the session does not serve: %s", w.raw)
				}
				return
			}
			if w.code() != c.code {
				t.Fatalf("got %s, want code %d", w.raw, c.code)
			}
			if c.requested != "" && w.data(t)["requested"] != c.requested {
				t.Errorf("data.requested: %s", w.raw)
			}
			// No session was opened: a legacy request is still T7.
			ss.send(eraBody(2, "tools/list", ""))
			if w := ss.recv(); w.code() != protocol.CodeInvalidParamsError || !strings.Contains(w.Error.Message, "send initialize first") {
				t.Errorf("a session was opened after a refused initialize: %s", w.raw)
			}
		})
	}
}

// TestStdioLegacyOnly checks ErasLegacy on stdio (§1.8 T13, §1.9): after
// initialize, a modern request is -32600 and server/discover -32601.
func TestStdioLegacyOnly(t *testing.T) {
	f := newLegacyFixture(t, ErasLegacy)
	c := startLegacyStdio(t, f.Server, "2025-11-25")
	c.open("")
	c.ss.send(string(rpc(1, protocol.MethodToolsList, params(nil))))
	if w := c.ss.recv(); w.code() != protocol.CodeInvalidRequestError || !strings.Contains(w.Error.Message, "2026-07-28 requests are not served") {
		t.Errorf("T13: %s", w.raw)
	}
	c.ss.send(string(rpc(2, protocol.MethodServerDiscover, params(nil))))
	if w := c.ss.recv(); w.code() != protocol.CodeMethodNotFoundError {
		t.Errorf("server/discover: %s", w.raw)
	}
	if w, _ := c.call(3, "tools/call", `{"name":"count"}`); resultText(t, w) != "counted" {
		t.Errorf("the session: %s", w.raw)
	}
	// T9: a response line in a session is never answered.
	c.ss.send(`{"jsonrpc":"2.0","id":"mcpwire-nope","result":{}}`)
	if w, _ := c.call(4, "ping", ""); w.Error != nil {
		t.Errorf("ping after a response line: %s", w.raw)
	}
}
