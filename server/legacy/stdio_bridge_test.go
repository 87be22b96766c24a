package legacy_test

import (
	"context"
	"encoding/json"
	"strconv"
	"strings"
	"testing"
	"time"

	. "github.com/mcpwire/mcpwire/server/internal/testkit"
	"github.com/mcpwire/mcpwire/server/legacy"

	"go.uber.org/goleak"

	"github.com/mcpwire/mcpwire/protocol"
	"github.com/mcpwire/mcpwire/server"
)

// The input bridge on stdio (docs/dual-era.md §5, §6; rows T9 and the
// bridge rows of §10.4): a handler's AskInput in a legacy session becomes
// server-to-client requests on stdout, answered on stdin.

// addMRTRFixtures registers the multi round-trip fixtures of
// examples/everything (mrtr.go and its prompt, same names, same
// handlers), which a legacy client reaches through the bridge.
func addMRTRFixtures(t testing.TB, s *server.Server) {
	t.Helper()
	nameForm := func() protocol.InputRequest {
		return server.ElicitForm("What is your name?", map[string]protocol.PrimitiveSchemaDefinition{"name": server.StringField("Your name")}, "name")
	}
	accepted := func(r *server.Request, key, field string) (string, bool) {
		resp, ok := r.InputResponse(key)
		if !ok {
			return "", false
		}
		er, ok := resp.Value.(*protocol.ElicitResult)
		if !ok || er.Action != protocol.ElicitResultActionAccept {
			return "", false
		}
		v, ok := er.Content[field]
		if !ok || !v.IsString() {
			return "", false
		}
		return v.Str(), true
	}
	tools := map[string]server.ToolHandler{
		"test_input_required_result_elicitation": func(_ context.Context, r *server.Request, _ json.RawMessage) (*protocol.CallToolResult, error) {
			if name, ok := accepted(r, "user_name", "name"); ok {
				return server.TextResult("Hello, " + name + "!"), nil
			}
			return nil, r.AskInput(map[string]protocol.InputRequest{"user_name": nameForm()}, nil)
		},
		"test_input_required_result_sampling": func(_ context.Context, r *server.Request, _ json.RawMessage) (*protocol.CallToolResult, error) {
			if resp, ok := r.InputResponse("capital_question"); ok {
				if res, ok := resp.Value.(*protocol.CreateMessageResult); ok {
					return server.TextResult("The model " + res.Model + " answered."), nil
				}
			}
			return nil, r.AskInput(map[string]protocol.InputRequest{"capital_question": server.SampleText("What is the capital of France?", 100)}, nil)
		},
		"test_input_required_result_list_roots": func(_ context.Context, r *server.Request, _ json.RawMessage) (*protocol.CallToolResult, error) {
			if resp, ok := r.InputResponse("client_roots"); ok {
				if res, ok := resp.Value.(*protocol.ListRootsResult); ok {
					return server.TextResult("Roots: " + strconv.Itoa(len(res.Roots))), nil
				}
			}
			return nil, r.AskInput(map[string]protocol.InputRequest{"client_roots": server.ListRoots()}, nil)
		},
		"test_input_required_result_request_state": func(_ context.Context, r *server.Request, _ json.RawMessage) (*protocol.CallToolResult, error) {
			if string(r.State()) == "awaiting-confirm" {
				if resp, ok := r.InputResponse("confirm"); ok {
					if er, ok := resp.Value.(*protocol.ElicitResult); ok && er.Action == protocol.ElicitResultActionAccept {
						return server.TextResult("state-ok: confirmed"), nil
					}
				}
			}
			return nil, r.AskInput(map[string]protocol.InputRequest{
				"confirm": server.ElicitForm("Please confirm.", map[string]protocol.PrimitiveSchemaDefinition{"ok": server.BoolField("Confirm")}, "ok"),
			}, []byte("awaiting-confirm"))
		},
		"test_input_required_result_multiple_inputs": func(_ context.Context, r *server.Request, _ json.RawMessage) (*protocol.CallToolResult, error) {
			_, e := r.InputResponse("user_name")
			_, sm := r.InputResponse("capital_question")
			_, ro := r.InputResponse("client_roots")
			if e && sm && ro && string(r.State()) == "multi" {
				return server.TextResult("Received all three responses."), nil
			}
			return nil, r.AskInput(map[string]protocol.InputRequest{
				"user_name": nameForm(), "capital_question": server.SampleText("What is the capital of France?", 100), "client_roots": server.ListRoots(),
			}, []byte("multi"))
		},
		"test_input_required_result_multi_round": func(_ context.Context, r *server.Request, _ json.RawMessage) (*protocol.CallToolResult, error) {
			round := 0
			if st := r.State(); st != nil {
				round, _ = strconv.Atoi(string(st))
			}
			key := "round_" + strconv.Itoa(round+1)
			if round > 0 {
				if _, ok := r.InputResponse("round_" + strconv.Itoa(round)); !ok {
					key = "round_" + strconv.Itoa(round)
					round--
				}
			}
			if round >= 2 {
				return server.TextResult("Completed after 3 rounds."), nil
			}
			return nil, r.AskInput(map[string]protocol.InputRequest{
				key: server.ElicitForm("Round "+strconv.Itoa(round+1)+": your name?", map[string]protocol.PrimitiveSchemaDefinition{"name": server.StringField("Your name")}, "name"),
			}, []byte(strconv.Itoa(round+1)))
		},
		"test_input_required_result_tampered_state": func(_ context.Context, r *server.Request, _ json.RawMessage) (*protocol.CallToolResult, error) {
			if string(r.State()) == "untampered" {
				return server.TextResult("State verified."), nil
			}
			return nil, r.AskInput(map[string]protocol.InputRequest{"user_name": nameForm()}, []byte("untampered"))
		},
		"test_input_required_result_capabilities": func(_ context.Context, r *server.Request, _ json.RawMessage) (*protocol.CallToolResult, error) {
			if len(r.State()) > 0 {
				return server.TextResult("Done."), nil
			}
			caps := r.ClientCapabilities()
			reqs := map[string]protocol.InputRequest{}
			if caps.Elicitation != nil {
				reqs["user_name"] = nameForm()
			}
			if caps.Sampling != nil {
				reqs["capital_question"] = server.SampleText("What is the capital of France?", 100)
			}
			if caps.Roots != nil {
				reqs["client_roots"] = server.ListRoots()
			}
			if len(reqs) == 0 {
				return nil, server.MissingCapability(protocol.ClientCapabilities{Sampling: &protocol.ClientCapabilitiesSampling{}})
			}
			return nil, r.AskInput(reqs, []byte("asked"))
		},
	}
	for name, h := range tools {
		AddTool(t, s, `{"name":"`+name+`","inputSchema":{"type":"object","properties":{}}}`, h)
	}
	AddPrompt(t, s, protocol.Prompt{Name: "test_input_required_result_prompt"},
		func(_ context.Context, r *server.Request, _ map[string]string) (*protocol.GetPromptResult, error) {
			if c, ok := accepted(r, "user_context", "context"); ok {
				return &protocol.GetPromptResult{Messages: []protocol.PromptMessage{{Role: protocol.RoleUser, Content: server.Text("Context: " + c)}}}, nil
			}
			return nil, r.AskInput(map[string]protocol.InputRequest{
				"user_context": server.ElicitForm("What context should the prompt use?", map[string]protocol.PrimitiveSchemaDefinition{"context": server.StringField("Context")}, "context"),
			}, nil)
		})
}

