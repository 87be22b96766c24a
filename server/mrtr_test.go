package server_test

import (
	"context"
	"crypto/sha256"
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	. "github.com/mcpwire/mcpwire/server/internal/testkit"
	"github.com/mcpwire/mcpwire/server/streamhttp"

	"github.com/mcpwire/mcpwire/protocol"
	"github.com/mcpwire/mcpwire/server"
)

func urlElicit() protocol.InputRequest {
	return protocol.InputRequest{Value: &protocol.ElicitRequest{Params: protocol.ElicitRequestParams{Value: &protocol.ElicitRequestURLParams{
		Message: "Sign in", URL: "https://example.com/auth",
	}}}}
}

func sampleWithTools() protocol.InputRequest {
	r := server.SampleText("pick a tool", 10)
	r.Value.(*protocol.CreateMessageRequest).Params.ToolChoice = &protocol.ToolChoice{}
	return r
}

// TestMRTRCapabilities checks that an input request needing a capability
// the client did not declare on this request is never sent: -32021 with
// data.requiredCapabilities (R-META-02, R-META-03, R-MRTR-05, R-ELIC-02).
func TestMRTRCapabilities(t *testing.T) {
	s := NewServer(t)
	kinds := map[string]func() protocol.InputRequest{
		"form": func() protocol.InputRequest {
			return server.ElicitForm("Name?", map[string]protocol.PrimitiveSchemaDefinition{"n": server.StringField("name")}, "n")
		},
		"url":      urlElicit,
		"sampling": func() protocol.InputRequest { return server.SampleText("hi", 10) },
		"sampTool": sampleWithTools,
		"roots":    server.ListRoots,
	}
	AddTool(t, s, `{"name":"need","inputSchema":{"type":"object","properties":{"kind":{"type":"string"}}}}`,
		func(_ context.Context, r *server.Request, args json.RawMessage) (*protocol.CallToolResult, error) {
			var a struct{ Kind string }
			_ = json.Unmarshal(args, &a)
			return nil, r.AskInput(map[string]protocol.InputRequest{"in": kinds[a.Kind]()}, nil)
		})
	// The same request built by hand, bypassing AskInput, gets the same check.
	AddTool(t, s, `{"name":"byhand","inputSchema":{"type":"object","properties":{"kind":{"type":"string"}}}}`,
		func(_ context.Context, _ *server.Request, args json.RawMessage) (*protocol.CallToolResult, error) {
			var a struct{ Kind string }
			_ = json.Unmarshal(args, &a)
			return nil, &server.InputRequired{Requests: map[string]protocol.InputRequest{"in": kinds[a.Kind]()}}
		})
	h := Handler(s, streamhttp.Options{})
	cases := []struct {
		name     string
		caps     M
		kind     string
		required string // JSON of data.requiredCapabilities; "" for input_required
	}{
		{"R-META-03 form elicitation, no capabilities", M{}, "form", `{"elicitation":{}}`},
		{"R-ELIC-02 form elicitation, elicitation {} (form only)", M{"elicitation": M{}}, "form", ""},
		{"R-ELIC-02 form elicitation, form declared", M{"elicitation": M{"form": M{}}}, "form", ""},
		{"R-ELIC-02 form elicitation, only url declared", M{"elicitation": M{"url": M{}}}, "form", `{"elicitation":{"form":{}}}`},
		{"R-ELIC-02 url elicitation, elicitation {} is form only", M{"elicitation": M{}}, "url", `{"elicitation":{"url":{}}}`},
		{"R-ELIC-02 url elicitation, url declared", M{"elicitation": M{"url": M{}}}, "url", ""},
		{"R-MRTR-05 sampling without the capability", M{"elicitation": M{}}, "sampling", `{"sampling":{}}`},
		{"R-MRTR-05 sampling declared", M{"sampling": M{}}, "sampling", ""},
		{"R-MRTR-05 tool sampling without sampling.tools", M{"sampling": M{}}, "sampTool", `{"sampling":{"tools":{}}}`},
		{"R-MRTR-05 tool sampling with sampling.tools", M{"sampling": M{"tools": M{}}}, "sampTool", ""},
		{"R-MRTR-05 roots without the capability", M{"sampling": M{}}, "roots", `{"roots":{}}`},
		{"R-MRTR-05 roots declared", M{"roots": M{}}, "roots", ""},
	}
	for _, c := range cases {
		for _, tool := range []string{"need", "byhand"} {
			t.Run(c.name+" ("+tool+")", func(t *testing.T) {
				rec := Post(t, h, Rpc(1, protocol.MethodToolsCall, WithMeta(Meta(KeyCaps, c.caps), M{"name": tool, "arguments": M{"kind": c.kind}})), nil)
				w := Single(t, rec)
				if c.required == "" {
					if w.Error != nil || w.Result["resultType"] != "input_required" {
						t.Fatalf("want input_required: %s", w.Raw)
					}
					return
				}
				if w.Code() != protocol.CodeMissingRequiredClientCapabilityError || rec.Code != http.StatusBadRequest {
					t.Fatalf("want 400 -32021: %d %s", rec.Code, w.Raw)
				}
				got, _ := json.Marshal(w.Data(t)["requiredCapabilities"])
				if !jsonEq(t, got, []byte(c.required)) {
					t.Errorf("requiredCapabilities %s, want %s", got, c.required)
				}
			})
		}
	}
}

