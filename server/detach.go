package server

import (
	"context"
	"encoding/json"
	"strings"
	"time"

	"github.com/mcpwire/mcpwire/protocol"
)

// Detach returns a Request for work that goes on after r is answered (a
// task of the tasks extension), and the context to run a handler with
// (RequestFrom finds the new Request in it). The new Request has r's
// method, id, _meta, principal, token and target, responses and state as
// the input of its round (Request.InputResponse, Request.State), and ctx's
// values and deadline. It has no transport: Progress and Log send
// nothing, Params, Header and RemoteAddr are empty. A detached Request may
// be detached again, for the next round.
//
// The copy keeps nothing of r's exchange, so that work that outlives the
// request does not keep its params, headers or HTTP exchange reachable.
func (r *Request) Detach(ctx context.Context, responses protocol.InputResponses, state []byte) (*Request, context.Context) {
	d := &Request{
		Method: r.Method, ID: r.ID, Meta: r.Meta, Principal: r.Principal,
		auth: r.auth, target: r.target, maxInputs: r.maxInputs,
		inputResponses: responses, state: state,
		log: r.log, notifyMeta: r.notifyMeta, ctx: ctx, srv: r.srv,
	}
	d.rc = requestContext{Context: ctx, r: d}
	return d, &d.rc
}

// InputResponses returns the input responses of this round (all those
// InputResponse finds), for work that keeps them: a task created from a
// retried request.
func (r *Request) InputResponses() protocol.InputResponses { return r.inputResponses }

// RateLimited is the CodeRateLimited error asking the client to retry
// after d (data retryAfterMs; over HTTP, status 429 with Retry-After).
func RateLimited(msg string, d time.Duration) *Error {
	return &Error{Code: CodeRateLimited, Message: msg, Data: jsonText(map[string]int64{"retryAfterMs": d.Milliseconds()})}
}

// CheckInputResponse checks an answer to an input request that the
// server sent earlier, as JSON (the tasks extension's tasks/update): resp
// must be the result of req's method (an ElicitResult for
// elicitation/create, and so on), and the content of an accepted form
// elicitation must match the requestedSchema the server asked with
// (R-ELIC-11). A failure is -32602 naming key. A req that does not decode
// is the server's own mistake and is not held against the client.
func (s *Server) CheckInputResponse(ctx context.Context, key string, req, resp json.RawMessage) error {
	var ir protocol.InputRequest
	if protocol.Unmarshal(req, &ir) != nil {
		var in protocol.InputResponse // only the shape of some answer is known
		if err := protocol.Unmarshal(resp, &in); err != nil {
			return InvalidParams("Invalid params: inputResponses."+key+": "+err.Error(), nil)
		}
		return nil
	}
	// Decoded as the result of the request's method, so that an error
	// names what that result lacks (not what another kind of answer would).
	var want any
	var method string
	switch ir.Value.(type) {
	case *protocol.ElicitRequest:
		want, method = new(protocol.ElicitResult), protocol.MethodElicitationCreate
	case *protocol.CreateMessageRequest:
		want, method = new(protocol.CreateMessageResult), protocol.MethodSamplingCreateMessage
	case *protocol.ListRootsRequest:
		want, method = new(protocol.ListRootsResult), protocol.MethodRootsList
	default:
		return nil
	}
	if err := protocol.Unmarshal(resp, want); err != nil {
		return InvalidParams("Invalid params: inputResponses."+key+" does not answer its "+method+" request: "+strings.TrimPrefix(err.Error(), "protocol: "), nil)
	}
	er, ok := want.(*protocol.ElicitResult)
	if !ok || er.Action != protocol.ElicitResultActionAccept {
		return nil
	}
	form, isForm := ir.Value.(*protocol.ElicitRequest).Params.Value.(*protocol.ElicitRequestFormParams)
	if !isForm {
		return nil
	}
	if e := s.checkFormContent(ctx, "inputResponses."+key+".content", form, resp); e != nil {
		return e
	}
	return nil
}