// scriptedAnswer is a legacy client's answer to each server-to-client
// request: an accepted form filled with "Alice" (or true) for each
// property, a model's answer, two roots.
func scriptedAnswer(req *Wire) string {
	var res string
	switch req.Method() {
	case "elicitation/create":
		content := M{}
		schema, _ := req.Params()["requestedSchema"].(M)
		props, _ := schema["properties"].(M)
		for k, v := range props {
			if p, _ := v.(M); p["type"] == "boolean" {
				content[k] = true
			} else {
				content[k] = "Alice"
			}
		}
		b, _ := json.Marshal(M{"action": "accept", "content": content})
		res = string(b)
	case "sampling/createMessage":
		res = `{"role":"assistant","content":{"type":"text","text":"Paris"},"model":"test-model"}`
	case "roots/list":
		res = `{"roots":[{"uri":"file:///a"},{"uri":"file:///b","name":"b"}]}`
	}
	return `{"jsonrpc":"2.0","id":` + req.Id() + `,"result":` + res + `}`
}

const allClientCaps = `{"elicitation":{},"sampling":{},"roots":{}}`

// Every MRTR fixture of examples/everything, through the bridge, in each
// revision that can carry its input requests; elicitation before
// 2025-06-18 is -32021 (the client cannot declare it), R-MRTR-05.
func TestStdioBridgeFixtures(t *testing.T) {
	cases := []struct {
		method, name, want string
		asks               []string // the methods sent, in key order
		elicits            bool
	}{
		{"tools/call", "test_input_required_result_elicitation", "Hello, Alice!", []string{"elicitation/create"}, true},
		{"tools/call", "test_input_required_result_sampling", "The model test-model answered.", []string{"sampling/createMessage"}, false},
		{"tools/call", "test_input_required_result_list_roots", "Roots: 2", []string{"roots/list"}, false},
		{"tools/call", "test_input_required_result_request_state", "state-ok: confirmed", []string{"elicitation/create"}, true},
		{"tools/call", "test_input_required_result_multiple_inputs", "Received all three responses.", []string{"sampling/createMessage", "roots/list", "elicitation/create"}, true},
		{"tools/call", "test_input_required_result_multi_round", "Completed after 3 rounds.", []string{"elicitation/create", "elicitation/create"}, true},
		{"tools/call", "test_input_required_result_tampered_state", "State verified.", []string{"elicitation/create"}, true},
		{"tools/call", "test_input_required_result_capabilities", "Done.", []string{"sampling/createMessage", "roots/list", "elicitation/create"}, true},
		{"prompts/get", "test_input_required_result_prompt", "Context: Alice", []string{"elicitation/create"}, true},
	}
	for _, rev := range legacyRevs {
		t.Run(rev, func(t *testing.T) {
			f := newLegacyFixture(t, legacy.ErasBoth)
			addMRTRFixtures(t, f.Server)
			c := StartLegacyStdio(t, f.Server, rev)
			c.Open(allClientCaps)
			c.Answer = scriptedAnswer
			old := rev < "2025-06-18"
			for i, tc := range cases {
				c.Asked = nil
				w, notes := c.Call(100+i, tc.method, `{"name":"`+tc.name+`"}`)
				if len(notes) != 0 {
					t.Errorf("%s: notifications %v", tc.name, notes)
				}
				if old && tc.elicits && tc.name != "test_input_required_result_capabilities" {
					if w.Code() != protocol.CodeMissingRequiredClientCapabilityError || len(c.Asked) != 0 {
						t.Errorf("%s in %s: %s, asked %d; want -32021 and nothing sent", tc.name, rev, w.Raw, len(c.Asked))
					}
					continue
				}
				got := string(w.Raw)
				if tc.method == "tools/call" {
					got = ResultText(t, w)
				}
				if !strings.Contains(got, tc.want) {
					t.Errorf("%s in %s: %s, want %q", tc.name, rev, w.Raw, tc.want)
				}
				var methods []string
				for _, a := range c.Asked {
					methods = append(methods, a.Method())
					if !strings.HasPrefix(a.Id(), `"mcpwire-`) || len(a.Id()) != len(`"mcpwire-`)+22+1 {
						t.Errorf("a bridge id is mcpwire-<22 base64url>: %s", a.Id())
					}
				}
				want := tc.asks
				if old && tc.name == "test_input_required_result_capabilities" {
					want = want[:2] // no elicitation capability before 2025-06-18
				}
				if strings.Join(methods, ",") != strings.Join(want, ",") {
					t.Errorf("%s in %s: asked %v, want %v", tc.name, rev, methods, want)
				}
			}
		})
	}
}

