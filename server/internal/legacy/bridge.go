package legacy

import (
	"crypto/rand"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"slices"

	"github.com/mcpwire/mcpwire/protocol"
	"github.com/mcpwire/mcpwire/protocol/mcp20251125"
)

// InputRequest builds the server-to-client JSON-RPC request that carries a
// handler's input request req (the entry key of its AskInput) to a client
// of revision r, with the given id (docs/dual-era.md §3.6, §6.3). It
// returns the request's method and its bytes.
//
// The request is built as a value of package mcp20251125, then zeroed for
// r by the generated functions:
//
//   - elicitation/create (2025-06-18 on): a form request without mode
//     (legacy clients read no mode as form); its property schemas lose what
//     r lacks (default before 2025-11-25), a titled single-select becomes
//     enum + enumNames for 2025-06-18 (H10). A URL request (2025-11-25
//     only) gets a fresh elicitationId (H9);
//   - sampling/createMessage: a one-block content array is sent as the
//     block before 2025-11-25 (H11);
//   - roots/list: no params.
//
// What r cannot carry (elicitation before 2025-06-18, URL elicitation
// before 2025-11-25, multi-select enums in 2025-06-18, sampling tools,
// toolChoice, tool_use and tool_result content or content arrays before
// 2025-11-25, audio in 2024-11-05) is the -32603 error "input request K
// needs FEATURE, which protocol V cannot carry" (H12), before anything is
// sent: the handler may fall back or return it.
func InputRequest(r Rev, id protocol.RequestId, key string, req protocol.InputRequest) (string, []byte, *Error) {
	if !r.Valid() {
		return "", nil, internal(fmt.Errorf("invalid revision %d", uint8(r)))
	}
	lid := legacyID(id)
	var msg any
	var method string
	switch x := req.Value.(type) {
	case *protocol.ElicitRequest:
		method = protocol.MethodElicitationCreate
		if x == nil {
			return method, nil, internal(errNilValue)
		}
		if r < Rev20250618 {
			return method, nil, cannotCarry(key, "elicitation", r)
		}
		p, err := elicitParams(&x.Params)
		if err != nil {
			return method, nil, err
		}
		msg = &mcp20251125.ElicitRequest{ID: lid, Params: p}
	case *protocol.CreateMessageRequest:
		method = protocol.MethodSamplingCreateMessage
		if x == nil {
			return method, nil, internal(errNilValue)
		}
		if r < Rev20251125 && len(x.Params.Tools) > 0 {
			return method, nil, cannotCarry(key, "sampling tools", r)
		}
		if r < Rev20251125 && x.Params.ToolChoice != nil {
			return method, nil, cannotCarry(key, "sampling toolChoice", r)
		}
		b, err := protocol.Marshal(&x.Params)
		if err != nil {
			return method, nil, internal(err)
		}
		var p mcp20251125.CreateMessageRequestParams
		if err := mcp20251125.Unmarshal(b, &p); err != nil {
			return method, nil, internal(fmt.Errorf("sampling request: %w", err))
		}
		msg = &mcp20251125.CreateMessageRequest{ID: lid, Params: p}
	case *protocol.ListRootsRequest:
		method = protocol.MethodRootsList
		if x == nil {
			return method, nil, internal(errNilValue)
		}
		msg = &mcp20251125.ListRootsRequest{ID: lid}
	default:
		return "", nil, internal(fmt.Errorf("input request %q is empty", key))
	}
	z, ok, err := zeroRoot(msg, r)
	if err != nil {
		var ne *notExpressible
		if errors.As(err, &ne) {
			return method, nil, cannotCarry(key, ne.what, r)
		}
		return method, nil, internal(err)
	}
	if !ok || z.kind != "request" {
		return method, nil, internal(fmt.Errorf("%T is no server request", msg))
	}
	body, err := appendZeroed(nil, z, nil)
	if err != nil {
		return method, nil, internal(err)
	}
	return method, body, nil
}

