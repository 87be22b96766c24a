package server

import (
	"bytes"
	"context"
	"crypto/rand"
	"crypto/sha256"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/mcpwire/mcpwire/protocol"
	"github.com/mcpwire/mcpwire/server/internal/sealed"
	"github.com/mcpwire/mcpwire/server/internal/validate"
)

// InputRequired is returned (as an error) by a tools/call, prompts/get or
// resources/read handler that needs input from the client before it can
// finish: the runtime answers with an input_required result carrying the
// named input requests and the handler's state, sealed (R-MRTR-03/07). The
// client retries the same request with the responses and the state; the
// handler then reads them with Request.InputResponse and Request.State.
//
// Build it with Request.AskInput, which checks the client's capabilities.
type InputRequired struct {
	Requests map[string]protocol.InputRequest
	State    []byte
}

// Error implements error; an InputRequired is not a failure, but travels
// the error path so that every handler keeps one result type.
func (e *InputRequired) Error() string {
	return fmt.Sprintf("input required (%d requests)", len(e.Requests))
}

// AskInput returns the *InputRequired a handler returns to ask the client
// for input. requests may be empty when state alone is carried (load
// shedding, multi-round progress); at least one of the two must be given.
// An input request whose capability the client did not declare on this
// request is never sent: AskInput returns the -32021 *Error instead
// (R-MRTR-05, R-META-03), which the handler can return as it is.
func (r *Request) AskInput(requests map[string]protocol.InputRequest, state []byte) error {
	if len(requests) == 0 && state == nil {
		return errors.New("server: AskInput needs input requests or state")
	}
	if len(requests) > r.maxInputs && r.maxInputs > 0 {
		return fmt.Errorf("server: AskInput: %d input requests, more than the limit of %d (WithMaxInputRequests)", len(requests), r.maxInputs)
	}
	if err := r.CheckInputRequests(requests); err != nil {
		return err
	}
	if r.hooks != nil {
		if err := r.hooks.CheckInput(requests); err != nil {
			return err
		}
	}
	return &InputRequired{Requests: requests, State: state}
}

// CheckInputRequests returns the -32021 *Error when an input request needs
// a capability the client did not declare on this request (R-MRTR-05,
// R-META-03, R-ELIC-02), or an error for an empty input request.
func (r *Request) CheckInputRequests(requests map[string]protocol.InputRequest) error {
	var missing protocol.ClientCapabilities
	need := false
	caps := r.Meta.ClientCapabilities
	for _, req := range requests {
		switch v := req.Value.(type) {
		case *protocol.ElicitRequest:
			mode := "form"
			if _, ok := v.Params.Value.(*protocol.ElicitRequestURLParams); ok {
				mode = "url"
			}
			switch {
			case caps.Elicitation == nil:
				missing.Elicitation = &protocol.ClientCapabilitiesElicitation{}
				need = true
			case mode == "url" && caps.Elicitation.URL == nil:
				missing.Elicitation = &protocol.ClientCapabilitiesElicitation{URL: protocol.JSONObject("{}")}
				need = true
			case mode == "form" && caps.Elicitation.Form == nil && caps.Elicitation.URL != nil:
				// {} means form only (R-ELIC-02); a client that lists only url has no form.
				missing.Elicitation = &protocol.ClientCapabilitiesElicitation{Form: protocol.JSONObject("{}")}
				need = true
			}
		case *protocol.CreateMessageRequest:
			if caps.Sampling == nil {
				missing.Sampling = &protocol.ClientCapabilitiesSampling{}
				need = true
			} else if (len(v.Params.Tools) > 0 || v.Params.ToolChoice != nil) && caps.Sampling.Tools == nil {
				missing.Sampling = &protocol.ClientCapabilitiesSampling{Tools: protocol.JSONObject("{}")}
				need = true
			}
		case *protocol.ListRootsRequest:
			if caps.Roots == nil {
				missing.Roots = &protocol.ClientCapabilitiesRoots{}
				need = true
			}
		case nil:
			return errors.New("server: AskInput: empty input request")
		}
	}
	if need {
		return MissingCapability(missing)
	}
	return nil
}

// InputResponse returns the client's response to the input request named
// key, from the retry of an input_required result. It reports false when
// the response is absent: the handler then asks again (R-MRTR-13).
// Responses to names the handler did not ask for are ignored (R-MRTR-12).
//
// On a synchronous retry the runtime checks only that the response is a
// well-formed result: being stateless, it keeps no copy of the requests it
// sent, so the handler must check the content of an accepted form
// elicitation against the requestedSchema it asked with (R-ELIC-11), and
// ask again when it does not match. Inside a task (AsTask), tasks/update
// has checked it already.
func (r *Request) InputResponse(key string) (protocol.InputResponse, bool) {
	v, ok := r.inputResponses[key]
	return v, ok
}

// State returns the state the handler sealed in its previous
// input_required result, opened and verified by the runtime: it was made by
// this server (or one sharing its keys), for this method and tool, prompt or
// resource, for this principal, and has not expired. It is nil on a first
// request.
//
// In a legacy session (Legacy), the input bridge sent the requests as
// server-to-client requests and calls the handler again with the answers:
// State is then the handler's bytes as given (never sealed: they never
// leave the process).
func (r *Request) State() []byte { return r.state }