// bridgeTool asks for what the test says on each call, and reports what
// it saw.
type bridgeProbe struct {
	seen chan string
}

// checkIdle fails the test if a bridge tool ran since p.seen was last
// read.
func (p *bridgeProbe) checkIdle(t testing.TB) {
	t.Helper()
	select {
	case s := <-p.seen:
		t.Errorf("the handler ran again: %s", s)
	default:
	}
}

// startBridgeStdio starts a legacy stdio session of revision rev, with all
// client capabilities, on an ErasBoth fixture built with opts that has the
// bridge tools.
func startBridgeStdio(t testing.TB, rev string, opts ...any) (*LegacyStdio, *bridgeProbe) {
	t.Helper()
	f := newLegacyFixture(t, legacy.ErasBoth, opts...)
	p := addBridgeTools(t, f.Server)
	c := StartLegacyStdio(t, f.Server, rev)
	c.Open(allClientCaps)
	return c, p
}

func addBridgeTools(t testing.TB, s *server.Server) *bridgeProbe {
	p := &bridgeProbe{seen: make(chan string, 100)}
	form := server.ElicitForm("Name?", map[string]protocol.PrimitiveSchemaDefinition{"name": server.StringField("")}, "name")
	// probe reports InputResponse/InputError of "name" and asks again
	// while the state is below 2.
	AddTool(t, s, `{"name":"probe","inputSchema":{"type":"object"}}`, func(_ context.Context, r *server.Request, _ json.RawMessage) (*protocol.CallToolResult, error) {
		var parts []string
		if resp, ok := r.InputResponse("name"); ok {
			b, _ := protocol.Marshal(&resp)
			parts = append(parts, "response="+string(b))
		}
		if e, ok := r.InputError("name"); ok {
			parts = append(parts, "error="+strconv.FormatInt(e.Code, 10)+":"+e.Message)
		}
		parts = append(parts, "state="+string(r.State()))
		if r.State() == nil {
			return nil, r.AskInput(map[string]protocol.InputRequest{"name": form}, []byte("1"))
		}
		return server.TextResult(strings.Join(parts, " ")), nil
	})
	AddTool(t, s, `{"name":"forever","inputSchema":{"type":"object"}}`, func(_ context.Context, r *server.Request, _ json.RawMessage) (*protocol.CallToolResult, error) {
		n, _ := strconv.Atoi(string(r.State()))
		return nil, r.AskInput(map[string]protocol.InputRequest{"k" + strconv.Itoa(n): server.ListRoots()}, []byte(strconv.Itoa(n+1)))
	})
	AddTool(t, s, `{"name":"again","inputSchema":{"type":"object"}}`, func(_ context.Context, r *server.Request, _ json.RawMessage) (*protocol.CallToolResult, error) {
		return nil, r.AskInput(map[string]protocol.InputRequest{"roots": server.ListRoots()}, []byte("x"))
	})
	AddTool(t, s, `{"name":"two","inputSchema":{"type":"object"}}`, func(_ context.Context, r *server.Request, _ json.RawMessage) (*protocol.CallToolResult, error) {
		if r.State() != nil {
			return server.TextResult("two done"), nil
		}
		return nil, r.AskInput(map[string]protocol.InputRequest{"a": server.ListRoots(), "b": server.ListRoots()}, []byte("x"))
	})
	AddTool(t, s, `{"name":"byhand","inputSchema":{"type":"object"}}`, func(_ context.Context, r *server.Request, _ json.RawMessage) (*protocol.CallToolResult, error) {
		if _, ok := r.InputResponse("roots"); ok {
			return server.TextResult("by hand done"), nil
		}
		return nil, &server.InputRequired{Requests: map[string]protocol.InputRequest{"roots": server.ListRoots()}}
	})
	AddTool(t, s, `{"name":"stateonly","inputSchema":{"type":"object"}}`, func(_ context.Context, r *server.Request, _ json.RawMessage) (*protocol.CallToolResult, error) {
		if string(r.State()) == "later" {
			return server.TextResult("state only done"), nil
		}
		return nil, r.AskInput(nil, []byte("later"))
	})
	AddTool(t, s, `{"name":"slowask","inputSchema":{"type":"object"}}`, func(ctx context.Context, r *server.Request, _ json.RawMessage) (*protocol.CallToolResult, error) {
		if r.State() != nil {
			p.seen <- "called again"
			return server.TextResult("slow done"), nil
		}
		return nil, r.AskInput(map[string]protocol.InputRequest{"roots": server.ListRoots()}, []byte("x"))
	})
	return p
}