// TestMRTRRoundTrip checks the input_required shape and the retry
// (R-MRTR-03, R-MRTR-04, R-CACHE-02, R-BASE-06) on the three methods that
// may return it (R-MRTR-02).
func TestMRTRRoundTrip(t *testing.T) {
	m := NewMRTR(t, streamhttp.Options{})
	for _, c := range []struct{ method, target string }{
		{protocol.MethodToolsCall, "ask"},
		{protocol.MethodPromptsGet, "ask"},
		{protocol.MethodResourcesRead, "mrtr://ask"},
	} {
		t.Run(c.method, func(t *testing.T) {
			p := WithMeta(ElicitCaps, nil)
			if c.method == protocol.MethodResourcesRead {
				p["uri"] = c.target
			} else {
				p["name"] = c.target
			}
			w := Call(t, m.H, 1, c.method, p)
			if w.Result["resultType"] != "input_required" {
				t.Fatalf("R-BASE-06: resultType %v", w.Result["resultType"])
			}
			if m.Seen.Load() != `"" nil=true` {
				t.Errorf("State() on a first request: %v", m.Seen.Load())
			}
			reqs, _ := w.Result["inputRequests"].(M)
			in, _ := reqs["name"].(M)
			if in["method"] != "elicitation/create" || in["params"] == nil {
				t.Errorf("R-MRTR-04: input request %v", in)
			}
			if _, bad := in["jsonrpc"]; bad {
				t.Error("R-MRTR-04: input request carries jsonrpc")
			}
			if _, bad := in["id"]; bad {
				t.Error("R-MRTR-04: input request carries id")
			}
			st, _ := w.Result["requestState"].(string)
			if st == "" {
				t.Fatal("R-MRTR-03: no requestState")
			}
			if strings.Contains(st, "asked") {
				t.Error("R-MRTR-06: requestState shows the handler's payload in clear")
			}
			for _, k := range []string{"ttlMs", "cacheScope"} {
				if _, bad := w.Result[k]; bad {
					t.Errorf("R-CACHE-02: %s on input_required", k)
				}
			}
			if _, ok := w.Result["_meta"].(M)[KeyInfo]; !ok {
				t.Error("R-META-04: serverInfo missing on input_required")
			}
			before := m.Calls.Load()
			w, _ = m.Retry(t, c.method, c.target, st, Accepted, nil)
			if w.Error != nil || w.Result["resultType"] != "complete" {
				t.Fatalf("retry: %s", w.Raw)
			}
			if !strings.Contains(string(w.Raw), "hello Ann state=asked:") {
				t.Errorf("handler did not see its state and the response: %s", w.Raw)
			}
			if m.Calls.Load() != before+1 {
				t.Error("retry did not reach the handler once")
			}
		})
	}
}