// InputError returns the JSON-RPC error with which the client answered the
// input request named key, in a legacy session: a client refusing a
// sampling or roots request, or -32602 for a result that does not decode
// as its method's result or, for an accepted form elicitation, whose
// content does not match the requestedSchema. It reports false otherwise,
// and always on modern requests, where clients answer with results only.
func (r *Request) InputError(key string) (*Error, bool) {
	e, ok := r.inputErrors[key]
	return e, ok
}

func randomKey() (sealed.Key, error) {
	secret := make([]byte, 32)
	if _, err := rand.Read(secret); err != nil {
		return sealed.Key{}, fmt.Errorf("server: random state key: %w", err)
	}
	return sealed.Key{ID: 1, Secret: secret}, nil
}

// openState verifies a requestState from the client. Any failure is
// -32602 and never reaches the handler (R-MRTR-07/08).
func (s *Server) openState(r *Request, token string) error {
	payload, err := s.sealer.Open(r.binding(), token)
	if err != nil {
		reason := "invalid"
		switch {
		case errors.Is(err, sealed.ErrExpired):
			reason = "expired"
		case errors.Is(err, sealed.ErrTooLarge):
			reason = "too large"
		}
		return InvalidParams("Invalid requestState: "+reason, nil)
	}
	if payload == nil {
		payload = []byte{}
	}
	r.state = payload
	return nil
}

// binding is what a sealed state of this request is bound to (R-MRTR-08):
// method, target, principal and a digest of the salient params.
func (r *Request) binding() sealed.Binding {
	return sealed.Binding{Method: r.Method, Target: r.target, Principal: r.Principal, Params: paramsDigest(r.salient)}
}

// paramsDigest is the SHA-256 of params in a canonical form (members
// sorted, no white space, strings re-escaped alike), so that a client
// that encodes its retry anew still matches; params that are not JSON are
// digested as they are. No params and "{}" are the same request.
func paramsDigest(params []byte) string {
	canon := []byte("{}")
	if len(params) > 0 {
		canon = params
		var v any
		dec := json.NewDecoder(bytes.NewReader(params))
		dec.UseNumber()
		if dec.Decode(&v) == nil {
			if b, err := json.Marshal(v); err == nil {
				canon = b
			}
		}
	}
	sum := sha256.Sum256(canon)
	return string(sum[:])
}

// heldInput is what inputRequiredResult returns for a request whose
// adapter holds its input (Call.HoldInput), in place of a sealed
// input_required result; ServeCall hands it over as Answer.Input.
type heldInput struct{ *InputRequired }

// inputRequiredResult seals the handler's state and builds the result.
func (s *Server) inputRequiredResult(r *Request, ir *InputRequired) (wireResult, error) {
	// An InputRequired built by hand (not by AskInput) gets the same checks.
	if len(ir.Requests) == 0 && ir.State == nil {
		return nil, errors.New("input_required result without input requests or state (R-MRTR-03)")
	}
	if err := r.CheckInputRequests(ir.Requests); err != nil {
		return nil, err
	}
	if r.holdInput {
		// The adapter carries the input to the client itself: nothing is
		// sealed, the state never leaves the process (Call.HoldInput).
		if r.hooks != nil {
			if err := r.hooks.CheckInput(ir.Requests); err != nil {
				return nil, err
			}
		}
		return &heldInput{ir}, nil
	}
	res := &protocol.InputRequiredResult{}
	if len(ir.Requests) > 0 {
		res.InputRequests = protocol.InputRequests(ir.Requests)
	}
	if ir.State != nil {
		tok, err := s.sealer.Seal(r.binding(), ir.State)
		if err != nil {
			return nil, fmt.Errorf("sealing requestState: %w", err)
		}
		res.RequestState = &tok
	}
	return res, nil
}

// jsonText is a helper for handlers that want a JSON value as raw JSON.
func jsonText(v any) json.RawMessage {
	b, err := json.Marshal(v)
	if err != nil {
		return json.RawMessage("null")
	}
	return b
}

// checkFormContent validates the content of an accepted form elicitation
// (an empty object when it has none) against the form's requestedSchema,
// compiled by the validator of tool schemas: a mismatch is -32602 naming
// where (the content, or "inputResponses.<key>.content") and the path.
// The schema is compiled at every check, as the caller keeps only the
// request's JSON: it is the server's own, small (flat properties of
// primitive types), and bounded by the schema limits.
func (s *Server) checkFormContent(ctx context.Context, where string, form *protocol.ElicitRequestFormParams, result json.RawMessage) *Error {
	raw, err := protocol.Marshal(&form.RequestedSchema)
	if err != nil {
		s.log.Error("the requestedSchema of an elicitation does not encode: its answer is not checked", "err", err)
		return nil
	}
	schema, err := s.compileSchema(raw)
	if err != nil {
		s.log.Error("the requestedSchema of an elicitation does not compile: its answer is not checked", "err", err)
		return nil
	}
	v, err := validate.ParseValue(ctx, result, s.valueLimits())
	if err != nil {
		return InvalidParams("Invalid params: "+where+" does not match requestedSchema: "+err.Error(), nil)
	}
	var content any = map[string]any{}
	if obj, ok := v.(map[string]any); ok {
		if c, ok := obj["content"]; ok {
			content = c
		}
	}
	if err := schema.Validate(content); err != nil {
		return InvalidParams("Invalid params: "+where+" does not match requestedSchema: "+validate.ErrorText(err), nil)
	}
	return nil
}