// The answers of §6.3 item 6 and §6.4: an error response is the handler's
// InputError; a result that is not its method's result, or an accepted
// form whose content does not match requestedSchema (R-ELIC-11), is
// -32602 for the key; unknown, repeated and late ids are dropped.
func TestStdioBridgeAnswers(t *testing.T) {
	c, _ := startBridgeStdio(t, "2025-11-25", Legacy(legacy.Config{InputTimeout: 300 * time.Millisecond}))
	answerWith := func(body string) func(*Wire) string {
		return func(req *Wire) string { return `{"jsonrpc":"2.0","id":` + req.Id() + `,` + body + `}` }
	}
	for i, tc := range []struct{ name, answer, want string }{
		{"accepted", `"result":{"action":"accept","content":{"name":"Bo"}}`, `response={"action":"accept","content":{"name":"Bo"}} state=1`},
		{"declined", `"result":{"action":"decline"}`, `response={"action":"decline"} state=1`},
		{"an error response", `"error":{"code":-1,"message":"user said no","data":{"why":"x"}}`, `error=-1:user said no state=1`},
		{"not an ElicitResult", `"result":{"action":"maybe"}`, `error=-32602:`},
		{"content off the schema (R-ELIC-11)", `"result":{"action":"accept","content":{"name":5}}`, `error=-32602:Invalid params: content does not match requestedSchema`},
		{"required content missing", `"result":{"action":"accept","content":{}}`, `error=-32602:Invalid params: content does not match requestedSchema`},
	} {
		c.Answer = answerWith(tc.answer)
		w, _ := c.Call(200+i, "tools/call", `{"name":"probe"}`)
		if got := ResultText(t, w); !strings.Contains(got, tc.want) {
			t.Errorf("%s: %s, want %q", tc.name, got, tc.want)
		}
	}

	// A key the client refused and the handler asks for again ends the
	// call: no re-prompting a user who declined.
	c.Answer = answerWith(`"error":{"code":-1,"message":"no roots for you"}`)
	c.Asked = nil
	w, _ := c.Call(220, "tools/call", `{"name":"again"}`)
	if w.Code() != protocol.CodeInternalError || !strings.Contains(w.Error.Message, "the client refused input request roots: no roots for you") || len(c.Asked) != 1 {
		t.Errorf("a refused key asked again: %s, asked %d", w.Raw, len(c.Asked))
	}

	// An InputRequired built by hand goes through the bridge too; a round
	// of state alone calls the handler again at once.
	c.Answer = scriptedAnswer
	if w, _ := c.Call(221, "tools/call", `{"name":"byhand"}`); ResultText(t, w) != "by hand done" {
		t.Errorf("by hand: %s", w.Raw)
	}
	c.Asked = nil
	if w, _ := c.Call(222, "tools/call", `{"name":"stateonly"}`); ResultText(t, w) != "state only done" || len(c.Asked) != 0 {
		t.Errorf("state only: %s, asked %d", w.Raw, len(c.Asked))
	}

	// Repeated and late answers and unknown ids are dropped, never
	// answered (T9): the next call's answer is the next line.
	var first *Wire
	c.Answer = func(req *Wire) string {
		first = req
		return scriptedAnswer(req)
	}
	if w, _ := c.Call(223, "tools/call", `{"name":"byhand"}`); ResultText(t, w) != "by hand done" {
		t.Fatalf("by hand: %s", w.Raw)
	}
	c.Ss.Send(scriptedAnswer(first))                                              // repeated
	c.Ss.Send(`{"jsonrpc":"2.0","id":"mcpwire-nope","result":{"roots":[]}}`)      // unknown
	c.Ss.Send(`{"jsonrpc":"2.0","id":7,"error":{"code":-1,"message":"unknown"}}`) // unknown, a number
	c.Ss.Send(`{"jsonrpc":"2.0","error":{"code":-1,"message":"no id"}}`)          // no id
	c.Answer = func(*Wire) string { return "" }                                   // let it time out
	w, notes := c.Call(224, "tools/call", `{"name":"byhand"}`)
	if w.Code() != protocol.CodeInternalError || w.Error.Message != "Internal error: timed out waiting for the client's input" {
		t.Errorf("timeout: %s", w.Raw)
	}
	late := c.Asked[len(c.Asked)-1]
	if len(notes) != 1 || notes[0].Method() != "notifications/cancelled" || notes[0].Params()["reason"] != "timed out" || `"`+notes[0].Params()["requestId"].(string)+`"` != late.Id() {
		t.Errorf("the timed-out request is cancelled once: %v", notes)
	}
	c.Ss.Send(scriptedAnswer(late)) // late
	if w, _ := c.Call(225, "ping", ""); w.Error != nil || string(w.Members["result"]) != "{}" {
		t.Errorf("after dropped responses: %s", w.Raw)
	}
}