// TestMRTRStateRejected checks that every state that fails verification
// is -32602 and never reaches the handler (R-MRTR-06, R-MRTR-07, R-MRTR-08).
func TestMRTRStateRejected(t *testing.T) {
	m := NewMRTR(t, streamhttp.Options{})
	st := m.First(t, nil)
	reject := func(t *testing.T, method, target string, state any, why string) {
		t.Helper()
		before := m.Calls.Load()
		w, status := m.Retry(t, method, target, state, Accepted, nil)
		if w.Code() != protocol.CodeInvalidParamsError || status != http.StatusBadRequest {
			t.Errorf("%s: want 400 -32602, got %d %s", why, status, w.Raw)
		}
		if w.Id() != "2" {
			t.Errorf("%s: id %q", why, w.Id())
		}
		if m.Calls.Load() != before {
			t.Errorf("%s: the handler was called", why)
		}
	}
	t.Run("R-MRTR-07 tampered at every position", func(t *testing.T) {
		for i := 0; i < len(st); i++ {
			b := []byte(st)
			if b[i] == 'A' {
				b[i] = 'B'
			} else {
				b[i] = 'A'
			}
			reject(t, protocol.MethodToolsCall, "ask", string(b), fmt.Sprintf("byte %d", i))
		}
	})
	t.Run("R-MRTR-07 truncated", func(t *testing.T) {
		for _, n := range []int{len(st) - 1, len(st) - 4, len(st) / 2, 1, 0} {
			reject(t, protocol.MethodToolsCall, "ask", st[:n], fmt.Sprintf("first %d bytes", n))
		}
	})
	t.Run("R-MRTR-07 extended or re-encoded", func(t *testing.T) {
		reject(t, protocol.MethodToolsCall, "ask", st+"A", "one more byte")
		reject(t, protocol.MethodToolsCall, "ask", st+"=", "padding")
		reject(t, protocol.MethodToolsCall, "ask", st[:10]+"\n"+st[10:], "line break")
		reject(t, protocol.MethodToolsCall, "ask", strings.ToUpper(st), "upper-cased")
	})
	t.Run("R-MRTR-06 garbage on a first request", func(t *testing.T) {
		reject(t, protocol.MethodToolsCall, "ask", "not-a-token", "garbage")
		reject(t, protocol.MethodToolsCall, "ask", strings.Repeat("A", 80), "well-formed length, invalid")
	})
	t.Run("R-MRTR-08 state for another tool", func(t *testing.T) {
		reject(t, protocol.MethodToolsCall, "other", st, "other tool")
	})
	t.Run("R-MRTR-08 state for another method", func(t *testing.T) {
		reject(t, protocol.MethodPromptsGet, "ask", st, "prompts/get")
		reject(t, protocol.MethodResourcesRead, "mrtr://ask", st, "resources/read")
	})
	t.Run("R-MRTR-11 requestState not a string", func(t *testing.T) {
		reject(t, protocol.MethodToolsCall, "ask", 42, "number")
		reject(t, protocol.MethodToolsCall, "ask", nil, "null")
	})
	t.Run("the original still opens", func(t *testing.T) {
		w, _ := m.Retry(t, protocol.MethodToolsCall, "ask", st, Accepted, nil)
		if w.Error != nil || !strings.Contains(string(w.Raw), "hello Ann") {
			t.Errorf("%s", w.Raw)
		}
	})
}

// TestMRTRPrincipal checks the state is bound to the authenticated
// principal (R-MRTR-08, R-ELIC-09).
func TestMRTRPrincipal(t *testing.T) {
	m := NewMRTR(t, streamhttp.Options{Authenticate: func(r *http.Request) (string, error) {
		return r.Header.Get("X-User"), nil
	}})
	as := func(user string) func(*http.Request) { return SetHeader("X-User", user) }
	st := m.First(t, as("alice"))
	before := m.Calls.Load()
	w, _ := m.Retry(t, protocol.MethodToolsCall, "ask", st, Accepted, as("bob"))
	if w.Code() != protocol.CodeInvalidParamsError || m.Calls.Load() != before {
		t.Errorf("R-MRTR-08: bob opened alice's state: %s", w.Raw)
	}
	w, _ = m.Retry(t, protocol.MethodToolsCall, "ask", st, Accepted, as(""))
	if w.Code() != protocol.CodeInvalidParamsError {
		t.Errorf("R-MRTR-08: an anonymous caller opened alice's state: %s", w.Raw)
	}
	w, _ = m.Retry(t, protocol.MethodToolsCall, "ask", st, Accepted, as("alice"))
	if w.Error != nil || !strings.Contains(string(w.Raw), "state=asked:alice") {
		t.Errorf("alice's retry: %s", w.Raw)
	}
}

