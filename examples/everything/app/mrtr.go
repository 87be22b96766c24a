package app

import (
	"context"
	"encoding/json"
	"strconv"

	"github.com/mcpwire/mcpwire/protocol"
	"github.com/mcpwire/mcpwire/server"
)

// The multi round-trip fixtures of the conformance suite.
func addMRTRTools(s *server.Server) error {
	nameForm := func() protocol.InputRequest {
		return server.ElicitForm("What is your name?", map[string]protocol.PrimitiveSchemaDefinition{"name": server.StringField("Your name")}, "name")
	}
	tools := []struct {
		name, desc string
		h          server.ToolHandler
	}{
		{"test_input_required_result_elicitation", "Asks for the user's name through elicitation.", func(_ context.Context, r *server.Request, _ json.RawMessage) (*protocol.CallToolResult, error) {
			if name, ok := acceptedString(r, "user_name", "name"); ok {
				return server.TextResult("Hello, " + name + "!"), nil
			}
			return nil, r.AskInput(map[string]protocol.InputRequest{"user_name": nameForm()}, nil)
		}},
		{"test_input_required_result_sampling", "Asks the client's model a question.", func(_ context.Context, r *server.Request, _ json.RawMessage) (*protocol.CallToolResult, error) {
			if resp, ok := r.InputResponse("capital_question"); ok {
				if res, ok := resp.Value.(*protocol.CreateMessageResult); ok {
					return server.TextResult("The model " + res.Model + " answered."), nil
				}
			}
			return nil, r.AskInput(map[string]protocol.InputRequest{"capital_question": server.SampleText("What is the capital of France?", 100)}, nil)
		}},
		{"test_input_required_result_list_roots", "Asks for the client's roots.", func(_ context.Context, r *server.Request, _ json.RawMessage) (*protocol.CallToolResult, error) {
			if resp, ok := r.InputResponse("client_roots"); ok {
				if res, ok := resp.Value.(*protocol.ListRootsResult); ok {
					return server.TextResult("Roots: " + strconv.Itoa(len(res.Roots))), nil
				}
			}
			return nil, r.AskInput(map[string]protocol.InputRequest{"client_roots": server.ListRoots()}, nil)
		}},
		{"test_input_required_result_request_state", "Carries state between rounds.", func(_ context.Context, r *server.Request, _ json.RawMessage) (*protocol.CallToolResult, error) {
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
		}},
		{"test_input_required_result_multiple_inputs", "Asks for elicitation, sampling and roots at once.", func(_ context.Context, r *server.Request, _ json.RawMessage) (*protocol.CallToolResult, error) {
			_, e := r.InputResponse("user_name")
			_, sm := r.InputResponse("capital_question")
			_, ro := r.InputResponse("client_roots")
			if e && sm && ro && string(r.State()) == "multi" {
				return server.TextResult("Received all three responses."), nil
			}
			return nil, r.AskInput(map[string]protocol.InputRequest{
				"user_name":        nameForm(),
				"capital_question": server.SampleText("What is the capital of France?", 100),
				"client_roots":     server.ListRoots(),
			}, []byte("multi"))
		}},
		{"test_input_required_result_multi_round", "Takes three rounds, carrying progress in the state.", func(_ context.Context, r *server.Request, _ json.RawMessage) (*protocol.CallToolResult, error) {
			round := 0
			if st := r.State(); st != nil {
				round, _ = strconv.Atoi(string(st))
			}
			key := "round_" + strconv.Itoa(round+1)
			if round > 0 {
				if _, ok := r.InputResponse("round_" + strconv.Itoa(round)); !ok {
					key = "round_" + strconv.Itoa(round) // ask again
					round--
				}
			}
			if round >= 2 {
				return server.TextResult("Completed after 3 rounds."), nil
			}
			return nil, r.AskInput(map[string]protocol.InputRequest{
				key: server.ElicitForm("Round "+strconv.Itoa(round+1)+": your name?", map[string]protocol.PrimitiveSchemaDefinition{"name": server.StringField("Your name")}, "name"),
			}, []byte(strconv.Itoa(round+1)))
		}},
		{"test_input_required_result_tampered_state", "Returns sealed state; a tampered copy is refused.", func(_ context.Context, r *server.Request, _ json.RawMessage) (*protocol.CallToolResult, error) {
			if string(r.State()) == "untampered" {
				return server.TextResult("State verified."), nil
			}
			return nil, r.AskInput(map[string]protocol.InputRequest{"user_name": nameForm()}, []byte("untampered"))
		}},
		{"test_input_required_result_capabilities", "Asks only for inputs the client declared.", func(_ context.Context, r *server.Request, _ json.RawMessage) (*protocol.CallToolResult, error) {
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
		}},
	}
	for _, t := range tools {
		def := describe(t.name, t.desc)
		def.InputSchema.Extra = protocol.Members{{Name: "properties", Value: json.RawMessage(`{}`)}}
		if err := s.AddTool(def, t.h); err != nil {
			return err
		}
	}
	return nil
}