// The client's notifications/cancelled for the original request abandons
// its outstanding requests, which the server cancels in turn (§2.6); the
// call sends nothing more, and the handler is not called again.
func TestStdioBridgeCancel(t *testing.T) {
	c, p := startBridgeStdio(t, "2025-06-18")
	c.Ss.Send(EraBody(300, "tools/call", `{"name":"slowask"}`))
	req := c.Next()
	if req.Method() != "roots/list" || req.HasParams() {
		t.Fatalf("want roots/list without params: %s", req.Raw)
	}
	c.Note("notifications/cancelled", `{"requestId":300,"reason":"user stop"}`)
	n := c.Next()
	if n.Method() != "notifications/cancelled" || n.Params()["reason"] != "request cancelled" || `"`+n.Params()["requestId"].(string)+`"` != req.Id() {
		t.Errorf("the server cancels its request: %s", n.Raw)
	}
	c.Ss.Send(scriptedAnswer(req)) // late: dropped
	if w, _ := c.Call(301, "ping", ""); w.Error != nil {
		t.Errorf("ping: %s", w.Raw)
	}
	p.checkIdle(t)
}

// The limits of §8: MaxOutstandingRequests, MaxInputRounds,
// MaxBadResponses, each with a small option.
func TestStdioBridgeLimits(t *testing.T) {
	t.Run("MaxOutstandingRequests", func(t *testing.T) {
		c, _ := startBridgeStdio(t, "2025-11-25", Legacy(legacy.Config{MaxOutstandingRequests: 1}))
		c.Answer = scriptedAnswer
		w, _ := c.Call(1, "tools/call", `{"name":"two"}`)
		if w.Code() != protocol.CodeInternalError || w.Error.Message != "Internal error: too many outstanding input requests in this session (at most 1)" || len(c.Asked) != 0 {
			t.Errorf("over the limit: %s, asked %d", w.Raw, len(c.Asked))
		}
		if w, _ := c.Call(2, "tools/call", `{"name":"byhand"}`); ResultText(t, w) != "by hand done" {
			t.Errorf("within the limit: %s", w.Raw)
		}
		// The limit is the session's, across its requests: while one
		// request waits for its answer, another's round is refused.
		c.Ss.Send(EraBody(3, "tools/call", `{"name":"slowask"}`))
		first := c.Next()
		c.Asked = nil
		w, _ = c.Call(4, "tools/call", `{"name":"byhand"}`)
		if w.Code() != protocol.CodeInternalError || !strings.Contains(w.Error.Message, "too many outstanding") || len(c.Asked) != 0 {
			t.Errorf("a second request over the session's limit: %s", w.Raw)
		}
		c.Ss.Send(scriptedAnswer(first))
		if w := c.Next(); ResultText(t, w) != "slow done" {
			t.Errorf("the first request: %s", w.Raw)
		}
	})
	t.Run("MaxInputRounds", func(t *testing.T) {
		c, _ := startBridgeStdio(t, "2025-11-25", Legacy(legacy.Config{MaxInputRounds: 3}))
		c.Answer = scriptedAnswer
		w, _ := c.Call(1, "tools/call", `{"name":"forever"}`)
		if w.Code() != protocol.CodeInternalError || w.Error.Message != "Internal error: too many input rounds" || len(c.Asked) != 3 {
			t.Errorf("rounds: %s, asked %d", w.Raw, len(c.Asked))
		}
	})
	t.Run("MaxBadResponses", func(t *testing.T) {
		c, _ := startBridgeStdio(t, "2025-11-25", Legacy(legacy.Config{MaxBadResponses: 2}))
		for range 2 {
			c.Ss.Send(`{"jsonrpc":"2.0","id":"mcpwire-nope","result":{}}`)
		}
		if w, _ := c.Call(1, "tools/call", `{"name":"count"}`); ResultText(t, w) != "counted" {
			t.Errorf("at the limit the session lives: %s", w.Raw)
		}
		c.Ss.Send(`{"jsonrpc":"2.0","id":"mcpwire-nope","result":{}}`)
		w, _ := c.Call(2, "tools/call", `{"name":"count"}`)
		if w.Code() != protocol.CodeInvalidRequestError || !strings.Contains(w.Error.Message, "the legacy session has ended") {
			t.Errorf("past the limit the legacy session ends: %s", w.Raw)
		}
		// The stream still serves modern requests.
		c.Ss.Send(modernCall)
		if w := c.Ss.Recv(); w.Error != nil || w.Result["resultType"] != "complete" {
			t.Errorf("a modern request after the legacy session ended: %s", w.Raw)
		}
	})
	t.Run("end of input ends a wait", func(t *testing.T) {
		c, _ := startBridgeStdio(t, "2025-11-25", server.WithShutdownTimeout(5*time.Second))
		c.Ss.Send(EraBody(1, "tools/call", `{"name":"slowask"}`))
		if req := c.Next(); req.Method() != "roots/list" {
			t.Fatalf("want roots/list: %s", req.Raw)
		}
		start := time.Now()
		rest, err := c.Ss.Close()
		if err != nil || len(rest) != 0 || time.Since(start) > 3*time.Second {
			t.Errorf("end of input: %v %v after %v", rest, err, time.Since(start))
		}
	})
}