// TestMRTRLimits checks expiry and size limits (R-MRTR-08, WithStateLimits).
func TestMRTRLimits(t *testing.T) {
	t.Run("R-MRTR-08 expired", func(t *testing.T) {
		m := NewMRTR(t, streamhttp.Options{}, server.WithStateLimits(30*time.Millisecond, 0))
		st := m.First(t, nil)
		time.Sleep(60 * time.Millisecond)
		before := m.Calls.Load()
		w, _ := m.Retry(t, protocol.MethodToolsCall, "ask", st, Accepted, nil)
		if w.Code() != protocol.CodeInvalidParamsError || !strings.Contains(w.Error.Message, "expired") {
			t.Errorf("%s", w.Raw)
		}
		if m.Calls.Load() != before {
			t.Error("the handler saw expired state")
		}
	})
	t.Run("oversized token is -32602", func(t *testing.T) {
		m := NewMRTR(t, streamhttp.Options{}, server.WithStateLimits(time.Minute, 120))
		st := m.First(t, nil)
		before := m.Calls.Load()
		w, _ := m.Retry(t, protocol.MethodToolsCall, "ask", st+strings.Repeat("A", 200), Accepted, nil)
		if w.Code() != protocol.CodeInvalidParamsError || !strings.Contains(w.Error.Message, "too large") {
			t.Errorf("%s", w.Raw)
		}
		if m.Calls.Load() != before {
			t.Error("the handler saw oversized state")
		}
	})
	t.Run("state too large to seal is -32603", func(t *testing.T) {
		s := NewServer(t, server.WithStateLimits(time.Minute, 100))
		AddTool(t, s, `{"name":"big","inputSchema":{"type":"object"}}`, func(_ context.Context, r *server.Request, _ json.RawMessage) (*protocol.CallToolResult, error) {
			return nil, r.AskInput(nil, make([]byte, 500))
		})
		if w := Call(t, Handler(s, streamhttp.Options{}), 1, protocol.MethodToolsCall, Params(M{"name": "big"})); w.Code() != protocol.CodeInternalError {
			t.Errorf("%s", w.Raw)
		}
	})
}

// TestMRTRInputResponses checks malformed and partial inputResponses
// (R-MRTR-11, R-MRTR-12, R-MRTR-13): never a complete result.
func TestMRTRInputResponses(t *testing.T) {
	m := NewMRTR(t, streamhttp.Options{})
	st := m.First(t, nil)
	cases := []struct {
		name      string
		responses any
		code      int64 // 0: want input_required again
	}{
		{"R-MRTR-11 null", json.RawMessage("null"), protocol.CodeInvalidParamsError},
		{"R-MRTR-11 a string", "yes", protocol.CodeInvalidParamsError},
		{"R-MRTR-11 an array", []any{Accepted["name"]}, protocol.CodeInvalidParamsError},
		{"R-MRTR-11 a value that is no InputResponse", M{"name": M{"foo": 1}}, protocol.CodeInvalidParamsError},
		{"R-MRTR-11 an invalid elicitation action", M{"name": M{"action": "maybe"}}, protocol.CodeInvalidParamsError},
		{"R-MRTR-12/13 keyed by unknown names: asked again", M{"other": M{"action": "accept", "content": M{"name": "x"}}}, 0},
		{"R-MRTR-13 empty: asked again", M{}, 0},
		{"R-ELIC-06 declined: asked again", M{"name": M{"action": "decline"}}, 0},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			p := WithMeta(ElicitCaps, M{"name": "ask", "requestState": st, "inputResponses": c.responses})
			w := Call(t, m.H, 2, protocol.MethodToolsCall, p)
			if c.code != 0 {
				if w.Code() != c.code {
					t.Errorf("code %d, want %d: %s", w.Code(), c.code, w.Raw)
				}
				return
			}
			if w.Error != nil || w.Result["resultType"] != "input_required" {
				t.Errorf("want input_required again: %s", w.Raw)
			}
		})
	}
	t.Run("retry without requestState: handler sees nil state and asks again", func(t *testing.T) {
		w := Call(t, m.H, 3, protocol.MethodToolsCall, WithMeta(ElicitCaps, M{"name": "ask", "inputResponses": Accepted}))
		if w.Result["resultType"] != "input_required" {
			t.Errorf("%s", w.Raw)
		}
	})
}