// elicitParams builds the 2025-11-25 params of an elicitation: a form
// without mode, or a URL request with a fresh elicitationId (H9).
func elicitParams(p *protocol.ElicitRequestParams) (mcp20251125.ElicitRequestParams, *Error) {
	switch v := p.Value.(type) {
	case *protocol.ElicitRequestFormParams:
		if v == nil {
			break
		}
		b, err := protocol.Marshal(&v.RequestedSchema)
		if err != nil {
			return mcp20251125.ElicitRequestParams{}, internal(err)
		}
		var s mcp20251125.ElicitRequestFormParamsRequestedSchema
		if err := mcp20251125.Unmarshal(b, &s); err != nil {
			return mcp20251125.ElicitRequestParams{}, internal(fmt.Errorf("requestedSchema: %w", err))
		}
		return mcp20251125.ElicitRequestParams{Value: &mcp20251125.ElicitRequestFormParams{
			Message: v.Message, RequestedSchema: s, Extra: legacyMembers(v.Extra, "_meta", "task", "mode")}}, nil
	case *protocol.ElicitRequestURLParams:
		if v == nil {
			break
		}
		id, err := newElicitationID()
		if err != nil {
			return mcp20251125.ElicitRequestParams{}, internal(err)
		}
		return mcp20251125.ElicitRequestParams{Value: &mcp20251125.ElicitRequestURLParams{
			Message: v.Message, URL: v.URL, ElicitationID: id, Extra: legacyMembers(v.Extra, "_meta", "task", "elicitationId")}}, nil
	}
	return mcp20251125.ElicitRequestParams{}, internal(errors.New("elicitation without params"))
}

// newElicitationID mints the elicitationId 2025-11-25 requires of a URL
// elicitation (H9): 16 random bytes, 22 base64url characters.
func newElicitationID() (string, error) {
	var b [16]byte
	if _, err := rand.Read(b[:]); err != nil {
		return "", err
	}
	return base64.RawURLEncoding.EncodeToString(b[:]), nil
}

func legacyID(id protocol.RequestId) mcp20251125.RequestId {
	if id.IsInt() {
		return mcp20251125.IntRequestId(id.Int())
	}
	return mcp20251125.StringRequestId(id.Str())
}

// legacyMembers converts undeclared members of a protocol value for the
// mcp20251125 value built from it, leaving out those the latter declares
// (a 2026-07-28 value may carry them undeclared: task, _meta).
func legacyMembers(m protocol.Members, declared ...string) mcp20251125.Members {
	var out mcp20251125.Members
	for _, x := range m {
		if !slices.Contains(declared, x.Name) {
			out = append(out, mcp20251125.Member{Name: x.Name, Value: x.Value})
		}
	}
	return out
}

// cannotCarry is H12's error.
func cannotCarry(key, feature string, r Rev) *Error {
	return &Error{Code: protocol.CodeInternalError,
		Message: fmt.Sprintf("input request %s needs %s, which protocol %s cannot carry", key, feature, r)}
}

func internal(err error) *Error {
	return &Error{Code: protocol.CodeInternalError, Message: "Internal error: " + err.Error()}
}

// InputResponse converts a client's result to a server-to-client request
// of method into the protocol.InputResponse the handler reads through
// Request.InputResponse (docs/dual-era.md §3.6). The result is decoded
// strictly as the 2025-11-25 result of the method (every older revision's
// results decode with it); its _meta is dropped (a Root's own _meta is
// kept). A result that does not decode is the client error -32602 for that
// input request. Checking an accepted form's content against the
// requestedSchema that was sent is the caller's (R-ELIC-11).
func InputResponse(method string, result json.RawMessage) (protocol.InputResponse, *Error) {
	var v any
	var out protocol.InputResponse
	switch method {
	case protocol.MethodElicitationCreate:
		var x mcp20251125.ElicitResult
		if err := mcp20251125.Unmarshal(result, &x); err != nil {
			return out, badResult(method, err)
		}
		x.Meta = nil
		v = &x
		out.Value = &protocol.ElicitResult{}
	case protocol.MethodSamplingCreateMessage:
		var x mcp20251125.CreateMessageResult
		if err := mcp20251125.Unmarshal(result, &x); err != nil {
			return out, badResult(method, err)
		}
		x.Meta = nil
		v = &x
		out.Value = &protocol.CreateMessageResult{}
	case protocol.MethodRootsList:
		var x mcp20251125.ListRootsResult
		if err := mcp20251125.Unmarshal(result, &x); err != nil {
			return out, badResult(method, err)
		}
		x.Meta = nil
		v = &x
		out.Value = &protocol.ListRootsResult{}
	default:
		return out, internal(fmt.Errorf("no input request has the method %q", method))
	}
	b, err := mcp20251125.Marshal(v)
	if err != nil {
		return protocol.InputResponse{}, badResult(method, err)
	}
	if err := protocol.Unmarshal(b, out.Value); err != nil {
		return protocol.InputResponse{}, badResult(method, err)
	}
	return out, nil
}

func badResult(method string, err error) *Error {
	return &Error{Code: protocol.CodeInvalidParamsError, Message: fmt.Sprintf("invalid %s result: %v", method, err)}
}
