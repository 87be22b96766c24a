package servertest_test

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/mcpwire/mcpwire/protocol"
	"github.com/mcpwire/mcpwire/server"
	"github.com/mcpwire/mcpwire/servertest"
)

// bookTool asks, over two rounds, for the roots and a date (elicitation)
// and then for a sampled summary, and carries its progress in the sealed
// state (R-MRTR-03/07: the client retries with inputResponses and the
// requestState it was given).
func bookTool(_ context.Context, r *server.Request, _ json.RawMessage) (*protocol.CallToolResult, error) {
	switch string(r.State()) {
	case "":
		return nil, r.AskInput(map[string]protocol.InputRequest{
			"date":  server.ElicitForm("Which date?", map[string]protocol.PrimitiveSchemaDefinition{"date": server.StringField("")}, "date"),
			"roots": server.ListRoots(),
		}, []byte("round-2"))
	case "round-2":
		d, ok1 := r.InputResponse("date")
		rt, ok2 := r.InputResponse("roots")
		if !ok1 || !ok2 {
			return nil, r.AskInput(nil, []byte("round-2"))
		}
		date := d.Value.(*protocol.ElicitResult).Content["date"].Str()
		root := rt.Value.(*protocol.ListRootsResult).Roots[0].URI
		return nil, r.AskInput(map[string]protocol.InputRequest{"summary": server.SampleText("Summarise", 10)}, []byte("round-3|"+date+"|"+root))
	default:
		s, ok := r.InputResponse("summary")
		if !ok {
			return nil, r.AskInput(map[string]protocol.InputRequest{"summary": server.SampleText("Summarise", 10)}, r.State())
		}
		summary := s.Value.(*protocol.CreateMessageResult).Content.Value.(*protocol.TextContent).Text
		return server.TextResult(string(r.State()) + "|" + summary), nil
	}
}

func TestMultiRoundTrip(t *testing.T) {
	s := newServer(t)
	addTool(t, s, "book", bookTool)
	var calls []string
	c := servertest.New(s,
		servertest.OnElicit(func(_ context.Context, req *protocol.ElicitRequest) (*protocol.ElicitResult, error) {
			calls = append(calls, "elicit:"+req.Params.Value.(*protocol.ElicitRequestFormParams).Message)
			return &protocol.ElicitResult{Action: protocol.ElicitResultActionAccept,
				Content: map[string]protocol.ElicitResultContentValue{"date": protocol.StringElicitResultContentValue("2026-08-01")}}, nil
		}),
		servertest.OnRoots(func(context.Context, *protocol.ListRootsRequest) (*protocol.ListRootsResult, error) {
			calls = append(calls, "roots")
			return &protocol.ListRootsResult{Roots: []protocol.Root{{URI: "file:///tmp"}}}, nil
		}),
		servertest.OnSample(func(_ context.Context, req *protocol.CreateMessageRequest) (*protocol.CreateMessageResult, error) {
			calls = append(calls, "sample")
			return &protocol.CreateMessageResult{Model: "test", Role: protocol.RoleAssistant,
				Content: protocol.CreateMessageResultContent{Value: &protocol.TextContent{Text: "ok"}}}, nil
		}),
	)
	res, err := c.CallTool(context.Background(), "book", nil)
	if err != nil {
		t.Fatal(err)
	}
	if got, want := text(t, res), "round-3|2026-08-01|file:///tmp|ok"; got != want {
		t.Errorf("got %q, want %q", got, want)
	}
	// Map order is random within a round; the sampling comes after both.
	if len(calls) != 3 || calls[2] != "sample" || !strings.Contains(strings.Join(calls, ","), "elicit:Which date?") {
		t.Errorf("callbacks %v", calls)
	}
}

// TestMultiRoundTripNoCallback: without OnElicit the Client declares no
// elicitation capability, so the server refuses to ask (-32021,
// R-MRTR-05); declaring it with WithCapabilities but having no callback
// fails the call on the client side, naming the input request.
func TestMultiRoundTripNoCallback(t *testing.T) {
	s := newServer(t)
	addTool(t, s, "book", bookTool)
	c := servertest.New(s)
	_, err := c.CallTool(context.Background(), "book", nil)
	var e *servertest.Error
	if !errors.As(err, &e) || e.Code != protocol.CodeMissingRequiredClientCapabilityError {
		t.Errorf("no capability: %v", err)
	}

	_, err = c.CallTool(context.Background(), "book", nil, servertest.WithCapabilities(protocol.ClientCapabilities{
		Elicitation: &protocol.ClientCapabilitiesElicitation{}, Roots: &protocol.ClientCapabilitiesRoots{},
	}))
	if err == nil || !strings.Contains(err.Error(), "there is no On") {
		t.Errorf("no callback: %v", err)
	}
}

// TestMaxRounds: a handler that asks for ever ends the call after
// WithMaxRounds retries instead of looping.
func TestMaxRounds(t *testing.T) {
	s := newServer(t)
	n := 0
	addTool(t, s, "forever", func(_ context.Context, r *server.Request, _ json.RawMessage) (*protocol.CallToolResult, error) {
		n++
		return nil, r.AskInput(nil, []byte("again"))
	})
	_, err := servertest.New(s, servertest.WithMaxRounds(3)).CallTool(context.Background(), "forever", nil)
	if err == nil || !strings.Contains(err.Error(), "after 3 rounds") {
		t.Errorf("err %v", err)
	}
	if n != 4 {
		t.Errorf("handler ran %d times, want 4 (the first request and 3 retries)", n)
	}
}