// TestMRTRStateOnly checks a state-only input_required (R-MRTR-03) and an
// empty payload, and refuses an InputRequired with neither.
func TestMRTRStateOnly(t *testing.T) {
	s := NewServer(t)
	var seen atomic.Value
	AddTool(t, s, `{"name":"shed","inputSchema":{"type":"object"}}`, func(_ context.Context, r *server.Request, _ json.RawMessage) (*protocol.CallToolResult, error) {
		if st := r.State(); st != nil {
			seen.Store(fmt.Sprintf("len=%d", len(st)))
			return server.TextResult("resumed"), nil
		}
		return nil, r.AskInput(nil, []byte{})
	})
	AddTool(t, s, `{"name":"empty","inputSchema":{"type":"object"}}`, func(context.Context, *server.Request, json.RawMessage) (*protocol.CallToolResult, error) {
		return nil, &server.InputRequired{}
	})
	AddTool(t, s, `{"name":"nothing","inputSchema":{"type":"object"}}`, func(_ context.Context, r *server.Request, _ json.RawMessage) (*protocol.CallToolResult, error) {
		return nil, r.AskInput(nil, nil)
	})
	h := Handler(s, streamhttp.Options{})
	w := Call(t, h, 1, protocol.MethodToolsCall, Params(M{"name": "shed"}))
	if w.Result["resultType"] != "input_required" || w.Result["requestState"] == nil {
		t.Fatalf("%s", w.Raw)
	}
	if _, ok := w.Result["inputRequests"]; ok {
		t.Errorf("inputRequests present on a state-only result: %s", w.Raw)
	}
	w = Call(t, h, 2, protocol.MethodToolsCall, Params(M{"name": "shed", "requestState": w.Result["requestState"]}))
	if w.Text(t, 0) != "resumed" || seen.Load() != "len=0" {
		t.Errorf("empty state did not come back as non-nil: %v %s", seen.Load(), w.Raw)
	}
	if w := Call(t, h, 3, protocol.MethodToolsCall, Params(M{"name": "empty"})); w.Code() != protocol.CodeInternalError {
		t.Errorf("R-MRTR-03: InputRequired with neither requests nor state: %s", w.Raw)
	}
	if w := Call(t, h, 4, protocol.MethodToolsCall, Params(M{"name": "nothing"})); w.Result["resultType"] == "input_required" {
		t.Errorf("R-MRTR-03: AskInput(nil, nil) produced input_required: %s", w.Raw)
	}
}

func stateKey(id uint32, label string) server.StateKey {
	sum := sha256.Sum256([]byte(label))
	return server.StateKey{ID: id, Secret: sum[:]}
}

// TestMRTRSharedKeys checks that servers sharing WithStateKeys open each
// other's state (R-STATE-03: the retry may reach another instance), that
// other keys do not, and key rotation.
func TestMRTRSharedKeys(t *testing.T) {
	k1, k2 := stateKey(1, "one"), stateKey(2, "two")
	a := NewMRTR(t, streamhttp.Options{}, server.WithStateKeys(k1))
	b := NewMRTR(t, streamhttp.Options{}, server.WithStateKeys(k1))
	stranger := NewMRTR(t, streamhttp.Options{})
	rotated := NewMRTR(t, streamhttp.Options{}, server.WithStateKeys(k2, k1))
	dropped := NewMRTR(t, streamhttp.Options{}, server.WithStateKeys(k2))
	sameIDOtherSecret := NewMRTR(t, streamhttp.Options{}, server.WithStateKeys(stateKey(1, "impostor")))
	old := a.First(t, nil)
	fresh := rotated.First(t, nil)
	cases := []struct {
		name  string
		srv   *MrtrServer
		state string
		ok    bool
	}{
		{"R-STATE-03 sealed by A opens on B", b, old, true},
		{"sealed by A opens on A", a, old, true},
		{"a server with its own random key refuses", stranger, old, false},
		{"same key id, other secret refuses", sameIDOtherSecret, old, false},
		{"rotation: new primary still opens old tokens", rotated, old, true},
		{"rotation: new primary opens its own tokens", rotated, fresh, true},
		{"rotation: an instance not yet rotated refuses new tokens", a, fresh, false},
		{"rotation: after the old key is dropped, old tokens fail", dropped, old, false},
		{"rotation: after the old key is dropped, new tokens open", dropped, fresh, true},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			w, _ := c.srv.Retry(t, protocol.MethodToolsCall, "ask", c.state, Accepted, nil)
			if c.ok && (w.Error != nil || !strings.Contains(string(w.Raw), "hello Ann")) {
				t.Errorf("refused: %s", w.Raw)
			}
			if !c.ok && w.Code() != protocol.CodeInvalidParamsError {
				t.Errorf("accepted: %s", w.Raw)
			}
		})
	}
}