// inputRequest decodes an input request from its JSON.
func inputRequest(t testing.TB, js string) protocol.InputRequest {
	t.Helper()
	var ir protocol.InputRequest
	if err := protocol.Unmarshal([]byte(js), &ir); err != nil {
		t.Fatalf("input request %s: %v", js, err)
	}
	return ir
}

// H12 (§3.6): an input request the session's revision cannot carry is
// the -32603 *Error of AskInput, before anything is sent; one it can
// carry is sent as that revision declares it (validated against its
// schema.json by the client helper).
func TestStdioBridgeExpressibility(t *testing.T) {
	f := newLegacyFixture(t, legacy.ErasBoth)
	reqs := map[string]string{
		"url":    `{"method":"elicitation/create","params":{"mode":"url","message":"Sign in","url":"https://example.com/login"}}`,
		"multi":  `{"method":"elicitation/create","params":{"mode":"form","message":"Pick","requestedSchema":{"type":"object","properties":{"c":{"type":"array","items":{"type":"string","enum":["a","b"]}}}}}}`,
		"titled": `{"method":"elicitation/create","params":{"mode":"form","message":"Pick","requestedSchema":{"type":"object","properties":{"c":{"type":"string","oneOf":[{"const":"a","title":"A"},{"const":"b","title":"B"}]}}}}}`,
		"tools":  `{"method":"sampling/createMessage","params":{"messages":[{"role":"user","content":{"type":"text","text":"hi"}}],"maxTokens":5,"tools":[{"name":"t","inputSchema":{"type":"object"}}]}}`,
	}
	AddTool(t, f.Server, `{"name":"expr","inputSchema":{"type":"object","properties":{"which":{"type":"string"}}}}`, func(_ context.Context, r *server.Request, args json.RawMessage) (*protocol.CallToolResult, error) {
		var a struct{ Which string }
		_ = json.Unmarshal(args, &a)
		if r.State() != nil {
			return server.TextResult("sent"), nil
		}
		return nil, r.AskInput(map[string]protocol.InputRequest{"k": inputRequest(t, reqs[a.Which])}, []byte("x"))
	})
	caps := `{"elicitation":{"form":{},"url":{}},"sampling":{"tools":{}},"roots":{}}`
	for _, tc := range []struct {
		rev, which string
		sent       bool
		want       string // a substring of the error, or of the request sent
	}{
		// 2025-06-18 clients cannot declare URL elicitation or sampling
		// tools: -32021 first (§6.2).
		{"2025-06-18", "url", false, "Missing required client capability"},
		{"2025-06-18", "tools", false, "Missing required client capability"},
		{"2025-06-18", "multi", false, "input request k needs"},
		{"2025-06-18", "titled", true, `"enumNames":["A","B"]`},
		{"2025-11-25", "url", true, `"elicitationId":"`},
		{"2025-11-25", "multi", true, `"type":"array"`},
	} {
		t.Run(tc.rev+"/"+tc.which, func(t *testing.T) {
			c := StartLegacyStdio(t, f.Server, tc.rev)
			if tc.rev == "2025-06-18" {
				c.Open(`{"elicitation":{},"sampling":{},"roots":{}}`)
			} else {
				c.Open(caps)
			}
			c.Answer = func(req *Wire) string {
				if req.Method() == "elicitation/create" {
					return `{"jsonrpc":"2.0","id":` + req.Id() + `,"result":{"action":"cancel"}}`
				}
				return scriptedAnswer(req)
			}
			w, _ := c.Call(1, "tools/call", `{"name":"expr","arguments":{"which":"`+tc.which+`"}}`)
			if !tc.sent {
				if w.Error == nil || !strings.Contains(w.Error.Message, tc.want) || len(c.Asked) != 0 {
					t.Errorf("%s: %s, asked %d", tc.which, w.Raw, len(c.Asked))
				}
				return
			}
			if len(c.Asked) != 1 || !strings.Contains(string(c.Asked[0].Raw), tc.want) || ResultText(t, w) != "sent" {
				t.Errorf("%s: asked %v, %s", tc.which, c.Asked, w.Raw)
			}
		})
	}
}

