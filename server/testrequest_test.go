package server_test

import (
	"context"
	"errors"
	"fmt"
	"testing"

	"github.com/mcpwire/mcpwire/protocol"
	"github.com/mcpwire/mcpwire/server"
)

// greet is a two-round tool handler: it asks for a name (R-MRTR-03), then
// greets with the answer, checking the state it sealed.
func greet(ctx context.Context, req *server.Request, _ []byte) (*protocol.CallToolResult, error) {
	resp, ok := req.InputResponse("name")
	if !ok || string(req.State()) != "round1" {
		return nil, req.AskInput(map[string]protocol.InputRequest{
			"name": server.ElicitForm("Your name?", map[string]protocol.PrimitiveSchemaDefinition{"name": server.StringField("")}, "name"),
		}, []byte("round1"))
	}
	er, ok := resp.Value.(*protocol.ElicitResult)
	if !ok || er.Action != protocol.ElicitResultActionAccept {
		return server.TextResult("no name"), nil
	}
	who := "?"
	if r, ok := server.RequestFrom(ctx); ok && r.Principal != "" {
		who = r.Principal
	}
	return server.TextResult(fmt.Sprintf("hello %s (for %s)", er.Content["name"].Str(), who)), nil
}

func elicitCapsMeta() protocol.RequestMetaObject {
	return protocol.RequestMetaObject{
		ProtocolVersion:    "2026-07-28",
		ClientCapabilities: protocol.ClientCapabilities{Elicitation: &protocol.ClientCapabilitiesElicitation{}},
	}
}

// TestNewTestRequestSecondRound drives both rounds of a multi round-trip
// handler without a server (R-MRTR-03, R-MRTR-13, R-MRTR-05).
func TestNewTestRequestSecondRound(t *testing.T) {
	t.Run("first round asks", func(t *testing.T) {
		req := server.NewTestRequest(server.TestRequestOptions{Meta: elicitCapsMeta()})
		_, err := greet(context.Background(), req, nil)
		var ir *server.InputRequired
		if !errors.As(err, &ir) {
			t.Fatalf("want *InputRequired, got %v", err)
		}
		if _, ok := ir.Requests["name"]; !ok || string(ir.State) != "round1" {
			t.Errorf("input required %+v", ir)
		}
	})
	t.Run("R-MRTR-05 no elicitation capability: -32021", func(t *testing.T) {
		req := server.NewTestRequest(server.TestRequestOptions{})
		_, err := greet(context.Background(), req, nil)
		var e *server.Error
		if !errors.As(err, &e) || e.Code != protocol.CodeMissingRequiredClientCapabilityError {
			t.Fatalf("want -32021, got %v", err)
		}
	})
	t.Run("second round answers", func(t *testing.T) {
		req := server.NewTestRequest(server.TestRequestOptions{
			Meta:      elicitCapsMeta(),
			Principal: "alice",
			State:     []byte("round1"),
			InputResponses: protocol.InputResponses{"name": {Value: &protocol.ElicitResult{
				Action:  protocol.ElicitResultActionAccept,
				Content: map[string]protocol.ElicitResultContentValue{"name": protocol.StringElicitResultContentValue("Ada")},
			}}},
		})
		if req.Method != protocol.MethodToolsCall || !req.ID.IsInt() || req.ProtocolVersion() != "2026-07-28" {
			t.Errorf("defaults: method %q id %v version %q", req.Method, req.ID, req.ProtocolVersion())
		}
		res, err := greet(server.ContextWithRequest(context.Background(), req), req, nil)
		if err != nil {
			t.Fatal(err)
		}
		if got := res.Content[0].Value.(*protocol.TextContent).Text; got != "hello Ada (for alice)" {
			t.Errorf("got %q", got)
		}
		if req.Log(context.Background(), protocol.LoggingLevelError, "", []byte(`"x"`)) {
			t.Error("a test request sent a log message")
		}
	})
	t.Run("R-MRTR-13 declined: no name", func(t *testing.T) {
		req := server.NewTestRequest(server.TestRequestOptions{
			Meta:           elicitCapsMeta(),
			State:          []byte("round1"),
			InputResponses: protocol.InputResponses{"name": {Value: &protocol.ElicitResult{Action: protocol.ElicitResultActionDecline}}},
		})
		res, err := greet(context.Background(), req, nil)
		if err != nil || res.Content[0].Value.(*protocol.TextContent).Text != "no name" {
			t.Errorf("%v %v", res, err)
		}
	})
	t.Run("MaxInputRequests", func(t *testing.T) {
		req := server.NewTestRequest(server.TestRequestOptions{Meta: elicitCapsMeta(), MaxInputRequests: 1})
		err := req.AskInput(map[string]protocol.InputRequest{"a": server.ListRoots(), "b": server.ListRoots()}, nil)
		var ir *server.InputRequired
		if err == nil || errors.As(err, &ir) {
			t.Errorf("want the limit's error, got %v", err)
		}
	})
}

// ExampleNewTestRequest unit-tests the second round of a multi
// round-trip tool handler: the request carries the client's answer and
// the state the first round returned.
func ExampleNewTestRequest() {
	req := server.NewTestRequest(server.TestRequestOptions{
		Meta: protocol.RequestMetaObject{
			ClientCapabilities: protocol.ClientCapabilities{Elicitation: &protocol.ClientCapabilitiesElicitation{}},
		},
		Principal: "alice",
		State:     []byte("round1"),
		InputResponses: protocol.InputResponses{"name": {Value: &protocol.ElicitResult{
			Action:  protocol.ElicitResultActionAccept,
			Content: map[string]protocol.ElicitResultContentValue{"name": protocol.StringElicitResultContentValue("Ada")},
		}}},
	})
	res, err := greet(server.ContextWithRequest(context.Background(), req), req, nil)
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(res.Content[0].Value.(*protocol.TextContent).Text)
	// Output: hello Ada (for alice)
}