// TestMRTRNotOnOtherMethods checks that nothing but tools/call,
// prompts/get and resources/read can answer input_required (R-MRTR-02),
// even when the request carries MRTR members.
func TestMRTRNotOnOtherMethods(t *testing.T) {
	m := NewMRTR(t, streamhttp.Options{})
	st := m.First(t, nil)
	for _, method := range []string{protocol.MethodToolsList, protocol.MethodPromptsList, protocol.MethodResourcesList, protocol.MethodResourcesTemplatesList, protocol.MethodServerDiscover} {
		t.Run(method, func(t *testing.T) {
			w := Call(t, m.H, 1, method, WithMeta(ElicitCaps, M{"requestState": st, "inputResponses": Accepted}))
			if w.Error != nil || w.Result["resultType"] != "complete" {
				t.Errorf("R-MRTR-02: %s", w.Raw)
			}
		})
	}
}

// TestMRTRStateBoundToArguments checks that a requestState opens only on a
// retry with the same salient params as the request that sealed it: the
// tool's arguments or the prompt's arguments (R-MRTR-08: "a digest of the
// salient params"; issue 9, item 9). The same arguments re-encoded (other
// member order, white space) still open, since a client may serialise its
// retry anew.
func TestMRTRStateBoundToArguments(t *testing.T) {
	m := NewMRTR(t, streamhttp.Options{})
	ask := func(method string, args M) string {
		t.Helper()
		p := WithMeta(ElicitCaps, M{"name": "ask"})
		if args != nil {
			p["arguments"] = args
		}
		w := Single(t, Post(t, m.H, Rpc(1, method, p), nil))
		st, ok := w.Result["requestState"].(string)
		if !ok {
			t.Fatalf("no requestState: %s", w.Raw)
		}
		return st
	}
	retry := func(method string, args any, st string) *Wire {
		t.Helper()
		p := WithMeta(ElicitCaps, M{"name": "ask", "requestState": st, "inputResponses": Accepted})
		if args != nil {
			p["arguments"] = args
		}
		return Single(t, Post(t, m.H, Rpc(2, method, p), nil))
	}
	for _, method := range []string{protocol.MethodToolsCall, protocol.MethodPromptsGet} {
		t.Run(method, func(t *testing.T) {
			var orig M
			var other []any
			if method == protocol.MethodToolsCall {
				orig = M{"x": 1, "y": "a"}
				other = []any{M{"x": 999, "y": "a"}, M{"x": 1, "y": "a", "evil": true}, M{}, nil}
			} else {
				orig = M{"x": "1", "y": "a"}
				other = []any{M{"x": "999", "y": "a"}, M{"x": "1", "y": "a", "evil": "true"}, M{}, nil}
			}
			st := ask(method, orig)
			for _, args := range other {
				before := m.Calls.Load()
				w := retry(method, args, st)
				if w.Code() != protocol.CodeInvalidParamsError || !strings.Contains(string(w.Raw), "Invalid requestState") {
					t.Errorf("R-MRTR-08: state sealed for %v opened on a retry with %v: %s", orig, args, w.Raw)
				}
				if m.Calls.Load() != before {
					t.Errorf("R-MRTR-08: the handler ran on a retry with %v", args)
				}
			}
			reordered := json.RawMessage(`{ "y" : "a", "x":1 }`)
			if method == protocol.MethodPromptsGet {
				reordered = json.RawMessage(`{ "y" : "a", "x":"1" }`)
			}
			if w := retry(method, reordered, st); w.Error != nil || !strings.Contains(string(w.Raw), "hello Ann") {
				t.Errorf("the same arguments re-encoded: %s", w.Raw)
			}
		})
	}
	// No arguments and empty arguments are the same request.
	st := ask(protocol.MethodToolsCall, nil)
	if w := retry(protocol.MethodToolsCall, M{}, st); w.Error != nil || !strings.Contains(string(w.Raw), "hello Ann") {
		t.Errorf("absent arguments, then {}: %s", w.Raw)
	}
}
