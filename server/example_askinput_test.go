package server_test

import (
	"context"
	"encoding/json"
	"fmt"
	"sort"
	"strings"

	"github.com/mcpwire/mcpwire/protocol"
	"github.com/mcpwire/mcpwire/server"
	"github.com/mcpwire/mcpwire/server/stdio"
	"github.com/mcpwire/mcpwire/server/typed"
	"github.com/mcpwire/mcpwire/servertest"
)

// A handler that asks twice: each round returns AskInput, and the retry
// brings the answers (InputResponse) and the state of the round before
// (State), sealed by the runtime and verified before the handler runs.
// What the handler learnt travels in that state, not on the server.
func ExampleRequest_AskInput() {
	s, _ := server.New(protocol.Implementation{Name: "booking", Version: "1.0.0"})
	_ = typed.AddTool(s, protocol.Tool{Name: "book"}, func(_ context.Context, r *server.Request, _ struct{}) (*protocol.CallToolResult, error) {
		answer := func(key string) (*protocol.ElicitResult, bool) {
			resp, ok := r.InputResponse(key)
			er, isElicit := resp.Value.(*protocol.ElicitResult)
			return er, ok && isElicit && er.Action == protocol.ElicitResultActionAccept
		}
		if date, ok := strings.CutPrefix(string(r.State()), "date="); ok { // round 3
			if _, yes := answer("confirm"); yes {
				return server.TextResult("Booked for " + date), nil
			}
			return server.TextResult("Cancelled"), nil
		}
		if er, ok := answer("date"); ok && string(r.State()) == "need-date" { // round 2
			date := er.Content["date"].Str()
			return nil, r.AskInput(map[string]protocol.InputRequest{"confirm": server.ElicitForm("Book "+date+"?", nil)}, []byte("date="+date))
		}
		return nil, r.AskInput(map[string]protocol.InputRequest{ // round 1
			"date": server.ElicitForm("Which date?", map[string]protocol.PrimitiveSchemaDefinition{"date": server.StringField("YYYY-MM-DD")}, "date"),
		}, []byte("need-date"))
	})
	// The test client answers each round and retries until the result.
	c := servertest.New(s, servertest.OnElicit(func(_ context.Context, req *protocol.ElicitRequest) (*protocol.ElicitResult, error) {
		form := req.Params.Value.(*protocol.ElicitRequestFormParams)
		fmt.Println("asked:", form.Message)
		res := &protocol.ElicitResult{Action: protocol.ElicitResultActionAccept, Content: map[string]protocol.ElicitResultContentValue{}}
		if _, wantsDate := form.RequestedSchema.Properties["date"]; wantsDate {
			res.Content["date"] = protocol.StringElicitResultContentValue("2026-08-01")
		}
		return res, nil
	}))
	res, _ := c.CallTool(context.Background(), "book", nil)
	fmt.Println(res.Content[0].Value.(*protocol.TextContent).Text)
	// Output:
	// asked: Which date?
	// asked: Book 2026-08-01?
	// Booked for 2026-08-01
}

// The same exchange on the wire, over stdio: what the first round
// answers (input_required, with sealed requestState) and what the retry
// sends back.
func ExampleRequest_AskInput_wire() {
	s, _ := server.New(protocol.Implementation{Name: "demo", Version: "1.0.0"})
	var def protocol.Tool
	_ = protocol.Unmarshal([]byte(`{"name":"book","inputSchema":{"type":"object"}}`), &def)
	_ = s.AddTool(def, func(_ context.Context, r *server.Request, _ json.RawMessage) (*protocol.CallToolResult, error) {
		// The retry: the runtime has verified the state before we run.
		if string(r.State()) == "awaiting-date" {
			if resp, ok := r.InputResponse("date"); ok {
				if er, ok := resp.Value.(*protocol.ElicitResult); ok && er.Action == protocol.ElicitResultActionAccept {
					return server.TextResult("Booked for " + er.Content["date"].Str() + "."), nil
				}
			}
		}
		// The first round: ask the user (needs the elicitation capability).
		return nil, r.AskInput(map[string]protocol.InputRequest{
			"date": server.ElicitForm("Which date?", map[string]protocol.PrimitiveSchemaDefinition{"date": server.StringField("YYYY-MM-DD")}, "date"),
		}, []byte("awaiting-date"))
	})
	run := func(line string) map[string]any {
		var out strings.Builder
		_ = stdio.Serve(context.Background(), s, strings.NewReader(line+"\n"), &out, stdio.Options{})
		var m map[string]any
		_ = json.Unmarshal([]byte(out.String()), &m)
		return m
	}
	elicitation := map[string]any{"elicitation": map[string]any{}}

	// Without the capability the server cannot ask: -32021.
	m := run(request(1, "tools/call", map[string]any{"name": "book"}, nil))
	fmt.Println("no capability:", m["error"].(map[string]any)["code"], m["error"].(map[string]any)["data"])

	// With it: an input_required result carrying sealed state.
	m = run(request(2, "tools/call", map[string]any{"name": "book"}, elicitation))
	res := m["result"].(map[string]any)
	fmt.Println("round 1:", res["resultType"], "asks for", keys(res["inputRequests"]))

	// The retry echoes the state and answers the request.
	m = run(request(3, "tools/call", map[string]any{
		"name":           "book",
		"requestState":   res["requestState"],
		"inputResponses": map[string]any{"date": map[string]any{"action": "accept", "content": map[string]any{"date": "2026-08-01"}}},
	}, elicitation))
	res = m["result"].(map[string]any)
	fmt.Println("round 2:", res["resultType"], res["content"].([]any)[0].(map[string]any)["text"])
	// Output:
	// no capability: -32021 map[requiredCapabilities:map[elicitation:map[]]]
	// round 1: input_required asks for [date]
	// round 2: complete Booked for 2026-08-01.
}

func keys(v any) []string {
	var out []string
	for k := range v.(map[string]any) {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}