// Shutdown ends a bridge wait: the server cancels its request and the
// call answers -32603, so that Shutdown does not wait InputTimeout; no
// goroutine of the wait outlives it.
func TestStdioBridgeShutdown(t *testing.T) {
	defer goleak.VerifyNone(t, goleak.IgnoreCurrent())
	f := newLegacyFixture(t, legacy.ErasBoth)
	addBridgeTools(t, f.Server)
	c := StartLegacyStdio(t, f.Server, "2025-11-25")
	c.Open(allClientCaps)
	c.Ss.Send(EraBody(1, "tools/call", `{"name":"slowask"}`))
	if req := c.Next(); req.Method() != "roots/list" {
		t.Fatalf("want roots/list: %s", req.Raw)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	done := make(chan error, 1)
	go func() { done <- f.Shutdown(ctx) }()
	if n := c.Next(); n.Method() != "notifications/cancelled" || n.Params()["reason"] != "server shutting down" {
		t.Errorf("the server cancels its request: %s", n.Raw)
	}
	if w := c.Next(); w.Code() != protocol.CodeInternalError || !strings.Contains(w.Error.Message, "shutting down") {
		t.Errorf("the call: %s", w.Raw)
	}
	if err := <-done; err != nil {
		t.Errorf("Shutdown: %v", err)
	}
	if _, err := c.Ss.Close(); err != nil {
		t.Errorf("ServeStdio: %v", err)
	}
}

// A bridge timeout leaves no goroutine behind (its timer, the waiter).
func TestStdioBridgeTimeoutLeaksNothing(t *testing.T) {
	defer goleak.VerifyNone(t, goleak.IgnoreCurrent())
	c, _ := startBridgeStdio(t, "2025-11-25", Legacy(legacy.Config{InputTimeout: 20 * time.Millisecond}))
	c.Answer = func(*Wire) string { return "" }
	for i := range 5 {
		if w, _ := c.Call(i, "tools/call", `{"name":"byhand"}`); !strings.Contains(string(w.Raw), "timed out") {
			t.Errorf("timeout: %s", w.Raw)
		}
	}
	if _, err := c.Ss.Close(); err != nil {
		t.Errorf("ServeStdio: %v", err)
	}
}
